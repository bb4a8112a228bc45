// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// memBackend answers every request from memory with body, so that a
// benchmark measures the gateway and nothing of a network or a server;
// with whole, a request for a whole answer (Accept: application/json)
// gets it, as from a real API.
type memBackend struct{ body, whole []byte }

func (m memBackend) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if m.whole != nil && r.Header.Get("Accept") == "application/json" {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, ContentLength: int64(len(m.whole)), Body: io.NopCloser(bytes.NewReader(m.whole)), Request: r}, nil
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(m.body)), Request: r}, nil
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// chunks is a Chat Completions stream of n text chunks of one token each.
func chunks(n int) []byte {
	lines := make([][]byte, 0, n+2)
	for i := range n {
		lines = append(lines, []byte(fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" tok%d"},"finish_reason":null}]}`, i)))
	}
	lines = append(lines, []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5}}`))
	return gatewaytest.ChatSSE(lines...)
}

// wholeOf is the whole answer of a Chat Completions stream.
func wholeOf(b *testing.B, stream []byte) []byte {
	whole, err := gatewaytest.Collapse("chat", stream)
	if err != nil {
		b.Fatal(err)
	}
	return whole
}

func benchGateway(b *testing.B, n int, stream bool) { benchGatewayAuth(b, n, stream, false, false) }

// benchGatewayAuth is benchGateway, behind the server's authentication
// with a bearer token when authed, as toolgate serve mounts the gateway.
func benchGatewayAuth(b *testing.B, n int, stream, authed, served bool) {
	var h http.Handler
	cfg := &gateway.Config{
		Providers: []gateway.Provider{{Name: "p", API: gateway.APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: gateway.ParsingReasoningField}},
		Models:    map[string]string{"m": "p"},
		Clients:   map[string]*http.Client{"p": {Transport: memBackend{body: chunks(n), whole: wholeOf(b, chunks(n))}}},
	}
	if served {
		// What toolgate serve adds by default: the access log line (a
		// text handler, written nowhere here) and the metrics.
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		m, err := gateway.NewMetrics(prometheus.NewRegistry())
		if err != nil {
			b.Fatal(err)
		}
		cfg.Metrics = m
	}
	h, err := gateway.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if authed {
		a, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"tg_0123456789abcdef0123456789abcdef": {ID: "agent"}}})
		if err != nil {
			b.Fatal(err)
		}
		h = a.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse})
	}
	body := fmt.Sprintf(`{"model":"m","stream":%v,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hi."}],"max_tokens":64,"temperature":0.2}`, stream)
	b.ReportAllocs()
	var w gatewaytest.Sink
	cpu0 := cpuNow()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		if authed {
			req.Header.Set("Authorization", "Bearer tg_0123456789abcdef0123456789abcdef")
		}
		w.Reset()
		h.ServeHTTP(&w, req)
		if w.Code != 200 || w.Bytes == 0 {
			b.Fatalf("status %d, %d bytes", w.Code, w.Bytes)
		}
	}
	b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
}

// BenchmarkGatewayChat is one Chat Completions request through the whole
// gateway to a Chat backend answering from memory: decode, route, write
// the backend request, read its stream, answer. With one chunk it is the
// gateway's cost per request; the difference between 1 and 256 chunks,
// divided by 255, is its cost per streamed chunk.
func BenchmarkGatewayChat(b *testing.B) {
	for _, n := range []int{1, 256} {
		for _, stream := range []bool{false, true} {
			b.Run(fmt.Sprintf("chunks=%d/stream=%v", n, stream), func(b *testing.B) { benchGateway(b, n, stream) })
		}
	}
}

// BenchmarkGatewayChatAuthed is BenchmarkGatewayChat with one chunk
// behind the server's authentication (a bearer token looked up, the
// identity put in the context), as toolgate serve runs it.
func BenchmarkGatewayChatAuthed(b *testing.B) {
	for _, stream := range []bool{false, true} {
		b.Run(fmt.Sprintf("chunks=1/stream=%v", stream), func(b *testing.B) { benchGatewayAuth(b, 1, stream, true, false) })
	}
}

// BenchmarkGatewayChatServed is BenchmarkGatewayChatAuthed with the access
// log line and the metrics toolgate serve adds to every request; the
// difference is their cost.
func BenchmarkGatewayChatServed(b *testing.B) {
	for _, stream := range []bool{false, true} {
		b.Run(fmt.Sprintf("chunks=1/stream=%v", stream), func(b *testing.B) { benchGatewayAuth(b, 1, stream, true, true) })
	}
}

// textDeltas is a Chat Completions stream of a text model's output cut
// into token-sized deltas (a word with its space).
func textDeltas(text string) []byte {
	var lines [][]byte
	for _, w := range strings.SplitAfter(text, " ") {
		b, _ := json.Marshal(w)
		lines = append(lines, fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`, b))
	}
	lines = append(lines, []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5}}`))
	return gatewaytest.ChatSSE(lines...)
}

// words returns n words of filler.
func fillerWords(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d ", prefix, i)
	}
	return b.String()
}

