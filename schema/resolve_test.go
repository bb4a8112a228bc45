// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		err     error
		pointer string
		detail  string
	}{
		{name: "not-object", schema: `[1]`, err: ErrInvalidSchema, detail: "not an object"},
		{name: "string", schema: `"x"`, err: ErrInvalidSchema, detail: "not an object"},
		{name: "malformed", schema: `{"type":`, err: ErrInvalidSchema, detail: "not strict JSON"},
		{name: "duplicate-key", schema: `{"type":"object","type":"string"}`, err: ErrInvalidSchema, pointer: "/type"},
		{name: "bad-type", schema: `{"type":"object","properties":{"a":{"type":"strin"}}}`, err: ErrInvalidSchema, pointer: "/properties/a/type"},
		{name: "bad-minimum", schema: `{"properties":{"n":{"minimum":"3"}}}`, err: ErrInvalidSchema, pointer: "/properties/n/minimum"},
		{name: "self-ref", schema: `{"$ref":"#"}`, err: ErrInvalidSchema, detail: "cycle"},
		{name: "ref-cycle", schema: `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, err: ErrInvalidSchema, detail: "cycle"},
		{name: "dangling-ref", schema: `{"properties":{"x":{"$ref":"#/$defs/nope"}}}`, err: ErrInvalidSchema, detail: "points to nothing"},
		{name: "remote-ref", schema: `{"properties":{"x":{"$ref":"https://example.com/s.json"}}}`, err: ErrRemoteRef, detail: "example.com"},
		{name: "relative-ref", schema: `{"properties":{"x":{"$ref":"other.json#/a"}}}`, err: ErrRemoteRef},
		{name: "bad-regex", schema: `{"properties":{"x":{"type":"string","pattern":"("}}}`, err: ErrInvalidSchema, pointer: "/properties/x/pattern"},
		{name: "unknown-draft", schema: `{"$schema":"https://example.com/my-draft"}`, err: ErrRemoteRef},
		{name: "deep", schema: strings.Repeat(`{"items":`, 10000) + `{}` + strings.Repeat(`}`, 10000), err: ErrInvalidSchema, detail: "nesting too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(json.RawMessage(tt.schema), nil)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Resolve: got %v, want %v", err, tt.err)
			}
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Resolve: %T is not a *SchemaError", err)
			}
			if tt.pointer != "" && se.Pointer != tt.pointer {
				t.Errorf("pointer = %q, want %q (%v)", se.Pointer, tt.pointer, err)
			}
			if !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("error %q does not mention %q", err, tt.detail)
			}
		})
	}
}

func TestResolveDrafts(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		valid    string
		invalid  string
		keyword  string
		expected string
	}{
		{name: "draft-04-exclusive-bool", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"type":"integer","maximum":5,"exclusiveMaximum":true}}}`,
			valid: `{"n":4}`, invalid: `{"n":5}`, keyword: "exclusiveMaximum", expected: "must be < 5"},
		{name: "draft-06", schema: `{"$schema":"http://json-schema.org/draft-06/schema#","properties":{"n":{"const":3}}}`,
			valid: `{"n":3}`, invalid: `{"n":4}`, keyword: "const", expected: "must equal the schema's constant 3"},
		{name: "draft-07-definitions", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"c":{"type":"string"}},"properties":{"city":{"$ref":"#/definitions/c"}}}`,
			valid: `{"city":"Paris"}`, invalid: `{"city":7}`, keyword: "type", expected: "expected string, got number"},
		{name: "draft-2019-09", schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"c":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/c"}}}`,
			valid: `{"n":1}`, invalid: `{"n":"1"}`, keyword: "type", expected: "expected integer, got string"},
		{name: "default-2020-12-prefixItems", schema: `{"properties":{"p":{"prefixItems":[{"type":"number"},{"type":"number"}],"items":false}}}`,
			valid: `{"p":[1,2]}`, invalid: `{"p":[1,2,3]}`, keyword: "", expected: "no value is allowed here"},
		{name: "anchor", schema: `{"$defs":{"c":{"$anchor":"city","type":"string"}},"properties":{"x":{"$ref":"#city"}}}`,
			valid: `{"x":"a"}`, invalid: `{"x":null}`, keyword: "type", expected: "expected string, got null"},
		{name: "recursive", schema: `{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"},"v":{"type":"integer"}}}},"$ref":"#/$defs/node"}`,
			valid: `{"v":1,"next":{"v":2}}`, invalid: `{"next":{"next":{"v":"x"}}}`, keyword: "type", expected: "expected integer, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Resolve(json.RawMessage(tt.schema), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Validate(json.RawMessage(tt.valid)); err != nil {
				t.Errorf("Validate(%s) = %v", tt.valid, err)
			}
			err = r.Validate(json.RawMessage(tt.invalid))
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate(%s) = %v, want a *ValidationError", tt.invalid, err)
			}
			if ve.Errors[0].Keyword != tt.keyword || ve.Errors[0].Expected != tt.expected {
				t.Errorf("got %+v, want keyword %q expected %q", ve.Errors[0], tt.keyword, tt.expected)
			}
		})
	}
}

