// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

var propName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"getPet", "GET /pets/{petId}", "", "123abc", "--x--", "ünïcödé", "a/b.c:d", strings.Repeat("x", 100), "filter[state]", "$top", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := SanitizeName(s)
		if !toolName.MatchString(n) {
			t.Fatalf("SanitizeName(%q) = %q breaks provider rules", s, n)
		}
		if again := SanitizeName(n); again != n {
			t.Fatalf("SanitizeName is not idempotent: %q -> %q -> %q", s, n, again)
		}
		taken := map[string]bool{n: true}
		if u := uniqueName(n, taken); u == n || !toolName.MatchString(u) {
			t.Fatalf("uniqueName(%q) = %q", n, u)
		}
		p := SanitizeProperty(s)
		if !propName.MatchString(p) {
			t.Fatalf("SanitizeProperty(%q) = %q breaks provider rules", s, p)
		}
		if again := SanitizeProperty(p); again != p {
			t.Fatalf("SanitizeProperty is not idempotent: %q -> %q -> %q", s, p, again)
		}
	})
}

// validPath reports whether s holds only characters a path segment may
// carry unescaped, and well-formed percent escapes.
func validPath(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case keep(s, i, false), strings.IndexByte(".,;=", c) >= 0:
		case c == '%' && i+2 < len(s) && isHexByte(s[i+1]) && isHexByte(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'F'
}

func FuzzSerialize(f *testing.F) {
	seeds := []string{`"a/b c"`, `["x","y z"]`, `{"k":"v","n":1}`, `12.5`, `true`, `null`, `{"a":{"b":[1,"?"]}}`, `"%2F&=#"`, `"ü\u0000\r\n"`, `[]`, `{}`}
	for _, v := range seeds {
		for _, style := range []string{"simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject"} {
			f.Add(v, style, true, false)
			f.Add(v, style, false, true)
		}
	}
	f.Fuzz(func(t *testing.T, value, style string, explode, allowReserved bool) {
		v := []byte(value)
		if strictjson.Check(v, nil) != nil {
			return
		}
		// Path: every character outside the path alphabet is escaped, and
		// a string in style simple comes back whole.
		out := serializePath("id", style, explode, v)
		if !validPath(out) {
			t.Fatalf("serializePath(%s, %s) = %q leaves unsafe characters", value, style, out)
		}
		if strictjson.KindOf(v) == strictjson.String && (style == "simple" || style == "") {
			want, _ := strictjson.Unquote(v)
			if got, err := url.PathUnescape(out); err != nil || got != want {
				t.Fatalf("serializePath(%s) = %q, unescapes to %q, want %q", value, out, got, want)
			}
		}
		// Query: no pair can inject another or cut the query off, with
		// allowReserved or without.
		p := &Param{Name: "q", In: "query", Style: style, Explode: explode, AllowReserved: allowReserved}
		for _, pair := range serializeQuery(p, v) {
			if !allowReserved && strings.ContainsAny(pair, "&#? \r\n") {
				t.Fatalf("serializeQuery(%s, %s) = %q injects a delimiter", value, style, pair)
			}
			if strings.ContainsAny(pair, "&#[]+;") {
				t.Fatalf("serializeQuery(%s, %s, allowReserved) = %q injects a delimiter", value, style, pair)
			}
			if strings.ContainsAny(pair, " \r\n\x00") {
				t.Fatalf("serializeQuery(%s, %s) = %q holds a raw control or space", value, style, pair)
			}
		}
		if strictjson.KindOf(v) == strictjson.String && style == "form" && allowReserved {
			q, err := url.ParseQuery(serializeQuery(p, v)[0])
			if err == nil && (len(q) != 1 || len(q["q"]) != 1) {
				t.Fatalf("form %s with allowReserved: query %v, want one q", value, q)
			}
		}
		if strictjson.KindOf(v) == strictjson.String && style == "form" && !allowReserved {
			want, _ := strictjson.Unquote(v)
			q, err := url.ParseQuery(serializeQuery(p, v)[0])
			if err != nil || q.Get("q") != want {
				t.Fatalf("form %s: query %v (%v), want q=%q", value, q, err, want)
			}
		}
		// Header: a value with a line break is refused, never sent.
		if h, err := serializeHeader(&Param{Name: "X-H", Explode: explode}, v); err == nil && strings.ContainsAny(h, "\r\n\x00") {
			t.Fatalf("serializeHeader(%s) = %q splits the header", value, h)
		}
		// Cookie: pairs never hold a separator of the Cookie header.
		for _, c := range serializeCookie(&Param{Name: "c", Explode: explode}, v) {
			if strings.ContainsAny(c, "; \r\n\"") {
				t.Fatalf("serializeCookie(%s) = %q breaks the Cookie header", value, c)
			}
		}
	})
}

func FuzzLoad(f *testing.F) {
	// Seeds stay small: the fuzzing engine stalls on a multi-kilobyte one
	// (testdata/petstore.yaml runs as a test instead).
	for _, s := range []string{
		"openapi: 3.0.3\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://h/{v}', variables: {v: {default: v1}}}]\n" +
			"security: [{k: []}]\npaths:\n  /p/{id}:\n    parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n" +
			"    post:\n      requestBody: {content: {multipart/form-data: {schema: {type: object, properties: {f: {type: string, format: binary}}}}}}\n" +
			"      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/S'}}}}}\n" +
			"components:\n  securitySchemes: {k: {type: apiKey, in: header, name: K}}\n" +
			"  schemas: {S: {type: object, nullable: true, properties: {s: {$ref: '#/components/schemas/S'}, a: &a {type: string}, b: *a}}}\n",
		`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a/{x}":{"parameters":[{"$ref":"#/components/parameters/X"}],"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/N"}}}}}}}},"components":{"parameters":{"X":{"name":"x","in":"path","required":true,"schema":{"type":"string"}}},"schemas":{"N":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/N"}}}}}}`,
		`{"swagger":"2.0","info":{"title":"t","version":"1"},"host":"h","basePath":"/v","paths":{"/p":{"post":{"parameters":[{"in":"body","name":"b","schema":{"type":"object","properties":{"a":{"type":"string"}}}}],"responses":{"200":{"description":"ok"}}}}}}`,
		"openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      parameters: [{$ref: 'other.yaml#/p'}]\n      responses: {'200': {description: ok}}\n",
		`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/p":{"get":{"responses":{"200":{"description":"ok","schema":{"items":[{}],"$ref":"#/definitions/N"}}}},"parameters":[{"$ref":"#/parameters/Q"}]}},"definitions":{"D":{"items":[1]}}}`,
		"a: &a [*a]",
		`{"openapi":"3.0.0","paths":{"/x":{"$ref":"#/paths/~1x"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		api, err := Load(context.Background(), data, "", nil)
		if err != nil {
			return
		}
		names := map[string]bool{}
		for _, op := range api.Operations {
			d := op.Definition
			if names[d.Name] || !toolName.MatchString(d.Name) {
				t.Fatalf("bad or repeated name %q", d.Name)
			}
			names[d.Name] = true
			for _, s := range [][]byte{d.InputSchema, d.OutputSchema} {
				if s != nil && strictjson.Check(s, nil) != nil {
					t.Fatalf("%s: schema is not strict JSON: %s", d.Name, s)
				}
			}
		}
	})
}
