// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		target Target
		schema string
		want   []string // "pointer rule"
	}{
		{name: "openai-ok", target: OpenAI, schema: `{"type":"object","oneOf":[{}]}`},
		{name: "openai-root-type", target: OpenAI, schema: `{"properties":{}}`, want: []string{"/type root-type"}},
		{name: "not-object", target: MCP, schema: `true`, want: []string{" not-object"}},
		{name: "malformed", target: MCP, schema: `{"a":}`, want: []string{" malformed"}},
		{name: "anthropic-root-anyof", target: Anthropic, schema: `{"type":"object","anyOf":[{}]}`, want: []string{"/anyOf root-combinator"}},
		{name: "anthropic-strict", target: AnthropicStrict,
			schema: `{"type":"object","properties":{"n":{"type":"integer","minimum":1},"l":{"type":"array","minItems":3},"f":{"type":"string","format":"color"},"o":{"type":"object"}},"additionalProperties":false}`,
			want:   []string{"/properties/f/format format", "/properties/l/minItems min-items", "/properties/n/minimum keyword", "/properties/o open-object"}},
		{name: "openai-strict", target: OpenAIStrict,
			schema: `{"type":"object","properties":{"a":{"type":"string","minLength":1},"b":{"oneOf":[{"type":"string"}]}},"required":["a"],"additionalProperties":false}`,
			want:   []string{"/properties/a/minLength keyword", "/properties/b not-required", "/properties/b/oneOf keyword"}},
		{name: "openai-strict-ok", target: OpenAIStrict,
			schema: `{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#/$defs/x"},{"type":"null"}]}},"required":["a"],"additionalProperties":false,"$defs":{"x":{"type":"string","format":"date"}}}`},
		{name: "gemini", target: Gemini,
			schema: `{"type":"OBJECT","properties":{"a":{"type":"string"},"b":{"type":["STRING","NULL"]},"c":{"type":"INTEGER","enum":[1]},"d":{"$ref":"#/x"},"e":{"type":"STRING","format":"uri"}},"additionalProperties":false}`,
			want: []string{"/additionalProperties keyword", "/properties/a/type type-case", "/properties/b/type type-list",
				"/properties/c/enum enum-type", "/properties/c/enum/0 enum-type", "/properties/d/$ref keyword", "/properties/e/format format"}},
		{name: "gemini-json-remote", target: GeminiJSON, schema: `{"type":"object","properties":{"a":{"$ref":"x.json"}}}`, want: []string{"/properties/a/$ref remote-ref"}},
		{name: "unknown-target", target: "x", schema: `{}`, want: []string{" target"}},
		{name: "no-schema", target: OpenAIStrict, schema: ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Check(tt.target, "ok_name", json.RawMessage(tt.schema)) {
				got = append(got, p.Pointer+" "+p.Rule)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
