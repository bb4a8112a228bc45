// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A plain Chat request goes to a Chat backend as it came (plainchat.go).
// These tests hold what the backend gets, and what the gateway reads of
// the request, to what the decoder and EncodeRequest make of it.

// plainSameHandler is a Handler with one provider of each kind the plain
// path must agree with the encoder on.
func plainSameHandler(t testing.TB) *Handler {
	temp := 0.25
	h, err := New(&Config{Providers: []Provider{
		{Name: "openai", API: APIChat, Backend: BackendOpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-x"},
		{Name: "compat", API: APIChat, Backend: BackendCompat, Compat: true, BaseURL: "http://127.0.0.1:1/v1", Model: `org/model "q"`},
		{Name: "bounded", API: APIChat, Backend: BackendCompat, Compat: true, BaseURL: "http://127.0.0.1:1/v1", Model: "m", MaxTokens: 50, Temperature: &temp},
		{Name: "vllm", API: APIChat, Backend: BackendVLLM, Compat: true, BaseURL: "http://127.0.0.1:1/v1", Model: "m", Parsing: ParsingReasoningField},
		{Name: "vllm-think", API: APIChat, Backend: BackendVLLM, Compat: true, BaseURL: "http://127.0.0.1:1/v1", Model: "m", Parsing: ParsingThinkTags},
		{Name: "hermes", API: APIChat, Backend: BackendCompat, Compat: true, BaseURL: "http://127.0.0.1:1/v1", Model: "m", ToolParser: "hermes"},
		{Name: "messages", API: APIMessages, Backend: BackendAnthropic, BaseURL: "http://127.0.0.1:1", Model: "claude"},
	}, Models: map[string]string{"m": "openai"}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// checkPlainSame fails t when body, read by the Handler, is written for
// any of h's providers other than the encoder writes it.
func checkPlainSame(t *testing.T, h *Handler, body []byte) (plain bool) {
	t.Helper()
	got, gerr := h.decode(APIChat, body)
	want, werr := DecodeRequest(APIChat, body, -1)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%s: decode: %v; the decoder: %v", body, gerr, werr)
	}
	if werr != nil {
		if gerr.Error() != werr.Error() {
			t.Fatalf("%s: decode: %v; the decoder: %v", body, gerr, werr)
		}
		return false
	}
	if got.plain == nil {
		return false
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"Model", got.Model, want.Model},
		{"Stream", got.Stream, want.Stream},
		{"IncludeUsage", got.IncludeUsage, want.IncludeUsage},
		{"MaxTokens", got.MaxTokens, want.MaxTokens},
		{"Tools", len(got.Tools), len(want.Tools)},
	} {
		if f.got != f.want {
			t.Errorf("%s: %s = %v, the decoder's %v", body, f.name, f.got, f.want)
		}
	}
	for name, p := range h.providers {
		gout, gerr := h.encodeFor(got, p)
		wout, werr := h.encodeFor(want, p)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%s to %s: %v; the encoder: %v", body, name, gerr, werr)
		}
		if werr != nil {
			continue
		}
		var g, w any
		if err := json.Unmarshal(gout.Body, &g); err != nil {
			t.Fatalf("%s to %s: the body sent is not JSON: %v\n%s", body, name, err, gout.Body)
		}
		if err := json.Unmarshal(wout.Body, &w); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("%s to %s (-encoder +plain):\n%s", body, name, d)
		}
		if gout.whole != wout.whole || len(gout.Warnings) != len(wout.Warnings) || (gout.Names == nil) != (wout.Names == nil) {
			t.Errorf("%s to %s: whole %v, %d warnings, names %v; the encoder's %v, %d, %v", body, name,
				gout.whole, len(gout.Warnings), gout.Names != nil, wout.whole, len(wout.Warnings), wout.Names != nil)
		}
	}
	return true
}

