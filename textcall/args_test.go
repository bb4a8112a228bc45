// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/schema"
)

// TestPropertyTypesMatchSchemaTypes checks textcall's own schema reader,
// which runs once per tool at New, against schema.Types, the module's
// general reader, on the shapes coercion meets.
func TestPropertyTypesMatchSchemaTypes(t *testing.T) {
	schemas := []string{
		string(testTools[0].InputSchema),
		string(testTools[1].InputSchema),
		`{"type":"object","properties":{"a":{"type":["integer","null"]},"b":{"oneOf":[{"type":"string"},{"type":"boolean"}]},"c":{"$ref":"#/definitions/c"},"d":{"enum":[1,2,3]},"e":{"const":true},"f":{"type":"number","nullable":true},"g":{"allOf":[{"$ref":"#/definitions/c"}]}},"definitions":{"c":{"type":"array","items":{"type":"string"}}}}`,
		`{"$ref":"#/$defs/args","$defs":{"args":{"type":"object","properties":{"x":{"type":"integer"},"y":{"$ref":"#/$defs/y"}}},"y":{"anyOf":[{"type":"object"},{"type":"null"}]}}}`,
	}
	for i, s := range schemas {
		got, err := propertyTypes([]byte(s))
		if err != nil {
			t.Fatalf("schema %d: %v", i, err)
		}
		props := strictjson.Get(resolveRef([]byte(s), []byte(s), 0), "properties")
		_ = strictjson.Members(props, func(k, _ []byte) error {
			name := string(k)
			want := schema.Types(json.RawMessage(s), "/"+strictjson.EscapePointer(name))
			sort.Strings(want)
			have := strings.Split(typeSetNames(got[name]), " | ")
			if have[0] == "" {
				have = nil
			}
			sort.Strings(have)
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("schema %d property %s (-schema.Types +textcall):\n%s", i, name, diff)
			}
			return nil
		})
	}
}

func TestCoerce(t *testing.T) {
	tests := []struct {
		name  string
		value string
		types typeSet
		want  string
		ok    bool
	}{
		{"string-kept", "42", tsString, `"42"`, true},
		{"any-kept", "42", 0, `"42"`, true},
		{"integer", " 42 ", tsInteger, `42`, true},
		{"integer-from-float-text", "3.0", tsInteger, `3`, true},
		{"integer-rejects-fraction", "3.5", tsInteger, `"3.5"`, false},
		{"big-integer", "123456789012345678901234567890", tsInteger, `123456789012345678901234567890`, true},
		{"number", "2.5e3", tsNumber, `2.5e3`, true},
		{"number-not-json-spelling", ".5", tsNumber, `0.5`, true},
		{"number-rejects-nan", "NaN", tsNumber, `"NaN"`, false},
		{"boolean", "True", tsBoolean, `true`, true},
		{"boolean-rejects-yes", "yes", tsBoolean, `"yes"`, false},
		{"null", "None", tsInteger | tsNull, `null`, true},
		{"object", `{"a": [1, {}]}`, tsObject, `{"a":[1,{}]}`, true},
		{"python-dict", `{'a': None}`, tsObject, `{"a":null}`, true},
		{"array-not-object", `[1]`, tsObject, `"[1]"`, false},
		{"array", `[1, "x"]`, tsArray, `[1,"x"]`, true},
		{"string-wins-over-integer", "7", tsString | tsInteger, `"7"`, true},
		{"escapes", "a\"b\\c\n😀", tsString, `"a\"b\\c\n😀"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := coerce(tc.value, tc.types)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" || ok != tc.ok {
				t.Errorf("coerce(%q) = %s, %v; want %s, %v", tc.value, got, ok, tc.want, tc.ok)
			}
		})
	}
}
