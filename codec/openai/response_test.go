// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openai

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

func TestStopReasons(t *testing.T) {
	tests := []struct {
		name   string
		finish string
		stop   tool.StopReason
		back   string // finish_reason written for stop
	}{
		{name: "stop", finish: "stop", stop: tool.StopEnd, back: "stop"},
		{name: "tool-calls", finish: "tool_calls", stop: tool.StopToolCalls, back: "tool_calls"},
		{name: "function-call", finish: "function_call", stop: tool.StopToolCalls, back: "tool_calls"},
		{name: "length", finish: "length", stop: tool.StopMaxTokens, back: "length"},
		{name: "content-filter", finish: "content_filter", stop: tool.StopContentFilter, back: "content_filter"},
		{name: "unknown", finish: "new_reason", stop: tool.StopOther, back: "stop"},
		{name: "null", finish: "", stop: "", back: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stopReason(tt.finish); got != tt.stop {
				t.Errorf("stopReason(%q) = %q, want %q", tt.finish, got, tt.stop)
			}
			if got := finishReason(tt.stop); got != tt.back {
				t.Errorf("finishReason(%q) = %q, want %q", tt.stop, got, tt.back)
			}
		})
	}
}

// TestTextAndCallIsToolCallStop checks the rule in both directions.
func TestTextAndCallIsToolCallStop(t *testing.T) {
	r := &tool.Response{Content: "Checking.", Stop: tool.StopEnd,
		Calls: []tool.Call{{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}}
	out, _, err := EncodeResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stop != tool.StopToolCalls {
		t.Errorf("Stop = %q, want %q", back.Stop, tool.StopToolCalls)
	}
	r.Stop = tool.StopToolCalls
	if diff := cmp.Diff(r, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestEncodeResponseErrors(t *testing.T) {
	tests := []struct {
		name string
		r    tool.Response
	}{
		{name: "no-name", r: tool.Response{Calls: []tool.Call{{ID: "c", Arguments: json.RawMessage(`{}`)}}}},
		{name: "array-arguments", r: tool.Response{Calls: []tool.Call{{ID: "c", Name: "f", Arguments: json.RawMessage(`[1]`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := EncodeResponse(&tt.r); err == nil {
				t.Error("EncodeResponse succeeded, want an error")
			}
		})
	}
}

func TestArgumentsErrorPointer(t *testing.T) {
	in := `{"choices":[{"message":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"\"x\""}}]}}]}`
	_, err := DecodeResponse([]byte(in))
	if !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("err = %v, want ErrInvalidArguments", err)
	}
	const want = "openai: /choices/0/message/tool_calls/1/function/arguments: tool call arguments are not a JSON object: got a JSON string"
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestResultsRoundTrip(t *testing.T) {
	in := []tool.Result{
		tool.TextResult("call_1", "sunny <b>"),
		{CallID: "call_2", Content: []tool.Content{&tool.Text{Text: "a"}, &tool.Text{Text: "b"}}},
		{Name: "legacy_fn", Content: []tool.Content{&tool.Text{Text: "x"}}},
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
	// Parts that are not text become their text rendering.
	img := []tool.Result{{CallID: "c", Content: []tool.Content{&tool.Text{Text: "see"}, &tool.Image{MIMEType: "image/png", Data: []byte{1, 2}}}, IsError: true}}
	out, ws, err := EncodeResults(img)
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"see"},{"type":"text","text":"[image image/png, 2 bytes]"}]}]`
	if string(out) != want {
		t.Errorf("EncodeResults = %s, want %s", out, want)
	}
	// Neither the image nor the error flag is lost silently.
	var got []string
	for _, w := range ws {
		got = append(got, w.Pointer+" "+w.Code)
	}
	if diff := cmp.Diff([]string{"/0/content/1 part-as-text", "/0/is_error dropped-field"}, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if _, _, err := EncodeResults([]tool.Result{{}}); err == nil {
		t.Error("a result with neither call id nor name encoded")
	}
}

func TestChoiceRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		c    tool.Choice
		want string
	}{
		{name: "zero", c: tool.Choice{}, want: `"auto"`},
		{name: "none", c: tool.Choice{Mode: tool.ChoiceNone}, want: `"none"`},
		{name: "required", c: tool.Choice{Mode: tool.ChoiceRequired}, want: `"required"`},
		{name: "tool", c: tool.Choice{Mode: tool.ChoiceTool, Name: "f"}, want: `{"type":"function","function":{"name":"f"}}`},
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
			want := tt.c
			if want.Mode == "" {
				want.Mode = tool.ChoiceAuto
			}
			if diff := cmp.Diff(want, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := EncodeChoice(tool.Choice{Mode: tool.ChoiceTool}); !errors.Is(err, tool.ErrInvalidChoice) {
		t.Errorf("tool mode without a name: %v", err)
	}
}
