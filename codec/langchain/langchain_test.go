// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package langchain

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/goldentest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

func TestToolsGolden(t *testing.T) {
	goldentest.Out(t, "testdata/tools.txtar", *update, goldentest.Reported(DecodeTools, EncodeTools), ".json")
}

func TestResponseGolden(t *testing.T) {
	goldentest.Out(t, "testdata/response.txtar", *update, goldentest.Reported(DecodeResponse, EncodeResponse), ".json")
}

func TestResultsGolden(t *testing.T) {
	goldentest.Out(t, "testdata/results.txtar", *update, goldentest.Reported(DecodeResults, EncodeResults), ".json")
}

func TestDecodeToolsErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"malformed", `{"name"}`, strictjson.ErrSyntax},
		{"true", `true`, codec.ErrUnknownShape},
		{"no-name", `{"description":"x"}`, codec.ErrUnknownShape},
		{"empty-name", `{"name":"","args_schema":{}}`, tool.ErrInvalidDefinition},
		{"duplicate", `[{"name":"a"},{"type":"function","function":{"name":"a"}}]`, tool.ErrInvalidDefinition},
		{"schema-string", `{"name":"a","args_schema":"Model"}`, tool.ErrInvalidDefinition},
		{"two-schemas", `{"name":"a","args_schema":{},"parameters":{}}`, tool.ErrInvalidDefinition},
		{"wrapper-extra", `{"type":"function","function":{"name":"a"},"x":1}`, codec.ErrUnknownShape},
		{"wrapper-type", `{"type":"custom","function":{"name":"a"}}`, codec.ErrUnknownShape},
		{"wrapped-args-schema", `{"type":"function","function":{"name":"a","args_schema":{}}}`, codec.ErrUnknownShape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeTools([]byte(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("DecodeTools(%s) = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	ts := &codec.Tools{Defs: []tool.Definition{
		{Name: "a", Description: "<b> & c", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`),
			Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`)}},
		{Name: "b", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}}
	out, warns, err := EncodeTools(ts)
	if err != nil || len(warns) != 0 {
		t.Fatalf("EncodeTools: %v %v", err, warns)
	}
	back, err := DecodeTools(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ts, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	out2, _, _ := EncodeTools(back)
	if string(out) != string(out2) {
		t.Errorf("not byte-stable:\n%s\n%s", out, out2)
	}
}

func TestEncodeWarnsForStructuredToolFields(t *testing.T) {
	ts, err := DecodeTools([]byte(`{"name":"a","args_schema":{"type":"object"},"return_direct":true,"tags":["x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, warns, err := EncodeTools(ts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.Pointer)
	}
	want := []string{"/extensions/langchain~1return_direct", "/extensions/langchain~1tags"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func FuzzDecodeTools(f *testing.F) {
	for _, s := range []string{
		`{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object"},"strict":true}}`,
		`[{"name":"a","args_schema":{"title":"A","type":"object"},"return_direct":false},{"title":"B","type":"object","properties":{}}]`,
		`{"tools":[{"name":"c","args":{"x":{"type":"string"}}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := DecodeTools(data)
		if err != nil {
			return
		}
		out, warns, err := EncodeTools(ts)
		if err != nil {
			t.Fatalf("EncodeTools: %v", err)
		}
		back, err := DecodeTools(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		if len(warns) > 0 {
			return // something was reported as not carried
		}
		for i := range ts.Defs {
			if ts.Defs[i].InputSchema == nil {
				ts.Defs[i].InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
		}
		if diff := cmp.Diff(ts.Defs, back.Defs); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"type":"ai","content":"hi","tool_calls":[{"name":"f","args":{"a":1},"id":"call_1","type":"tool_call"}],"invalid_tool_calls":[{"name":"g","args":"{bad","id":"call_2","error":"bad json","type":"invalid_tool_call"}],"response_metadata":{"finish_reason":"tool_calls"},"id":"run-1"}`,
		`{"type":"ai","data":{"content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"}],"tool_calls":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResponse(data)
		if err != nil {
			return
		}
		out, _, err := EncodeResponse(r)
		if err != nil {
			t.Fatalf("EncodeResponse: %v", err)
		}
		back, err := DecodeResponse(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		out2, _, _ := EncodeResponse(back)
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzDecodeResults(f *testing.F) {
	for _, s := range []string{
		`{"type":"tool","content":"22C","tool_call_id":"call_1","status":"success","name":"w"}`,
		`[{"type":"tool","content":[{"type":"text","text":"a"},{"type":"image","source_type":"base64","data":"AQ==","mime_type":"image/png"}],"tool_call_id":"c","status":"error","artifact":{"k":1}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := DecodeResults(data)
		if err != nil {
			return
		}
		out, warns, err := EncodeResults(rs)
		if err != nil {
			t.Fatalf("EncodeResults: %v", err)
		}
		back, err := DecodeResults(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		if len(warns) > 0 {
			return
		}
		if diff := cmp.Diff(rs, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
