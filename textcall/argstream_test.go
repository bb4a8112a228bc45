// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolgate/toolgate/tool"
)

// announced is a call as the events of a StreamArguments scanner tell it.
type announced struct {
	Index    int
	ID, Name string
	Args     string
}

// streamArgsRun feeds pieces to a StreamArguments scanner and checks what
// must hold whatever the input: events announce calls with increasing
// indices and send arguments only for announced calls; the calls that
// were not withdrawn are exactly Result.Calls, with the arguments sent;
// and the result is Parse's, but for ids and call-withdrawn warnings.
func streamArgsRun(t testing.TB, family string, cfg *Config, pieces []string) (*Result, []announced, []Event) {
	t.Helper()
	c := Config{Tools: testTools}
	if cfg != nil {
		c = *cfg
	}
	c.StreamArguments = true
	p := newTestParser(t, family, &c)
	s := p.NewScanner()
	var events []Event
	for _, d := range pieces {
		events = append(events, s.Feed(d)...)
	}
	events = append(events, s.Close()...)
	r := s.Result()

	var calls []announced
	for _, e := range events {
		switch e.Kind {
		case EventCall:
			if e.Index != len(calls) {
				t.Fatalf("call event index %d, want %d", e.Index, len(calls))
			}
			calls = append(calls, announced{Index: e.Index, ID: e.ID, Name: e.Name})
		case EventArguments:
			if e.Index >= len(calls) {
				t.Fatalf("arguments for call %d, which was not announced", e.Index)
			}
			calls[e.Index].Args += e.Text
		}
	}
	withdrawn := 0
	var warnings []tool.Warning
	for _, w := range r.Warnings {
		if w.Code == "call-withdrawn" {
			withdrawn++
			continue
		}
		warnings = append(warnings, w)
	}
	if len(calls) != len(r.Calls)+withdrawn {
		t.Fatalf("%d calls announced, %d in the result and %d withdrawn", len(calls), len(r.Calls), withdrawn)
	}
	// Result.Calls is what is left of the announced calls once the
	// withdrawn ones are taken out: match them in order.
	k := 0
	for _, rc := range r.Calls {
		for k < len(calls) && (calls[k].ID != rc.ID) {
			k++
		}
		if k == len(calls) {
			t.Fatalf("result call %s %q was never announced (announced: %+v)", rc.ID, rc.Name, calls)
		}
		if calls[k].Name != rc.Name || calls[k].Args != string(rc.Arguments) {
			t.Fatalf("announced %+v, result has %q %s", calls[k], rc.Name, rc.Arguments)
		}
		k++
	}

	want := newTestParser(t, family, cfg).Parse(strings.Join(pieces, ""))
	got := *r
	got.Warnings = warnings
	ignoreIDs := cmpopts.IgnoreFields(tool.Call{}, "ID")
	if diff := cmp.Diff(want, &got, ignoreIDs, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
		t.Fatalf("result differs from Parse (-parse +stream):\n%s", diff)
	}
	return r, calls, events
}

// TestStreamArgumentsTables runs every case of every family through a
// StreamArguments scanner in the chunkings the split test uses.
func TestStreamArgumentsTables(t *testing.T) {
	for family, cases := range familyTables() {
		for _, tc := range cases {
			t.Run(family+"/"+tc.name, func(t *testing.T) {
				clean := len(newTestParser(t, family, tc.cfg).Parse(tc.in).Warnings) == 0
				for _, pieces := range chunkings(tc.in, 40, 3) {
					r, _, _ := streamArgsRun(t, family, tc.cfg, pieces)
					for _, w := range r.Warnings {
						if clean && w.Code == "call-withdrawn" {
							// Output that parses without a warning
							// never has a call taken back.
							t.Fatalf("%q: %s", pieces, w.Message)
						}
					}
				}
			})
		}
	}
}

// TestStreamArgumentsEarly checks that the call is announced and its
// arguments sent while the body is still arriving, piece by piece.
func TestStreamArgumentsEarly(t *testing.T) {
	long := strings.Repeat("word ", 200)
	text := "Let me look.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"" + long + "\", \"limit\": 3}}\n</tool_call>"
	closeAt := strings.Index(text, "</tool_call>")
	pieces := make([]string, 0, len(text))
	for i := range len(text) {
		pieces = append(pieces, text[i:i+1])
	}
	c := Config{Tools: testTools, StreamArguments: true}
	s := newTestParser(t, "hermes", &c).NewScanner()
	firstCall, argEvents, argsBeforeEnd := -1, 0, 0
	for i, d := range pieces {
		for _, e := range s.Feed(d) {
			switch e.Kind {
			case EventCall:
				firstCall = i
			case EventArguments:
				argEvents++
				if i < closeAt {
					argsBeforeEnd += len(e.Text)
				}
			}
		}
	}
	s.Close()
	if argsStart := strings.Index(text, `"arguments": {`) + len(`"arguments": {`); firstCall != argsStart-1 {
		t.Errorf("call announced at byte %d, want %d (the arguments' '{')", firstCall, argsStart-1)
	}
	args := `{"query":"` + long + `","limit":3}`
	if argsBeforeEnd != len(args) {
		t.Errorf("%d bytes of arguments sent before the close marker, want all %d", argsBeforeEnd, len(args))
	}
	if argEvents < len(long) {
		t.Errorf("%d argument events for one-byte deltas, want one per byte of arguments", argEvents)
	}
	_, calls, _ := streamArgsRun(t, "hermes", nil, pieces)
	if len(calls) != 1 || calls[0].Args != args {
		t.Errorf("announced %+v, want one call with %s", calls, args)
	}
}

