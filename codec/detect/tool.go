// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"bytes"
	"strconv"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// tool scores one object that should be a tool definition, m being its
// members.
func (s *scorer) tool(v []byte, m map[string][]byte, ptr string) {
	has := func(k string) bool { _, ok := m[k]; return ok }
	typ := m["type"]
	switch {
	case has("inputSchema"):
		s.add(codec.MCP, 4, join(ptr, "inputSchema"), "inputSchema")
		for _, k := range []string{"outputSchema", "_meta", "icons", "execution"} {
			if has(k) {
				s.add(codec.MCP, 1, join(ptr, k), k)
			}
		}
		return
	case has("input_schema"):
		// Anthropic and canonical both say input_schema: tell them apart by
		// the members only one of them has.
		canonical := false
		for _, k := range []string{"capability", "security", "version", "extensions", "output_schema", "title", "annotations"} {
			if has(k) {
				canonical = true
				s.add(codec.Canonical, 3, join(ptr, k), k+" beside input_schema")
			}
		}
		anthropic := false
		for _, k := range []string{"cache_control", "type", "strict", "input_examples", "defer_loading", "allowed_callers", "eager_input_streaming"} {
			if has(k) {
				anthropic = true
				s.add(codec.Anthropic, 3, join(ptr, k), k+" beside input_schema")
			}
		}
		if !canonical && !anthropic {
			s.addAll(join(ptr, "input_schema"), "input_schema with only name and description, which canonical shares",
				weight{codec.Anthropic, 3}, weight{codec.Canonical, 2})
		}
		return
	case isString(typ, "function") && strictjson.KindOf(m["function"]) == strictjson.Object:
		s.addAll(join(ptr, "function"), `"type":"function" wrapping "function", which LangChain's convert_to_openai_tool also writes`,
			weight{codec.OpenAI, 4}, weight{codec.LangChain, 2})
		fn := m["function"]
		if p := strictjson.Get(fn, "parameters"); p != nil {
			s.schema(p, join(join(ptr, "function"), "parameters"))
		}
		return
	case isString(typ, "function") && has("name"):
		s.add(codec.OpenAIResponses, 5, join(ptr, "type"), `flat "type":"function" with "name"`)
		return
	case has("parametersJsonSchema") || has("parameters_json_schema") || has("responseJsonSchema") || has("response_json_schema") || has("behavior"):
		for _, k := range []string{"parametersJsonSchema", "parameters_json_schema", "responseJsonSchema", "response_json_schema", "behavior"} {
			if has(k) {
				s.add(codec.Gemini, 4, join(ptr, k), k)
			}
		}
		return
	case has("args_schema") || has("return_direct") || (has("name") && (has("args") || has("schema"))):
		for _, k := range []string{"args_schema", "return_direct", "args", "schema", "response_format", "verbose"} {
			if has(k) {
				s.add(codec.LangChain, 4, join(ptr, k), k)
			}
		}
		return
	case has("x-capabilities") || has("x-security") || has("x-annotations"):
		for _, k := range []string{"x-capabilities", "x-security", "x-annotations"} {
			if has(k) {
				s.add(codec.JSONSchema, 5, join(ptr, k), k)
			}
		}
		return
	case !has("name") && has("title") && (has("properties") || has("type") || has("$schema")):
		s.add(codec.JSONSchema, 3, join(ptr, "title"), "a schema with a title and no name")
		if has("$schema") {
			s.add(codec.JSONSchema, 1, join(ptr, "$schema"), "$schema")
		} else {
			s.add(codec.LangChain, 1.5, join(ptr, "title"), "a pydantic JSON schema")
		}
		return
	case has("name") && (has("parameters") || has("description") || has("response")):
		// A bare function object: OpenAI's legacy shape, LangChain's
		// convert_to_openai_function, a Gemini declaration and a BFCL
		// function all look like this. The schema's dialect decides.
		s.addAll(ptr, "a bare {name, parameters} function",
			weight{codec.OpenAI, 1.2}, weight{codec.LangChain, 1}, weight{codec.Gemini, 1}, weight{codec.BFCL, 1})
		if p, ok := m["parameters"]; ok {
			s.schema(p, join(ptr, "parameters"))
		}
		if r, ok := m["response"]; ok {
			s.schema(r, join(ptr, "response"))
		}
		if has("strict") {
			s.add(codec.OpenAI, 2, join(ptr, "strict"), "strict")
		}
	}
}

// schema scores the dialect of a parameters schema: BFCL type names
// (dict, float, tuple…), Gemini's upper-case types and nullable, or
// pydantic's property titles. Pointers are built only for the evidence
// that is kept.
func (s *scorer) schema(v []byte, ptr string) {
	budget := 200
	var bfcl, gemini, pydantic string
	path := append(make([]byte, 0, 64), ptr...)
	at := func(key []byte, detail string) string {
		return string(path) + "/" + strictjson.EscapePointer(string(key)) + detail
	}
	push := func(tok []byte) int {
		n := len(path)
		path = append(path, '/')
		if bytes.ContainsAny(tok, "~/") {
			path = append(path, strictjson.EscapePointer(string(tok))...)
		} else {
			path = append(path, tok...)
		}
		return n
	}
	var walk func(v []byte, depth int)
	walk = func(v []byte, depth int) {
		if depth > 16 || budget <= 0 || strictjson.KindOf(v) != strictjson.Object {
			return
		}
		budget--
		_ = strictjson.Members(v, func(k, val []byte) error {
			switch string(k) {
			case "type":
				if strictjson.KindOf(val) != strictjson.String || len(val) < 2 {
					return nil
				}
				t := val[1 : len(val)-1] // type names need no unescaping to be recognised
				switch string(t) {
				case "string", "integer", "number", "boolean", "array", "object", "null":
				case "STRING", "INTEGER", "NUMBER", "BOOLEAN", "ARRAY", "OBJECT", "TYPE_UNSPECIFIED":
					if gemini == "" {
						gemini = at(k, ": upper-case type "+string(t))
					}
				default:
					if bfcl == "" {
						bfcl = at(k, ": type "+string(val))
					}
				}
			case "nullable":
				if gemini == "" {
					gemini = at(k, ": nullable")
				}
			case "optional":
				if bfcl == "" {
					bfcl = at(k, ": optional")
				}
			case "title":
				if depth > 0 && pydantic == "" {
					pydantic = at(k, ": property title")
				}
			case "properties":
				n0 := push(k)
				_ = strictjson.Members(val, func(pk, pv []byte) error {
					n1 := push(pk)
					walk(pv, depth+1)
					path = path[:n1]
					return nil
				})
				path = path[:n0]
			case "items", "additionalProperties":
				n0 := push(k)
				walk(val, depth+1)
				path = path[:n0]
			case "anyOf", "oneOf", "allOf":
				n0 := push(k)
				_ = strictjson.Elements(val, func(i int, el []byte) error {
					n1 := len(path)
					path = strconv.AppendInt(append(path, '/'), int64(i), 10)
					walk(el, depth+1)
					path = path[:n1]
					return nil
				})
				path = path[:n0]
			}
			return nil
		})
	}
	walk(v, 0)
	if bfcl != "" {
		s.add(codec.BFCL, 6, bfcl, "BFCL dialect")
	}
	if gemini != "" {
		s.add(codec.Gemini, 5, gemini, "Gemini's OpenAPI subset")
	}
	if pydantic != "" {
		s.add(codec.LangChain, 0.5, pydantic, "pydantic-style titles")
	}
}
