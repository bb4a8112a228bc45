// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

func addSeeds(f *testing.F) {
	for _, s := range hardSchemas {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"$ref":"#"}`))
	f.Add([]byte(`{"anyOf":[{"$ref":"#"}]}`))
	f.Add([]byte(`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"type":`))
	f.Add([]byte(`{"properties":{"a":{"enum":[{"x":1},[1]]}}}`))
}

// FuzzLower checks that Lower never panics, that what it returns is JSON,
// and that the output passes Check for the targets whose rules lowering
// fully enforces (all of them, unless a limit warning says otherwise).
func FuzzLower(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tg := range Targets {
			out, warns, err := Lower(tg, data)
			if err != nil {
				continue
			}
			if strictjson.Check(out, nil) != nil {
				t.Fatalf("%s: output is not strict JSON: %s", tg, out)
			}
			if hasCode(warns, CodeLimitExceeded) {
				continue
			}
			if probs := Check(tg, "tool", out); len(probs) > 0 {
				t.Fatalf("%s: output fails Check: %v\ninput:  %s\noutput: %s", tg, probs, data, out)
			}
			again, _, err := Lower(tg, out)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("%s: lowering is not idempotent: %v\n%s\n%s", tg, err, out, again)
			}
		}
	})
}

// FuzzResolve checks that Resolve and Validate never panic.
func FuzzResolve(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Resolve(data, nil)
		if err != nil {
			return
		}
		for _, inst := range []string{`{}`, `{"a":1,"b":"x","c":[1,2],"d":{"e":null}}`, `[]`, `"s"`, `1.5e300`, `null`} {
			err := r.Validate(json.RawMessage(inst))
			var ve *ValidationError
			if err != nil && !errorsAs(err, &ve) {
				t.Fatalf("Validate returned %T: %v", err, err)
			}
		}
		Types(data, "/a")
	})
}

// FuzzValidate validates arbitrary instances against a fixed schema.
func FuzzValidate(f *testing.F) {
	r, err := Resolve(json.RawMessage(hardSchemas["nullable-forms"]), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"a":"abc","d":1.5,"f":"p","g":null}`))
	f.Add([]byte(`{"name":1}`))
	f.Add([]byte(`[{"name":"x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if strictjson.Check(data, nil) != nil {
			return
		}
		if err := r.Validate(data); err != nil {
			var ve *ValidationError
			if !errorsAs(err, &ve) || len(ve.Errors) == 0 {
				t.Fatalf("Validate returned %v", err)
			}
		}
	})
}

// FuzzValidateFast checks the fast validator against the library: it may
// refuse what the library accepts (the library then decides), but it must
// never accept what the library refuses.
func FuzzValidateFast(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"exclusiveMaximum":10},"b":{"enum":["x",2,null]},"c":{"type":"string","minLength":2,"maxLength":3,"pattern":"^a"}},"required":["a"],"additionalProperties":false}`), []byte(`{"a":5,"b":"x","c":"abc"}`))
	f.Add([]byte(`{"type":"array","items":{"type":["number","null"],"maximum":1.5},"minItems":1,"maxItems":2}`), []byte(`[1.5,null]`))
	f.Add([]byte(`{"properties":{"n":{"const":1}},"additionalProperties":{"type":"boolean"}}`), []byte(`{"n":1.0,"z":true}`))
	f.Add([]byte(`{"type":"string","format":"date"}`), []byte(`"2024-13-99"`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"date"}`), []byte(`"x"`))
	f.Fuzz(func(t *testing.T, schemaBytes, inst []byte) {
		r, err := Resolve(schemaBytes, nil)
		if err != nil || r.fast == nil || strictjson.Check(inst, nil) != nil {
			return
		}
		if !r.fast.valid(inst, 0) {
			return
		}
		if err := r.sch.Validate(decodeChecked(inst, nil)); err != nil {
			t.Fatalf("fast path accepted what the library refuses: %v\nschema: %s\ninstance: %s", err, schemaBytes, inst)
		}
	})
}

// FuzzLowerChecked feeds LowerChecked bytes that did not pass strictjson:
// its result is unspecified then, but it must not panic or hang.
func FuzzLowerChecked(f *testing.F) {
	addSeeds(f)
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"str`))
	f.Add([]byte(`{"a":"\`))
	f.Add([]byte(`{"type":"object","type":1,"properties":{"x":}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<12 {
			return
		}
		for _, tg := range Targets {
			_, _, _ = LowerChecked(tg, data)
		}
	})
}

// FuzzQuickAccept checks the shortcuts of quickAccept (stopping at the
// root "type", ruling out combinators by searching the bytes) against
// the reading of every root member, on every document strictjson accepts.
func FuzzQuickAccept(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{
		`{"type":"object","anyOf":[{}]}`, `{"properties":{"anyOf":{}},"type":"object"}`,
		`{"type":"object","\u0061nyOf":[]}`, `{"type":"object","all\u004ff":[]}`, `{"\u0074ype":"object"}`,
		`{"type":"object","description":"oneOf\" x","x":"\\u"}`, `{"oneOf":[],"type":"object"}`, ` {"type" : "object" } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if strictjson.Check(data, nil) != nil || strictjson.KindOf(data) != strictjson.Object {
			return
		}
		typeObject, combinator := rootScan(data)
		if combinator && !mayHaveCombinator(data) {
			t.Fatalf("mayHaveCombinator missed a root combinator in %s", data)
		}
		if got := rootTypeObject(data); got != typeObject {
			t.Fatalf("rootTypeObject(%s) = %v, full scan says %v", data, got, typeObject)
		}
		for _, tg := range []Target{OpenAI, MCP, Anthropic, GeminiJSON} {
			want := typeObject
			switch tg {
			case Anthropic:
				want = want && !combinator
			case GeminiJSON:
				want = want && !hasRef(data)
			}
			if got := quickAccept(tg, data); got != want {
				t.Fatalf("quickAccept(%s, %s) = %v, full scan says %v", tg, data, got, want)
			}
		}
	})
}