// TestStreamArgumentsFamilies renders two calls with long arguments in
// each family whose calls stream, feeds them a byte at a time, and checks
// that each call is announced and its arguments sent before the text of
// its arguments ends.
func TestStreamArgumentsFamilies(t *testing.T) {
	long := strings.Repeat("word ", 100)
	calls := []tool.Call{
		{ID: "abcDEF123", Name: "search", Arguments: json.RawMessage(`{"query":"` + long + `","limit":3}`)},
		{ID: "XYZxyz789", Name: "get_weather", Arguments: json.RawMessage(`{"city":"` + long + `"}`)},
	}
	for _, family := range []string{"hermes", "granite", "internlm", "jamba", "xlam", "llama3-json", "mistral", "deepseek-v3", "deepseek-v3.1", "kimi-k2", "qwen3-coder", "glm-4.5", "gpt-oss"} {
		t.Run(family, func(t *testing.T) {
			f, _ := Lookup(family)
			text := f.FormatCalls(calls)
			// Where the long text of each call's arguments ends.
			var ends []int
			for from := 0; ; {
				i := strings.Index(text[from:], long)
				if i < 0 {
					break
				}
				ends = append(ends, from+i+len(long))
				from += i + len(long)
			}
			if len(ends) != 2 {
				t.Fatalf("the rendered calls hold the arguments %d times:\n%s", len(ends), text)
			}
			c := Config{Tools: testTools, StreamArguments: true}
			s := newTestParser(t, family, &c).NewScanner()
			sent := map[int]int{}
			for i := range len(text) {
				for _, e := range s.Feed(text[i : i+1]) {
					if e.Kind == EventArguments {
						sent[e.Index] += len(e.Text)
					}
				}
				for k, end := range ends {
					if i == end-1 && sent[k] < len(long) {
						t.Errorf("call %d: %d bytes of arguments sent when its long text ended, want at least %d", k, sent[k], len(long))
					}
				}
			}
			s.Close()
			r := s.Result()
			if len(r.Calls) != 2 || len(r.Warnings) != 0 {
				t.Fatalf("%d calls, want 2; warnings %v", len(r.Calls), r.Warnings)
			}
			var pieces []string
			for i := range len(text) {
				pieces = append(pieces, text[i:i+1])
			}
			streamArgsRun(t, family, nil, pieces)
		})
	}
}

// TestStreamArgumentsWithdrawn covers calls announced and then found
// broken, and calls that must never be announced.
func TestStreamArgumentsWithdrawn(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		announced int
		calls     int
		withdrawn int
	}{
		{"duplicate-key", `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}</tool_call>`, 1, 0, 1},
		{"bad-value", `<tool_call>{"name": "get_weather", "arguments": {"city": tru}}</tool_call>`, 1, 0, 1},
		{"cut-off", `<tool_call>{"name": "search", "arguments": {"query": "ne`, 1, 0, 1},
		{"unknown-tool", `<tool_call>{"name": "launch_rocket", "arguments": {"target": "moon"}}</tool_call>`, 0, 0, 0},
		{"string-arguments", `<tool_call>{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}</tool_call>`, 1, 1, 0},
		{"arguments-first", `<tool_call>{"arguments": {"city": "Paris"}, "name": "get_weather"}</tool_call>`, 1, 1, 0},
		{"array", `<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "noop", "arguments": {}}]</tool_call>`, 2, 2, 0},
		{"withdrawn-then-good", `<tool_call>{"name": "get_weather", "arguments": {"city": tru}}</tool_call><tool_call>{"name": "noop", "arguments": {}}</tool_call>`, 2, 1, 1},
		{"two-objects", `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}{"name": "noop", "arguments": {}}</tool_call>`, 2, 2, 0},
		{"other-members", `<tool_call>{"id": "c1", "type": "function", "extra": [1, {"a": "}"}], "n": 3, "name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`, 1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time, so every call that can be is
			// announced before its body ends.
			var pieces []string
			for i := range len(tc.in) {
				pieces = append(pieces, tc.in[i:i+1])
			}
			{
				r, calls, _ := streamArgsRun(t, "hermes", nil, pieces)
				withdrawn := 0
				for _, w := range r.Warnings {
					if w.Code == "call-withdrawn" {
						withdrawn++
					}
				}
				if len(calls) != tc.announced || len(r.Calls) != tc.calls || withdrawn != tc.withdrawn {
					t.Errorf("%d announced, %d calls, %d withdrawn; want %d, %d, %d", len(calls), len(r.Calls), withdrawn, tc.announced, tc.calls, tc.withdrawn)
				}
			}
		})
	}
}