var plainSameBodies = []struct {
	body  string
	plain bool
}{
	{`{"model":"m","messages":[{"role":"user","content":"Say hello."}],"max_tokens":64,"stream":false}`, true},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, true},
	{`{"messages":[{"content":"be brief","role":"system"},{"role":"user","content":"hi"},{"role":"assistant","content":""},{"role":"user","content":"again"}],"model":"m","stream":true,"stream_options":{"include_usage":true}}`, true},
	{`{"model":"m","messages":[{"role":"user","content":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/"}],"temperature":0.70,"top_p":1e0,"max_completion_tokens":7}`, true},
	{` { "model" : "m" , "messages" : [ { "role" : "user" , "content" : "x" } ] , "stream" : true } `, true},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":false},"stream":true}`, true},
	{`{"model":"m\u0021","messages":[{"role":"user","content":"hi"}],"temperature":-0,"top_p":0.5}`, true},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":999999999}`, true},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"seed":7,"user":"u\u0021","presence_penalty":-0.5,"frequency_penalty":0,"logit_bias":{"50256":-100},"response_format":{"type":"json_object"}}`, true},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"store":false,"metadata":{"a":"b"},"service_tier":"flex","prompt_cache_key":"k","verbosity":"low","seed":null,"user":null}`, true},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"logprobs":true,"top_logprobs":3,"modalities":["text"],"functions":[{"name":"f"}],"function_call":"auto"}`, true},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"s\u0065ed":1,"audio":null,"moderation":1}`, true},
	// Not plain: the decoder reads them.
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"seed":"7"}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"user":7}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"stop":"x"}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"n":1}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"low"}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"parallel_tool_calls":false}`, false},
	{`{"model":"m","messages":[{"role":"system","content":""},{"role":"user","content":"hi"}]}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"system","content":"late"}]}`, false},
	{`{"model":"m","messages":[{"role":"developer","content":"d"},{"role":"user","content":"hi"}]}`, false},
	{`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`, false},
	{`{"model":"m","messages":[{"role":"user","content":null}]}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi","name":"bob"}]}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":64,"max_completion_tokens":32}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":0}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":null}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":null}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":null}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true,"x":1}}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"unknown_member":"u"}`, false},
	{`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`, false},
	{`{"model":"m","messages":[{"role":"tool","tool_call_id":"c","content":"r"}]}`, false},
	{`{"model":"","messages":[{"role":"user","content":"hi"}]}`, false},
	{`{"model":"m","messages":[]}`, false},
	{`{"model":"m"}`, false},
	{`{"model":7,"messages":[{"role":"user","content":"hi"}]}`, false},
	{`[{"model":"m"}]`, false},
	{`{"model":"m","messages":[{"role":"user","content":"\ud800"}]}`, false},
	{`{"model":"m","model":"n","messages":[{"role":"user","content":"hi"}]}`, false},
}

func TestPlainChatSame(t *testing.T) {
	h := plainSameHandler(t)
	for _, tc := range plainSameBodies {
		if got := checkPlainSame(t, h, []byte(tc.body)); got != tc.plain {
			t.Errorf("%s: plain %v, want %v", tc.body, got, tc.plain)
		}
	}
}

func TestPlainProvider(t *testing.T) {
	h := plainSameHandler(t)
	want := map[string]bool{"openai": true, "compat": true, "bounded": true, "vllm": true,
		"vllm-think": false, "hermes": false, "messages": false}
	for name, p := range h.providers {
		if p.plain != want[name] {
			t.Errorf("%s: plain %v, want %v", name, p.plain, want[name])
		}
	}
}

func FuzzPlainChatSame(f *testing.F) {
	for _, tc := range plainSameBodies {
		f.Add([]byte(tc.body))
	}
	h := plainSameHandler(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkPlainSame(t, h, body)
	})
}

// BenchmarkPlainChat reads a long plain conversation (200 messages of
// about 1 KB) and writes it for a Chat backend: as it came (plain) and
// through the decoder and encoder (decoded), side by side.
func BenchmarkPlainChat(b *testing.B) {
	body := []byte(`{"model":"m","messages":[{"role":"system","content":"You are terse."}`)
	for i := range 200 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		text := strings.Repeat("Some words of the conversation, \"quoted\" now and then. ", 18)
		body = fmt.Appendf(body, `,{"role":%q,"content":%q}`, role, text)
	}
	body = append(body, `],"max_tokens":256,"stream":true,"stream_options":{"include_usage":true}}`...)
	h := plainSameHandler(b)
	p := h.providers["compat"]
	for _, mode := range []string{"plain", "decoded"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var r *Request
				var err error
				if mode == "plain" {
					r, err = h.decode(APIChat, body)
				} else {
					r, err = DecodeRequest(APIChat, body, -1)
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := h.encodeFor(r, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPlainChatServed sends a plain request through the Handler, with the
// plain path on and off: on, the backend gets the client's messages as
// written (the escape kept); off, as the encoder writes them; both get
// the same request, and the client the same answer.
func TestPlainChatServed(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":"caf\u00e9"}],"max_tokens":9,"seed":3}`
	answer := []byte(`{"id":"x","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	var sent [2][]byte
	var got [2]string
	for i, plain := range []bool{true, false} {
		rt := rtFunc(func(r *http.Request) (*http.Response, error) {
			sent[i], _ = io.ReadAll(r.Body)
			return wholeBackend{body: answer}.RoundTrip(r)
		})
		h, err := New(&Config{
			Providers: []Provider{{Name: "p", API: APIChat, Backend: BackendOpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-x"}},
			Models:    map[string]string{"m": "p"},
			Clients:   map[string]*http.Client{"p": {Transport: rt}},
			Now:       func() time.Time { return time.Unix(1700000000, 0) },
		})
		if err != nil {
			t.Fatal(err)
		}
		h.slowStreams = !plain
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
		if w.Code != http.StatusOK {
			t.Fatalf("plain %v: status %d: %s", plain, w.Code, w.Body)
		}
		got[i] = w.Body.String()
	}
	if !strings.Contains(string(sent[0]), `"content":"caf\u00e9"`) {
		t.Errorf("plain: the backend got %s, not the client's messages as written", sent[0])
	}
	if strings.Contains(string(sent[1]), `\u00e9`) {
		t.Errorf("decoded: the backend got %s, the messages as written", sent[1])
	}
	var a, b any
	if json.Unmarshal(sent[0], &a) != nil || json.Unmarshal(sent[1], &b) != nil {
		t.Fatalf("not JSON: %s, %s", sent[0], sent[1])
	}
	if d := cmp.Diff(b, a); d != "" {
		t.Errorf("the backend's request (-decoded +plain):\n%s", d)
	}
	if got[0] != got[1] {
		t.Errorf("answers differ:\nplain   %s\ndecoded %s", got[0], got[1])
	}
}
