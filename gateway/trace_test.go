// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/server"
)

// traceKeys are the span attributes the tests compare; the span's status
// description is compared as "status".
var traceKeys = []string{
	"gen_ai.provider.name", "gen_ai.request.model", "gen_ai.response.model",
	"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.response.finish_reasons",
	"http.response.status_code", "error.type", "toolgate.pass",
}

// spanView is what a test compares of a span.
func spanView(s sdktrace.ReadOnlySpan) map[string]string {
	all := map[string]string{}
	for _, kv := range s.Attributes() {
		all[string(kv.Key)] = kv.Value.String()
	}
	v := map[string]string{}
	for _, k := range traceKeys {
		if x, ok := all[k]; ok {
			v[k] = x
		}
	}
	if d := s.Status().Description; d != "" {
		v["status"] = d
	}
	return v
}

// tracedRig is a rig whose gateway traces into a recorder and keeps its
// observations.
type tracedRig struct {
	*rig
	rec *tracetest.SpanRecorder
	mu  sync.Mutex
	obs []server.Observation
}

func newTracedRig(t *testing.T, mod func(*gateway.Config)) *tracedRig {
	t.Helper()
	tr := &tracedRig{rec: tracetest.NewSpanRecorder()}
	tr.rig = newRig(t, func(c *gateway.Config) {
		c.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tr.rec))
		c.Observe = func(o server.Observation) {
			tr.mu.Lock()
			tr.obs = append(tr.obs, o)
			tr.mu.Unlock()
		}
		if mod != nil {
			mod(c)
		}
	})
	return tr
}

// done waits for the gateway's requests to end (their spans end once
// the answer is written) and returns the server span and the client
// spans, in the order they ended, and the observation.
func (tr *tracedRig) done(t *testing.T) (srv map[string]string, client []map[string]string, obs server.Observation) {
	t.Helper()
	tr.gw.Close()
	for _, s := range tr.rec.Ended() {
		switch s.SpanKind() {
		case trace.SpanKindServer:
			srv = spanView(s)
		case trace.SpanKindClient:
			client = append(client, spanView(s))
		}
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.obs) != 1 {
		t.Fatalf("%d observations, want 1", len(tr.obs))
	}
	return srv, client, tr.obs[0]
}