func TestResolveLoader(t *testing.T) {
	schema := json.RawMessage(`{"properties":{"x":{"$ref":"https://example.com/s.json#/$defs/n"}}}`)
	var asked []string
	r, err := Resolve(schema, &ResolveOptions{Loader: func(uri string) (json.RawMessage, error) {
		asked = append(asked, uri)
		return json.RawMessage(`{"$defs":{"n":{"type":"integer"}}}`), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://example.com/s.json"}, asked); diff != "" {
		t.Errorf("loader calls (-want +got):\n%s", diff)
	}
	if err := r.Validate(json.RawMessage(`{"x":"1"}`)); err == nil {
		t.Error("Validate accepted a string for an integer from the loaded document")
	}
}

// secret is a value that must never appear in a validation message.
const secret = "sk-live-ZZZZ-secret"

func TestValidateMessages(t *testing.T) {
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "minLength": 2, "pattern": "^[A-Z]"},
			"unit": {"enum": ["c", "f", "k"]},
			"days": {"type": "integer", "minimum": 1, "maximum": 10},
			"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": true},
			"note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
			"when": {"type": "string", "format": "date"}
		},
		"required": ["city", "unit"],
		"additionalProperties": false
	}`)
	r, err := Resolve(schema, &ResolveOptions{AssertFormat: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		instance string
		want     []*ArgError
	}{
		{name: "ok", instance: `{"city":"Paris","unit":"c","note":null}`},
		{name: "missing", instance: `{}`, want: []*ArgError{
			{Pointer: "", Keyword: "required", Expected: `missing required property "city"`},
			{Pointer: "", Keyword: "required", Expected: `missing required property "unit"`},
		}},
		{name: "type", instance: `{"city":"Paris","unit":"c","days":"` + secret + `"}`, want: []*ArgError{
			{Pointer: "/days", Keyword: "type", Expected: "expected integer, got string"},
		}},
		{name: "enum", instance: `{"city":"Paris","unit":"` + secret + `"}`, want: []*ArgError{
			{Pointer: "/unit", Keyword: "enum", Expected: `must be one of 3 allowed values: "c", "f", "k"`},
		}},
		{name: "string-limits", instance: `{"city":"s","unit":"c"}`, want: []*ArgError{
			{Pointer: "/city", Keyword: "minLength", Expected: "expected at least 2 characters"},
			{Pointer: "/city", Keyword: "pattern", Expected: `must match the pattern "^[A-Z]"`},
		}},
		{name: "range", instance: `{"city":"Paris","unit":"c","days":11}`, want: []*ArgError{
			{Pointer: "/days", Keyword: "maximum", Expected: "must be <= 10"},
		}},
		{name: "extra", instance: `{"city":"Paris","unit":"c","token":"` + secret + `"}`, want: []*ArgError{
			{Pointer: "/token", Keyword: "additionalProperties", Expected: "property not allowed by the schema"},
		}},
		{name: "array", instance: `{"city":"Paris","unit":"c","tags":["a",1,"a"]}`, want: []*ArgError{
			{Pointer: "/tags", Keyword: "maxItems", Expected: "expected at most 2 items"},
			{Pointer: "/tags", Keyword: "uniqueItems", Expected: "items must be unique (items 0 and 2 are equal)"},
			{Pointer: "/tags/1", Keyword: "type", Expected: "expected string, got number"},
		}},
		{name: "nullable", instance: `{"city":"Paris","unit":"c","note":5}`, want: []*ArgError{
			{Pointer: "/note", Keyword: "anyOf", Expected: "expected string or null, got number"},
		}},
		{name: "format", instance: `{"city":"Paris","unit":"c","when":"` + secret + `"}`, want: []*ArgError{
			{Pointer: "/when", Keyword: "format", Expected: `expected a string in format "date"`},
		}},
		{name: "not-object", instance: `"` + secret + `"`, want: []*ArgError{
			{Pointer: "", Keyword: "type", Expected: "expected object, got string"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Validate(json.RawMessage(tt.instance))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("message echoes the instance: %v", err)
			}
		})
	}
}

func TestCache(t *testing.T) {
	var c Cache
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)
	var wg sync.WaitGroup
	got := make([]*Resolved, 8)
	for i := range got {
		wg.Go(func() {
			r, err := c.Resolve(schema)
			if err != nil {
				t.Error(err)
			}
			got[i] = r
		})
	}
	wg.Wait()
	for _, r := range got[1:] {
		if r != got[0] {
			t.Fatal("Cache compiled the same schema twice")
		}
	}
	if _, err := c.Resolve(json.RawMessage(`{"$ref":"#"}`)); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("Cache.Resolve of a bad schema = %v", err)
	}
}

func TestTypes(t *testing.T) {
	schema := json.RawMessage(`{
		"$defs": {"n": {"type": ["integer", "null"]}},
		"type": "object",
		"properties": {
			"a": {"type": "string"},
			"b": {"$ref": "#/$defs/n"},
			"c": {"anyOf": [{"type": "number"}, {"type": "boolean"}]},
			"d": {"type": "string", "nullable": true},
			"e": {"enum": [1, 2, "x"]},
			"f": {"type": "array", "items": {"type": "object", "properties": {"g": {"type": "boolean"}}}},
			"h": {}
		}
	}`)
	tests := []struct {
		pointer string
		want    []string
	}{
		{"", []string{"object"}},
		{"/a", []string{"string"}},
		{"/b", []string{"null", "integer"}},
		{"/c", []string{"boolean", "number"}},
		{"/d", []string{"null", "string"}},
		{"/e", []string{"integer", "string"}},
		{"/f", []string{"array"}},
		{"/f/0/g", []string{"boolean"}},
		{"/h", nil},
		{"/zz", nil},
	}
	r, err := Resolve(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Types(schema, tt.pointer)); diff != "" {
			t.Errorf("Types(%q) (-want +got):\n%s", tt.pointer, diff)
		}
		if diff := cmp.Diff(tt.want, r.Types(tt.pointer)); diff != "" {
			t.Errorf("Resolved.Types(%q) (-want +got):\n%s", tt.pointer, diff)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	r, err := Resolve(json.RawMessage(`{"type":"object","properties":{
		"city":{"type":"string"},"days":{"type":"integer","minimum":1},
		"unit":{"enum":["c","f"]},"detailed":{"type":"boolean"},"lat":{"type":"number"}},
		"required":["city"],"additionalProperties":false}`), nil)
	if err != nil {
		b.Fatal(err)
	}
	inst := json.RawMessage(`{"city":"Paris","days":3,"unit":"c","detailed":true,"lat":48.85}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate(inst); err != nil {
			b.Fatal(err)
		}
	}
}

