// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

func TestDecodeToolsErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		err     error
		pointer string
	}{
		{name: "malformed", in: `[{"name":"x",}]`, err: strictjson.ErrSyntax, pointer: "/0/"},
		{name: "duplicate-key", in: `[{"name":"x","name":"y","input_schema":{}}]`, err: strictjson.ErrDuplicateName, pointer: "/0/name"},
		{name: "number", in: `1`, err: codec.ErrUnknownShape, pointer: "document root"},
		{name: "element-not-object", in: `{"tools":["x"]}`, err: codec.ErrUnknownShape, pointer: "/tools/0"},
		{name: "name-number", in: `[{"name":1,"input_schema":{}}]`, err: codec.ErrUnknownShape, pointer: "/0/name"},
		{name: "case-sensitive", in: `[{"Name":"x","input_schema":{}}]`, err: codec.ErrUnknownShape, pointer: "/0/Name"},
		{name: "no-name", in: `[{"input_schema":{}}]`, err: tool.ErrInvalidDefinition, pointer: "/0"},
		{name: "schema-array", in: `[{"name":"x","input_schema":[]}]`, err: tool.ErrInvalidDefinition, pointer: "/0/input_schema"},
		{name: "schema-null", in: `[{"name":"x","input_schema":null}]`, err: tool.ErrInvalidDefinition, pointer: "/0/input_schema"},
		{name: "duplicate", in: `[{"name":"x","input_schema":{}},{"name":"x","input_schema":{}}]`, err: tool.ErrInvalidDefinition, pointer: "/1/name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeTools([]byte(tt.in))
			if !errors.Is(err, tt.err) {
				t.Fatalf("DecodeTools(%q) = %v, want %v", tt.in, err, tt.err)
			}
			if !strings.Contains(err.Error(), tt.pointer) {
				t.Errorf("error %q does not name %q", err, tt.pointer)
			}
			if ce, ok := errors.AsType[*codec.Error](err); !ok || ce.Format != codec.Anthropic {
				t.Errorf("error %v is not a *codec.Error of format %s", err, codec.Anthropic)
			}
		})
	}
}

