// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openai

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
		pointer string // must appear in the message
	}{
		{name: "malformed", in: `[{"type":"function",}]`, err: strictjson.ErrSyntax, pointer: "/0/"},
		{name: "duplicate-key", in: `{"tools":[],"tools":[]}`, err: strictjson.ErrDuplicateName, pointer: "/tools"},
		{name: "invalid-utf8", in: "[{\"type\":\"function\",\"function\":{\"name\":\"\xff\"}}]", err: strictjson.ErrInvalidUTF8, pointer: "/0/function/name"},
		{name: "too-deep", in: `{"type":"function","function":{"name":"x","parameters":` + strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300) + `}}`, err: strictjson.ErrTooDeep},
		{name: "number", in: `42`, err: codec.ErrUnknownShape, pointer: "document root"},
		{name: "tools-not-array", in: `{"tools":{}}`, err: codec.ErrUnknownShape, pointer: "/tools"},
		{name: "element-not-object", in: `[1]`, err: codec.ErrUnknownShape, pointer: "/0"},
		{name: "name-not-string", in: `[{"type":"function","function":{"name":7}}]`, err: codec.ErrUnknownShape, pointer: "/0/function/name"},
		{name: "unknown-function-member", in: `[{"type":"function","function":{"name":"x","Parameters":{}}}]`, err: codec.ErrUnknownShape, pointer: "/0/function/Parameters"},
		{name: "empty-name", in: `{"functions":[{"name":""}]}`, err: tool.ErrInvalidDefinition, pointer: "/functions/0/name"},
		{name: "duplicate-across-lists", in: `{"tools":[{"type":"function","function":{"name":"a"}}],"functions":[{"name":"a"}]}`, err: tool.ErrInvalidDefinition, pointer: "/functions/0/name"},
		{name: "schema-string", in: `{"type":"function","function":{"name":"x","parameters":"{}"}}`, err: tool.ErrInvalidDefinition, pointer: "/function/parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeTools([]byte(tt.in))
			if !errors.Is(err, tt.err) {
				t.Fatalf("DecodeTools(%.60q) = %v, want %v", tt.in, err, tt.err)
			}
			if !strings.Contains(err.Error(), tt.pointer) {
				t.Errorf("error %q does not name %q", err, tt.pointer)
			}
			if ce, ok := errors.AsType[*codec.Error](err); !ok || ce.Format != codec.OpenAI {
				t.Errorf("error %v is not a *codec.Error of format %s", err, codec.OpenAI)
			}
		})
	}
}

func TestDecodeToolsKeepsStrictjsonError(t *testing.T) {
	_, err := DecodeTools([]byte("[\n  {\"type\": \"function\",\n   \"type\": \"function\"}]"))
	se, ok := errors.AsType[*strictjson.Error](err)
	if !ok {
		t.Fatalf("error %v is not a *strictjson.Error", err)
	}
	if line, col := strictjson.LineCol([]byte("[\n  {\"type\": \"function\",\n   \"type\": \"function\"}]"), se.Offset); line != 3 || col != 4 {
		t.Errorf("duplicate found at %d:%d, want 3:4", line, col)
	}
}

func TestDuplicateNamesBothPointers(t *testing.T) {
	_, err := DecodeTools([]byte(`[{"type":"function","function":{"name":"x"}},{"name":"x"}]`))
	if err == nil || !strings.Contains(err.Error(), "/1/name") || !strings.Contains(err.Error(), "/0/function/name") {
		t.Fatalf("error %v does not name both pointers", err)
	}
}