// TestTraceFaults checks the spans of a request per way a backend can
// fail: the CLIENT span of a pass says the backend's status code or the
// failure's class, the SERVER span the status the client got (or the
// class of a failure after the first byte), and the observation's Error
// names the backend's status rather than a failed connection.
func TestTraceFaults(t *testing.T) {
	okStream := gatewaytest.ChatSSE(
		[]byte(`{"id":"c","model":"backend-model-2026","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"c","model":"backend-model-2026","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}`))
	errStream := gatewaytest.ChatSSE([]byte(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"o"}}]}`),
		[]byte(`{"error":{"message":"overloaded","type":"server_error"}}`))
	const provider, model = "openai_compatible", "backend-openai-chat"
	tests := []struct {
		name      string
		replies   []gatewaytest.Reply
		stream    bool
		server    map[string]string
		client    map[string]string
		obsError  string
		obsStatus int
	}{
		{
			name:    "ok",
			replies: []gatewaytest.Reply{{Body: okStream}},
			server: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": "m-openai-chat", "gen_ai.response.model": "backend-model-2026",
				"gen_ai.usage.input_tokens": "7", "gen_ai.usage.output_tokens": "2", "gen_ai.response.finish_reasons": `["stop"]`, "http.response.status_code": "200"},
			client: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": model, "gen_ai.response.model": "backend-model-2026",
				"gen_ai.usage.input_tokens": "7", "gen_ai.usage.output_tokens": "2", "gen_ai.response.finish_reasons": `["stop"]`, "toolgate.pass": "1"},
			obsStatus: 200,
		},
		{
			name:    "backend-500-before-first-byte",
			replies: []gatewaytest.Reply{{Status: 500, Body: gatewaytest.ErrorBody("server_error", "boom "+testKey)}},
			server: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": "m-openai-chat",
				"http.response.status_code": "500", "error.type": "500", "status": "Internal Server Error"},
			client: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": model, "toolgate.pass": "1",
				"http.response.status_code": "500", "error.type": "500", "status": "the model backend answered 500"},
			obsError: "the model backend answered 500", obsStatus: 500,
		},
		{
			name:    "stall-past-idle",
			replies: []gatewaytest.Reply{{Body: okStream, StallAfter: 30}},
			// The first event was not whole: the model requested stands
			// for the one the backend did not name.
			server: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": "m-openai-chat", "gen_ai.response.model": model,
				"http.response.status_code": "504", "error.type": "504", "status": "Gateway Timeout"},
			client: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": model, "gen_ai.response.model": model, "toolgate.pass": "1",
				"error.type": "timeout", "status": "timed out"},
			obsError: "timed out", obsStatus: 504,
		},
		{
			name:    "html-answer",
			replies: []gatewaytest.Reply{{Body: []byte("<html><body>502 Bad Gateway</body></html>"), ContentType: "text/html"}},
			server: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": "m-openai-chat", "gen_ai.response.model": model,
				"http.response.status_code": "502", "error.type": "502", "status": "Bad Gateway"},
			// The client does not stream: the backend was asked for a
			// whole JSON answer, and HTML is not one.
			client: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": model, "gen_ai.response.model": model, "toolgate.pass": "1",
				"error.type": "malformed_stream", "status": "it sent an event that could not be read"},
			obsError: "it sent an event that could not be read", obsStatus: 502,
		},
		{
			name:    "cut-mid-stream-streaming",
			replies: []gatewaytest.Reply{{Body: okStream, CutAfter: 30}},
			stream:  true,
			server: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": "m-openai-chat", "gen_ai.response.model": model,
				"http.response.status_code": "200", "error.type": "connection", "status": "the connection failed"},
			client: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": model, "gen_ai.response.model": model, "toolgate.pass": "1",
				"error.type": "connection", "status": "the connection failed"},
			obsError: "the connection failed", obsStatus: 200,
		},
		{
			name:    "error-event-streaming",
			replies: []gatewaytest.Reply{{Body: errStream}},
			stream:  true,
			server: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": "m-openai-chat", "gen_ai.response.model": "m",
				"http.response.status_code": "200", "error.type": "backend_error", "status": "the model backend reported an error"},
			client: map[string]string{"gen_ai.provider.name": provider, "gen_ai.request.model": model, "gen_ai.response.model": "m", "toolgate.pass": "1",
				"error.type": "backend_error", "status": "the model backend reported an error"},
			obsStatus: 200,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rg := newTracedRig(t, func(c *gateway.Config) {
				for i := range c.Providers {
					c.Providers[i].IdleTimeout = 200 * time.Millisecond
					c.Providers[i].FirstTokenTimeout = 200 * time.Millisecond
				}
			})
			rg.backends[gateway.APIChat].Push(tt.replies...)
			resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", tt.stream))
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			srv, client, obs := rg.done(t)
			if diff := cmp.Diff(tt.server, srv); diff != "" {
				t.Errorf("SERVER span (-want +got):\n%s", diff)
			}
			if len(client) != 1 {
				t.Fatalf("%d CLIENT spans, want 1", len(client))
			}
			if diff := cmp.Diff(tt.client, client[0]); diff != "" {
				t.Errorf("CLIENT span (-want +got):\n%s", diff)
			}
			if obs.Request.Error != tt.obsError || obs.Request.Status != tt.obsStatus {
				t.Errorf("observation: status %d error %q, want %d %q", obs.Request.Status, obs.Request.Error, tt.obsStatus, tt.obsError)
			}
		})
	}
}

// TestTraceFallback: each provider tried has its own CLIENT span, the
// refused one with the backend's status.
func TestTraceFallback(t *testing.T) {
	rg := newTracedRig(t, func(c *gateway.Config) {
		c.Providers[0].Fallbacks = []string{"fake-anthropic"}
		c.Providers[0].Retries = -1
	})
	rg.backends[gateway.APIChat].Push(gatewaytest.Reply{Status: 503})
	rg.backends[gateway.APIMessages].Push(gatewaytest.Reply{Body: []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-x\",\"usage\":{\"input_tokens\":5,\"output_tokens\":0}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"from fallback\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")})
	resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", false))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	srv, client, _ := rg.done(t)
	want := []map[string]string{
		{"gen_ai.provider.name": "openai_compatible", "gen_ai.request.model": "backend-openai-chat", "toolgate.pass": "1",
			"http.response.status_code": "503", "error.type": "503", "status": "the model backend answered 503"},
		{"gen_ai.provider.name": "anthropic", "gen_ai.request.model": "backend-anthropic", "gen_ai.response.model": "claude-x", "toolgate.pass": "1",
			"gen_ai.usage.input_tokens": "5", "gen_ai.usage.output_tokens": "2", "gen_ai.response.finish_reasons": `["stop"]`},
	}
	if diff := cmp.Diff(want, client); diff != "" {
		t.Errorf("CLIENT spans (-want +got):\n%s", diff)
	}
	if srv["gen_ai.response.model"] != "claude-x" || srv["gen_ai.provider.name"] != "anthropic" {
		t.Errorf("SERVER span %v", srv)
	}
}

// TestTraceTwoPass: a two-pass answer has one CLIENT span per pass, each
// with its own pass's usage and finish; the SERVER span has the turn's.
func TestTraceTwoPass(t *testing.T) {
	rg := newTracedRig(t, func(c *gateway.Config) {
		p := &c.Providers[0]
		p.Backend, p.Compat, p.TwoPass, p.MaxThinkingTokens, p.MaxResponseTokens = gateway.BackendOllama, true, gateway.TwoPassOn, 64, 64
	})
	b := rg.backends[gateway.APIChat]
	b.Respond = (&gatewaytest.TextModel{Script: "<think>Paris is in France.</think>\n\nIt is sunny in Paris today."}).Respond
	resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", false))
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	srv, client, _ := rg.done(t)
	// The fake counts words: the prompt has 3; pass 1 reasons in 4,
	// which pass 2's prompt holds in its think block (6 more); pass 2
	// answers in 6. The turn bills the prompt once and both outputs.
	want := []map[string]string{
		{"gen_ai.provider.name": "ollama", "gen_ai.request.model": "backend-openai-chat", "gen_ai.response.model": "text-model", "toolgate.pass": "1",
			"gen_ai.usage.input_tokens": "3", "gen_ai.usage.output_tokens": "4", "gen_ai.response.finish_reasons": `["stop"]`},
		{"gen_ai.provider.name": "ollama", "gen_ai.request.model": "backend-openai-chat", "gen_ai.response.model": "text-model", "toolgate.pass": "2",
			"gen_ai.usage.input_tokens": "9", "gen_ai.usage.output_tokens": "6", "gen_ai.response.finish_reasons": `["stop"]`},
	}
	if diff := cmp.Diff(want, client); diff != "" {
		t.Errorf("CLIENT spans (-want +got):\n%s", diff)
	}
	wantSrv := map[string]string{"gen_ai.provider.name": "ollama", "gen_ai.request.model": "m-openai-chat", "gen_ai.response.model": "text-model",
		"gen_ai.usage.input_tokens": "3", "gen_ai.usage.output_tokens": "10", "gen_ai.response.finish_reasons": `["stop"]`, "http.response.status_code": "200"}
	if diff := cmp.Diff(wantSrv, srv); diff != "" {
		t.Errorf("SERVER span (-want +got):\n%s", diff)
	}
}

// TestTraceProviderName: gen_ai.provider.name is the registry's value of
// the vendor a provider's base URL names, else its backend kind's.
func TestTraceProviderName(t *testing.T) {
	tests := []struct {
		name    string
		api     gateway.API
		backend gateway.Backend
		base    string
		want    string
	}{
		{name: "openai", api: gateway.APIResponses, backend: gateway.BackendOpenAI, base: "https://api.openai.com/v1", want: "openai"},
		{name: "openai-default-kind", api: gateway.APIChat, base: "https://gw.example.com/v1", want: "openai"},
		{name: "azure", api: gateway.APIChat, backend: gateway.BackendOpenAI, base: "https://acme.openai.azure.com/openai/v1", want: "azure.ai.openai"},
		{name: "anthropic", api: gateway.APIMessages, backend: gateway.BackendAnthropic, base: "https://api.anthropic.com", want: "anthropic"},
		{name: "anthropic-default-kind", api: gateway.APIMessages, base: "https://proxy.example.com", want: "anthropic"},
		{name: "gemini", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://generativelanguage.googleapis.com/v1beta/openai", want: "gcp.gemini"},
		{name: "vertex", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/endpoints/openapi", want: "gcp.vertex_ai"},
		{name: "bedrock", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1", want: "aws.bedrock"},
		{name: "deepseek", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://api.deepseek.com/v1", want: "deepseek"},
		{name: "groq", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://api.groq.com/openai/v1", want: "groq"},
		{name: "mistral", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://api.mistral.ai/v1", want: "mistral_ai"},
		{name: "perplexity", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://api.perplexity.ai", want: "perplexity"},
		{name: "xai", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://api.x.ai/v1", want: "x_ai"},
		{name: "cohere", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://api.cohere.ai/compatibility/v1", want: "cohere"},
		{name: "watsonx", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://us-south.ml.cloud.ibm.com/ml/v1", want: "ibm.watsonx.ai"},
		{name: "vllm", api: gateway.APIChat, backend: gateway.BackendVLLM, base: "http://10.0.0.5:8000/v1", want: "vllm"},
		{name: "llamacpp", api: gateway.APIChat, backend: gateway.BackendLlamaCpp, base: "http://127.0.0.1:8080/v1", want: "llama.cpp"},
		{name: "ollama", api: gateway.APIChat, backend: gateway.BackendOllama, base: "http://127.0.0.1:11434/v1", want: "ollama"},
		{name: "compat", api: gateway.APIChat, backend: gateway.BackendCompat, base: "https://llm.internal.example/v1", want: "openai_compatible"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every host is answered by one fake, with 500: the span is
			// named before the backend answers.
			fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, `{"error":{"message":"no"}}`, http.StatusInternalServerError)
			}))
			defer fake.Close()
			fu, _ := url.Parse(fake.URL)
			rec := tracetest.NewSpanRecorder()
			h, err := gateway.New(&gateway.Config{
				Providers:      []gateway.Provider{{Name: "p", API: tt.api, Backend: tt.backend, Compat: tt.backend == gateway.BackendCompat, BaseURL: tt.base, Model: "m", Retries: -1}},
				Clients:        map[string]*http.Client{"p": {Transport: redirect{fu.Host}}},
				TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)),
			})
			if err != nil {
				t.Fatal(err)
			}
			front := gateway.APIChat
			body := clientBody(front, "p", false)
			req := httptest.NewRequest(http.MethodPost, routes[front], strings.NewReader(body))
			h.ServeHTTP(httptest.NewRecorder(), req)
			got := map[trace.SpanKind]string{}
			for _, s := range rec.Ended() {
				got[s.SpanKind()] = spanView(s)["gen_ai.provider.name"]
			}
			want := map[trace.SpanKind]string{trace.SpanKindServer: tt.want, trace.SpanKindClient: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("gen_ai.provider.name by span kind (-want +got):\n%s", diff)
			}
		})
	}
}

// redirect sends every request to one host, over plain HTTP.
type redirect struct{ host string }

func (rd redirect) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = "http", rd.host
	return http.DefaultTransport.RoundTrip(r)
}
