// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package jsonschema

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
		{"malformed", `{"title":}`, strictjson.ErrSyntax},
		{"no-title", `{"type":"object"}`, codec.ErrUnknownShape},
		{"empty-title", `{"title":""}`, tool.ErrInvalidDefinition},
		{"title-number", `{"title":1}`, codec.ErrUnknownShape},
		{"not-object", `[1]`, tool.ErrInvalidDefinition},
		{"duplicate", `[{"title":"a"},{"title":"a"}]`, tool.ErrInvalidDefinition},
		{"bad-capability", `{"title":"a","x-capabilities":{"Action":"read"}}`, codec.ErrUnknownShape},
		{"bad-classification", `{"title":"a","x-security":{"data_classification":"secret"}}`, codec.ErrUnknownShape},
		{"output-schema-string", `{"title":"a","x-output-schema":"s"}`, tool.ErrInvalidDefinition},
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

func TestRoundTripKeepsEverything(t *testing.T) {
	d := tool.Definition{
		Name: "a", Title: "A", Description: "d", Version: "2",
		InputSchema:  json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","x-other":1}`),
		OutputSchema: json.RawMessage(`{"type":"string"}`),
		Annotations:  &tool.Annotations{DestructiveHint: tool.Bool(true)},
		Behavior:     &tool.Behavior{Action: tool.ActionDelete, SideEffects: tool.Bool(true)},
		Security:     &tool.Security{RequiredPermissions: []string{"admin"}, PII: tool.PIIRedact},
		Extensions:   tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`)},
	}
	ts := &codec.Tools{Defs: []tool.Definition{d}, Single: true}
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
}

func TestEncodeSchemaTitleClash(t *testing.T) {
	d := tool.Definition{Name: "search", Description: "Search.", InputSchema: json.RawMessage(`{"title":"SearchArgs","description":"Search.","type":"object"}`)}
	out, warns, err := EncodeTools(&codec.Tools{Defs: []tool.Definition{d}, Single: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"title":"search","description":"Search.","type":"object"}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	if len(warns) != 1 || warns[0].Pointer != "/input_schema/title" {
		t.Errorf("warnings = %v, want one at /input_schema/title", warns)
	}
}

func FuzzDecodeTools(f *testing.F) {
	for _, s := range []string{
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"a","description":"d","type":"object","x-capabilities":{"action":"read"},"x-security":{"pii":"none"},"x-annotations":{"readOnlyHint":true}}`,
		`[{"title":"a","x-title":"A","x-version":"1","x-output-schema":{},"x-extensions":{"k":1}},{"title":"b","properties":{}}]`,
		`{"tools":[{"title":"c"}]}`,
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
		if len(warns) != 0 {
			t.Fatalf("warnings on a decoded value: %v", warns)
		}
		back, err := DecodeTools(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(ts.Defs, back.Defs); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