// twoBodies answers pass 2 (a request that continues the final message)
// with pass2 and anything else with pass1.
type twoBodies struct{ pass1, pass2 []byte }

func (t twoBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	b := t.pass1
	if bytes.Contains(body, []byte(`"continue_final_message":true`)) {
		b = t.pass2
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(b)), Request: r}, nil
}

const benchTools = `[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`

func benchText(b *testing.B, p gateway.Provider, rt http.RoundTripper, stream bool) {
	p.Name, p.API, p.BaseURL, p.Model = "p", gateway.APIChat, "http://backend.invalid/v1", "m"
	h, err := gateway.New(&gateway.Config{Providers: []gateway.Provider{p}, Models: map[string]string{"m": "p"}, Clients: map[string]*http.Client{"p": {Transport: rt}}})
	if err != nil {
		b.Fatal(err)
	}
	body := fmt.Sprintf(`{"model":"m","stream":%v,"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":%s}`, stream, benchTools)
	b.ReportAllocs()
	cpu0 := cpuNow()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 || !bytes.Contains(w.Body.Bytes(), []byte("get_weather")) && p.ToolParser != "" {
			b.Fatalf("status %d: %.300s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
}

// BenchmarkGatewayTextModel is a streamed answer of a text model, cut
// into token-sized deltas, through the gateway: with the backend's native
// tools (parser=openai, nothing read from the text), with reasoning split
// from think tags, and with a Hermes parser reading reasoning, answer and
// a call. n is the number of words of reasoning and of answer; the cost
// per chunk is the difference between n=200 and n=20 divided by the
// difference in deltas (360).
func BenchmarkGatewayTextModel(b *testing.B) {
	call := `<tool_call> {"name": "get_weather", "arguments": {"city": "Paris"}} </tool_call>`
	for _, n := range []int{20, 200} {
		text := "<think> " + fillerWords("r", n) + "</think> " + fillerWords("a", n) + call
		for _, mode := range []struct {
			name string
			p    gateway.Provider
		}{
			{"openai", gateway.Provider{Compat: true, Parsing: gateway.ParsingReasoningField}},
			{"think_tags", gateway.Provider{Compat: true, Parsing: gateway.ParsingThinkTags}},
			{"hermes", gateway.Provider{Compat: true, Parsing: gateway.ParsingThinkTags, ToolParser: "hermes"}},
		} {
			b.Run(fmt.Sprintf("parser=%s/words=%d", mode.name, n), func(b *testing.B) {
				benchText(b, mode.p, memBackend{body: textDeltas(text)}, true)
			})
		}
	}
}

// BenchmarkGatewayTwoPass compares one pass with two for the same text
// model output (200 words of reasoning, 200 of answer and a call), both
// streamed to the client: the difference is the gateway's cost of the
// second pass, the backend answering from memory.
func BenchmarkGatewayTwoPass(b *testing.B) {
	reasoning, answer := fillerWords("r", 200), fillerWords("a", 200)+`<tool_call> {"name": "get_weather", "arguments": {"city": "Paris"}} </tool_call>`
	p := gateway.Provider{Backend: gateway.BackendVLLM, Parsing: gateway.ParsingThinkTags, ToolParser: "hermes"}
	b.Run("passes=1", func(b *testing.B) {
		benchText(b, p, memBackend{body: textDeltas("<think> " + reasoning + "</think> " + answer)}, true)
	})
	p.TwoPass, p.MaxThinkingTokens = gateway.TwoPassOn, 1000
	b.Run("passes=2", func(b *testing.B) {
		benchText(b, p, twoBodies{textDeltas("<think> " + reasoning), textDeltas(answer)}, true)
	})
}

// BenchmarkGatewayWholeParsing is one Chat request that does not stream,
// the backend answering whole from memory with eight chunks' text, by how
// the provider reads reasoning: from a field, or in think tags (the
// default of an OpenAI-compatible server), whose filter a plain answer
// skips.
func BenchmarkGatewayWholeParsing(b *testing.B) {
	for _, pf := range []gateway.ParsingFormat{gateway.ParsingReasoningField, gateway.ParsingThinkTags} {
		b.Run("parsing="+string(pf), func(b *testing.B) {
			h, err := gateway.New(&gateway.Config{
				Providers: []gateway.Provider{{Name: "p", API: gateway.APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: pf}},
				Models:    map[string]string{"m": "p"},
				Clients:   map[string]*http.Client{"p": {Transport: memBackend{body: chunks(8), whole: wholeOf(b, chunks(8))}}},
			})
			if err != nil {
				b.Fatal(err)
			}
			body := `{"model":"m","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hi."}],"max_tokens":64,"temperature":0.2}`
			b.ReportAllocs()
			var w gatewaytest.Sink
			for b.Loop() {
				w.Reset()
				h.ServeHTTP(&w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
				if w.Code != 200 || w.Bytes == 0 {
					b.Fatalf("status %d, %d bytes", w.Code, w.Bytes)
				}
			}
		})
	}
}
