// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"

	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/sse"
)

const testKey = "sk-backend-secret-123456"

// rig is a gateway in front of one fake backend per API.
type rig struct {
	gw       *httptest.Server
	backends map[gateway.API]*gatewaytest.Backend
}

func newRig(t *testing.T, mod func(*gateway.Config)) *rig {
	t.Helper()
	rg := &rig{backends: map[gateway.API]*gatewaytest.Backend{}}
	cfg := &gateway.Config{
		Models: map[string]string{},
	}
	for _, api := range []gateway.API{gateway.APIChat, gateway.APIMessages, gateway.APIResponses} {
		b := gatewaytest.NewBackend()
		srv := httptest.NewServer(b)
		t.Cleanup(srv.Close)
		rg.backends[api] = b
		name := "fake-" + string(api)
		base := srv.URL + "/v1"
		if api == gateway.APIMessages {
			base = srv.URL
		}
		cfg.Providers = append(cfg.Providers, gateway.Provider{Name: name, API: api, BaseURL: base, APIKey: testKey, Model: "backend-" + string(api), Compat: api == gateway.APIChat, Retries: 2, IdleTimeout: 2 * time.Second, FirstTokenTimeout: 2 * time.Second})
		cfg.Models["m-"+string(api)] = name
	}
	if mod != nil {
		mod(cfg)
	}
	h, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rg.gw = httptest.NewServer(authed(t, h))
	t.Cleanup(rg.gw.Close)
	return rg
}

// authed puts h behind the server's authentication, as toolgate serve
// mounts it: the token "client-token" is the principal "agent".
func authed(t *testing.T, h http.Handler) http.Handler {
	t.Helper()
	a, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"client-token": {ID: "agent"}}})
	if err != nil {
		t.Fatal(err)
	}
	return a.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse})
}

var routes = map[gateway.API]string{gateway.APIChat: "/v1/chat/completions", gateway.APIMessages: "/v1/messages", gateway.APIResponses: "/v1/responses"}

// clientBody is a minimal request of each front door.
func clientBody(front gateway.API, model string, stream bool) string {
	switch front {
	case gateway.APIMessages:
		return fmt.Sprintf(`{"model":%q,"max_tokens":256,"stream":%v,"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":[{"name":"weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}}]}`, model, stream)
	case gateway.APIResponses:
		return fmt.Sprintf(`{"model":%q,"stream":%v,"input":"Weather in Paris?","tools":[{"type":"function","name":"weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]}`, model, stream)
	}
	return fmt.Sprintf(`{"model":%q,"stream":%v,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}}]}`, model, stream)
}

