// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

// hardSchemas are schemas written to break lowering passes: references and
// cycles, nested combinators, every kind of nullability, keywords no
// provider likes.
var hardSchemas = map[string]string{
	"empty":          `{}`,
	"typical":        `{"type":"object","properties":{"city":{"type":"string","description":"City name"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}`,
	"ref-cycle":      `{"$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}}}`,
	"root-ref":       `{"$ref":"#/definitions/args","definitions":{"args":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}`,
	"mutual-refs":    `{"$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"},"n":{"type":"number"}}}},"type":"object","properties":{"start":{"$ref":"#/$defs/a"}}}`,
	"root-anyof":     `{"anyOf":[{"type":"object","properties":{"id":{"type":"string"},"kind":{"const":"id"}},"required":["id","kind"]},{"type":"object","properties":{"email":{"type":"string","format":"email"},"kind":{"const":"email"}},"required":["email","kind"]}]}`,
	"root-oneof-ref": `{"oneOf":[{"$ref":"#/$defs/x"},{"$ref":"#/$defs/y"}],"$defs":{"x":{"properties":{"a":{"type":"integer"}},"required":["a"]},"y":{"properties":{"b":{"type":"boolean"}},"required":["b"]}}}`,
	"root-allof":     `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"number","exclusiveMinimum":0}},"required":["b"]},{"allOf":[{"properties":{"c":{"type":"null"}}}]}]}`,
	"nested-anyof":   `{"type":"object","properties":{"v":{"anyOf":[{"anyOf":[{"type":"string"},{"type":"null"}]},{"oneOf":[{"type":"integer"},{"type":"array","items":{"anyOf":[{"type":"number"},{"type":"null"}]}}]}]}}}`,
	"int-enums":      `{"type":"object","properties":{"level":{"type":"integer","enum":[1,2,3]},"flag":{"enum":[true,false,null]},"mixed":{"enum":["a",1,2.5]},"c":{"const":42}},"required":["level"]}`,
	"nullable-forms": `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"string"},{"type":"null"}]},"c":{"type":"string","nullable":true},"d":{"type":["string","integer","null"]},"e":{"type":"null"},"f":{"$ref":"#/$defs/e"},"g":{"enum":["x","y"]}},"$defs":{"e":{"type":"string","enum":["p","q"]}}}`,
	"unsupported": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/s","type":"object","description":"Create a user.",
		"properties":{"name":{"type":"string","minLength":1,"maxLength":80,"pattern":"^[a-z]+$"},"tags":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":5,"uniqueItems":true},
		"meta":{"type":"object","additionalProperties":{"type":"string"},"patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"maxLength":10}},
		"when":{"type":"string","format":"date"},"site":{"type":"string","format":"uri"},"score":{"type":"number","multipleOf":0.5,"default":1,"examples":[1.5]},
		"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]},"old":{"type":"array","items":[{"type":"string"},{"type":"string"}]},
		"cond":{"type":"object","properties":{"k":{"type":"string"}},"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["k"]},"not":{"required":["z"]}},
		"x-vendor":{"type":"string"}},"required":["name"],"additionalProperties":true,"dependentRequired":{"tags":["name"]}}`,
	"allof-inner":     `{"type":"object","properties":{"p":{"allOf":[{"$ref":"#/$defs/base"},{"properties":{"extra":{"type":"string"}}}]}},"$defs":{"base":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}}`,
	"type-array-obj":  `{"type":["object","null"],"properties":{"a":{"type":"string"}}}`,
	"draft07":         `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"t":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/t"},"y":{"type":"array","items":{"$ref":"#/definitions/t"}}}}`,
	"escaped-keys":    `{"type":"object","properties":{"a/b":{"type":"string"},"c~d":{"$ref":"#/$defs/e~1f"}},"$defs":{"e/f":{"type":"integer"}}}`,
	"free-object":     `{"type":"object","properties":{"opts":{"type":"object"},"any":{}}}`,
	"mcp-style":       `{"type":"object","properties":{"path":{"type":"string","description":"File path"},"options":{"type":"object","properties":{"recursive":{"type":"boolean","default":false},"depth":{"type":"integer","minimum":0}},"additionalProperties":false}},"required":["path"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
	"description-esc": `{"type":"object","properties":{"q":{"type":"string","description":"Say \"hi\"\n\u00e9 <b>","maxLength":5}}}`,
}

func TestLowerPassesCheck(t *testing.T) {
	for name, s := range hardSchemas {
		for _, tg := range Targets {
			t.Run(name+"/"+string(tg), func(t *testing.T) {
				out, warns, err := Lower(tg, json.RawMessage(s))
				if err != nil {
					t.Fatalf("Lower: %v", err)
				}
				if probs := Check(tg, "tool", out); len(probs) > 0 {
					t.Errorf("Check after Lower:\n%v\noutput: %s\nwarnings: %v", probs, out, warns)
				}
				if _, err := Resolve(out, nil); err != nil && tg != Gemini && resolves(s) {
					t.Errorf("lowered schema does not resolve: %v\n%s", err, out)
				}
				again, w2, err := Lower(tg, out)
				if err != nil || !bytes.Equal(again, out) || len(w2) > 0 {
					t.Errorf("Lower is not idempotent: err %v, warnings %v\nfirst:  %s\nsecond: %s", err, w2, out, again)
				}
				out2, warns2, _ := Lower(tg, json.RawMessage(s))
				if !bytes.Equal(out, out2) || !cmp.Equal(warns, warns2) {
					t.Error("Lower is not deterministic")
				}
				if len(warns) == 0 && !bytes.Equal(out, []byte(s)) {
					t.Error("output changed without a warning")
				}
			})
		}
	}
}

func TestLowerUntouched(t *testing.T) {
	// Pretty-printed input the target accepts comes back byte for byte.
	in := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"a\": {\"type\": \"string\", \"minLength\": 3}}\n}")
	for _, tg := range []Target{OpenAI, Anthropic, GeminiJSON, MCP} {
		out, warns, err := Lower(tg, in)
		if err != nil || len(warns) > 0 || !bytes.Equal(out, in) {
			t.Errorf("%s: got %s %v %v, want the input unchanged", tg, out, warns, err)
		}
	}
	strictOK := json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}`)
	for _, tg := range []Target{OpenAIStrict, AnthropicStrict} {
		out, warns, err := Lower(tg, strictOK)
		if err != nil || len(warns) > 0 || !bytes.Equal(out, strictOK) {
			t.Errorf("%s: got %s %v %v, want the input unchanged", tg, out, warns, err)
		}
	}
}