func errorsAs(err error, target **ValidationError) bool { return errors.As(err, target) }

func TestValidateFastPath(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		fast   bool
	}{
		{name: "typical", schema: `{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"integer","minimum":0}},"required":["a"]}`, fast: true},
		{name: "draft07-format", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"type":"string","format":"date"}}}`, fast: false},
		{name: "ref", schema: `{"$defs":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`, fast: false},
		{name: "anyof", schema: `{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, fast: false},
		{name: "draft04", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"type":"string"}}}`, fast: false},
		{name: "nullable-openapi", schema: `{"type":"object","properties":{"a":{"type":"string","nullable":true,"x-extra":1}}}`, fast: true},
	}
	instances := []string{`{}`, `{"a":"x"}`, `{"a":"2024-01-01T00:00:00Z","b":3}`, `{"a":1}`, `{"b":-1,"a":"x"}`, `{"a":null}`, `[]`, `{"a":"\u0041"}`}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Resolve(json.RawMessage(tt.schema), nil)
			if err != nil {
				t.Fatal(err)
			}
			if (r.fast != nil) != tt.fast {
				t.Fatalf("fast path = %v, want %v", r.fast != nil, tt.fast)
			}
			for _, inst := range instances {
				lib := r.sch.Validate(decodeChecked([]byte(inst), nil)) == nil
				if got := r.Validate(json.RawMessage(inst)) == nil; got != lib {
					t.Errorf("Validate(%s) valid = %v, library says %v", inst, got, lib)
				}
				if r.fast != nil && r.fast.valid([]byte(inst), 0) && !lib {
					t.Errorf("fast path accepts %s, library refuses", inst)
				}
			}
		})
	}
}

func TestCacheBound(t *testing.T) {
	tests := []struct {
		name string
		max  int
		want int // entries held after 10 distinct schemas
	}{
		{name: "bounded", max: 3, want: 1},
		{name: "off", max: -1, want: 10},
		{name: "default", max: 0, want: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(&ResolveOptions{MaxCacheEntries: tt.max})
			for i := range 10 {
				if _, err := c.Resolve(json.RawMessage(`{"maxLength":` + strconv.Itoa(i) + `}`)); err != nil {
					t.Fatal(err)
				}
			}
			if got := len(c.entries); got != tt.want {
				t.Errorf("entries = %d, want %d", got, tt.want)
			}
		})
	}
}
