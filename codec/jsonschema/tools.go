// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package jsonschema

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// The members of a schema document that carry a definition's fields
// rather than the schema; everything else is the input schema.
const (
	keyCapabilities = "x-capabilities"
	keySecurity     = "x-security"
	keyAnnotations  = "x-annotations"
	keyTitle        = "x-title"
	keyVersion      = "x-version"
	keyOutputSchema = "x-output-schema"
	keyExtensions   = "x-extensions"
)

func isOwnKey(k string) bool {
	switch k {
	case "title", "description", keyCapabilities, keySecurity, keyAnnotations, keyTitle, keyVersion, keyOutputSchema, keyExtensions:
		return true
	}
	return false
}

// DecodeTools reads JSON Schema documents that describe tools: the root
// "title" is the tool's name and "description" its description, and the
// rest of the document is the input schema, key order kept. The extension
// keywords x-capabilities, x-security and x-annotations carry
// [tool.Behavior], [tool.Security] and [tool.Annotations] (in their JSON
// forms, decoded strictly), and x-title, x-version, x-output-schema and
// x-extensions the remaining fields, so that nothing is lost.
//
// One document sets Single; a JSON array of documents or {"tools": […]}
// gives a list.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.JSONSchema, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	out := &codec.Tools{}
	list, ptr := data, ""
	switch strictjson.KindOf(data) {
	case strictjson.Object:
		if tools := strictjson.Get(data, "tools"); tools != nil && strictjson.Get(data, "title") == nil {
			if strictjson.KindOf(tools) != strictjson.Array {
				return nil, shapeErr("/tools", "want an array of schemas, got %s", strictjson.KindOf(tools))
			}
			list, ptr = tools, "/tools"
			break
		}
		d, err := decodeDocument(data, "")
		if err != nil {
			return nil, err
		}
		out.Defs, out.Single = []tool.Definition{d}, true
		return out, nil
	case strictjson.Array:
	default:
		return nil, shapeErr("", "want a schema document or a list of them, got %s", strictjson.KindOf(data))
	}
	seen := map[string]int{}
	err := strictjson.Elements(list, func(i int, el []byte) error {
		d, err := decodeDocument(el, wire.Index(ptr, i))
		if err != nil {
			return err
		}
		if j, ok := seen[d.Name]; ok {
			return defErr(wire.Index(ptr, i), "duplicate title, first at schema %d", j)
		}
		seen[d.Name] = i
		out.Defs = append(out.Defs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func decodeDocument(v []byte, ptr string) (tool.Definition, error) {
	var d tool.Definition
	if strictjson.KindOf(v) != strictjson.Object {
		return d, defErr(ptr, "schema is %s, not an object", strictjson.KindOf(v))
	}
	hasTitle := false
	schema := []byte{'{'}
	first := true
	_, err := strictjson.WalkObjectRaw(v, strictjson.SkipSpace(v, 0), func(rawKey []byte, vs int) (int, error) {
		ve := strictjson.SkipValue(v, vs)
		val := v[vs:ve]
		key, err := strictjson.Unquote(rawKey)
		if err != nil {
			return ve, err
		}
		p := wire.Member(ptr, key)
		switch key {
		case "title":
			hasTitle = true
			d.Name, err = wire.Str(val, p)
		case "description":
			d.Description, err = wire.Str(val, p)
		case keyTitle:
			d.Title, err = wire.Str(val, p)
		case keyVersion:
			d.Version, err = wire.Str(val, p)
		case keyAnnotations:
			d.Annotations, err = wire.DecodeAnnotations(val, p)
		case keyCapabilities:
			d.Behavior, err = wire.DecodeCapability(val, p)
		case keySecurity:
			d.Security, err = wire.DecodeSecurity(val, p)
		case keyOutputSchema:
			if strictjson.KindOf(val) != strictjson.Object {
				return ve, defErr(p, "output schema is %s, not an object", strictjson.KindOf(val))
			}
			d.OutputSchema = wire.Clone(val)
		case keyExtensions:
			d.Extensions, err = wire.DecodeExtensions(val, p)
		default:
			// The member's name is copied as it arrived, escapes and all,
			// so the schema stays byte for byte.
			if !first {
				schema = append(schema, ',')
			}
			first = false
			schema = append(schema, rawKey...)
			schema = append(schema, ':')
			schema = append(schema, val...)
		}
		return ve, err
	})
	if err != nil {
		return d, err
	}
	if !hasTitle {
		return d, shapeErr(ptr, "a tool's schema needs a \"title\", its name")
	}
	if d.Name == "" {
		return d, defErr(wire.Member(ptr, "title"), "empty title")
	}
	d.InputSchema = append(schema, '}')
	return d, nil
}

// EncodeTools writes each definition as a JSON Schema document: "$schema"
// (when the input schema has one), "title" (the name) and "description"
// first, then the input schema's members as
// they are, then the x- keywords of [DecodeTools] for what remains. A
// schema's own root title or description, which would clash, is left out
// with a warning. One document when t.Single is set, otherwise an array.
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t)
	if err != nil {
		return nil, nil, wire.Fail(codec.JSONSchema, nil, err)
	}
	return v, ws, nil
}

// encodeTools is [EncodeTools] with its error not yet a *codec.Error.
func encodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	warns := wire.DroppedExtensions(nil, t.Extensions, "", "JSON Schema")
	if t.Single && len(t.Defs) == 1 {
		out, err := appendDocument(nil, &t.Defs[0], "", &warns)
		return out, warns, err
	}
	out := []byte{'['}
	for i := range t.Defs {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendDocument(out, &t.Defs[i], wire.Index("", i), &warns); err != nil {
			return nil, nil, err
		}
	}
	return append(out, ']'), warns, nil
}

