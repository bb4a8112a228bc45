// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

// This file holds the small readers and writers every decoder and encoder
// of the package shares. Each codec package keeps its own copy: the layout
// allows codecs to import only codec, tool, schema and strictjson.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// prefix starts every error and warning message of the package.
const prefix = "anthropic: "

// ErrInvalidArguments reports a tool call whose arguments are not a JSON
// object.
var ErrInvalidArguments = errors.New("anthropic: tool_use input is not a JSON object")

// check runs strictjson over the whole document; its *strictjson.Error is
// returned as is so that callers can turn the offset into a line and column.
func check(data []byte) error {
	return strictjson.Check(data, nil)
}

// at renders a JSON Pointer for messages; the root is named, not blank.
func at(ptr string) string {
	if ptr == "" {
		return "document root"
	}
	return ptr
}

// shapeErr reports a value that is not the shape expected at ptr.
func shapeErr(ptr, format string, args ...any) error {
	return fmt.Errorf("%w at %s: %s", codec.ErrUnknownShape, at(ptr), fmt.Sprintf(format, args...))
}

// defErr reports a definition no provider could accept.
func defErr(ptr, format string, args ...any) error {
	return fmt.Errorf("%s%w at %s: %s", prefix, tool.ErrInvalidDefinition, at(ptr), fmt.Sprintf(format, args...))
}

func index(ptr string, i int) string { return ptr + "/" + strconv.Itoa(i) }

func member(ptr, key string) string { return ptr + "/" + strictjson.EscapePointer(key) }

// str reads v as a JSON string.
func str(v []byte, ptr string) (string, error) {
	if v == nil {
		return "", shapeErr(ptr, "missing")
	}
	if strictjson.KindOf(v) != strictjson.String {
		return "", shapeErr(ptr, "want a string, got %s", strictjson.KindOf(v))
	}
	s, err := strictjson.Unquote(v)
	if err != nil {
		return "", shapeErr(ptr, "bad string")
	}
	return s, nil
}

// optStr reads v as a JSON string or null.
func optStr(v []byte, ptr string) (string, error) {
	if strictjson.KindOf(v) == strictjson.Null {
		return "", nil
	}
	return str(v, ptr)
}

// boolean reads v as true or false.
func boolean(v []byte, ptr string) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, shapeErr(ptr, "want a boolean, got %s", strictjson.KindOf(v))
}

// kind requires v to be of kind k.
func kind(v []byte, k strictjson.Kind, ptr string) error {
	if got := strictjson.KindOf(v); got != k {
		return shapeErr(ptr, "want %s, got %s", k, got)
	}
	return nil
}

// isKind reports whether v is of kind k.
func isKind(v []byte, k strictjson.Kind) bool { return strictjson.KindOf(v) == k }

// has reports whether obj has a member named key.
func has(obj []byte, key string) bool { return strictjson.Get(obj, key) != nil }

// tagged returns the string value of obj's "type" member, or "".
func tagged(obj []byte) string {
	v := strictjson.Get(obj, "type")
	if !isKind(v, strictjson.String) {
		return ""
	}
	s, _ := strictjson.Unquote(v)
	return s
}

// names finds empty and duplicate tool names; ptr(i) is the pointer of
// the name of defs[i].
func names(defs []tool.Definition, ptr func(int) string) error {
	var seen map[string]int
	for i := range defs {
		n := defs[i].Name
		if n == "" {
			return defErr(ptr(i), "empty tool name")
		}
		if len(defs) < 16 {
			for j := range i {
				if defs[j].Name == n {
					return defErr(ptr(i), "duplicate tool name %q, first at %s", n, at(ptr(j)))
				}
			}
			continue
		}
		if seen == nil {
			seen = make(map[string]int, len(defs))
		}
		if j, ok := seen[n]; ok {
			return defErr(ptr(i), "duplicate tool name %q, first at %s", n, at(ptr(j)))
		}
		seen[n] = i
	}
	return nil
}

// schemaObject requires a schema to be a JSON object.
func schemaObject(v []byte, ptr string) error {
	if !isKind(v, strictjson.Object) {
		return defErr(ptr, "schema is %s, not a JSON object", strictjson.KindOf(v))
	}
	return nil
}

// argsObject returns a call's arguments for writing: nil becomes {}.
func argsObject(a json.RawMessage) []byte {
	if len(bytes.TrimSpace(a)) == 0 {
		return []byte("{}")
	}
	return a
}

// appendKey appends "key":, after a comma unless the object is empty or
// the comma is already there.
func appendKey(dst []byte, key string) []byte {
	if c := dst[len(dst)-1]; c != '{' && c != '[' && c != ',' {
		dst = append(dst, ',')
	}
	dst = strictjson.AppendQuote(dst, key)
	return append(dst, ':')
}

// appendStr appends "key":"value".
func appendStr(dst []byte, key, value string) []byte {
	return strictjson.AppendQuote(appendKey(dst, key), value)
}

// appendRaw appends "key":raw, the value written as the bytes given.
func appendRaw(dst []byte, key string, raw []byte) []byte {
	return append(appendKey(dst, key), bytes.TrimSpace(raw)...)
}

// dropped reports, for the definition at ptr(), every field the format
// cannot carry. owned reports the extension keys the format writes back.
// An inferred capability is not reported: it is recomputed from the name
// and description, so nothing is lost.
func dropped(ws []tool.Warning, d *tool.Definition, ptr func() string, format string, owned func(string) bool) []tool.Warning {
	drop := func(field string) {
		ws = append(ws, tool.Warning{
			Pointer: ptr(),
			Code:    "dropped-field",
			Message: fmt.Sprintf("%s cannot carry the %s of tool %q", format, field, d.Name),
		})
	}
	if d.Title != "" {
		drop("title")
	}
	if len(d.OutputSchema) > 0 {
		drop("output_schema")
	}
	if d.Annotations != nil {
		drop("annotations")
	}
	if d.Capability != nil && !d.Capability.Inferred {
		drop("capability")
	}
	if d.Security != nil {
		drop("security")
	}
	if d.Version != "" {
		drop("version")
	}
	foreign := false
	for k := range d.Extensions {
		foreign = foreign || !owned(k)
	}
	if foreign {
		for _, k := range slices.Sorted(maps.Keys(d.Extensions)) {
			if !owned(k) {
				drop("extension " + k)
			}
		}
	}
	return ws
}
