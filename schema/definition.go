// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// CodeNameMapped is the warning code for a tool name rewritten by
// [LowerDefinition].
const CodeNameMapped = "name-mapped"

// LowerDefinition returns a copy of d fit for target t: its name mapped
// with names (a fresh [NameMap] when nil, which cannot detect collisions
// between tools: pass one map for all the tools of a request), its input
// schema lowered with [LowerChecked] (so d's schemas must be strict JSON,
// as a codec's or encoding/json's output is), and its output schema lowered too when the
// target carries one (MCP only; other targets keep it untouched for the
// codec to report). A nil input schema stays nil: codecs write the empty
// object schema their provider needs. Warnings' pointers start with
// "/name", "/input_schema" or "/output_schema".
func LowerDefinition(t Target, d *tool.Definition, names *NameMap) (tool.Definition, []tool.Warning, error) {
	if d == nil {
		return tool.Definition{}, nil, fmt.Errorf("%w: nil definition", tool.ErrInvalidDefinition)
	}
	out := *d
	if names == nil {
		names = NewNameMap(t)
	}
	mapped, err := names.Map(d.Name)
	if err != nil {
		return tool.Definition{}, nil, err
	}
	var warns []tool.Warning
	if mapped != d.Name {
		out.Name = mapped
		warns = append(warns, tool.Warning{Pointer: "/name", Code: CodeNameMapped, Message: mappedMessage(d.Name, mapped, t)})
	}
	lower := func(field string, raw []byte) ([]byte, error) {
		if len(raw) == 0 {
			return raw, nil
		}
		s, w, err := LowerChecked(t, raw)
		if err != nil {
			var se *SchemaError
			if errors.As(err, &se) {
				c := *se
				c.Pointer = "/" + field + se.Pointer
				return nil, fmt.Errorf("tool %q: %w", d.Name, &c)
			}
			return nil, fmt.Errorf("tool %q: %s: %w", d.Name, field, err)
		}
		for _, x := range w {
			x.Pointer = "/" + field + x.Pointer
			warns = append(warns, x)
		}
		return s, nil
	}
	if out.InputSchema, err = lower("input_schema", d.InputSchema); err != nil {
		return tool.Definition{}, nil, err
	}
	if t == MCP {
		if rootNotObject(d.OutputSchema) {
			// An output schema describes structuredContent, not arguments:
			// MCP 2026-07-28 takes any JSON Schema there (an array of
			// results, say), so it is kept, with a word for older clients.
			warns = append(warns, tool.Warning{Pointer: "/output_schema/type", Code: CodeOutputNotObject,
				Message: "output schema's root is not an object: MCP 2026-07-28 allows any schema, clients of earlier versions require type object"})
		} else if out.OutputSchema, err = lower("output_schema", d.OutputSchema); err != nil {
			return tool.Definition{}, nil, err
		}
	}
	return out, warns, nil
}

// rootNotObject reports whether the schema raw says its root is of a type
// other than object.
func rootNotObject(raw []byte) bool {
	if strictjson.KindOf(raw) != strictjson.Object {
		return false
	}
	t := strictjson.Get(raw, "type")
	switch strictjson.KindOf(t) {
	case strictjson.String:
		return string(bytes.TrimSpace(t)) != `"object"`
	case strictjson.Array:
		found := false
		_ = strictjson.Elements(t, func(_ int, v []byte) error {
			found = found || string(v) == `"object"`
			return nil
		})
		return !found
	}
	return false
}

// mappedMessage says that name is written as mapped for t. It is built in
// a stack buffer, not with fmt: most names of a large catalog are mapped,
// and the message is written for each of them.
func mappedMessage(name, mapped string, t Target) string {
	var buf [160]byte
	b := append(buf[:0], "tool name "...)
	b = appendQuoted(b, name)
	b = append(b, " written as "...)
	b = appendQuoted(b, mapped)
	b = append(b, " for "...)
	b = append(b, t...)
	b = append(b, "; calls are mapped back"...)
	return string(b)
}

// appendQuoted is strconv.AppendQuote, with the common case of a name of
// printable ASCII without quotes or backslashes (which strconv would copy
// as it is) done without its rune-by-rune reading.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
