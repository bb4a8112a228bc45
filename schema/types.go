// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// The JSON types, in the order [Types] reports them.
var typeOrder = [...]string{"null", "boolean", "object", "array", "number", "integer", "string"}

// Types returns the JSON types ("string", "integer", "number", "boolean",
// "object", "array", "null") a value at pointer, a JSON Pointer into an
// instance of the schema raw, may have. It follows "properties",
// "additionalProperties", "items" and "prefixItems", internal $ref, and the
// union of "anyOf"/"oneOf" ("allOf" narrows nothing here: its types are
// added too); "nullable": true adds "null"; "enum" and "const" give the
// types of their values when "type" is absent. An empty result means the
// schema does not say (any type), or raw is not a usable schema.
//
// Text tool-call parsers use it to coerce a string argument to the type
// the schema asks for.
func Types(raw json.RawMessage, pointer string) []string {
	if strictjson.Check(raw, nil) != nil || strictjson.KindOf(raw) != strictjson.Object {
		return nil
	}
	return typesIn(decodeChecked(raw, nil), pointer)
}

// Types is [Types] for the resolved schema, without decoding it again.
func (r *Resolved) Types(pointer string) []string { return typesIn(r.doc, pointer) }

func typesIn(doc any, pointer string) []string {
	var toks []string
	if pointer != "" {
		if pointer[0] != '/' {
			return nil
		}
		for _, t := range strings.Split(pointer[1:], "/") {
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
		}
	}
	var set [len(typeOrder)]bool
	typesAt(doc, doc, toks, &set, 0)
	var out []string
	for i, ok := range set {
		if ok {
			out = append(out, typeOrder[i])
		}
	}
	return out
}

// typesAt marks in set the types allowed at toks below the schema s.
func typesAt(root, s any, toks []string, set *[len(typeOrder)]bool, depth int) {
	if depth > 64 {
		return
	}
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	if r, ok := m["$ref"].(string); ok && strings.HasPrefix(r, "#") {
		if p := unescapeFragment(r[1:]); p == "" || p[0] == '/' {
			typesAt(root, lookupPointer(root, p), toks, set, depth+1)
		}
	}
	for _, kw := range [...]string{"anyOf", "oneOf", "allOf"} {
		if arr, ok := m[kw].([]any); ok {
			for _, sub := range arr {
				typesAt(root, sub, toks, set, depth+1)
			}
		}
	}
	if len(toks) > 0 {
		tok, rest := toks[0], toks[1:]
		if props, ok := m["properties"].(map[string]any); ok {
			if sub, ok := props[tok]; ok {
				typesAt(root, sub, rest, set, depth+1)
				return
			}
		}
		if sub, ok := m["additionalProperties"].(map[string]any); ok {
			typesAt(root, sub, rest, set, depth+1)
		}
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 {
			if pre, ok := m["prefixItems"].([]any); ok && i < len(pre) {
				typesAt(root, pre[i], rest, set, depth+1)
				return
			}
			if arr, ok := m["items"].([]any); ok { // draft-07 tuple form
				if i < len(arr) {
					typesAt(root, arr[i], rest, set, depth+1)
				}
				return
			}
			typesAt(root, m["items"], rest, set, depth+1)
		}
		return
	}
	mark := func(t string) {
		if t == "float" || t == "double" {
			t = "number"
		}
		if i := slices.Index(typeOrder[:], strings.ToLower(t)); i >= 0 {
			set[i] = true
		}
	}
	switch t := m["type"].(type) {
	case string:
		mark(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				mark(s)
			}
		}
	case nil:
		vals, _ := m["enum"].([]any)
		if c, ok := m["const"]; ok {
			vals = append(vals, c)
		}
		for _, v := range vals {
			mark(valueType(v))
		}
	}
	if n, ok := m["nullable"].(bool); ok && n {
		set[0] = true
	}
}

func valueType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "number"
		}
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}
