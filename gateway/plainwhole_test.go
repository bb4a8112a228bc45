// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

// A client that does not stream, before a provider that reads reasoning
// in think tags, gets its backend's whole answer without the text filter
// when all its text is plain (textFilter.plainTurn). These tests hold the
// answer and the records to what the filter makes of the same answer.

// wholeBackend answers every request with a whole JSON body.
type wholeBackend struct{ body []byte }

func (b wholeBackend) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		ContentLength: int64(len(b.body)), Body: io.NopCloser(bytes.NewReader(b.body)), Request: r}, nil
}

// plainConfig is a provider and client for the whole-answer differential.
type plainConfig struct {
	ptThinkConfig
	parser  string // Provider.ToolParser
	backend API    // the provider's API; if empty, APIChat
	front   API    // the client's; if empty, the backend's
	dotted  bool   // a Chat client's tool is get.weather, which lowering renames
}

var plainConfigs = []plainConfig{
	{ptThinkConfig: ptThinkConfigs[0]},
	{ptThinkConfig: ptThinkConfigs[1]},
	{ptThinkConfig: ptThinkConfigs[2]},
	{ptThinkConfig: ptThinkConfigs[0], front: APIMessages},
	{ptThinkConfig: ptThinkConfigs[1], front: APIResponses},
	{ptThinkConfig: ptThinkConfig{ptConfig: ptConfig{name: "hermes-tools-audit", reasoning: ReasoningContent, audit: true, capture: true, tools: true, parsing: ParsingThinkTags}}, parser: "hermes"},
	{ptThinkConfig: ptThinkConfig{ptConfig: ptConfig{name: "messages-think", audit: true, capture: true, parsing: ParsingThinkTags}}, backend: APIMessages},
	{ptThinkConfig: ptThinkConfig{ptConfig: ptConfig{name: "messages-think-chat-client", audit: true, parsing: ParsingThinkTags}}, backend: APIMessages, front: APIChat},
}

func (c plainConfig) name() string {
	n := c.ptThinkConfig.name
	if c.backend != "" {
		n += "/backend-" + string(c.backend)
	}
	if c.front != "" {
		n += "/front-" + string(c.front)
	}
	return n
}

// runWhole answers one request that does not stream, with body the
// backend's whole answer, the skipping of the filter on or off.
func (c plainConfig) runWhole(t testing.TB, body []byte, slow bool) ptOutcome {
	t.Helper()
	pc := c.ptThinkConfig
	if c.backend != "" {
		pc.api = c.backend
	}
	g := newPTThinkGateway(t, pc, slow)
	defer g.close()
	g.h.providers["p"].ToolParser = c.parser
	g.rt = wholeBackend{body}
	front := c.front
	if front == "" {
		front = g.c.api
	}
	var path, req string
	switch front {
	case APIMessages:
		path, req = "/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"Hi."}]`
		if c.tools {
			req += `,"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`
		}
	case APIResponses:
		path, req = "/v1/responses", `{"model":"m","input":"Hi."`
		if c.tools {
			req += `,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`
		}
	default:
		path, req = "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Hi."}]`
		if c.tools {
			name := "get_weather"
			if c.dotted {
				name = "get.weather"
			}
			req += `,"tools":[{"type":"function","function":{"name":"` + name + `","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`
		}
	}
	w := httptest.NewRecorder()
	g.h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(req+"}")))
	res := w.Result()
	out := ptOutcome{Status: res.StatusCode, Body: w.Body.String(), Trailer: res.Header.Get("X-Toolgate-Warnings"), Observed: g.obs}
	if g.log != nil {
		if err := g.log.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, r := range g.st.Records() {
			r.Seq, r.Time, r.CallID, r.Parent, r.Prev, r.Hash = 0, time.Time{}, "", "", kernel.Hash{}, kernel.Hash{}
			out.Records = append(out.Records, r)
		}
	}
	return out
}