func (rg *rig) post(t *testing.T, front gateway.API, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, rg.gw.URL+routes[front], strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if front == gateway.APIMessages {
		req.Header.Set("x-api-key", "client-token")
		req.Header.Set("anthropic-version", "2023-06-01")
	} else {
		req.Header.Set("Authorization", "Bearer client-token")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readTurn reads a front door's answer, streamed or not, into a turn by
// the front door's own decoder (streams) or a minimal JSON read (bodies).
func readTurn(t *testing.T, front gateway.API, resp *http.Response) (text string, calls []string, finish string, streamErr bool) {
	t.Helper()
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		dec, _ := gateway.NewStreamDecoder(front)
		col := gateway.NewCollector()
		r := sse.NewReader(bytes.NewReader(data), nil)
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			evs, err := dec.Decode(ev.Name, ev.Data)
			if err != nil {
				t.Fatalf("the front door's stream does not read: %v\n%s", err, data)
			}
			for _, e := range evs {
				if err := col.Add(e); err != nil {
					t.Fatalf("front door stream out of order: %v", err)
				}
			}
		}
		if evs, err := dec.End(); err == nil {
			for _, e := range evs {
				col.Add(e)
			}
		}
		tr := col.Turn()
		for _, c := range tr.Calls {
			calls = append(calls, c.Name+" "+string(c.Arguments))
		}
		return tr.Text, calls, string(tr.Finish), tr.Err != nil
	}
	var body struct {
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Content []struct {
			Type  string
			Text  string
			Name  string
			Input json.RawMessage
		}
		StopReason string `json:"stop_reason"`
		Output     []struct {
			Type      string
			Name      string
			Arguments string
			Content   []struct{ Text string }
		}
		Status string
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, data)
	}
	switch front {
	case gateway.APIChat:
		m := body.Choices[0].Message
		if m.Content != nil {
			text = *m.Content
		}
		for _, c := range m.ToolCalls {
			calls = append(calls, c.Function.Name+" "+c.Function.Arguments)
		}
		finish = body.Choices[0].FinishReason
	case gateway.APIMessages:
		for _, c := range body.Content {
			switch c.Type {
			case "text":
				text += c.Text
			case "tool_use":
				calls = append(calls, c.Name+" "+string(c.Input))
			}
		}
		finish = body.StopReason
	case gateway.APIResponses:
		for _, o := range body.Output {
			switch o.Type {
			case "message":
				for _, c := range o.Content {
					text += c.Text
				}
			case "function_call":
				calls = append(calls, o.Name+" "+o.Arguments)
			}
		}
		finish = body.Status
	}
	return text, calls, finish, false
}

func compact(s string) string {
	name, args, _ := strings.Cut(s, " ")
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return name + " " + string(b)
}

// TestGatewayReplaysRecordedTraffic puts every front door, streaming and
// not, in front of each API's backend replaying a recorded tool-call turn
// cut at random: the client gets the call with its arguments and a
// tool-call finish in its own API's shape.
func TestGatewayReplaysRecordedTraffic(t *testing.T) {
	fixtures := map[gateway.API][]byte{
		gateway.APIChat: gatewaytest.ChatSSE(
			[]byte(`{"id":"c1","model":"x","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Need the tool."}}]}`),
			[]byte(`{"id":"c1","model":"x","choices":[{"index":0,"delta":{"content":"Checking."}}]}`),
			[]byte(`{"id":"c1","model":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"loc"}}]}}]}`),
			[]byte(`{"id":"c1","model":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"ation\":\"Paris\"}"}}]}}]}`),
			[]byte(`{"id":"c1","model":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			[]byte(`{"id":"c1","model":"x","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}`)),
		gateway.APIMessages: []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"x\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Checking.\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"weather\",\"input\":{}}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"Paris\\\"}\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":20}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"),
		gateway.APIResponses: []byte("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"model\":\"x\"}}\n\n" +
			"event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"item\":{\"id\":\"msg_1\",\"type\":\"message\"}}\n\n" +
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\"Checking.\"}\n\n" +
			"event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"weather\",\"arguments\":\"\"}}\n\n" +
			"event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"delta\":\"{\\\"location\\\":\\\"Paris\\\"}\"}\n\n" +
			"event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"weather\",\"arguments\":\"{\\\"location\\\":\\\"Paris\\\"}\"}}\n\n" +
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":10,\"output_tokens\":20}}}\n\n"),
	}
	rg := newRig(t, nil)
	wantFinish := map[gateway.API]map[bool]string{
		gateway.APIChat:      {true: "tool_calls", false: "tool_calls"},
		gateway.APIMessages:  {true: "tool_calls", false: "tool_use"},
		gateway.APIResponses: {true: "tool_calls", false: "completed"},
	}
	for backend, fixture := range fixtures {
		for _, front := range []gateway.API{gateway.APIChat, gateway.APIMessages, gateway.APIResponses} {
			for _, stream := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s->%s/stream=%v", backend, front, stream), func(t *testing.T) {
					rg.backends[backend].Push(gatewaytest.Reply{Body: fixture, Seed: uint64(len(front)) + 1})
					resp := rg.post(t, front, clientBody(front, "m-"+string(backend), stream))
					if resp.StatusCode != 200 {
						b, _ := io.ReadAll(resp.Body)
						t.Fatalf("status %d: %s", resp.StatusCode, b)
					}
					text, calls, finish, failed := readTurn(t, front, resp)
					if failed || text != "Checking." || len(calls) != 1 || compact(calls[0]) != `weather {"location":"Paris"}` {
						t.Errorf("got text %q calls %q failed %v", text, calls, failed)
					}
					if finish != wantFinish[front][stream] {
						t.Errorf("finish %q, want %q", finish, wantFinish[front][stream])
					}
					reqs := rg.backends[backend].Requests()
					last := reqs[len(reqs)-1]
					if backend == gateway.APIMessages && last.Header.Get("x-api-key") != testKey || backend != gateway.APIMessages && last.Header.Get("Authorization") != "Bearer "+testKey {
						t.Errorf("backend key not sent: %v", last.Header)
					}
					// A client that does not stream gets the backend's whole
					// answer, which the fake makes from the same stream.
					if want := fmt.Sprintf(`"stream":%v`, stream); !bytes.Contains(last.Body, []byte(want)) {
						t.Errorf("backend not asked for %s: %s", want, last.Body)
					}
				})
			}
		}
	}
}