func TestEncodeTools(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"<b>&</b>"}}}`)
	tests := []struct {
		name     string
		tools    codec.Tools
		want     string
		warnings []string // codes with pointers
		err      error
	}{
		{
			name:  "single",
			tools: codec.Tools{Single: true, Defs: []tool.Definition{{Name: "s", Description: "a & b", InputSchema: schema}}},
			want:  `{"type":"function","function":{"name":"s","description":"a & b","parameters":{"type":"object","properties":{"q":{"type":"string","description":"<b>&</b>"}}}}}`,
		},
		{
			name:  "single-flag-with-two-defs-is-a-list",
			tools: codec.Tools{Single: true, Defs: []tool.Definition{{Name: "a"}, {Name: "b"}}},
			want:  `[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}]`,
		},
		{
			name:  "empty-list",
			tools: codec.Tools{},
			want:  `[]`,
		},
		{
			name: "strict-kept",
			tools: codec.Tools{Defs: []tool.Definition{{Name: "a", InputSchema: schema,
				Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`)}}}},
			want: `[{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{"q":{"type":"string","description":"<b>&</b>"}}},"strict":true}}]`,
		},
		{
			name: "dropped-fields-warn",
			tools: codec.Tools{Defs: []tool.Definition{{
				Name: "a", Title: "A", OutputSchema: json.RawMessage(`{"type":"object"}`),
				Annotations: &tool.Annotations{ReadOnlyHint: tool.Bool(true)},
				Behavior:    &tool.Behavior{Action: tool.ActionRead},
				Security:    &tool.Security{PII: tool.PIINone},
				Version:     "2",
				Extensions:  tool.Extensions{tool.ExtAnthropicCacheControl: json.RawMessage(`{"type":"ephemeral"}`), tool.ExtMCPMeta: json.RawMessage(`{}`)},
			}, {
				Name: "b", Behavior: &tool.Behavior{Action: tool.ActionRead, Inferred: true},
			}}},
			want: `[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}]`,
			warnings: []string{
				"/0 title", "/0 output_schema", "/0 annotations", "/0 capability", "/0 security", "/0 version",
				"/0 extension anthropic/cache_control", "/0 extension mcp/_meta",
			},
		},
		{name: "empty-name", tools: codec.Tools{Defs: []tool.Definition{{Name: ""}}}, err: tool.ErrInvalidDefinition},
		{name: "duplicate", tools: codec.Tools{Defs: []tool.Definition{{Name: "a"}, {Name: "a"}}}, err: tool.ErrInvalidDefinition},
		{name: "schema-not-object", tools: codec.Tools{Defs: []tool.Definition{{Name: "a", InputSchema: json.RawMessage(`true`)}}}, err: tool.ErrInvalidDefinition},
		{name: "strict-not-bool", tools: codec.Tools{Defs: []tool.Definition{{Name: "a", Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`"yes"`)}}}}, err: tool.ErrInvalidDefinition},
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
				if w.Code != "dropped-field" {
					t.Errorf("warning code %q, want dropped-field", w.Code)
				}
				field := w.Message[strings.Index(w.Message, "the ")+4 : strings.Index(w.Message, " of tool")]
				got = append(got, w.Pointer+" "+field)
			}
			if diff := cmp.Diff(tt.warnings, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if !json.Valid(out) {
				t.Errorf("output is not valid JSON: %s", out)
			}
		})
	}
}

// TestRoundTrip checks that decode(encode(x)) keeps everything Chat
// Completions can carry and that encoding is byte-stable.
func TestRoundTrip(t *testing.T) {
	in := &codec.Tools{Defs: []tool.Definition{
		{Name: "get_weather", Description: "Weather.\nUse for <cities>.", InputSchema: json.RawMessage(`{"type":"object","properties":{"z":{},"a":{"type":"string"}}}`),
			Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`false`)}},
		{Name: "noop"},
		{Name: "emoji_😀", Description: "\u2028 line sep", InputSchema: json.RawMessage(`{}`)},
	}}
	out, ws, err := EncodeTools(in)
	if err != nil || len(ws) != 0 {
		t.Fatalf("EncodeTools: %v, %v", err, ws)
	}
	again, _, _ := EncodeTools(in)
	if string(again) != string(out) {
		t.Errorf("encoding is not byte-stable:\n%s\n%s", out, again)
	}
	back, err := DecodeTools(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Defs, back.Defs); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestDecodeToolsSharesNoMemory(t *testing.T) {
	data := []byte(`{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}`)
	tools, err := DecodeTools(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = ' '
	}
	if got := string(tools.Defs[0].InputSchema); got != `{"type":"object"}` {
		t.Errorf("schema changed with the input: %q", got)
	}
}

// TestDecodeToolsReuse decodes documents one after another, as the pool of
// decoders makes them share buffers: names and descriptions (gathered in
// one string per document), a skipped tool whose "function" came first,
// and what an earlier result holds must not change with later decodes or
// with the input bytes.
func TestDecodeToolsReuse(t *testing.T) {
	docs := []string{
		`[{"type":"function","function":{"name":"a.b","description":"first \"one\" \u00e9","parameters":{"type":"object"}}},{"type":"function","function":{"name":"c","parameters":{"required":[]}}}]`,
		`{"tools":[{"function":{"name":"gone"},"type":"custom","custom":{"name":"x"}},{"type":"function","function":{"name":"kept","description":null}}]}`,
		`{"type":"function","function":{"name":"n\u0031","description":"","parameters":{"properties":{"p":{"type":"string"}}},"strict":true}}`,
	}
	want := [][]tool.Definition{
		{{Name: "a.b", Description: "first \"one\" é", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "c", InputSchema: json.RawMessage(`{"required":[]}`)}},
		{{Name: "kept"}},
		{{Name: "n1", InputSchema: json.RawMessage(`{"properties":{"p":{"type":"string"}}}`),
			Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`), tool.ExtEmptyDescription: json.RawMessage(`true`)}}},
	}
	var got []*codec.Tools
	for round := range 2 {
		for i, doc := range docs {
			in := []byte(doc)
			ts, err := DecodeTools(in)
			if err != nil {
				t.Fatalf("round %d, doc %d: %v", round, i, err)
			}
			for k := range in {
				in[k] = 'x' // the definitions share no memory with the input
			}
			got = append(got, ts)
		}
	}
	for k, ts := range got {
		if diff := cmp.Diff(want[k%len(docs)], ts.Defs); diff != "" {
			t.Errorf("decode %d (-want +got):\n%s", k, diff)
		}
	}
	// A schema is capped at its own bytes: appending to it must not write
	// over the next definition's.
	first := got[0].Defs
	_ = append(first[0].InputSchema, "xx"...)
	if diff := cmp.Diff(want[0], first); diff != "" {
		t.Errorf("after appending to a schema (-want +got):\n%s", diff)
	}
}