// wholeAnswers are whole answers of api that carry text: each think
// probe as the answer's text, alone and beside reasoning of the
// backend's own; a Messages answer also with its text in several blocks
// around thinking.
func wholeAnswers(api API, text string) [][]byte {
	q := func(s string) string { return string(strictjson.AppendQuote(nil, s)) }
	if api == APIMessages {
		usage := `"usage":{"input_tokens":11,"output_tokens":7}`
		msg := func(blocks string) []byte {
			return []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"backend-m","content":[` + blocks + `],"stop_reason":"end_turn",` + usage + `}`)
		}
		half := len(text) / 2
		return [][]byte{
			msg(`{"type":"text","text":` + q(text) + `}`),
			msg(`{"type":"thinking","thinking":"r","signature":"s"},{"type":"text","text":` + q(text) + `}`),
			msg(`{"type":"text","text":` + q(text[:half]) + `},{"type":"thinking","thinking":"r2","signature":"s2"},{"type":"text","text":` + q(text[half:]) + `}`),
		}
	}
	chat := func(msg string) []byte {
		return []byte(`{"id":"chatcmpl-x","object":"chat.completion","created":1,"model":"backend-m","choices":[{"index":0,"message":{"role":"assistant",` + msg + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7}}`)
	}
	return [][]byte{
		chat(`"content":` + q(text)),
		chat(`"content":` + q(text) + `,"reasoning_content":"r"`),
		chat(`"reasoning":"r","content":` + q(text)),
	}
}

// plainTexts are the texts of the whole-answer probes: the think probes,
// and plain ones, white space alone among them (a scanner holds it).
var plainTexts = append([]string{"", " ", "\n\n", "  leading and trailing  ", "The answer is 42.", "é😀\u2028 q\"\\ ok"}, thinkTexts...)

// TestPlainWholeDifferential runs every whole-answer probe with the text
// filter skipped where it may be and never, and wants the same answer,
// warnings, observation and records.
func TestPlainWholeDifferential(t *testing.T) {
	for _, c := range plainConfigs {
		api := c.backend
		if api == "" {
			api = APIChat
		}
		for i, text := range plainTexts {
			for j, body := range wholeAnswers(api, text) {
				t.Run(fmt.Sprintf("%s/%d/%d", c.name(), i, j), func(t *testing.T) {
					t.Parallel()
					slow := c.runWhole(t, body, true)
					fast := c.runWhole(t, body, false)
					if slow.Status != http.StatusOK {
						t.Fatalf("status %d: %s", slow.Status, slow.Body)
					}
					if diff := cmp.Diff(slow, fast); diff != "" {
						t.Errorf("text %q: skipping the filter differs (-filter +skipped):\n%s", text, diff)
					}
				})
			}
		}
	}
}

// FuzzPlainWhole is TestPlainWholeDifferential for any text, in every
// configuration and shape of answer.
func FuzzPlainWhole(f *testing.F) {
	for _, s := range plainTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range plainConfigs {
			api := c.backend
			if api == "" {
				api = APIChat
			}
			for _, body := range wholeAnswers(api, text) {
				slow := c.runWhole(t, body, true)
				fast := c.runWhole(t, body, false)
				if diff := cmp.Diff(slow, fast); diff != "" {
					t.Fatalf("%s, text %q: skipping the filter differs (-filter +skipped):\n%s", c.name(), text, diff)
				}
			}
		}
	})
}

// plainFor reports whether filter f hands on the whole answer tn
// unchanged, as pumpWhole decides it.
func plainFor(f eventFilter, tn *Turn) bool {
	switch f := f.(type) {
	case passThrough:
		return true
	case *textFilter:
		switch {
		case len(tn.Calls) > 0:
			return false
		case tn.Text == "":
			return f.plainTurn(nil)
		}
		return f.plainTurn([]Event{{Kind: EventText, Text: tn.Text}})
	}
	return false
}

// TestPlainWith holds plainWith, which the whole fast path asks of the
// parser alone, to plainFor of the filter newTextFilter makes, and the
// warnings the one adds to those the other does, for providers with
// and without a tool parser or think tags, requests with and without
// tools, and answers with text that may hold a tag or a call.
func TestPlainWith(t *testing.T) {
	tools := []tool.Definition{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	providers := []Provider{
		{Name: "native", API: APIChat},
		{Name: "think", API: APIChat, Parsing: ParsingThinkTags},
		{Name: "think-open", API: APIChat, Parsing: ParsingThinkTags, ThinkOpen: true},
		{Name: "hermes", API: APIChat, ToolParser: "hermes"},
		{Name: "hermes-think", API: APIChat, ToolParser: "hermes", Parsing: ParsingThinkTags},
		{Name: "mistral", API: APIChat, ToolParser: "mistral"},
	}
	requests := []*Request{
		{},
		{Tools: tools},
		{Tools: tools, Choice: &tool.Choice{Mode: tool.ChoiceNone}},
	}
	turns := []*Turn{
		{Text: ""}, {Text: "The answer is 42."}, {Text: "a < b"}, {Text: "<think>r</think>a"}, {Text: "r</think>a"},
		{Text: `<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>`},
		{Text: `[TOOL_CALLS][{"name":"get_weather","arguments":{"city":"Paris"}}]`},
		{Text: "hi", Calls: []Call{{ID: "c", Name: "get_weather", Arguments: json.RawMessage("{}")}}},
	}
	for i := range providers {
		p := &providers[i]
		for ri, r := range requests {
			for _, tn := range turns {
				var fw []tool.Warning
				var f eventFilter = passThrough{}
				if p.ToolParser != "" || p.Parsing == ParsingThinkTags {
					tf, err := newTextFilter(p, r, nil, &fw, false)
					if err != nil {
						t.Fatalf("%s, request %d: %v", p.Name, ri, err)
					}
					f = tf
				}
				var tp *textcall.Parser
				var pw []tool.Warning
				if p.ToolParser != "" || p.Parsing == ParsingThinkTags {
					var err error
					if tp, _, err = textParser(p, r, false); err != nil {
						t.Fatal(err)
					}
					pw = tp.Warnings()
				}
				if got, want := plainWith(tp, tn), plainFor(f, tn); got != want {
					t.Errorf("%s, request %d, text %q, %d calls: plainWith %v, plainFor %v", p.Name, ri, tn.Text, len(tn.Calls), got, want)
				}
				if !reflect.DeepEqual(pw, fw) {
					t.Errorf("%s, request %d: parser warnings %v, filter's %v", p.Name, ri, pw, fw)
				}
			}
		}
	}
}

// TestPlainTurn says which whole passes the filter is skipped for.
func TestPlainTurn(t *testing.T) {
	p := &Provider{Name: "p", API: APIChat, Parsing: ParsingThinkTags}
	text := func(s string) Event { return Event{Kind: EventText, Text: s} }
	start, finish := Event{Kind: EventStart, ID: "x"}, Event{Kind: EventFinish, Finish: FinishStop}
	usage := Event{Kind: EventUsage, Usage: &Usage{InputTokens: 1, OutputTokens: 2}}
	for _, tc := range []struct {
		name   string
		stream bool
		open   bool
		evs    []Event
		want   bool
	}{
		{"plain", false, false, []Event{start, text("hi"), finish, usage}, true},
		{"no text", false, false, []Event{start, finish, usage}, true},
		{"reasoning between texts", false, false, []Event{start, text("a"), {Kind: EventReasoning, Text: "r"}, text("b"), finish}, true},
		{"white space", false, false, []Event{start, text("  "), finish}, true},
		{"a tag", false, false, []Event{start, text("<think>r</think>a"), finish}, false},
		{"a lone angle bracket", false, false, []Event{start, text("a < b"), finish}, false},
		{"a streaming client", true, false, []Event{start, text("hi"), finish}, false},
		{"output that opens in reasoning", false, true, []Event{start, text("hi"), finish}, false},
		{"text after the finish", false, false, []Event{start, finish, text("late")}, false},
		{"text after usage", false, false, []Event{start, usage, text("late"), finish}, false},
		{"a native call", false, false, []Event{start, text("hi"), {Kind: EventCall, Name: "f"}, {Kind: EventArguments, Text: "{}"}, {Kind: EventCallEnd}, finish}, false},
		{"an error", false, false, []Event{start, text("hi"), {Kind: EventError, Err: &BackendError{Message: "x"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pp := *p
			pp.ThinkOpen = tc.open
			var warns []tool.Warning
			f, err := newTextFilter(&pp, &Request{Stream: tc.stream}, nil, &warns, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.plainTurn(tc.evs); got != tc.want {
				t.Errorf("plainTurn = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPlainWholeAllocs checks that a plain whole answer makes no scanner:
// the filter is skipped, not merely equal to being run. A request to a
// think-tags provider then allocates what one to a provider that reads
// reasoning from a field does, but for the filter itself; the scanner
// alone is several allocations (with an answer that holds a tag, 5 more).
func TestPlainWholeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	body := wholeAnswers(APIChat, "The answer is 42.")[0]
	allocs := func(pf ParsingFormat, body []byte) float64 {
		h, err := New(&Config{
			Providers: []Provider{{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: pf}},
			Models:    map[string]string{"m": "p"},
			Clients:   map[string]*http.Client{"p": {Transport: wholeBackend{body}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var w gatewaytest.Sink
		return testing.AllocsPerRun(200, func() {
			w.Reset()
			h.ServeHTTP(&w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"Hi."}]}`)))
			if w.Code != http.StatusOK {
				t.Fatalf("status %d", w.Code)
			}
		})
	}
	field, think := allocs(ParsingReasoningField, body), allocs(ParsingThinkTags, body)
	tagged := allocs(ParsingThinkTags, wholeAnswers(APIChat, "<think>r</think>a")[0])
	t.Logf("allocations per request: reasoning field %.0f, think tags %.0f, think tags with a tag %.0f", field, think, tagged)
	if think > field+1 || tagged < think+3 {
		t.Errorf("allocations per request: reasoning field %.0f, think tags %.0f (want at most 1 more), with a tag %.0f (want at least 3 more than without)", field, think, tagged)
	}
}