func TestEncodeTools(t *testing.T) {
	tests := []struct {
		name     string
		tools    codec.Tools
		want     string
		warnings []string
		err      error
	}{
		{
			name: "cache-control-and-strict",
			tools: codec.Tools{Single: true, Defs: []tool.Definition{{Name: "a", Description: "<x> & y",
				InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
				Extensions: tool.Extensions{
					tool.ExtAnthropicCacheControl: json.RawMessage(`{"type":"ephemeral","ttl":"1h"}`),
					ExtStrict:                     json.RawMessage(`true`),
				}}}},
			want: `{"name":"a","description":"<x> & y","input_schema":{"type":"object","properties":{}},"strict":true,"cache_control":{"type":"ephemeral","ttl":"1h"}}`,
		},
		{
			name:  "no-schema-gets-an-empty-object-schema",
			tools: codec.Tools{Defs: []tool.Definition{{Name: "now"}}},
			want:  `[{"name":"now","input_schema":{"type":"object","properties":{}}}]`,
		},
		{
			name: "openai-strict-is-reported",
			tools: codec.Tools{Defs: []tool.Definition{{Name: "a", Title: "A", OutputSchema: json.RawMessage(`{}`),
				Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`)}}}},
			want:     `[{"name":"a","input_schema":{"type":"object","properties":{}}}]`,
			warnings: []string{"/0 title", "/0 output_schema", "/0 extension openai/strict"},
		},
		{name: "empty-name", tools: codec.Tools{Defs: []tool.Definition{{}}}, err: tool.ErrInvalidDefinition},
		{name: "duplicate", tools: codec.Tools{Defs: []tool.Definition{{Name: "a"}, {Name: "a"}}}, err: tool.ErrInvalidDefinition},
		{name: "bad-extension", tools: codec.Tools{Defs: []tool.Definition{{Name: "a", Extensions: tool.Extensions{ExtStrict: json.RawMessage(``)}}}}, err: tool.ErrInvalidDefinition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ws, err := EncodeTools(&tt.tools)
			if !errors.Is(err, tt.err) {
				t.Fatalf("EncodeTools: %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			var got []string
			for _, w := range ws {
				field := w.Message[strings.Index(w.Message, "the ")+4 : strings.Index(w.Message, " of tool")]
				got = append(got, w.Pointer+" "+field)
			}
			if diff := cmp.Diff(tt.warnings, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	in := &codec.Tools{Defs: []tool.Definition{
		{Name: "get_weather", Description: "Weather.\n<b>", InputSchema: json.RawMessage(`{"type":"object","properties":{"z":{},"a":{}}}`),
			Extensions: tool.Extensions{tool.ExtAnthropicCacheControl: json.RawMessage(`{"type":"ephemeral"}`), ExtType: json.RawMessage(`"custom"`)}},
		{Name: "b", InputSchema: json.RawMessage(`{}`), Extensions: tool.Extensions{ExtInputExamples: json.RawMessage(`[{}]`), ExtDeferLoading: json.RawMessage(`false`),
			ExtAllowedCallers: json.RawMessage(`["direct"]`), ExtEagerInputStreaming: json.RawMessage(`true`)}},
	}}
	out, ws, err := EncodeTools(in)
	if err != nil || len(ws) != 0 {
		t.Fatalf("EncodeTools: %v %v", err, ws)
	}
	again, _, _ := EncodeTools(in)
	if string(again) != string(out) {
		t.Errorf("encoding is not byte-stable")
	}
	back, err := DecodeTools(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Defs, back.Defs); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestStopReasons(t *testing.T) {
	tests := []struct {
		name  string
		wire  string
		stop  tool.StopReason
		exact bool
		back  string
	}{
		{name: "end-turn", wire: "end_turn", stop: tool.StopEnd, exact: true, back: "end_turn"},
		{name: "tool-use", wire: "tool_use", stop: tool.StopToolCalls, exact: true, back: "tool_use"},
		{name: "max-tokens", wire: "max_tokens", stop: tool.StopMaxTokens, exact: true, back: "max_tokens"},
		{name: "stop-sequence", wire: "stop_sequence", stop: tool.StopSequence, exact: true, back: "stop_sequence"},
		{name: "pause-turn", wire: "pause_turn", stop: tool.StopPauseTurn, exact: true, back: "pause_turn"},
		{name: "refusal", wire: "refusal", stop: tool.StopRefusal, exact: true, back: "refusal"},
		{name: "context-window", wire: "model_context_window_exceeded", stop: tool.StopMaxTokens, back: "max_tokens"},
		{name: "unknown", wire: "new", stop: tool.StopOther, back: "end_turn"},
		{name: "null", wire: "", stop: "", exact: true, back: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop, exact := stopReason(tt.wire)
			if stop != tt.stop || exact != tt.exact {
				t.Errorf("stopReason(%q) = %q, %v, want %q, %v", tt.wire, stop, exact, tt.stop, tt.exact)
			}
			if got := anthropicStop(tt.stop); got != tt.back {
				t.Errorf("anthropicStop(%q) = %q, want %q", tt.stop, got, tt.back)
			}
		})
	}
	if got := anthropicStop(tool.StopContentFilter); got != "refusal" {
		t.Errorf("content filter is written as %q, want refusal", got)
	}
}

// TestThinkingReplay checks that signed thinking blocks come back byte for
// byte, before the text, when a response is written for replay.
func TestThinkingReplay(t *testing.T) {
	const in = `{"type":"message","role":"assistant","content":[{"type":"text","text":"x"},{"type":"thinking","thinking":"t","signature":"S1g=="},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}],"stop_reason":"tool_use"}`
	r, err := DecodeResponse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Calls[0].Extensions.Get(tool.ExtAnthropicThinking)); got != `[{"type":"thinking","thinking":"t","signature":"S1g=="}]` {
		t.Errorf("kept thinking = %s", got)
	}
	out, _, err := EncodeResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"message","role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"S1g=="},{"type":"text","text":"x"},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}],"stop_reason":"tool_use","stop_sequence":null}`
	if string(out) != want {
		t.Errorf("EncodeResponse =\n%s\nwant\n%s", out, want)
	}
	r.Calls[0].Extensions = r.Calls[0].Extensions.Set(tool.ExtAnthropicThinking, json.RawMessage(`[{"type":`))
	if _, _, err := EncodeResponse(r); err == nil {
		t.Error("malformed kept thinking blocks were written")
	}
}

func TestReasoningWithoutBlocks(t *testing.T) {
	out, _, err := EncodeResponse(&tool.Response{Content: "4", Reasoning: "2+2", Stop: tool.StopEnd})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"message","role":"assistant","content":[{"type":"thinking","thinking":"2+2","signature":""},{"type":"text","text":"4"}],"stop_reason":"end_turn","stop_sequence":null}`
	if string(out) != want {
		t.Errorf("EncodeResponse = %s, want %s", out, want)
	}
}

func TestResultsRoundTrip(t *testing.T) {
	in := []tool.Result{
		tool.TextResult("toolu_1", "ok"),
		tool.ErrorResult("toolu_2", "failed: <reason>"),
		{CallID: "toolu_3", Content: []tool.Content{&tool.Text{Text: "img"}, &tool.Image{MIMEType: "image/jpeg", Data: []byte{0xff, 0xd8}},
			&tool.Resource{URI: "https://example.com/x.png", MIMEType: "image/*", Link: true}},
			Extensions: tool.Extensions{tool.ExtAnthropicCacheControl: json.RawMessage(`{"type":"ephemeral"}`)}},
		{CallID: "toolu_4"},
	}
	out, _, err := EncodeResults(in)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeResults(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestChoiceRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		c    tool.Choice
		want string
	}{
		{name: "auto", c: tool.Choice{Mode: tool.ChoiceAuto}, want: `{"type":"auto"}`},
		{name: "required-is-any", c: tool.Choice{Mode: tool.ChoiceRequired, DisableParallel: true}, want: `{"type":"any","disable_parallel_tool_use":true}`},
		{name: "tool", c: tool.Choice{Mode: tool.ChoiceTool, Name: "f"}, want: `{"type":"tool","name":"f"}`},
		{name: "none", c: tool.Choice{Mode: tool.ChoiceNone}, want: `{"type":"none"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := EncodeChoice(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("EncodeChoice = %s, want %s", out, tt.want)
			}
			back, err := DecodeChoice(out)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.c, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
