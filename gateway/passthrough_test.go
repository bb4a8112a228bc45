// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// ptKey is the backend's key: the hostile streams echo it.
const ptKey = "sk-passthrough-secret-0123456789"

// ptConfig is one way to run the gateway in a differential run.
type ptConfig struct {
	name      string
	reasoning ReasoningField
	capture   bool // audit with CaptureContent
	audit     bool
	usage     bool // the client asks for usage
	tools     bool // the client declares a tool (lowering maps names)
	maxEvent  int
	api       API           // front door and backend; if empty, APIChat
	openai    bool          // the provider is OpenAI's, not a compatible server
	parsing   ParsingFormat // if empty, ParsingReasoningField
}

var ptConfigs = []ptConfig{
	{name: "audit-capture-usage", reasoning: ReasoningContent, audit: true, capture: true, usage: true},
	{name: "audit-tools-both", reasoning: ReasoningBoth, audit: true, tools: true},
	{name: "plain-small-events", reasoning: ReasoningPlain, maxEvent: 2048, openai: true},
	{name: "think-tags-both", reasoning: ReasoningContent, usage: true, parsing: ParsingThinkTags},
	{name: "messages-audit-capture", api: APIMessages, audit: true, capture: true},
	{name: "messages-tools-small-events", api: APIMessages, audit: true, tools: true, maxEvent: 2048},
	{name: "responses-audit-capture", api: APIResponses, audit: true, capture: true},
	{name: "responses-tools-small-events", api: APIResponses, audit: true, tools: true, maxEvent: 2048},
}

// ptOutcome is everything a differential run compares: what the client
// got and what the gateway recorded.
type ptOutcome struct {
	Status   int
	Body     string
	Trailer  string
	Observed server.Request
	Records  []kernel.AuditRecord
}

// ptRun answers one streaming Chat request from a backend reached
// through rt, with the fast path on or off.
func ptRun(t testing.TB, c ptConfig, rt http.RoundTripper, slow bool) ptOutcome {
	t.Helper()
	g := newPTGateway(t, c, slow)
	defer g.close()
	g.rt = rt
	return g.run(t)
}

// ptGateway is a gateway for differential runs, reused by the fuzzer: rt
// answers its next request.
type ptGateway struct {
	c    ptConfig
	h    *Handler
	rt   http.RoundTripper
	st   *kernel.MemoryAuditStore
	log  *kernel.AuditLog
	seen int // records of earlier runs
	obs  server.Request
}

// rtFunc is an http.RoundTripper.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func newPTGateway(t testing.TB, c ptConfig, slow bool) *ptGateway {
	t.Helper()
	if c.parsing == "" {
		c.parsing = ParsingReasoningField
	}
	if c.api == "" {
		c.api = APIChat
	}
	g := &ptGateway{c: c}
	p := Provider{Name: "p", API: c.api, BaseURL: "http://backend.invalid/v1", APIKey: ptKey, Model: "backend-m", Compat: !c.openai && c.api == APIChat, Parsing: c.parsing, Retries: -1}
	if c.api == APIMessages {
		p.BaseURL = "http://backend.invalid"
	}
	cfg := &Config{
		Providers:      []Provider{p},
		Models:         map[string]string{"m": "p"},
		Clients:        map[string]*http.Client{"p": {Transport: rtFunc(func(r *http.Request) (*http.Response, error) { return g.rt.RoundTrip(r) })}},
		Now:            func() time.Time { return time.Unix(1700000000, 0) },
		ReasoningField: c.reasoning,
		MaxEventBytes:  c.maxEvent,
		CaptureContent: c.capture,
		Observe: func(o server.Observation) {
			if o.Request != nil {
				g.obs = *o.Request
				g.obs.ID = ""
			}
		},
	}
	if c.audit {
		g.st = kernel.NewMemoryAuditStore()
		var err error
		if g.log, err = kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: g.st}); err != nil {
			t.Fatal(err)
		}
		cfg.Audit = g.log
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.slowStreams = slow
	g.h = h
	return g
}

func (g *ptGateway) close() {
	if g.log != nil {
		g.log.Close(context.Background())
	}
}

// run answers one streaming Chat request.
func (g *ptGateway) run(t testing.TB) ptOutcome {
	t.Helper()
	c := g.c
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"Hi."}]`
	if c.usage {
		body += `,"stream_options":{"include_usage":true}`
	}
	if c.tools {
		body += `,"tools":[{"type":"function","function":{"name":"get.weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`
	}
	body += "}"
	path := "/v1/chat/completions"
	if c.api == APIMessages {
		path = "/v1/messages"
		body = `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Hi."}]`
		if c.tools {
			body += `,"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`
		}
		body += "}"
	}
	if c.api == APIResponses {
		path = "/v1/responses"
		body = `{"model":"m","stream":true,"input":"Hi."`
		if c.tools {
			body += `,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`
		}
		body += "}"
	}
	g.obs = server.Request{}
	w := httptest.NewRecorder()
	g.h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
	res := w.Result()
	out := ptOutcome{Status: res.StatusCode, Body: w.Body.String(), Trailer: res.Trailer.Get("X-Toolgate-Warnings"), Observed: g.obs}
	if g.log != nil {
		if err := g.log.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		recs := g.st.Records()
		for _, r := range recs[g.seen:] {
			r.Seq, r.Time, r.CallID, r.Parent, r.Prev, r.Hash = 0, time.Time{}, "", "", kernel.Hash{}, kernel.Hash{}
			out.Records = append(out.Records, r)
		}
		g.seen = len(recs)
	}
	return out
}

// ptBackend answers every request with body, cut into pieces by seed.
type ptBackend struct {
	body []byte
	seed uint64
}

func (b ptBackend) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	var rd io.Reader = bytes.NewReader(b.body)
	if b.seed != 0 {
		rd = &pieces{b: b.body, rng: rand.New(rand.NewPCG(b.seed, 5))}
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(rd), Request: r}, nil
}

// fakeBackend serves body from gatewaytest's fake, cut into pieces by
// seed, each flushed on its own.
func fakeBackend(t testing.TB, body []byte, seed uint64) http.RoundTripper {
	b := gatewaytest.NewBackend()
	b.Push(gatewaytest.Reply{Body: body, Seed: seed})
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	return rewriteHost{srv.URL}
}

// rewriteHost sends every request to base.
type rewriteHost struct{ base string }

func (r rewriteHost) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	u := *req.URL
	u.Scheme, u.Host = "http", strings.TrimPrefix(r.base, "http://")
	req.URL, req.Host = &u, ""
	return http.DefaultTransport.RoundTrip(req)
}

// chunkLine is a Chat chunk with choice 0's delta d (a JSON object's
// members) and finish reason f (JSON).
func chunkLine(d, f string) []byte {
	return []byte(`{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"backend-m","choices":[{"index":0,"delta":{` + d + `},"finish_reason":` + f + `}]}`)
}

func ptStart() []byte { return chunkLine(`"role":"assistant","content":""`, "null") }
func ptText(s string) []byte {
	return chunkLine(`"content":`+string(strictjson.AppendQuote(nil, s)), "null")
}
func ptStop(f string) []byte { return chunkLine("", `"`+f+`"`) }

// sseBody frames payloads as SSE events, with no [DONE].
func sseBody(lines ...[]byte) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString("data: ")
		b.Write(l)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// hostileStreams are hand-made backend streams that probe every place
