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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/kernel"
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
// and a tool call, then the tool run over MCP through the kernel, and a
// call of a tool that is not served. Each span kind carries the GenAI
// and MCP conventions' attributes: the request span the response model,
// usage and finish; each backend pass span its own pass's; the
// tools/call span the tool, session, request and call ids; and the
// execute_tool span the call id its audit record has.
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
audit: {db: %q}
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
`, filepath.Join(t.TempDir(), "audit.db"), bsrv.URL+"/v1")
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
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dropTables", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a tool that is not served was called")
	}
	sessionID := cs.ID()
	cs.Close()
	if err := stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Built.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	audited := map[string]string{} // call id by tool
	if err := s.Built.Store.Scan(ctx, func(r *kernel.AuditRecord) error {
		audited[r.Tool] = r.CallID
		return nil
	}); err != nil {
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
		request.attrs["gen_ai.request.model"] != "qwen" || request.attrs["gen_ai.response.model"] != "text-model" ||
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
	byPass := map[string]span{}
	for _, p := range passes {
		byPass[p.attrs["toolgate.pass"]] = p
	}
	p1, p2 := byPass["1"], byPass["2"]
	if p1.id == "" || p2.id == "" {
		t.Fatalf("passes %v", passes)
	}
	// Each pass has its own usage and finish: pass 1 stopped at the
	// think closer, pass 2 printed the call. The request bills the
	// prompt once (pass 1's) and the output of both.
	for _, p := range []span{p1, p2} {
		if p.attrs["gen_ai.provider.name"] != "vllm" || p.attrs["gen_ai.request.model"] != "qwen3" || p.attrs["gen_ai.response.model"] != "text-model" ||
			p.attrs["gen_ai.usage.input_tokens"] == "" || p.attrs["gen_ai.usage.output_tokens"] == "" {
			t.Errorf("pass %s span %+v", p.attrs["toolgate.pass"], p.attrs)
		}
	}
	if p1.attrs["gen_ai.response.finish_reasons"] != "stop" || p2.attrs["gen_ai.response.finish_reasons"] != "tool_calls" {
		t.Errorf("finish reasons: pass 1 %q, pass 2 %q", p1.attrs["gen_ai.response.finish_reasons"], p2.attrs["gen_ai.response.finish_reasons"])
	}
	tokens := func(sp span, kind string) int {
		n, _ := strconv.Atoi(sp.attrs["gen_ai.usage."+kind+"_tokens"])
		return n
	}
	if tokens(request, "input") != tokens(p1, "input") || tokens(p2, "input") <= tokens(p1, "input") ||
		tokens(request, "output") != tokens(p1, "output")+tokens(p2, "output") || tokens(p1, "output") == 0 || tokens(p2, "output") == 0 {
		t.Errorf("usage: request %v, pass 1 %v, pass 2 %v", request.attrs, p1.attrs, p2.attrs)
	}
	call := one("tools/call listTasks")
	tool := one("execute_tool listTasks")
	if call.parent != clientSpan || tool.parent != call.id {
		t.Errorf("tools/call parent %s, execute_tool parent %s (tools/call %s)", call.parent, tool.parent, call.id)
	}
	if tool.attrs["toolgate.decision"] != "allow" || tool.attrs["toolgate.status"] != "ok" || tool.attrs["gen_ai.tool.name"] != "listTasks" || tool.attrs["toolgate.rule"] == "" || len(tool.attrs["toolgate.grant_id"]) != 16 {
		t.Errorf("execute_tool span %+v", tool.attrs)
	}
	// The MCP call has an id: the tools/call span, the execute_tool span
	// and the audit record carry the same one, and the tools/call span
	// names the session and the JSON-RPC request it came in.
	callID := tool.attrs["gen_ai.tool.call.id"]
	if !strings.HasPrefix(callID, "mcp_") || call.attrs["gen_ai.tool.call.id"] != callID || audited["listTasks"] != callID {
		t.Errorf("call ids: execute_tool %q, tools/call %q, audit %q", callID, call.attrs["gen_ai.tool.call.id"], audited["listTasks"])
	}
	if call.attrs["mcp.method.name"] != "tools/call" || call.attrs["gen_ai.tool.name"] != "listTasks" || call.attrs["gen_ai.operation.name"] != "execute_tool" ||
		sessionID == "" || call.attrs["mcp.session.id"] != sessionID || call.attrs["jsonrpc.request.id"] == "" {
		t.Errorf("tools/call span %+v (session %q)", call.attrs, sessionID)
	}
	// A tool that is not served: the span keeps the method's name and
	// not the name the client sent; the client got invalid params.
	unknown := one("tools/call")
	refused := one("execute_tool dropTables")
	if unknown.parent != clientSpan || refused.parent != unknown.id || unknown.attrs["error.type"] != "-32602" || unknown.attrs["gen_ai.tool.name"] != "" ||
		unknown.attrs["mcp.session.id"] != sessionID || unknown.attrs["jsonrpc.request.id"] == call.attrs["jsonrpc.request.id"] {
		t.Errorf("unknown tool's tools/call span %+v, execute_tool parent %s", unknown, refused.parent)
	}
	if id := refused.attrs["gen_ai.tool.call.id"]; id == "" || id == callID || unknown.attrs["gen_ai.tool.call.id"] != id || audited["dropTables"] != id {
		t.Errorf("unknown tool's call ids: execute_tool %q, tools/call %q, audit %q", id, unknown.attrs["gen_ai.tool.call.id"], audited["dropTables"])
	}
	if _, ok := tool.attrs["gen_ai.tool.call.arguments"]; ok {
		t.Error("arguments in a span without capture_content")
	}
}
