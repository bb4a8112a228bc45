// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

// FuzzTextFilter feeds a text model's output, cut anywhere, through the
// text filter of every family, streaming and not: nothing panics, the
// events keep the stream's order, and every call a client sees either
// has arguments that are a JSON object or is followed by the error that
// ends the stream.
func FuzzTextFilter(f *testing.F) {
	for _, s := range []string{
		`<think>hm</think>Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`,
		`<tool_call>{"name": "get_weather", "arguments": {"city": `,
		`[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`,
		`<tool_call><function=get_weather><parameter=city>Paris</parameter></function></tool_call>`,
		`<think>never ends <tool_call>{"name": "x"`,
		`{"name": "get_weather", "parameters": {"city": 5}}`,
	} {
		f.Add(s, uint8(3), uint8(0))
	}
	tools := []tool.Definition{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}
	families := textcall.Names()
	cache := schema.NewCache(nil)
	// One provider per family keeps its parsers across inputs, as a
	// running gateway does: what it reads must be what a parser built
	// for the request reads.
	cached := make([]*Provider, len(families))
	for i, fam := range families {
		cached[i] = &Provider{ToolParser: fam, Parsing: ParsingThinkTags, parsers: newParserCache()}
	}
	f.Fuzz(func(t *testing.T, text string, step, fam uint8) {
		for _, stream := range []bool{false, true} {
			run := func(p *Provider) *Turn {
				r := &Request{Tools: tools, Stream: stream}
				var warns []tool.Warning
				tf, err := newTextFilter(p, r, cache, &warns, fam%2 == 1)
				if err != nil {
					t.Fatal(err)
				}
				col := NewCollector()
				emit := func(e Event) error { return col.Add(e) }
				n := int(step%16) + 1
				for i := 0; i < len(text); i += n {
					if err := tf.Feed(Event{Kind: EventText, Text: text[i:min(i+n, len(text))]}, emit); err != nil {
						t.Fatalf("feed: %v", err)
					}
				}
				if err := tf.Feed(Event{Kind: EventFinish, Finish: FinishStop}, emit); err != nil {
					t.Fatalf("finish: %v", err)
				}
				if err := tf.Close(emit); err != nil {
					t.Fatalf("close: %v", err)
				}
				turn := col.Turn()
				for i := range turn.Calls {
					turn.Calls[i].ID = "" // generated at random
				}
				return turn
			}
			turn := run(&Provider{ToolParser: families[int(fam)%len(families)], Parsing: ParsingThinkTags})
			if diff := cmp.Diff(turn, run(cached[int(fam)%len(families)])); diff != "" {
				t.Fatalf("with a cached parser (-built +cached):\n%s", diff)
			}
			if turn.Err != nil {
				if !stream {
					t.Fatalf("a body got an error: %s", turn.Err.Message)
				}
				continue
			}
			for _, c := range turn.Calls {
				var obj map[string]json.RawMessage
				if json.Unmarshal(c.Arguments, &obj) != nil || obj == nil {
					t.Fatalf("call %q has arguments %q", c.Name, c.Arguments)
				}
			}
		}
	})
}

// FuzzDecodeGenerate reads any /generate body without panicking; what
// it accepts is a request the gateway can encode.
func FuzzDecodeGenerate(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}],"two_pass":true,"max_thinking_tokens":10,"tool_parser":"hermes","tool_choice":{"name":"x"},"tools":[{"type":"function","function":{"name":"x"}}]}`))
	f.Add([]byte(`{"messages":[],"think_tag":"<bad>"}`))
	h, err := New(&Config{Providers: []Provider{{Name: "p", API: APIChat, BaseURL: "http://127.0.0.1:1/v1", Backend: BackendVLLM}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, p, err := h.decodeGenerate(body)
		if err != nil {
			return
		}
		if _, err := h.encodeFor(req, p); err != nil {
			if _, ok := err.(*RequestError); !ok {
				t.Fatalf("encode: %v", err)
			}
		}
	})
}

// TestWarningsHeaderBounded: thousands of warnings make a header of at
// most maxWarningsHeader bytes that still says how many were left out.
func TestWarningsHeaderBounded(t *testing.T) {
	ws := make([]tool.Warning, 5000)
	for i := range ws {
		ws[i] = tool.Warning{Pointer: "/tool_calls/1", Code: "malformed-call", Message: "call text that was not a call ünïcode"}
	}
	h := warningsHeader(ws)
	var back []tool.Warning
	if len(h) > maxWarningsHeader || json.Unmarshal([]byte(h), &back) != nil || back[len(back)-1].Code != "warnings-truncated" {
		t.Errorf("%d bytes, %d warnings, last %+v", len(h), len(back), back[len(back)-1])
	}
	for _, r := range h {
		if r > 0x7e || r < 0x20 {
			t.Fatalf("not ASCII: %q", r)
		}
	}
}