// the fast path and the decoder could part ways.
func hostileStreams() []recorded {
	call := func(idx int, id, name, args string) []byte {
		return chunkLine(fmt.Sprintf(`"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]`, idx, id, name, strictjson.AppendQuote(nil, args)), "null")
	}
	args := func(idx int, args string) []byte {
		return chunkLine(fmt.Sprintf(`"tool_calls":[{"index":%d,"function":{"arguments":%s}}]`, idx, strictjson.AppendQuote(nil, args)), "null")
	}
	usage := []byte(`{"id":"chatcmpl-x","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":{"reasoning_tokens":2}}}`)
	chat := gatewaytest.ChatSSE
	huge := strings.Repeat("ab", 1500)
	tests := []struct {
		name string
		body []byte
	}{
		{"text", chat(ptStart(), ptText("Hello"), ptText(", world"), ptStop("stop"), usage)},
		{"key-split-across-events", chat(ptStart(), ptText("the key is sk-passthrough-"), ptText("secret-0123456789 ok"), ptStop("stop"))},
		{"key-in-error", chat(ptStart(), ptText("a"), []byte(`{"error":{"message":"upstream rejected `+ptKey+`","type":"server_error"}}`))},
		{"key-in-error-code", chat(ptStart(), []byte(`{"error":{"message":"x","code":"`+ptKey+`"}}`))},
		{"key-in-finish", chat(ptStart(), ptText("a"), ptStop(ptKey))},
		{"error-first", chat([]byte(`{"error":{"message":"overloaded","type":"overloaded_error"}}`))},
		{"duplicate-keys", chat(ptStart(), ptText("a"), chunkLine(`"content":"b","content":"c"`, "null"), ptStop("stop"))},
		{"duplicate-keys-top", chat(ptStart(), []byte(`{"choices":[{"index":0,"delta":{"content":"b"}}],"choices":[]}`), ptStop("stop"))},
		{"invalid-utf8", chat(ptStart(), ptText("a"), chunkLine("\"content\":\"b\xff\"", "null"), ptStop("stop"))},
		{"invalid-utf8-key", chat(ptStart(), ptText("a"), []byte("{\"x\xfe\":1,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}"), ptStop("stop"))},
		{"wrong-type-content", chat(ptStart(), ptText("a"), chunkLine(`"content":5`, "null"), ptStop("stop"))},
		{"wrong-type-index", chat(ptStart(), ptText("a"), []byte(`{"choices":[{"index":"0","delta":{"content":"b"}}]}`), ptStop("stop"))},
		{"wrong-type-delta", chat(ptStart(), ptText("a"), []byte(`{"choices":[{"index":0,"delta":["b"]}]}`), ptStop("stop"))},
		{"wrong-type-choices", chat(ptStart(), ptText("a"), []byte(`{"choices":{"index":0}}`), ptStop("stop"))},
		{"wrong-type-choice", chat(ptStart(), ptText("a"), []byte(`{"choices":[7]}`), ptStop("stop"))},
		{"wrong-type-usage", chat(ptStart(), ptText("a"), []byte(`{"choices":[],"usage":"many"}`), ptStop("stop"))},
		{"wrong-type-id", chat(ptStart(), ptText("a"), []byte(`{"id":7,"choices":[{"index":0,"delta":{"content":"b"}}]}`), ptStop("stop"))},
		{"wrong-type-model", chat(ptStart(), []byte(`{"model":{},"choices":[{"index":0,"delta":{"content":"b"}}]}`), ptStop("stop"))},
		{"wrong-type-finish", chat(ptStart(), ptText("a"), chunkLine(`"content":"b"`, "3"), ptStop("stop"))},
		{"wrong-type-tool-calls", chat(ptStart(), call(0, "c1", "get_weather", ""), chunkLine(`"tool_calls":{"index":0}`, "null"), ptStop("tool_calls"))},
		{"wrong-type-arguments", chat(ptStart(), call(0, "c1", "get_weather", ""), chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":3}}]`, "null"), ptStop("tool_calls"))},
		{"wrong-type-call-id", chat(ptStart(), call(0, "c1", "get_weather", ""), chunkLine(`"tool_calls":[{"index":0,"id":1,"function":{"arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"wrong-type-call-name", chat(ptStart(), call(0, "c1", "get_weather", ""), chunkLine(`"tool_calls":[{"index":0,"function":{"name":true,"arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"wrong-type-function", chat(ptStart(), call(0, "c1", "get_weather", ""), chunkLine(`"tool_calls":[{"index":0,"function":"x"}]`, "null"), ptStop("tool_calls"))},
		{"wrong-type-call", chat(ptStart(), call(0, "c1", "get_weather", ""), chunkLine(`"tool_calls":[null]`, "null"), ptStop("tool_calls"))},
		{"wrong-type-refusal", chat(ptStart(), chunkLine(`"refusal":[]`, "null"), ptStop("stop"))},
		{"not-json", chat(ptStart(), ptText("a"), []byte(`hello`), ptStop("stop"))},
		{"not-an-object", chat(ptStart(), ptText("a"), []byte(`[1]`), ptStop("stop"))},
		{"missing-done-finished", sseBody(ptStart(), ptText("a"), ptStop("stop"))},
		{"missing-done-unfinished", sseBody(ptStart(), ptText("a"), ptText("b"))},
		{"truncated-last-event", []byte("data: " + string(ptStart()) + "\n\ndata: " + string(ptText("a")) + "\n\ndata: " + string(ptStop("stop")))},
		{"truncated-mid-text", []byte("data: " + string(ptStart()) + "\n\ndata: " + string(ptText("a")) + "\n\ndata: {\"choi")},
		{"huge-event", chat(ptStart(), ptText("a"), ptText(huge), ptStop("stop"))},
		{"huge-line-split", chat(ptStart(), ptText(huge[:1900]), ptStop("stop"))},
		{"usage-not-asked", chat(ptStart(), ptText("a"), ptStop("stop"), usage)},
		{"usage-mid-stream", chat(ptStart(), ptText("a"), []byte(`{"choices":[{"index":0,"delta":{"content":"b"}}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`), ptStop("length"))},
		{"usage-null", chat(ptStart(), []byte(`{"choices":[{"index":0,"delta":{"content":"b"}}],"usage":null,"error":null}`), ptStop("stop"))},
		{"tool-call", chat(ptStart(), call(0, "c1", "get.weather", ""), args(0, `{"city":`), args(0, `"Paris"}`), ptStop("tool_calls"), usage)},
		{"tool-call-unmapped-name", chat(ptStart(), call(0, "c1", "get_weather", `{"city":"Oslo"}`), ptStop("stop"))},
		{"tool-calls-parallel", chat(ptStart(), call(0, "c1", "a", ""), args(0, `{"x":1}`), call(1, "c2", "b", ""), args(1, `{"y":`), args(1, "2}"), ptStop("tool_calls"))},
		{"tool-calls-interleaved", chat(ptStart(), call(0, "c1", "a", ""), call(1, "c2", "b", ""), args(0, `{"x":1}`), ptStop("tool_calls"))},
		{"tool-calls-in-one-chunk", chat(ptStart(), chunkLine(`"tool_calls":[{"index":0,"id":"a","function":{"name":"a","arguments":"{}"}},{"index":1,"id":"b","function":{"name":"b","arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"tool-call-two-arg-pieces-one-chunk", chat(ptStart(), call(0, "c1", "a", ""), chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":"{"}},{"index":0,"function":{"arguments":"}"}}]`, "null"), ptStop("tool_calls"))},
		{"tool-call-index-from-1", chat(ptStart(), call(1, "c1", "a", ""), args(1, `{"q":"\u2028"}`), ptStop("tool_calls"))},
		{"tool-call-no-index", chat(ptStart(), chunkLine(`"tool_calls":[{"id":"c1","function":{"name":"a","arguments":""}}]`, "null"), chunkLine(`"tool_calls":[{"function":{"arguments":"{\"k\":1}"}}]`, "null"), ptStop("tool_calls"))},
		{"tool-call-odd-index", chat(ptStart(), call(0, "c1", "a", ""), chunkLine(`"tool_calls":[{"index":00,"function":{"arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"tool-call-index-float", chat(ptStart(), call(0, "c1", "a", ""), chunkLine(`"tool_calls":[{"index":0.0,"function":{"arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"tool-call-index-huge", chat(ptStart(), call(0, "c1", "a", ""), chunkLine(`"tool_calls":[{"index":99999999999999999999,"function":{"arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"tool-call-args-object", chat(ptStart(), call(0, "c1", "a", ""), chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":{"k":1}}}]`, "null"), ptStop("tool_calls"))},
		{"tool-call-empty-args", chat(ptStart(), call(0, "c1", "a", ""), args(0, ""), ptStop("tool_calls"))},
		{"tool-call-args-after-finish", chat(ptStart(), call(0, "c1", "a", "{}"), chunkLine("", `"tool_calls"`), args(0, "{}"))},
		{"tool-call-args-unknown-index", chat(ptStart(), call(0, "c1", "a", ""), args(3, "{}"), ptStop("tool_calls"))},
		{"tool-call-args-before-call", chat(ptStart(), args(0, "{}"), ptStop("stop"))},
		{"tool-call-id-repeated", chat(ptStart(), call(0, "c1", "a", ""), chunkLine(`"tool_calls":[{"index":0,"id":"","type":"function","function":{"name":"","arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"text-and-call-one-chunk", chat(ptStart(), call(0, "c1", "a", ""), chunkLine(`"content":"t","reasoning":"r","tool_calls":[{"index":0,"function":{"arguments":"{}"}}]`, "null"), ptStop("tool_calls"))},
		{"reasoning", chat(ptStart(), chunkLine(`"reasoning_content":"think"`, "null"), chunkLine(`"reasoning":"plain"`, "null"), chunkLine(`"reasoning_content":"","reasoning":"second"`, "null"), chunkLine(`"reasoning_content":"first","reasoning":"second","content":"x"`, "null"), ptText("answer"), ptStop("stop"))},
		{"refusal", chat(ptStart(), ptText("a"), chunkLine(`"refusal":"no"`, "null"), chunkLine(`"refusal":""`, "null"), chunkLine(`"refusal":null,"content":"b"`, "null"), ptStop("stop"))},
		{"escapes", chat(ptStart(), ptText("q\"\\\n\r\t\x01\u2028\u2029é😀"), chunkLine(`"content":"\u00e9\ud83d\ude00\ud800x\/\b\f"`, "null"), chunkLine(`"content":"\u2028"`, "null"), ptStop("stop"))},
		{"escaped-keys", chat(ptStart(), []byte(`{"choices":[{"ind\u0065x":0,"delta":{"con\u0074ent":"k"}}]}`), []byte(`{"choices":[{"index":0,"d\u0065lta":{"content":"d"}}]}`), ptStop("stop"))},
		{"null-and-empty", chat(ptStart(), chunkLine(`"content":null`, "null"), chunkLine(`"content":""`, "null"), chunkLine(`"role":"assistant"`, "null"), []byte(`{"choices":null}`), []byte(`{"choices":[]}`), []byte(`{"choices":[{"index":0,"delta":null}]}`), []byte(`{"choices":[{"index":0}]}`), ptStop("stop"))},
		{"second-choice", chat(ptStart(), []byte(`{"choices":[{"index":1,"delta":{"content":"other"}}]}`), ptText("a"), []byte(`{"choices":[{"index":0,"delta":{"content":"b"}},{"index":1,"delta":{"content":"c"}}]}`), ptStop("stop"))},
		{"message-not-delta", chat(ptStart(), []byte(`{"choices":[{"index":0,"message":{"content":"m"}}]}`), []byte(`{"choices":[{"index":0,"delta":{"content":"d"},"message":{"content":"m"}}]}`), ptStop("stop"))},
		{"index-minus-zero", chat(ptStart(), []byte(`{"choices":[{"index":-0,"delta":{"content":"z"}}]}`), ptStop("stop"))},
		{"whitespace", chat(ptStart(), []byte(` { "choices" : [ { "index" : 0 , "delta" : { "content" : "w" } } ] } `), ptStop("stop"))},
		{"text-after-finish", chat(ptStart(), ptText("a"), ptStop("stop"), ptText("late"), usage)},
		{"text-after-done", append(chat(ptStart(), ptText("a"), ptStop("stop")), sseBody(ptText("late"), []byte("[DONE]"))...)},
		{"event-names", []byte("event: delta\ndata: " + string(ptStart()) + "\n\nevent: delta\ndata: " + string(ptText("n")) + "\n\n: comment\n\ndata: [DONE]\n\n")},
		{"multi-line-data", []byte("data: " + string(ptStart()) + "\n\ndata: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"ml\"}}]}\n\ndata: [DONE]\n\n")},
		{"first-chunk-text", chat(ptText("first"), ptText("second"), ptStop("stop"))},
		{"first-chunk-garbage", chat([]byte(`{"choices":5}`), ptText("x"))},
		{"finish-only", chat(ptStop("length"))},
		{"empty", nil},
		{"done-only", chat()},
		{"content-filter", chat(ptStart(), ptText("a"), ptStop("content_filter"))},
		{"template-whitespace", chat(ptStart(), ptText("a"), chunkLine(`"content":"b"  `, "null"), chunkLine(`"content": "c"`, "null"), chunkLine(`"content":"d"`, "null"), ptStop("stop"))},
		{"template-escaped", chat(ptStart(), ptText("a"), chunkLine(`"content":"\u0062\n"`, "null"), chunkLine(`"content":"\ud800"`, "null"), chunkLine(`"content":"\x"`, "null"), ptStop("stop"))},
		{"template-not-a-string", chat(ptStart(), ptText("a"), chunkLine(`"content":null`, "null"), chunkLine(`"content":["b"]`, "null"), ptStop("stop"))},
		{"template-two-values", chat(ptStart(), ptText("a"), chunkLine(`"content":"b","reasoning":"c"`, "null"), chunkLine(`"content":"d"`, "null"), ptStop("stop"))},
		{"template-control-char", chat(ptStart(), ptText("a"), chunkLine("\"content\":\"b\x01\"", "null"), ptStop("stop"))},
		{"template-args-call-changed", chat(ptStart(), call(0, "c1", "a", ""), args(0, "{"), args(0, `"k":1`), call(1, "c2", "b", ""), args(1, "{}"), args(0, "}"), ptStop("tool_calls"))},
		{"template-args-after-finish", chat(ptStart(), call(0, "c1", "a", ""), args(0, "{"), args(0, "}"), chunkLine("", `"stop"`), args(0, "{}"), ptText("late"))},
	}
	out := make([]recorded, len(tests))
	for i, tt := range tests {
		out[i] = recorded{name: "hostile/" + tt.name, api: APIChat, body: tt.body}
	}
	return out
}

// streamsFor are api's recorded streams and hostile ones.
func streamsFor(t testing.TB, api API) []recorded {
	var out []recorded
	for _, r := range recordedStreams(t) {
		if r.api == api {
			out = append(out, r)
		}
	}
	switch api {
	case APIMessages:
		return append(out, hostileMessages()...)
	case APIResponses:
		return append(out, hostileResponses()...)
	}
	return append(out, hostileStreams()...)
}

// msgEv is one Messages SSE event.
func msgEv(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

// hostileMessages are hand-made Messages streams for the fast path.
func hostileMessages() []recorded {
	start := msgEv("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"backend-m","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`)
	open := func(i int, block string) string {
		return msgEv("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block))
	}
	text := func(i int, s string) string {
		return msgEv("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, strictjson.AppendQuote(nil, s)))
	}
	raw := func(d string) string { return msgEv("content_block_delta", d) }
	stop := func(i int) string {
		return msgEv("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	end := func(reason string) string {
		return msgEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+reason+`","stop_sequence":null},"usage":{"output_tokens":12}}`) + msgEv("message_stop", `{"type":"message_stop"}`)
	}
	textBlock := `{"type":"text","text":""}`
	tests := []struct{ name, body string }{
		{"text", start + open(0, textBlock) + text(0, "Hello") + text(0, ", world") + text(0, "") + stop(0) + end("end_turn")},
		{"thinking", start + open(0, `{"type":"thinking","thinking":"","signature":""}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" more"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`) + stop(0) + open(1, textBlock) + text(1, "answer") + stop(1) + end("end_turn")},
		{"tool-use", start + open(0, textBlock) + text(0, "Let me check.") + stop(0) + open(1, `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}`) + raw(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`) + raw(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`) + raw(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`) + stop(1) + end("tool_use")},
		{"tool-input-after-stop", start + open(0, `{"type":"tool_use","id":"t","name":"f","input":{}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`) + stop(0) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"}"}}`) + end("tool_use")},
		{"tool-input-other-index", start + open(0, `{"type":"tool_use","id":"t","name":"f","input":{}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`) + raw(`{"type":"content_block_delta","index":5,"delta":{"type":"input_json_delta","partial_json":"x"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"}"}}`) + stop(0) + end("tool_use")},
		{"text-in-tool-block", start + open(0, `{"type":"tool_use","id":"t","name":"f","input":{}}`) + text(0, "odd") + stop(0) + end("tool_use")},
		{"text-before-block", start + text(0, "early") + text(0, " more") + end("end_turn")},
		{"text-in-thinking-block", start + open(0, `{"type":"thinking","thinking":"","signature":""}`) + text(0, "t") + text(0, "u") + stop(0) + end("end_turn")},
		{"key-split", start + open(0, textBlock) + text(0, "sk-passthrough-") + text(0, "secret-0123456789") + stop(0) + end("end_turn")},
		{"error-with-key", start + open(0, textBlock) + text(0, "a") + msgEv("error", `{"type":"error","error":{"type":"overloaded_error","message":"bad key `+ptKey+`"}}`)},
		{"stop-reason-with-key", start + open(0, textBlock) + text(0, "a") + stop(0) + end(ptKey)},
		{"duplicate-keys", start + open(0, textBlock) + text(0, "a") + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b","text":"c"}}`) + stop(0) + end("end_turn")},
		{"invalid-utf8", start + open(0, textBlock) + text(0, "a") + raw("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"b\xff\"}}") + stop(0) + end("end_turn")},
		{"wrong-types", start + open(0, textBlock) + text(0, "a") + raw(`{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"b"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}`) + stop(0) + end("end_turn")},
		{"wrong-type-delta", start + open(0, textBlock) + text(0, "a") + raw(`{"type":"content_block_delta","index":0,"delta":["b"]}`) + stop(0) + end("end_turn")},
		{"null-delta", start + open(0, textBlock) + text(0, "a") + raw(`{"type":"content_block_delta","index":0,"delta":null}`) + stop(0) + end("end_turn")},
		{"null-text", start + open(0, textBlock) + text(0, "a") + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}`) + stop(0) + end("end_turn")},
		{"case-folded-keys", start + open(0, textBlock) + text(0, "a") + raw(`{"Type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","TEXT":"c"}}`) + raw(`{"type":"content_block_delta","index":0,"Delta":{"type":"text_delta","text":"d"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"e","Text":"f"}}`) + stop(0) + end("end_turn")},
		{"case-folded-overrides", start + open(0, textBlock) + text(0, "a") + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"},"TYPE":"ping"}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"c","Type":"thinking_delta"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"d"},"DELTA":{"type":"text_delta","text":"D"}}`) + stop(0) + end("end_turn")},
		{"extra-keys", start + open(0, textBlock) + text(0, "a") + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b","citations":[]},"x":1}`) + stop(0) + end("end_turn")},
		{"key-order", start + open(0, textBlock) + text(0, "a") + raw(`{"delta":{"text":"b","type":"text_delta"},"index":0,"type":"content_block_delta"}`) + raw(`{"delta":{"text":"c","type":"thinking_delta"},"index":0,"type":"content_block_delta"}`) + raw(`{"delta":{"type":"text_delta"},"index":0,"type":"content_block_delta"}`) + raw(`{"delta":{"text":"d"},"index":0,"type":"content_block_delta"}`) + stop(0) + end("end_turn")},
		{"escapes", start + open(0, textBlock) + text(0, "q\"\\\n\t\x01\u2028é😀") + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9\ud800\\u0041"}}`) + text(0, "after") + stop(0) + end("end_turn")},
		{"template-changes", start + open(0, textBlock) + text(0, "a") + text(0, "b") + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"c","text":"d"}}`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"e"}  }`) + raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}`) + stop(0) + text(0, "late") + end("end_turn")},
		{"ping", start + open(0, textBlock) + text(0, "a") + msgEv("ping", `{"type":"ping"}`) + text(0, "b") + stop(0) + end("end_turn")},
		{"second-message-start", start + open(0, textBlock) + text(0, "a") + stop(0) + start + open(0, textBlock) + text(0, "b") + stop(0) + end("end_turn")},
		{"missing-stop", start + open(0, textBlock) + text(0, "a") + text(0, "b")},
		{"truncated", start + open(0, textBlock) + text(0, "a") + "event: content_block_delta\ndata: {\"type\":\"content_bl"},
		{"huge", start + open(0, textBlock) + text(0, "a") + text(0, strings.Repeat("xy", 1500)) + stop(0) + end("end_turn")},
		{"not-json", start + open(0, textBlock) + text(0, "a") + raw(`hello`) + stop(0) + end("end_turn")},
		{"after-stop", start + open(0, textBlock) + text(0, "a") + stop(0) + end("end_turn") + text(0, "late")},
		{"no-message-start", open(0, textBlock) + text(0, "a") + text(0, "b") + stop(0) + end("end_turn")},
	}
	out := make([]recorded, len(tests))
	for i, tt := range tests {
		out[i] = recorded{name: "hostile-messages/" + tt.name, api: APIMessages, body: []byte(tt.body)}
	}
	return out
}

// hostileResponses are hand-made Responses streams for the fast path.
func hostileResponses() []recorded {
	seq := 0
	ev := func(typ, body string) string {
		seq++
		return msgEv(typ, fmt.Sprintf(`{"type":%q,"sequence_number":%d%s}`, typ, seq, body))
	}
	resp := func(status string) string {
		return `,"response":{"id":"resp_1","object":"response","created_at":1,"status":"` + status + `","model":"backend-m","output":[]}`
	}
	start := func() string {
		seq = 0
		return ev("response.created", resp("in_progress")) + ev("response.in_progress", resp("in_progress"))
	}
	msg := func(i int) string {
		return ev("response.output_item.added", fmt.Sprintf(`,"output_index":%d,"item":{"id":"msg_%d","type":"message","status":"in_progress","content":[],"role":"assistant"}`, i, i)) +
			ev("response.content_part.added", fmt.Sprintf(`,"item_id":"msg_%d","output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`, i, i))
	}
	text := func(i int, s string) string {
		return ev("response.output_text.delta", fmt.Sprintf(`,"item_id":"msg_%d","output_index":%d,"content_index":0,"delta":%s,"logprobs":[],"obfuscation":"aB3"`, i, i, strictjson.AppendQuote(nil, s)))
	}
	reasoning := func(i int) string {
		return ev("response.output_item.added", fmt.Sprintf(`,"output_index":%d,"item":{"id":"rs_%d","type":"reasoning","summary":[]}`, i, i)) +
			ev("response.reasoning_summary_part.added", fmt.Sprintf(`,"item_id":"rs_%d","output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":""}`, i, i))
	}
	think := func(i int, s string) string {
		return ev("response.reasoning_summary_text.delta", fmt.Sprintf(`,"item_id":"rs_%d","output_index":%d,"summary_index":0,"delta":%s,"obfuscation":"x"`, i, i, strictjson.AppendQuote(nil, s)))
	}
	call := func(i int) string {
		return ev("response.output_item.added", fmt.Sprintf(`,"output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"in_progress","arguments":"","call_id":"call_%d","name":"get_weather"}`, i, i, i))
	}
	args := func(i int, s string) string {
		return ev("response.function_call_arguments.delta", fmt.Sprintf(`,"item_id":"fc_%d","output_index":%d,"delta":%s`, i, i, strictjson.AppendQuote(nil, s)))
	}
	callDone := func(i int, a string) string {
		return ev("response.function_call_arguments.done", fmt.Sprintf(`,"item_id":"fc_%d","output_index":%d,"arguments":%s`, i, i, strictjson.AppendQuote(nil, a))) +
			ev("response.output_item.done", fmt.Sprintf(`,"output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"completed","arguments":%s,"call_id":"call_%d","name":"get_weather"}`, i, i, strictjson.AppendQuote(nil, a), i))
	}
	raw := func(typ, data string) string { return msgEv(typ, data) }
	done := func(i int) string {
		return ev("response.output_text.done", fmt.Sprintf(`,"item_id":"msg_%d","output_index":%d,"content_index":0,"text":"..."`, i, i)) +
			ev("response.output_item.done", fmt.Sprintf(`,"output_index":%d,"item":{"id":"msg_%d","type":"message","status":"completed","content":[],"role":"assistant"}`, i, i))
	}
	end := func(status string) string {
		return ev("response."+status, `,"response":{"id":"resp_1","object":"response","created_at":1,"status":"`+status+`","model":"backend-m","output":[],"usage":{"input_tokens":10,"output_tokens":12,"output_tokens_details":{"reasoning_tokens":3}}}`)
	}
	type hostile struct{ name, body string }
	var tests []hostile
	add := func(name string, parts ...func() string) {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p())
		}
		tests = append(tests, hostile{name, b.String()})
	}
	s := func(v string) func() string { return func() string { return v } }
	add("text", start, func() string {
		return msg(0) + text(0, "Hello") + text(0, ", world") + text(0, "") + done(0) + end("completed")
	})
	add("reasoning-then-text", start, func() string {
		return reasoning(0) + think(0, "hmm") + think(0, " more") + ev("response.reasoning_text.delta", `,"item_id":"rs_0","output_index":0,"content_index":0,"delta":" raw"`) +
			ev("response.output_item.done", `,"output_index":0,"item":{"id":"rs_0","type":"reasoning","summary":[],"encrypted_content":"enc"}`) + msg(1) + text(1, "answer") + done(1) + end("completed")
	})
	add("tool-call", start, func() string {
		return msg(0) + text(0, "Let me check.") + done(0) + call(1) + args(1, "") + args(1, `{"city":`) + args(1, `"Paris"}`) + callDone(1, `{"city":"Paris"}`) + end("completed")
	})
	add("args-unknown-item", start, func() string {
		return call(0) + args(0, "{") + args(7, "x") + args(0, "}") + callDone(0, "{}") + end("completed")
	})
	add("args-after-done", start, func() string { return call(0) + args(0, "{}") + callDone(0, "{}") + args(0, "late") + end("completed") })
	add("args-no-item-id", start, func() string {
		return call(0) + args(0, "{") + raw("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","delta":"x"}`) + args(0, "}") + callDone(0, "{}") + end("completed")
	})
	add("text-before-item", start, func() string { return text(0, "early") + text(0, " more") + done(0) + end("completed") })
	add("reasoning-in-message", start, func() string {
		return msg(0) + text(0, "a") + think(0, "t") + think(0, "u") + text(0, "b") + end("completed")
	})
	add("text-in-call", start, func() string { return call(0) + text(0, "odd") + text(0, "er") + callDone(0, "{}") + end("completed") })
	add("key-split", start, func() string {
		return msg(0) + text(0, "sk-passthrough-") + text(0, "secret-0123456789") + done(0) + end("completed")
	})
	add("error-with-key", start, func() string {
		return msg(0) + text(0, "a") + raw("error", `{"type":"error","code":"server_error","message":"bad key `+ptKey+`"}`) + ev("response.failed", `,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"`+ptKey+`"}}`)
	})
	add("duplicate-keys", start, func() string {
		return msg(0) + text(0, "a") + raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"b","delta":"c"}`) + done(0) + end("completed")
	})
	add("invalid-utf8", start, func() string {
		return msg(0) + text(0, "a") + raw("response.output_text.delta", "{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_0\",\"delta\":\"b\xff\"}") + done(0) + end("completed")
	})
	add("wrong-types", start, func() string {
		return msg(0) + text(0, "a") + raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":5,"delta":"b"}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":5}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":null}`) +
			reasoning(1) + raw("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":"0","delta":"r"}`) +
			raw("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":-1,"delta":"s"}`) +
			raw("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":1.5,"delta":"t"}`) + end("completed")
	})
	add("case-folded-keys", start, func() string {
		return msg(0) + text(0, "a") + raw("response.output_text.delta", `{"Type":"response.output_text.delta","item_id":"msg_0","delta":"b"}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","DELTA":"c"}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"d","Delta":"e"}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"f","TYPE":"response.completed"}`) + done(0) + end("completed")
	})
	add("extra-keys", start, func() string {
		return msg(0) + text(0, "a") + raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"b","annotations":[],"x":{"y":1}}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"c","logprobs":[{"token":"c"}],"sequence_number":"s","obfuscation":7}`) + done(0) + end("completed")
	})
	add("key-order", start, func() string {
		return msg(0) + text(0, "a") + raw("response.output_text.delta", `{"delta":"b","item_id":"msg_0","type":"response.output_text.delta"}`) +
			raw("response.output_text.delta", `{"delta":"c","type":"response.output_text.delta"}`) + raw("response.output_text.delta", `{"type":"response.output_text.delta"}`) + done(0) + end("completed")
	})
	add("escapes", start, func() string {
		return msg(0) + text(0, "q\"\\\n\t\x01\u2028é😀") + raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"\u00e9\ud800\\u0041"}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m\u0073g_0","delta":"x"}`) + text(0, "after") + done(0) + end("completed")
	})
	add("template-changes", start, func() string {
		return msg(0) + text(0, "a") + text(0, "b") + raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"c","delta":"d"}`) +
			raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":"e"}  `) + raw("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_0","delta":7}`) + done(0) + text(0, "late") + end("completed")
	})
	add("refusal", start, func() string {
		return msg(0) + text(0, "a") + ev("response.refusal.delta", `,"item_id":"msg_0","output_index":0,"content_index":0,"delta":"no"`) + text(0, "b") + done(0) + end("completed")
	})
	add("incomplete", start, func() string { return msg(0) + text(0, "a") + text(0, "b") + end("incomplete") })
	add("missing-end", start, func() string { return msg(0) + text(0, "a") + text(0, "b") })
	add("truncated", start, func() string {
		return msg(0) + text(0, "a") + "event: response.output_text.delta\ndata: {\"type\":\"response.output_te"
	})
	add("huge", start, func() string {
		return msg(0) + text(0, "a") + text(0, strings.Repeat("xy", 1500)) + done(0) + end("completed")
	})
	add("not-json", start, func() string {
		return msg(0) + text(0, "a") + raw("response.output_text.delta", `hello`) + done(0) + end("completed")
	})
	add("after-end", start, func() string { return msg(0) + text(0, "a") + done(0) + end("completed") + text(0, "late") })
	add("no-created", s(""), func() string { seq = 0; return msg(0) + text(0, "a") + text(0, "b") + done(0) + end("completed") })
	add("second-message", start, func() string {
		return msg(0) + text(0, "a") + done(0) + msg(1) + text(1, "b") + text(1, "c") + done(1) + end("completed")
	})
	out := make([]recorded, len(tests))
	for i, tt := range tests {
		out[i] = recorded{name: "hostile-responses/" + tt.name, api: APIResponses, body: []byte(tt.body)}
	}
	return out
}

// TestPassthroughDifferential runs every recorded and hostile Chat stream
// through the gateway twice, fast path on and off, behind gatewaytest's
// fake backend cut into random pieces, and wants the same bytes for the
// client (body and warnings trailer) and the same records (the request's
// observation: usage, finish, status, error; its audit record: calls,
// answer, outcome).
func TestPassthroughDifferential(t *testing.T) {
	for _, c := range ptConfigs {
		api := c.api
		if api == "" {
			api = APIChat
		}
		for i, st := range streamsFor(t, api) {
			t.Run(c.name+"/"+strings.ReplaceAll(st.name, " ", "_"), func(t *testing.T) {
				t.Parallel()
				seed := uint64(i + 1)
				slow := ptRun(t, c, fakeBackend(t, st.body, seed), true)
				fast := ptRun(t, c, fakeBackend(t, st.body, seed), false)
				if diff := cmp.Diff(slow, fast); diff != "" {
					t.Errorf("fast path differs from the decoder's (-slow +fast):\n%s", diff)
				}
				// Errors and finish reasons are masked; text is not, by
				// either path (see masker.Event), and no stream here
				// holds the key whole in its text — but a Responses
				// answer repeats its whole text in its done events, where
				// a key split across deltas is whole, in both paths.
				if strings.Contains(fast.Trailer, ptKey) || strings.Contains(fast.Body, ptKey) && (api != APIResponses || !strings.HasSuffix(st.name, "key-split")) {
					t.Errorf("the client got the backend's key: %s", fast.Body)
				}
			})
		}
	}
}

// TestPassthroughTakesChunks: the differential test passes trivially if
// the fast path never runs. It must write the text, reasoning and
// argument chunks itself, leaving the decoder the first chunk, the call's
// opening and the end.
func TestPassthroughTakesChunks(t *testing.T) {
	var buf bytes.Buffer
	enc := &chatEncoder{w: sse.NewWriter(&buf), o: EncodeOptions{Model: "m", Created: 1, ReasoningField: ReasoningContent}, usage: unknownUsage()}
	h := &Handler{}
	fr := &flushingReader{flush: func() error { return nil }}
	pt := &chatPassthrough{dec: newChatDecoder(), enc: enc, fr: fr, h: h, s: &served{}}
	tests := []struct {
		name        string
		data        []byte
		fast, reuse bool
	}{
		{"start", ptStart(), false, false},
		{"text", ptText("hi"), true, false},
		{"text-again", ptText(" there\n"), true, true},
		{"text-empty", ptText(""), true, true},
		{"reasoning", chunkLine(`"reasoning":"r"`, "null"), true, false},
		{"reasoning-again", chunkLine(`"reasoning":"s"`, "null"), true, true},
		{"text-dup-key", chunkLine(`"reasoning":"s","reasoning":"t"`, "null"), false, false},
		{"reasoning-after-slow", chunkLine(`"reasoning":"s"`, "null"), true, false},
		{"call", chunkLine(`"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]`, "null"), false, false},
		{"args", chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":"{"}}]`, "null"), true, false},
		{"args-again", chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":"}"}}]`, "null"), true, true},
		{"refusal", chunkLine(`"refusal":"no"`, "null"), false, false},
		{"finish", ptStop("stop"), false, false},
		{"done", []byte("[DONE]"), false, false},
	}
	for _, tt := range tests {
		if reuse := pt.reuse(tt.data); reuse != tt.reuse {
			t.Errorf("%s: template reused %v, want %v", tt.name, reuse, tt.reuse)
		}
		evs, err := pt.Decode("", tt.data)
		if tt.name == "text-dup-key" {
			if err == nil {
				t.Errorf("%s: no error", tt.name)
			}
			pt.dec.done = false // carry on as if the decoder had not stopped
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		if fast := evs == nil && pt.dec.n > 0; fast != tt.fast {
			t.Errorf("%s: fast %v, want %v (events %v)", tt.name, fast, tt.fast, evs)
		}
	}
	if pt.dec.n != int64(len(tests)) {
		t.Errorf("decoder counted %d events, want %d", pt.dec.n, len(tests))
	}
}

// TestPassthroughTakesResponses: the Responses fast path writes the
// deltas of the open message, reasoning summary and call itself (the
// encoder's sequence moves inside Decode), and leaves the decoder the
// rest.
func TestPassthroughTakesResponses(t *testing.T) {
	var buf bytes.Buffer
	enc := newResponsesEncoder(sse.NewWriter(&buf), EncodeOptions{Model: "m", Created: 1})
	fr := &flushingReader{flush: func() error { return nil }}
	pt := &responsesPassthrough{dec: newResponsesDecoder(), enc: enc, fr: fr, h: &Handler{}, s: &served{}}
	tests := []struct {
		name string
		data string
		fast bool
	}{
		{"created", `{"type":"response.created","response":{"id":"r","model":"b"}}`, false},
		{"text-before-item", `{"type":"response.output_text.delta","item_id":"msg_1","delta":"a"}`, false},
		{"text", `{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"b","logprobs":[],"obfuscation":"x"}`, true},
		{"text-again", `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"c d","logprobs":[],"obfuscation":"Qr7"}`, true},
		{"text-escape", `{"type":"response.output_text.delta","item_id":"msg_1","delta":"\u0041"}`, false},
		{"reasoning-in-message", `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"r"}`, false},
		{"reasoning", `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"s"}`, true},
		{"reasoning-text", `{"type":"response.reasoning_text.delta","item_id":"rs_1","content_index":0,"delta":"t"}`, true},
		{"call", `{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"c","name":"f"}}`, false},
		{"args", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{"}`, true},
		{"args-again", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"}"}`, true},
		{"args-other-item", `{"type":"response.function_call_arguments.delta","item_id":"fc_2","output_index":1,"delta":"x"}`, false},
	}
	// The deltas after the first of their kind are read by its template,
	// whose holes take the new sequence number and obfuscation.
	byTemplate := map[string]bool{"text-again": true, "args-again": true}
	for _, tt := range tests {
		seq := enc.seq
		if got := pt.tpl.match([]byte(tt.data), &checkEvent) != nil; got != byTemplate[tt.name] {
			t.Errorf("%s: read by the template %v, want %v", tt.name, got, byTemplate[tt.name])
		}
		evs, err := pt.Decode(tt.name, []byte(tt.data))
		if tt.name == "args-other-item" {
			if err == nil {
				t.Errorf("%s: no error", tt.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if fast := enc.seq != seq; fast != tt.fast {
			t.Errorf("%s: fast %v, want %v (events %v)", tt.name, fast, tt.fast, evs)
		}
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, want := range []string{`"delta":"c d"`, `"type":"response.reasoning_summary_text.delta","sequence_number":`, `"type":"response.function_call_arguments.delta","sequence_number":`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the client's stream lacks %s:\n%s", want, buf.String())
		}
	}
}

// TestPassthroughAllocs: a text chunk costs no allocation once the
// buffers have grown.
func TestPassthroughAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	enc := &chatEncoder{w: sse.NewWriter(io.Discard), o: EncodeOptions{Model: "m", Created: 1}, usage: unknownUsage()}
	fr := &flushingReader{flush: func() error { return nil }}
	pt := &chatPassthrough{dec: newChatDecoder(), enc: enc, fr: fr, h: &Handler{}, s: &served{}}
	for _, d := range [][]byte{ptStart(), chunkLine(`"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]`, "null")} {
		evs, _ := pt.Decode("", d)
		for _, e := range evs {
			enc.Encode(e)
		}
	}
	text, args := ptText(`a "quoted" token`), chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]`, "null")
	n := testing.AllocsPerRun(100, func() {
		if evs, err := pt.Decode("", text); evs != nil || err != nil {
			t.Fatalf("text chunk not taken: %v %v", evs, err)
		}
		if evs, err := pt.Decode("", args); evs != nil || err != nil {
			t.Fatalf("args chunk not taken: %v %v", evs, err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per two chunks, want 0", n)
	}
}

// TestAppendQuoteBytes: the fast path quotes as the encoder does.
func TestAppendQuoteBytes(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"\\\n\r\t\x00\x1f\x7f", "é😀\u2028\u2029", "bad\xff\xc3", "\xe2\x80"} {
		if got, want := string(appendQuoteBytes(nil, []byte(s))), string(strictjson.AppendQuote(nil, s)); got != want {
			t.Errorf("appendQuoteBytes(%q) = %s, want %s", s, got, want)
		}
	}
}

// benchChunks is a Chat stream of n one-token text chunks, a finish and
// usage, as the load harness's backend sends it.
func benchChunks(n int) []byte {
	lines := make([][]byte, 0, n+2)
	for i := range n {
		lines = append(lines, fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" tok%d"},"finish_reason":null}]}`, i))
	}
	lines = append(lines, []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5}}`))
	return gatewaytest.ChatSSE(lines...)
}

// benchMessages is a Messages stream of n one-token text deltas.
func benchMessages(n int) []byte {
	var b strings.Builder
	b.WriteString(msgEv("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":20,"output_tokens":1}}}`))
	b.WriteString(msgEv("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	for i := range n {
		b.WriteString(msgEv("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" tok%d"}}`, i)))
	}
	b.WriteString(msgEv("content_block_stop", `{"type":"content_block_stop","index":0}`))
	b.WriteString(msgEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`))
	b.WriteString(msgEv("message_stop", `{"type":"message_stop"}`))
	return []byte(b.String())
}

// BenchmarkPassthroughChat is BenchmarkGatewayChat's streaming request
// with the same-API fast path on and off, side by side: the difference
// between 1 and 256 chunks, divided by 255, is the cost per streamed
// chunk.
func BenchmarkPassthroughChat(b *testing.B) { benchPassthrough(b, APIChat) }

// BenchmarkPassthroughMessages is BenchmarkPassthroughChat for a Messages
// client in front of a Messages backend.
func BenchmarkPassthroughMessages(b *testing.B) { benchPassthrough(b, APIMessages) }

// benchResponses is a Responses stream of n one-token text deltas, laid
// out as OpenAI sends one.
func benchResponses(n int) []byte {
	var b strings.Builder
	ev := func(typ, data string) { b.WriteString(msgEv(typ, data)) }
	ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[]}}`)
	ev("response.in_progress", `{"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[]}}`)
	ev("response.output_item.added", `{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}`)
	ev("response.content_part.added", `{"type":"response.content_part.added","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}`)
	for i := range n {
		ev("response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" tok%d","logprobs":[],"obfuscation":"Xy3"}`, i+4, i))
	}
	ev("response.output_text.done", fmt.Sprintf(`{"type":"response.output_text.done","sequence_number":%d,"item_id":"msg_1","output_index":0,"content_index":0,"text":"...","logprobs":[]}`, n+4))
	ev("response.output_item.done", fmt.Sprintf(`{"type":"response.output_item.done","sequence_number":%d,"output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"..."}],"role":"assistant"}}`, n+5))
	ev("response.completed", fmt.Sprintf(`{"type":"response.completed","sequence_number":%d,"response":{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[],"usage":{"input_tokens":20,"output_tokens":%d,"total_tokens":%d}}}`, n+6, n, n+20))
	return []byte(b.String())
}

// BenchmarkPassthroughResponses is BenchmarkPassthroughChat for a
// Responses client in front of a Responses backend.
func BenchmarkPassthroughResponses(b *testing.B) { benchPassthrough(b, APIResponses) }

// BenchmarkCrossStream is a streaming Messages or Responses client in
// front of a Chat backend (Claude Code or Codex before vLLM, say), which
// takes the decoder and the other API's encoder: the difference between 1
// and 256 chunks, divided by 255, is the cost per streamed chunk.
func BenchmarkCrossStream(b *testing.B) {
	for _, front := range []API{APIMessages, APIResponses} {
		for _, n := range []int{1, 256} {
			b.Run(fmt.Sprintf("front=%s/chunks=%d", front, n), func(b *testing.B) {
				h, err := New(&Config{
					Providers: []Provider{{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: ParsingReasoningField}},
					Models:    map[string]string{"m": "p"},
					Clients:   map[string]*http.Client{"p": {Transport: ptBackend{body: benchChunks(n)}}},
				})
				if err != nil {
					b.Fatal(err)
				}
				path, body := "/v1/messages", `{"model":"m","stream":true,"max_tokens":64,"system":"You are terse.","messages":[{"role":"user","content":"Say hi."}]}`
				if front == APIResponses {
					path, body = "/v1/responses", `{"model":"m","stream":true,"instructions":"You are terse.","input":"Say hi."}`
				}
				benchLoop(b, h, path, body)
			})
		}
	}
}

func benchPassthrough(b *testing.B, api API) {
	for _, n := range []int{1, 256} {
		for _, fast := range []bool{true, false} {
			b.Run(fmt.Sprintf("chunks=%d/fast=%v", n, fast), func(b *testing.B) {
				p := Provider{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: ParsingReasoningField}
				stream, path := benchChunks(n), "/v1/chat/completions"
				body := `{"model":"m","stream":true,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hi."}],"max_tokens":64,"temperature":0.2}`
				switch api {
				case APIMessages:
					p = Provider{Name: "p", API: APIMessages, BaseURL: "http://backend.invalid", Model: "m"}
					stream, path = benchMessages(n), "/v1/messages"
					body = `{"model":"m","stream":true,"system":"You are terse.","messages":[{"role":"user","content":"Say hi."}],"max_tokens":64,"temperature":0.2}`
				case APIResponses:
					p = Provider{Name: "p", API: APIResponses, BaseURL: "http://backend.invalid/v1", Model: "m"}
					stream, path = benchResponses(n), "/v1/responses"
					body = `{"model":"m","stream":true,"instructions":"You are terse.","input":"Say hi.","max_output_tokens":64,"temperature":0.2}`
				}
				benchLoop(b, newBenchHandler(b, p, ptBackend{body: stream}, fast), path, body)
			})
		}
	}
}

func ptCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestHoleTemplate checks what a Responses delta's template reads: the
// delta, the sequence number and the obfuscation replaced by tokens of
// their kinds, and nothing else.
func TestHoleTemplate(t *testing.T) {
	const tpl = `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","delta":"a","obfuscation":"Xy"}`
	ev := func(seq, delta, obf string) string {
		return `{"type":"response.output_text.delta","sequence_number":` + seq + `,"item_id":"msg_1","delta":` + delta + `,"obfuscation":` + obf + `}`
	}
	tests := []struct {
		name, data string
		want       string // the delta's token; "" when the template does not read data
	}{
		{"same", tpl, `"a"`},
		{"all-three", ev("5", `"b c"`, `"Qz12"`), `"b c"`},
		{"longer-number", ev("123456", `"b"`, `"Xy"`), `"b"`},
		{"zero", ev("0", `"b"`, `"Xy"`), `"b"`},
		{"empty-strings", ev("5", `""`, `""`), `""`},
		{"escapes", ev("5", `"\"\\\n\u00e9"`, `"\u0041"`), `"\"\\\n\u00e9"`},
		{"leading-zero", ev("05", `"b"`, `"Xy"`), ""},
		{"negative", ev("-5", `"b"`, `"Xy"`), ""},
		{"fraction", ev("5.0", `"b"`, `"Xy"`), ""},
		{"exponent", ev("5e1", `"b"`, `"Xy"`), ""},
		{"number-for-string", ev("5", `5`, `"Xy"`), ""},
		{"string-for-number", ev(`"5"`, `"b"`, `"Xy"`), ""},
		{"null-obfuscation", ev("5", `"b"`, `null`), ""},
		{"bad-escape", ev("5", `"\x"`, `"Xy"`), ""},
		{"bad-escape-obfuscation", ev("5", `"b"`, `"\q"`), ""},
		{"control-char", ev("5", "\"a\tb\"", `"Xy"`), ""},
		{"bad-utf8", ev("5", "\"\xff\"", `"Xy"`), ""},
		{"unterminated", `{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_1","delta":"b`, ""},
		{"string-swallows-member", ev("5", `"b","x":"`, `"Xy"`), ""},
		{"other-item", `{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_2","delta":"b","obfuscation":"Xy"}`, ""},
		{"trailing-space", tpl + " ", ""},
		{"trailing-member", ev("5", `"b"`, `"Xy","z":1`), ""},
		{"truncated", tpl[:len(tpl)-1], ""},
	}
	var ht holeTemplate
	data := []byte(tpl)
	lit, seq, obf := []byte(nil), []byte(nil), []byte(nil)
	for _, tok := range []struct {
		p   *[]byte
		key string
	}{{&lit, `"delta":`}, {&seq, `"sequence_number":`}, {&obf, `"obfuscation":`}} {
		i := bytes.Index(data, []byte(tok.key)) + len(tok.key)
		*tok.p = data[i : i+strictjson.SkipValue(data[i:], 0)]
	}
	ht.keep(data, lit, seq, obf)
	if !ht.ok || len(ht.nums) != 3 {
		t.Fatalf("template not kept: %+v", ht)
	}
	opts := strictjson.Options{MaxBytes: -1}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ht.match([]byte(tt.data), &opts)
			if string(got) != tt.want || (got == nil) != (tt.want == "") {
				t.Errorf("match = %q, want %q", got, tt.want)
			}
		})
	}
	// Holes that are not strings or integers, or that overlap, keep no
	// template.
	for _, bad := range [][][]byte{{lit, data[:1]}, {lit, lit}, {nil}, {lit, []byte(`"elsewhere"`)}} {
		var h holeTemplate
		h.keep(data, bad[0], bad[1:]...)
		if h.ok {
			t.Errorf("keep(%q) kept a template", bad)
		}
	}
}

// FuzzHoleTemplate holds the Responses fast path's template to what
// reading the event afresh gives: whatever an event is, when the template
// reads it, the event passes strictjson.Check and the fast path's scan
// as the template's event did (the same kind, the same item) and the scan
// finds the template's string.
func FuzzHoleTemplate(f *testing.F) {
	f.Add([]byte(`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" tok","logprobs":[],"obfuscation":"Xy3"}`),
		[]byte(`{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" tok2","logprobs":[],"obfuscation":"AbC12"}`))
	f.Add([]byte(`{"type":"response.reasoning_summary_text.delta","sequence_number":9,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Calc","obfuscation":"2ajSAGID"}`),
		[]byte(`{"type":"response.reasoning_summary_text.delta","sequence_number":10,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"ul\u0061ting","obfuscation":"x"}`))
	f.Add([]byte(`{"type":"response.function_call_arguments.delta","content_index":0,"delta":"{\"a\"","item_id":"fc_1","output_index":1,"sequence_number":7}`),
		[]byte(`{"type":"response.function_call_arguments.delta","content_index":0,"delta":":1}","item_id":"fc_1","output_index":1,"sequence_number":8}`))
	f.Fuzz(func(t *testing.T, first, next []byte) {
		opts := strictjson.Options{MaxBytes: -1}
		var m responsesPassthrough
		if strictjson.Check(first, &opts) != nil || m.scan(first) != nil {
			return
		}
		kind, item := m.kind, string(m.item)
		var ht holeTemplate
		ht.keep(first, m.lit, m.seq, m.obf)
		lit := ht.match(next, &opts)
		if lit == nil {
			return
		}
		if err := strictjson.Check(next, &opts); err != nil {
			t.Fatalf("the template read %q, which strictjson refuses: %v", next, err)
		}
		if err := m.scan(next); err != nil {
			t.Fatalf("the template read %q, which the scan refuses", next)
		}
		if m.kind != kind || string(m.item) != item || !bytes.Equal(m.lit, lit) {
			t.Fatalf("the template read %q as %v %q %q, the scan as %v %q %q", next, kind, item, lit, m.kind, m.item, m.lit)
		}
	})
}

// newBenchHandler is a Handler of provider p, reached through rt, with the
// same-API fast paths on or off.
func newBenchHandler(b testing.TB, p Provider, rt http.RoundTripper, fast bool) *Handler {
	h, err := New(&Config{
		Providers: []Provider{p},
		Models:    map[string]string{"m": "p"},
		Clients:   map[string]*http.Client{"p": {Transport: rt}},
	})
	if err != nil {
		b.Fatal(err)
	}
	h.slowStreams = !fast
	return h
}

// benchLoop posts body to path on h once per iteration and reports the
// CPU per request.
func benchLoop(b *testing.B, h *Handler, path, body string) {
	b.ReportAllocs()
	var w gatewaytest.Sink
	cpu0 := ptCPU()
	for b.Loop() {
		w.Reset()
		h.ServeHTTP(&w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		if w.Code != 200 || w.Bytes == 0 {
			b.Fatalf("status %d, %d bytes", w.Code, w.Bytes)
		}
	}
	b.ReportMetric(float64(ptCPU()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
}