func appendDocument(dst []byte, d *tool.Definition, ptr string, warns *[]tool.Warning) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	first := true
	dst = append(dst, '{')
	var dollarSchema []byte
	if len(d.InputSchema) > 0 && strictjson.KindOf(d.InputSchema) == strictjson.Object && wire.ValidRaw(d.InputSchema) {
		dollarSchema = strictjson.Get(d.InputSchema, "$schema")
	}
	if dollarSchema != nil {
		dst = wire.AppendMember(dst, &first, "$schema", dollarSchema) // by convention, first
	}
	dst = wire.AppendString(dst, &first, "title", d.Name)
	if d.Description != "" {
		dst = wire.AppendString(dst, &first, "description", d.Description)
	}
	if len(d.InputSchema) > 0 {
		if !wire.ValidRaw(d.InputSchema) {
			return nil, defErr(wire.Member(ptr, "input_schema"), "schema is not valid JSON")
		}
		_, err := strictjson.WalkObjectRaw(d.InputSchema, strictjson.SkipSpace(d.InputSchema, 0), func(rawKey []byte, vs int) (int, error) {
			ve := strictjson.SkipValue(d.InputSchema, vs)
			v := d.InputSchema[vs:ve]
			key, err := strictjson.Unquote(rawKey)
			if err != nil {
				return ve, err
			}
			if isOwnKey(key) {
				s, _ := strictjson.Unquote(v)
				switch {
				case key == "title" && strictjson.KindOf(v) == strictjson.String && s == d.Name,
					key == "description" && strictjson.KindOf(v) == strictjson.String && s == d.Description:
					return ve, nil // the same text: nothing is lost
				case key == "description" && d.Description == "":
					dst = appendRaw(dst, &first, rawKey, v) // it describes the tool too
					return ve, nil
				}
				*warns = append(*warns, tool.Warning{Pointer: ptr + "/input_schema/" + strictjson.EscapePointer(key), Code: "jsonschema-keyword-clash",
					Message: "the schema's own " + key + " would clash with the document's and was left out"})
				return ve, nil
			}
			if key == "$schema" {
				return ve, nil // written first
			}
			dst = appendRaw(dst, &first, rawKey, v)
			return ve, nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		dst = wire.AppendMember(dst, &first, "type", []byte(`"object"`))
	}
	if d.Title != "" {
		dst = wire.AppendString(dst, &first, keyTitle, d.Title)
	}
	if d.Version != "" {
		dst = wire.AppendString(dst, &first, keyVersion, d.Version)
	}
	dst, err := wire.AppendMeta(dst, &first, d, [3]string{keyAnnotations, keyCapabilities, keySecurity})
	if err != nil {
		return nil, err
	}
	if len(d.OutputSchema) > 0 {
		if !wire.ValidRaw(d.OutputSchema) {
			return nil, defErr(wire.Member(ptr, "output_schema"), "schema is not valid JSON")
		}
		dst = wire.AppendMember(dst, &first, keyOutputSchema, d.OutputSchema)
	}
	if dst, err = wire.AppendExtensionsMember(dst, &first, keyExtensions, d.Extensions, ptr); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendRaw appends a member whose name is given as raw quoted bytes.
func appendRaw(dst []byte, first *bool, rawKey, v []byte) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = append(dst, rawKey...)
	dst = append(dst, ':')
	return append(dst, v...)
}
