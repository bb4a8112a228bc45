// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package telemetry_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/server/telemetry"
)

// span is one span as the collector got it.
type span struct {
	name, trace, id, parent string
	attrs                   map[string]string
}

// collector is an in-process OTLP/HTTP receiver: it decodes the
// protobuf export requests the SDK's exporter sends.
type collector struct {
	mu    sync.Mutex
	spans []span
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := span{name: s.Name, trace: hex.EncodeToString(s.TraceId), id: hex.EncodeToString(s.SpanId), parent: hex.EncodeToString(s.ParentSpanId), attrs: map[string]string{}}
				for _, kv := range s.Attributes {
					v := kv.Value
					switch {
					case v.GetStringValue() != "":
						sp.attrs[kv.Key] = v.GetStringValue()
					case v.GetArrayValue() != nil:
						var parts []string
						for _, e := range v.GetArrayValue().Values {
							parts = append(parts, e.GetStringValue())
						}
						sp.attrs[kv.Key] = strings.Join(parts, ",")
					default:
						sp.attrs[kv.Key] = fmt.Sprint(v.GetIntValue())
					}
				}
				c.spans = append(c.spans, sp)
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(nil)
}

type traceparentRT struct{ tp, token string }

func (t traceparentRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("traceparent", t.tp)
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestSpanTree sends spans to an in-process OTLP receiver and checks the
// tree of one agent turn under the client's traceparent: a gateway
// request answered with two passes (a text model capping its reasoning)
// and a tool call, then the tool run over MCP through the kernel.
func TestSpanTree(t *testing.T) {
	col := &collector{}
	otlp := httptest.NewServer(col)
	defer otlp.Close()
	ctx := context.Background()
	tp, stop, err := telemetry.New(ctx, telemetry.Config{Endpoint: otlp.URL + "/v1/traces", ServiceName: "toolgate-test"})
	if err != nil {
		t.Fatal(err)
	}
	backend := gatewaytest.NewBackend()
	backend.Respond = (&gatewaytest.TextModel{Script: "<think>The user wants the tasks.</think>\n\n<tool_call>\n{\"name\": \"listTasks\", \"arguments\": {}}\n</tool_call>"}).Respond
	bsrv := httptest.NewServer(backend)
	defer bsrv.Close()
	yaml := fmt.Sprintf(`
principals:
  - id: agent
auth:
  tokens:
    - principal: agent
      token_env: TOKEN
sources:
  - name: tasks
    demo: {}
providers:
  - name: qwen
    model_name: qwen3
    provider_backend: vllm_native
    api_config: {base_url: %q}
    tool_parser: hermes
    generation_config: {two_pass: true, max_thinking_tokens: 64, max_response_tokens: 64}
`, bsrv.URL+"/v1")
	f, err := config.Parse([]byte(yaml), "trace.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.BuildServing(ctx, &config.BuildOptions{Getenv: func(k string) string { return map[string]string{"TOKEN": "agent-token-123"}[k] }, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	hs := httptest.NewServer(s.Server.Handler())
	defer hs.Close()

	const traceID, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	rt := traceparentRT{tp: "00-" + traceID + "-" + clientSpan + "-01", token: "agent-token-123"}
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/chat/completions", strings.NewReader(
		`{"model":"qwen","messages":[{"role":"user","content":"My tasks?"}],"tools":[{"type":"function","function":{"name":"listTasks","parameters":{"type":"object"}}}]}`))
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"name":"listTasks"`) {
		t.Fatalf("gateway: %d %s", resp.StatusCode, body)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "listTasks", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	cs.Close()
	if err := stop(ctx); err != nil {
		t.Fatal(err)
	}

	col.mu.Lock()
	defer col.mu.Unlock()
	byName := map[string][]span{}
	for _, s := range col.spans {
		if s.trace != traceID {
			t.Errorf("span %q in trace %s, not the client's", s.name, s.trace)
		}
		byName[s.name] = append(byName[s.name], s)
	}
	one := func(name string) span {
		t.Helper()
		if len(byName[name]) != 1 {
			t.Fatalf("%d spans named %q; spans: %v", len(byName[name]), name, col.spans)
		}
		return byName[name][0]
	}
	request := one("chat qwen")
	if request.parent != clientSpan || request.attrs["gen_ai.operation.name"] != "chat" || request.attrs["gen_ai.provider.name"] != "vllm" ||
		request.attrs["gen_ai.usage.input_tokens"] == "" || request.attrs["gen_ai.response.finish_reasons"] != "tool_calls" {
		t.Errorf("request span %+v", request)
	}
	// Who asked, as the server authenticated it: the principal and the
	// token's id, never the token.
	if request.attrs["enduser.id"] != "agent" || request.attrs["toolgate.key_id"] != "agent#1" {
		t.Errorf("request span's caller: %q %q", request.attrs["enduser.id"], request.attrs["toolgate.key_id"])
	}
	for _, sp := range col.spans {
		for k, v := range sp.attrs {
			if strings.Contains(v, "agent-token-123") {
				t.Errorf("span %s attribute %s holds the token", sp.name, k)
			}
		}
	}
	passes := byName["chat qwen3"]
	if len(passes) != 2 {
		t.Fatalf("%d backend pass spans, want 2: %v", len(passes), col.spans)
	}
	for _, p := range passes {
		if p.parent != request.id {
			t.Errorf("pass %s is not a child of the request span", p.attrs["toolgate.pass"])
		}
	}
	if got := passes[0].attrs["toolgate.pass"] + passes[1].attrs["toolgate.pass"]; got != "12" && got != "21" {
		t.Errorf("passes %q", got)
	}
	call := one("tools/call")
	tool := one("execute_tool listTasks")
	if call.parent != clientSpan || tool.parent != call.id {
		t.Errorf("tools/call parent %s, execute_tool parent %s (tools/call %s)", call.parent, tool.parent, call.id)
	}
	if tool.attrs["toolgate.decision"] != "allow" || tool.attrs["toolgate.status"] != "ok" || tool.attrs["gen_ai.tool.name"] != "listTasks" || tool.attrs["toolgate.rule"] == "" || len(tool.attrs["toolgate.grant_id"]) != 16 {
		t.Errorf("execute_tool span %+v", tool.attrs)
	}
	if _, ok := tool.attrs["gen_ai.tool.call.arguments"]; ok {
		t.Error("arguments in a span without capture_content")
	}
}
