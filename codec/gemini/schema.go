// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// toJSONSchema rewrites a Gemini "parameters" schema (the OpenAPI 3.0
// subset: upper-case types, nullable) as standard JSON Schema: types in
// lower case, and nullable: true folded into the type (["string","null"])
// and into enum. Key order is kept. What cannot be carried over (a
// TYPE_UNSPECIFIED type, nullable without a type) is reported.
func toJSONSchema(v []byte, ptr string, warns *[]tool.Warning) (json.RawMessage, error) {
	if strictjson.KindOf(v) != strictjson.Object {
		return nil, defErr(ptr, "schema is %s, not an object", strictjson.KindOf(v))
	}
	return convertSchema(nil, v, ptr, warns)
}

func lowerType(t string) (string, bool) {
	switch t {
	case "STRING", "string":
		return "string", true
	case "NUMBER", "number":
		return "number", true
	case "INTEGER", "integer":
		return "integer", true
	case "BOOLEAN", "boolean":
		return "boolean", true
	case "ARRAY", "array":
		return "array", true
	case "OBJECT", "object":
		return "object", true
	case "NULL", "null":
		return "null", true
	}
	return "", false
}

// convertSchema appends the JSON Schema form of the schema v. Member
// names are copied as the raw bytes they arrived in, so a schema that
// needs no change comes out byte for byte.
func convertSchema(dst, v []byte, ptr string, warns *[]tool.Warning) ([]byte, error) {
	i := strictjson.SkipSpace(v, 0)
	switch strictjson.KindOf(v) {
	case strictjson.Object:
	case strictjson.Bool:
		return append(dst, v[i:strictjson.SkipValue(v, i)]...), nil
	default:
		return nil, defErr(ptr, "schema is %s, not an object", strictjson.KindOf(v))
	}
	nullable := false
	var typ []byte
	_ = strictjson.Members(v, func(k, val []byte) error {
		switch string(k) {
		case "nullable":
			nullable = string(val) == "true"
		case "type":
			typ = val
		}
		return nil
	})
	first := true
	dst = append(dst, '{')
	key := func(raw []byte) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, raw...)
		dst = append(dst, ':')
	}
	name := func(raw []byte) string {
		if bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1 : len(raw)-1])
		}
		s, _ := strictjson.Unquote(raw)
		return s
	}
	_, err := strictjson.WalkObjectRaw(v, i, func(rawKey []byte, vs int) (int, error) {
		ve := strictjson.SkipValue(v, vs)
		val := v[vs:ve]
		k := name(rawKey)
		p := wire.Member(ptr, k)
		switch k {
		case "nullable":
			if nullable && typ == nil {
				*warns = append(*warns, tool.Warning{Pointer: p, Code: "gemini-nullable-untyped",
					Message: "nullable without a type has no JSON Schema equivalent and was removed; the schema already accepts null"})
			}
			if strictjson.KindOf(val) != strictjson.Bool {
				return ve, shapeErr(p, "nullable must be a boolean")
			}
			return ve, nil
		case "type":
			if strictjson.KindOf(val) != strictjson.String {
				break
			}
			s, _ := strictjson.Unquote(val)
			t, ok := lowerType(s)
			if !ok {
				*warns = append(*warns, tool.Warning{Pointer: p, Code: "gemini-type-unknown",
					Message: "type " + string(val) + " has no JSON Schema equivalent and was removed"})
				return ve, nil
			}
			if t == s && !nullable {
				break // already JSON Schema: copy as it is
			}
			key(rawKey)
			if nullable && t != "null" {
				dst = append(dst, '[')
				dst = strictjson.AppendQuote(dst, t)
				dst = append(dst, `,"null"]`...)
			} else {
				dst = strictjson.AppendQuote(dst, t)
			}
			return ve, nil
		case "enum":
			if !nullable || strictjson.KindOf(val) != strictjson.Array {
				break
			}
			key(rawKey)
			dst = append(dst, '[')
			hasNull := false
			_ = strictjson.Elements(val, func(i int, el []byte) error {
				if i > 0 {
					dst = append(dst, ',')
				}
				hasNull = hasNull || string(el) == "null"
				dst = append(dst, el...)
				return nil
			})
			if !hasNull {
				if dst[len(dst)-1] != '[' {
					dst = append(dst, ',')
				}
				dst = append(dst, "null"...)
			}
			dst = append(dst, ']')
			return ve, nil
		case "properties", "$defs", "definitions", "patternProperties":
			if strictjson.KindOf(val) != strictjson.Object {
				break
			}
			key(rawKey)
			pfirst := true
			dst = append(dst, '{')
			_, err := strictjson.WalkObjectRaw(v, vs, func(pk []byte, pvs int) (int, error) {
				pve := strictjson.SkipValue(v, pvs)
				if !pfirst {
					dst = append(dst, ',')
				}
				pfirst = false
				dst = append(dst, pk...)
				dst = append(dst, ':')
				var err error
				dst, err = convertSchema(dst, v[pvs:pve], wire.Member(p, name(pk)), warns)
				return pve, err
			})
			dst = append(dst, '}')
			return ve, err
		case "items", "additionalProperties", "not":
			if strictjson.KindOf(val) != strictjson.Object {
				break
			}
			key(rawKey)
			var err error
			dst, err = convertSchema(dst, val, p, warns)
			return ve, err
		case "anyOf", "oneOf", "allOf", "prefixItems":
			if strictjson.KindOf(val) != strictjson.Array {
				break
			}
			key(rawKey)
			dst = append(dst, '[')
			err := strictjson.Elements(val, func(i int, el []byte) error {
				if i > 0 {
					dst = append(dst, ',')
				}
				var err error
				dst, err = convertSchema(dst, el, wire.Index(p, i), warns)
				return err
			})
			dst = append(dst, ']')
			return ve, err
		}
		key(rawKey)
		dst = append(dst, val...)
		return ve, nil
	})
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}
