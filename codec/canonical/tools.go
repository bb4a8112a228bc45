// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package canonical

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// definitionKeys are the names of [tool.Definition]'s JSON encoding.
var definitionKeys = []string{"name", "title", "description", "input_schema", "output_schema", "annotations", "capability", "security", "version", "extensions"}

// DecodeTools reads toolgate's canonical form: the JSON encoding of
// [tool.Definition], one (Single is set), a JSON array, or {"tools": […]}.
// Decoding is strict: member names must match exactly (encoding/json
// alone would match them in any case), unknown members are errors, and so
// are unknown actions, costs, classifications and PII modes.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.Canonical, data, err)
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
		if strictjson.Get(data, "name") == nil && strictjson.Get(data, "tools") != nil {
			if err := wire.OnlyKeys(data, "", "tools", "extensions"); err != nil {
				return nil, err
			}
			if e := strictjson.Get(data, "extensions"); e != nil {
				var err error
				if out.Extensions, err = wire.DecodeExtensions(e, "/extensions"); err != nil {
					return nil, err
				}
			}
			list, ptr = strictjson.Get(data, "tools"), "/tools"
			if strictjson.KindOf(list) != strictjson.Array {
				return nil, shapeErr(ptr, "want an array of definitions, got %s", strictjson.KindOf(list))
			}
			break
		}
		d, err := decodeDefinition(data, "")
		if err != nil {
			return nil, err
		}
		out.Defs, out.Single = []tool.Definition{d}, true
		return out, nil
	case strictjson.Array:
	default:
		return nil, shapeErr("", "want a definition or a list of them, got %s", strictjson.KindOf(data))
	}
	seen := map[string]int{}
	err := strictjson.Elements(list, func(i int, el []byte) error {
		d, err := decodeDefinition(el, wire.Index(ptr, i))
		if err != nil {
			return err
		}
		if j, ok := seen[d.Name]; ok {
			return defErr(wire.Index(ptr, i)+"/name", "duplicate name, first at definition %d", j)
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

func decodeDefinition(v []byte, ptr string) (tool.Definition, error) {
	var d tool.Definition
	if err := wire.OnlyKeys(v, ptr, definitionKeys...); err != nil {
		return d, err
	}
	hasName := false
	err := strictjson.Members(v, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var err error
		switch key {
		case "name":
			hasName = true
			d.Name, err = wire.Str(val, p)
		case "title":
			d.Title, err = wire.Str(val, p)
		case "description":
			d.Description, err = wire.Str(val, p)
		case "version":
			d.Version, err = wire.Str(val, p)
		case "input_schema", "output_schema":
			if strictjson.KindOf(val) != strictjson.Object {
				return defErr(p, "schema is %s, not an object", strictjson.KindOf(val))
			}
			if key == "input_schema" {
				d.InputSchema = wire.Clone(val)
			} else {
				d.OutputSchema = wire.Clone(val)
			}
		case "annotations":
			d.Annotations, err = wire.DecodeAnnotations(val, p)
		case "capability":
			d.Behavior, err = wire.DecodeCapability(val, p)
		case "security":
			d.Security, err = wire.DecodeSecurity(val, p)
		case "extensions":
			d.Extensions, err = wire.DecodeExtensions(val, p)
		}
		return err
	})
	if err != nil {
		return d, err
	}
	if !hasName {
		return d, shapeErr(ptr, "a definition needs a \"name\"")
	}
	if d.Name == "" {
		return d, defErr(wire.Member(ptr, "name"), "empty name")
	}
	return d, nil
}

// EncodeTools writes t in canonical form: one definition when t.Single is
// set, otherwise a JSON array. Members are written in the order of
// [tool.Definition]'s fields, schemas as the raw bytes they hold and
// extensions sorted by key, so the output is the same bytes on every run.
// The canonical form carries everything, so there are never warnings.
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t)
	if err != nil {
		return nil, nil, wire.Fail(codec.Canonical, nil, err)
	}
	return v, ws, nil
}

// encodeTools is [EncodeTools] with its error not yet a *codec.Error.
func encodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	if t.Single && len(t.Defs) == 1 && len(t.Extensions) == 0 {
		out, err := appendDefinition(nil, &t.Defs[0], "")
		return out, nil, err
	}
	// What the document said around its tools is kept:
	// {"tools": [...], "extensions": {...}}.
	out, base := []byte{'['}, ""
	if len(t.Extensions) > 0 {
		out, base = []byte(`{"tools":[`), "/tools"
	}
	for i := range t.Defs {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendDefinition(out, &t.Defs[i], wire.Index(base, i)); err != nil {
			return nil, nil, err
		}
	}
	out = append(out, ']')
	if len(t.Extensions) > 0 {
		first := false
		var err error
		if out, err = wire.AppendExtensionsMember(out, &first, "extensions", t.Extensions, ""); err != nil {
			return nil, nil, err
		}
		out = append(out, '}')
	}
	return out, nil, nil
}

func appendDefinition(dst []byte, d *tool.Definition, ptr string) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	first := true
	dst = append(dst, '{')
	dst = wire.AppendString(dst, &first, "name", d.Name)
	if d.Title != "" {
		dst = wire.AppendString(dst, &first, "title", d.Title)
	}
	if d.Description != "" {
		dst = wire.AppendString(dst, &first, "description", d.Description)
	}
	for _, s := range []struct {
		key string
		v   []byte
	}{{"input_schema", d.InputSchema}, {"output_schema", d.OutputSchema}} {
		if len(s.v) == 0 {
			continue
		}
		if !wire.ValidRaw(s.v) {
			return nil, defErr(wire.Member(ptr, s.key), "schema is not valid JSON")
		}
		dst = wire.AppendMember(dst, &first, s.key, s.v)
	}
	dst, err := wire.AppendMeta(dst, &first, d, [3]string{"annotations", "capability", "security"})
	if err != nil {
		return nil, err
	}
	if d.Version != "" {
		dst = wire.AppendString(dst, &first, "version", d.Version)
	}
	if dst, err = wire.AppendExtensionsMember(dst, &first, "extensions", d.Extensions, ptr); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}
