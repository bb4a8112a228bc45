// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package canonical

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

func TestDecodeToolsErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"malformed", `{`, strictjson.ErrSyntax},
		{"unknown-member", `{"name":"a","inputSchema":{}}`, codec.ErrUnknownShape},
		{"wrong-case", `{"NAME":"a"}`, codec.ErrUnknownShape},
		{"wrong-case-nested", `{"name":"a","annotations":{"readonlyhint":true}}`, codec.ErrUnknownShape},
		{"bad-action", `{"name":"a","capability":{"action":"destroy"}}`, codec.ErrUnknownShape},
		{"bad-pii", `{"name":"a","security":{"pii":"maybe"}}`, codec.ErrUnknownShape},
		{"bad-type", `{"name":"a","capability":{"side_effects":"yes"}}`, codec.ErrUnknownShape},
		{"empty-name", `{"name":""}`, tool.ErrInvalidDefinition},
		{"duplicate", `[{"name":"a"},{"name":"a"}]`, tool.ErrInvalidDefinition},
		{"schema-array", `{"name":"a","input_schema":[]}`, tool.ErrInvalidDefinition},
		{"tools-extra", `{"tools":[],"x":1}`, codec.ErrUnknownShape},
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

// TestMatchesEncodingJSON checks that the hand-written encoder writes what
// encoding/json would for tool.Definition, up to HTML escaping.
func TestMatchesEncodingJSON(t *testing.T) {
	d := tool.Definition{
		Name: "a", Title: "A", Description: "d", Version: "2",
		InputSchema:  json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"string"}`),
		Annotations:  &tool.Annotations{ReadOnlyHint: tool.Bool(true)},
		Behavior:     &tool.Behavior{Action: tool.ActionRead, Domain: "web", SideEffects: tool.Bool(false), Cost: tool.CostLow, Inferred: true},
		Security:     &tool.Security{RequiredPermissions: []string{"web:read"}, DataClassification: tool.ClassPublic, PII: tool.PIINone},
		Extensions:   tool.Extensions{"b": json.RawMessage(`1`), "a": json.RawMessage(`{"x":[]}`)},
	}
	got, _, err := EncodeTools(&codec.Tools{Defs: []tool.Definition{d}, Single: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(got) {
		t.Errorf("EncodeTools differs from json.Marshal:\n got %s\nwant %s", got, want)
	}
	back, err := DecodeTools(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, back.Defs[0]); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func FuzzDecodeTools(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","input_schema":{"type":"object"},"annotations":{"readOnlyHint":true},"capability":{"action":"read","inferred":true},"security":{"pii":"none"},"version":"1","extensions":{"openai/strict":true}}`,
		`[{"name":"a"},{"name":"b","title":"B <&>"}]`,
		`{"tools":[{"name":"c","output_schema":{}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := DecodeTools(data)
		if err != nil {
			return
		}
		out, _, err := EncodeTools(ts)
		if err != nil {
			t.Fatalf("EncodeTools: %v", err)
		}
		back, err := DecodeTools(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(ts.Defs, back.Defs); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
		out2, _, _ := EncodeTools(back)
		if string(out) != string(out2) {
			t.Fatalf("not byte-stable:\n%s\n%s", out, out2)
		}
	})
}