// TestStreamArgumentsQwenXML covers the Qwen3-Coder form: string values
// are sent as they arrive, escaped, with the newline after the tag and
// the one before the close left out; typed values are sent coerced once
// they end; a duplicate key is not sent.
func TestStreamArgumentsQwenXML(t *testing.T) {
	tests := []struct {
		name, in, args string
	}{
		{"string", "<tool_call>\n<function=get_weather>\n<parameter=city>\nSay \"hi\" \\ <b> é 😀\n\n</parameter>\n</function>\n</tool_call>",
			`{"city":"Say \"hi\" \\ <b> é 😀\n"}`},
		{"typed", "<tool_call>\n<function=search>\n<parameter=query>\nnews\n</parameter>\n<parameter=limit>\n 7 \n</parameter>\n<parameter=exact>\ntrue\n</parameter>\n</function>\n</tool_call>",
			`{"query":"news","limit":7,"exact":true}`},
		{"duplicate", "<tool_call><function=get_weather><parameter=city>Paris</parameter><parameter=city>Rome</parameter></function></tool_call>",
			`{"city":"Paris"}`},
		{"no-close-tags", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</tool_call>",
			`{"city":"Paris"}`},
		{"next-parameter-ends-value", "<tool_call><function=search><parameter=query>a<parameter=limit>3</parameter></function></tool_call>",
			`{"query":"a","limit":3}`},
		{"bare", "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>",
			`{"city":"Paris"}`},
		{"empty", "<tool_call><function=noop></function></tool_call>", `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkOneStreamedCall(t, "qwen3-coder", tc.in, tc.args) })
	}
}

// checkOneStreamedCall feeds in a byte at a time with StreamArguments and
// wants exactly one call, announced once, with args both streamed and in
// the result.
func checkOneStreamedCall(t *testing.T, family, in, args string) {
	t.Helper()
	var pieces []string
	for i := range len(in) {
		pieces = append(pieces, in[i:i+1])
	}
	r, calls, events := streamArgsRun(t, family, nil, pieces)
	if len(r.Calls) != 1 || string(r.Calls[0].Arguments) != args {
		t.Fatalf("calls %+v, want one with %s", r.Calls, args)
	}
	if len(calls) != 1 || calls[0].Args != args {
		t.Fatalf("announced %+v, want one with %s", calls, args)
	}
	n := 0
	for _, e := range events {
		if e.Kind == EventArguments {
			n++
		}
	}
	if len(args) > 2 && n < 2 {
		t.Errorf("the arguments came in %d piece(s), not while they arrived", n)
	}
}

// TestStreamArgumentsGLM covers GLM's key/value tags: values are sent as
// they are (no newline trimmed), typed values once they end, coerced.
func TestStreamArgumentsGLM(t *testing.T) {
	tests := []struct {
		name, in, args string
	}{
		{"string", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>\nSay \"hi\" <b> é 😀\n</arg_value>\n</tool_call>",
			`{"city":"\nSay \"hi\" <b> é 😀\n"}`},
		{"typed", "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>news</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>7</arg_value>\n<arg_key>tags</arg_key><arg_value>[\"a\", 1]</arg_value>\n</tool_call>",
			`{"query":"news","limit":7,"tags":["a",1]}`},
		{"duplicate", "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>city</arg_key><arg_value>Rome</arg_value></tool_call>",
			`{"city":"Paris"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkOneStreamedCall(t, "glm-4.5", tc.in, tc.args) })
	}
}

// TestStreamArgumentsMistralV11 covers Mistral's NAME[ARGS]{…} forms.
func TestStreamArgumentsMistralV11(t *testing.T) {
	tests := []struct {
		name, in, args string
	}{
		{"args", `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`, `{"city":"Paris"}`},
		{"call-id", `[TOOL_CALLS]search[CALL_ID]abcDEF123[ARGS]{"query": "news", "limit": 3}`, `{"query":"news","limit":3}`},
		{"bare", `[TOOL_CALLS]get_weather{"city": "Paris"}`, `{"city":"Paris"}`},
		{"json", `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`, `{"city":"Paris"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkOneStreamedCall(t, "mistral", tc.in, tc.args) })
	}
}
