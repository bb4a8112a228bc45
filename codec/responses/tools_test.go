// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

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
		{name: "malformed", in: `[{"type":"function",]`, err: strictjson.ErrSyntax, pointer: "/0/"},
		{name: "invalid-utf8", in: "{\"type\":\"function\",\"name\":\"\xc3\"}", err: strictjson.ErrInvalidUTF8, pointer: "/name"},
		{name: "string", in: `"x"`, err: codec.ErrUnknownShape, pointer: "document root"},
		{name: "tools-object", in: `{"tools":{}}`, err: codec.ErrUnknownShape, pointer: "/tools"},
		{name: "unknown-member", in: `[{"type":"function","name":"x","input_schema":{}}]`, err: codec.ErrUnknownShape, pointer: "/0/input_schema"},
		{name: "strict-number", in: `[{"type":"function","name":"x","strict":1}]`, err: codec.ErrUnknownShape, pointer: "/0/strict"},
		{name: "no-name", in: `[{"type":"function"}]`, err: tool.ErrInvalidDefinition, pointer: "/0"},
		{name: "schema-string", in: `[{"type":"function","name":"x","parameters":"{}"}]`, err: tool.ErrInvalidDefinition, pointer: "/0/parameters"},
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
			if ce, ok := errors.AsType[*codec.Error](err); !ok || ce.Format != codec.OpenAIResponses {
				t.Errorf("error %v is not a *codec.Error of format %s", err, codec.OpenAIResponses)
			}
		})
	}
}

func TestEncodeToolsStrict(t *testing.T) {
	tests := []struct {
		name string
		def  tool.Definition
		want string
	}{
		{name: "absent-is-false", def: tool.Definition{Name: "a"}, want: `[{"type":"function","name":"a","parameters":null,"strict":false}]`},
		{name: "kept", def: tool.Definition{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`), Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`)}},
			want: `[{"type":"function","name":"a","parameters":{"type":"object"},"strict":true}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ws, err := EncodeTools(&codec.Tools{Defs: []tool.Definition{tt.def}})
			if err != nil || len(ws) != 0 {
				t.Fatalf("EncodeTools: %v %v", err, ws)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	in := &codec.Tools{Defs: []tool.Definition{
		{Name: "a", Description: "<x>", InputSchema: json.RawMessage(`{"type":"object","properties":{"z":{},"a":{}}}`),
			Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`false`)}},
		{Name: "b", Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`)}},
	}}
	out, _, err := EncodeTools(in)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := EncodeTools(in)
	if string(again) != string(out) {
		t.Error("encoding is not byte-stable")
	}
	back, err := DecodeTools(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Defs, back.Defs); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// A title and an Anthropic extension cannot be carried.
	in.Defs[0].Title = "A"
	in.Defs[0].Extensions = in.Defs[0].Extensions.Set(tool.ExtAnthropicCacheControl, json.RawMessage(`{}`))
	_, ws, _ := EncodeTools(in)
	if len(ws) != 2 || ws[0].Pointer != "/0" || ws[0].Code != "dropped-field" {
		t.Errorf("warnings = %v", ws)
	}
}

func TestStopMapping(t *testing.T) {
	tests := []struct {
		name string
		stop tool.StopReason
		want string // status and incomplete_details as written
	}{
		{name: "end", stop: tool.StopEnd, want: `"status":"completed"`},
		{name: "max-tokens", stop: tool.StopMaxTokens, want: `"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}`},
		{name: "content-filter", stop: tool.StopContentFilter, want: `"status":"incomplete","incomplete_details":{"reason":"content_filter"}`},
		{name: "other", stop: tool.StopOther, want: `"status":"failed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := EncodeResponse(&tool.Response{Content: "x", Stop: tt.stop})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("EncodeResponse = %s, want it to hold %s", out, tt.want)
			}
			back, err := DecodeResponse(out)
			if err != nil {
				t.Fatal(err)
			}
			if back.Stop != tt.stop {
				t.Errorf("Stop after the round trip = %q, want %q", back.Stop, tt.stop)
			}
		})
	}
	// Text and a call is a tool-call stop, whatever the stop says.
	out, _, err := EncodeResponse(&tool.Response{Content: "x", Stop: tool.StopEnd, Calls: []tool.Call{{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if back, err := DecodeResponse(out); err != nil || back.Stop != tool.StopToolCalls {
		t.Errorf("Stop = %v, %v; want tool_calls", back, err)
	}
}

func TestResultsRoundTrip(t *testing.T) {
	in := []tool.Result{
		tool.TextResult("call_1", "ok"),
		{CallID: "call_2", Content: []tool.Content{&tool.Image{MIMEType: "image/png", Data: []byte{1, 2, 3}}},
			Extensions: tool.Extensions{tool.ExtResponsesItemID: json.RawMessage(`"fco_2"`), tool.ExtResponsesStatus: json.RawMessage(`"completed"`)}},
		{CallID: "call_3"},
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