func TestLowerErrors(t *testing.T) {
	tests := []struct {
		name   string
		target Target
		schema string
		err    error
	}{
		{name: "array", target: OpenAI, schema: `[]`, err: ErrInvalidSchema},
		{name: "string-root", target: MCP, schema: `{"type":"string"}`, err: ErrUnsupported},
		{name: "malformed", target: Anthropic, schema: `{"type":"object",}`, err: ErrInvalidSchema},
		{name: "duplicate", target: Anthropic, schema: `{"type":"object","type":"object"}`, err: ErrInvalidSchema},
		{name: "root-anyof-scalars", target: Anthropic, schema: `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, err: ErrUnsupported},
		{name: "dangling-ref", target: Gemini, schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}}}`, err: ErrInvalidSchema},
		{name: "remote-ref-gemini", target: Gemini, schema: `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, err: ErrRemoteRef},
		{name: "remote-ref-gemini-json", target: GeminiJSON, schema: `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`, err: ErrRemoteRef},
		{name: "unknown-target", target: "bedrock", schema: `{}`, err: ErrUnknownTarget},
		{name: "deep", target: OpenAIStrict, schema: strings.Repeat(`{"items":`, 10000) + `{}` + strings.Repeat(`}`, 10000), err: ErrInvalidSchema},
		{name: "deep-combinators", target: Anthropic, schema: `{"anyOf":[{"anyOf":[{"anyOf":[{"anyOf":[{"type":"object"}]}]}]}]}`, err: ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Lower(tt.target, json.RawMessage(tt.schema))
			if !errors.Is(err, tt.err) {
				t.Fatalf("Lower = %v, want %v", err, tt.err)
			}
		})
	}
}

func TestLowerLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range 5001 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strings.Repeat("x", 0) + itoa(i) + `":{"type":"string"}`)
	}
	b.WriteString(`}}`)
	_, warns, err := Lower(OpenAIStrict, json.RawMessage(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !hasCode(warns, CodeLimitExceeded) {
		t.Error("no limit-exceeded warning for 5001 properties")
	}
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 11) + `{"type":"string"}` + strings.Repeat(`}}`, 11)
	_, warns, err = Lower(OpenAIStrict, json.RawMessage(deep))
	if err != nil {
		t.Fatal(err)
	}
	if !hasCode(warns, CodeLimitExceeded) {
		t.Error("no limit-exceeded warning for 12 levels")
	}
}

func resolves(s string) bool {
	_, err := Resolve(json.RawMessage(s), nil)
	return err == nil
}

func itoa(i int) string { return strings.TrimSpace(string(json.Number(jsonInt(i)))) }

func jsonInt(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func hasCode(ws []tool.Warning, code string) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}

func TestLowerAllOfErrors(t *testing.T) {
	tests := []struct {
		name   string
		target Target
		schema string
		err    error
	}{
		{name: "remote", target: OpenAIStrict, schema: `{"type":"object","properties":{"a":{"allOf":[{"$ref":"https://x.invalid/s.json"}]}}}`, err: ErrRemoteRef},
		{name: "dangling", target: OpenAIStrict, schema: `{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/none"}]}}}`, err: ErrInvalidSchema},
		{name: "not-a-schema", target: Gemini, schema: `{"type":"object","properties":{"a":{"allOf":[true]}}}`, err: ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := Lower(tt.target, json.RawMessage(tt.schema)); !errors.Is(err, tt.err) {
				t.Errorf("Lower = %v, want %v", err, tt.err)
			}
		})
	}
}

func TestLowerCheckedDeepUnchecked(t *testing.T) {
	// Not checked, 20,000 levels: must return, not exhaust the stack.
	deep := json.RawMessage(`{"properties":{"a":` + strings.Repeat(`[`, 20000))
	for _, tg := range Targets {
		_, _, _ = LowerChecked(tg, deep)
	}
}