func TestGatewayFaults(t *testing.T) {
	okStream := gatewaytest.ChatSSE([]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`))
	tests := []struct {
		name     string
		replies  []gatewaytest.Reply
		stream   bool
		status   int
		text     string
		streamed bool // the stream ends with an error event
		attempts int
	}{
		{name: "retry-429-retry-after", replies: []gatewaytest.Reply{{Status: 429, Header: http.Header{"Retry-After": {"0"}}, Body: gatewaytest.ErrorBody("rate_limit", "slow down")}, {Body: okStream}}, status: 200, text: "ok", attempts: 2},
		{name: "retry-503-then-ok", replies: []gatewaytest.Reply{{Status: 503}, {Status: 502}, {Body: okStream}}, status: 200, text: "ok", attempts: 3},
		{name: "retry-after-too-long", replies: []gatewaytest.Reply{{Status: 429, Header: http.Header{"Retry-After": {"18446744074"}}, Body: gatewaytest.ErrorBody("rate_limit", "later")}}, status: 429, attempts: 1},
		{name: "500-not-retried", replies: []gatewaytest.Reply{{Status: 500, Body: gatewaytest.ErrorBody("server_error", "boom "+testKey)}}, status: 500, attempts: 1},
		{name: "backend-401-is-502", replies: []gatewaytest.Reply{{Status: 401, Body: gatewaytest.ErrorBody("authentication_error", "invalid x-api-key")}}, status: 502, attempts: 1},
		{name: "400-passed-on", replies: []gatewaytest.Reply{{Status: 400, Body: gatewaytest.ErrorBody("invalid_request_error", "bad tool schema")}}, status: 400, attempts: 1},
		{name: "html-answer", replies: []gatewaytest.Reply{{Body: []byte("<html><body>502 Bad Gateway</body></html>"), ContentType: "text/html"}}, status: 502, attempts: 1},
		{name: "cut-mid-stream-nonstreaming", replies: []gatewaytest.Reply{{Body: okStream, CutAfter: 30}}, status: 502, attempts: 1},
		{name: "cut-mid-stream-streaming", replies: []gatewaytest.Reply{{Body: okStream, CutAfter: 30}}, stream: true, status: 200, streamed: true, attempts: 1},
		{name: "stall-past-idle", replies: []gatewaytest.Reply{{Body: okStream, StallAfter: 30}}, stream: true, status: 200, streamed: true, attempts: 1},
		{name: "stall-past-idle-nonstreaming", replies: []gatewaytest.Reply{{Body: okStream, StallAfter: 30}}, status: 504, attempts: 1},
		{name: "ten-megabyte-line", replies: []gatewaytest.Reply{{Body: append(append([]byte("data: "), bytes.Repeat([]byte("x"), 10<<20)...), "\n\n"...)}}, status: 502, attempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rg := newRig(t, func(c *gateway.Config) {
				for i := range c.Providers {
					c.Providers[i].IdleTimeout = 200 * time.Millisecond
					c.Providers[i].FirstTokenTimeout = 200 * time.Millisecond
				}
			})
			b := rg.backends[gateway.APIChat]
			b.Push(tt.replies...)
			resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", tt.stream))
			if resp.StatusCode != tt.status {
				data, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if tt.status != 200 {
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var e struct {
					Error struct{ Message, Type string }
				}
				if json.Unmarshal(data, &e) != nil || e.Error.Type == "" {
					t.Errorf("error body not in the OpenAI shape: %s", data)
				}
				if bytes.Contains(data, []byte(testKey)) {
					t.Errorf("backend key leaked: %s", data)
				}
			} else {
				text, _, _, failed := readTurn(t, gateway.APIChat, resp)
				if failed != tt.streamed || (!tt.streamed && text != tt.text) {
					t.Errorf("text %q failed %v", text, failed)
				}
			}
			if got := len(b.Requests()); got != tt.attempts {
				t.Errorf("%d attempts, want %d", got, tt.attempts)
			}
		})
	}
}

func TestGatewayFallback(t *testing.T) {
	rg := newRig(t, func(c *gateway.Config) {
		c.Providers[0].Fallbacks = []string{"fake-anthropic"}
		c.Providers[0].Retries = -1
	})
	rg.backends[gateway.APIChat].Push(gatewaytest.Reply{Status: 503})
	rg.backends[gateway.APIMessages].Push(gatewaytest.Reply{Body: []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\"}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"from fallback\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")})
	resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", false))
	text, _, finish, _ := readTurn(t, gateway.APIChat, resp)
	if text != "from fallback" || finish != "stop" {
		t.Errorf("text %q finish %q", text, finish)
	}
}

func TestGatewayRefusals(t *testing.T) {
	rg := newRig(t, func(c *gateway.Config) { c.MaxRequestBytes = 4096 })
	tests := []struct {
		name   string
		front  gateway.API
		body   string
		auth   bool
		status int
	}{
		{name: "no-token", front: gateway.APIChat, body: clientBody(gateway.APIChat, "m-openai-chat", false), status: 401},
		{name: "unknown-model", front: gateway.APIMessages, body: clientBody(gateway.APIMessages, "nope", false), auth: true, status: 404},
		{name: "malformed", front: gateway.APIResponses, body: `{"model":`, auth: true, status: 400},
		{name: "too-large", front: gateway.APIChat, body: `{"model":"m-openai-chat","messages":[{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}]}`, auth: true, status: 413},
		{name: "extra-field-other-api", front: gateway.APIChat, body: `{"model":"m-anthropic","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`, auth: true, status: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, rg.gw.URL+routes[tt.front], strings.NewReader(tt.body))
			if tt.auth {
				req.Header.Set("Authorization", "Bearer client-token")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if tt.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			if tt.front == gateway.APIMessages && !bytes.HasPrefix(data, []byte(`{"type":"error"`)) {
				t.Errorf("not an Anthropic error body: %s", data)
			}
		})
	}
	if n := len(rg.backends[gateway.APIChat].Requests()) + len(rg.backends[gateway.APIMessages].Requests()); n != 0 {
		t.Errorf("%d refused requests reached a backend", n)
	}
}

// TestGatewayClientDisconnect: a client that goes away cancels the
// backend's request, and no goroutine is left behind.
func TestGatewayClientDisconnect(t *testing.T) {
	before := runtime.NumGoroutine()
	rg := newRig(t, nil)
	b := rg.backends[gateway.APIChat]
	b.Push(gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"partial"}}]}`)), StallAfter: 40})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rg.gw.URL+routes[gateway.APIChat], strings.NewReader(clientBody(gateway.APIChat, "m-openai-chat", true)))
	req.Header.Set("Authorization", "Bearer client-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	resp.Body.Read(buf)
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(3 * time.Second)
	for b.Cancelled() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if b.Cancelled() == 0 {
		t.Fatal("the backend request was not cancelled")
	}
	rg.gw.Close()
	http.DefaultClient.CloseIdleConnections()
	for runtime.NumGoroutine() > before+6 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+6 {
		t.Errorf("%d goroutines left (%d before)", n, before)
	}
}

func TestModels(t *testing.T) {
	rg := newRig(t, nil)
	req, _ := http.NewRequest(http.MethodGet, rg.gw.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer client-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	if got := strings.Join(ids, ","); !strings.Contains(got, "m-anthropic") || strings.Contains(got, "backend-") {
		t.Errorf("models %s", got)
	}
}

func TestGatewayMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := gateway.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	rg := newRig(t, func(c *gateway.Config) { c.Metrics = m })
	rg.backends[gateway.APIChat].Push(gatewaytest.Reply{Body: gatewaytest.ChatSSE(
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":2}}}`))})
	for _, stream := range []bool{true, false} {
		resp := rg.post(t, gateway.APIMessages, clientBody(gateway.APIMessages, "m-openai-chat", stream))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp := rg.post(t, gateway.APIMessages, clientBody(gateway.APIMessages, "no-such-model", false))
	resp.Body.Close()
	got := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			var labels []string
			for _, l := range mt.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			key := mf.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch {
			case mt.Counter != nil:
				got[key] = mt.Counter.GetValue()
			case mt.Histogram != nil:
				got[key] = float64(mt.Histogram.GetSampleCount())
			}
		}
	}
	want := map[string]float64{
		`toolgate_gateway_requests_total{front=anthropic,key=,model=_unknown,principal=agent,provider=,status=404}`:                      1,
		`toolgate_gateway_requests_total{front=anthropic,key=,model=m-openai-chat,principal=agent,provider=fake-openai-chat,status=200}`: 2,
		`toolgate_gateway_tokens_total{key=,kind=input,model=m-openai-chat,principal=agent,provider=fake-openai-chat}`:                   14,
		`toolgate_gateway_tokens_total{key=,kind=output,model=m-openai-chat,principal=agent,provider=fake-openai-chat}`:                  6,
		`toolgate_gateway_tokens_total{key=,kind=reasoning,model=m-openai-chat,principal=agent,provider=fake-openai-chat}`:               4,
		`toolgate_gateway_time_to_first_token_seconds{front=anthropic,model=m-openai-chat,provider=fake-openai-chat}`:                    1, // streaming only
		`toolgate_gateway_backend_attempts_total{provider=fake-openai-chat}`:                                                             2,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// TestClaimedLengthReservesLittle sends bodies whose Content-Length
// claims a terabyte: the gateway sizes its read buffer by the claim only
// up to its limit (or a few MiB with none), so a lie reserves no memory.
func TestClaimedLengthReservesLittle(t *testing.T) {
	for _, limit := range []int64{0, -1} {
		t.Run(fmt.Sprintf("max_request_bytes=%d", limit), func(t *testing.T) {
			rg := newRig(t, func(c *gateway.Config) { c.MaxRequestBytes = limit })
			h := rg.gw.Config.Handler
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range 8 {
				req := httptest.NewRequest(http.MethodPost, routes[gateway.APIChat], strings.NewReader(`{"model":`))
				req.ContentLength = 1 << 40
				req.Header.Set("Authorization", "Bearer client-token")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusBadRequest {
					t.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 8*(4<<20)+(16<<20) {
				t.Errorf("8 requests claiming 1 TiB allocated %d MiB", got>>20)
			}
		})
	}
}
