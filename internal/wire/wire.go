// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// Check runs strictjson over the whole document; its *strictjson.Error is
// returned as is so that callers can turn the offset into a line and column.
func Check(data []byte) error {
	return strictjson.Check(data, nil)
}

// At renders a JSON Pointer for messages; the root is named, not blank.
func At(ptr string) string {
	if ptr == "" {
		return "document root"
	}
	return ptr
}

// ShapeErr reports a value that is not the shape expected at ptr.
func ShapeErr(ptr, format string, args ...any) error {
	return fmt.Errorf("%w at %s: %s", codec.ErrUnknownShape, At(ptr), fmt.Sprintf(format, args...))
}

// DefErr reports a definition no provider could accept; prefix names the
// codec ("openai: ").
func DefErr(prefix, ptr, format string, args ...any) error {
	return fmt.Errorf("%s%w at %s: %s", prefix, tool.ErrInvalidDefinition, At(ptr), fmt.Sprintf(format, args...))
}

// Index is the JSON Pointer of element i of the array at ptr.
func Index(ptr string, i int) string { return ptr + "/" + strconv.Itoa(i) }

// Member is the JSON Pointer of member key of the object at ptr.
func Member(ptr, key string) string { return ptr + "/" + strictjson.EscapePointer(key) }

// Str reads v as a JSON string.
func Str(v []byte, ptr string) (string, error) {
	if v == nil {
		return "", ShapeErr(ptr, "missing")
	}
	if strictjson.KindOf(v) != strictjson.String {
		return "", ShapeErr(ptr, "want a string, got %s", strictjson.KindOf(v))
	}
	s, err := strictjson.Unquote(v)
	if err != nil {
		return "", ShapeErr(ptr, "bad string")
	}
	return s, nil
}

// OptStr reads v as a JSON string or null.
func OptStr(v []byte, ptr string) (string, error) {
	if strictjson.KindOf(v) == strictjson.Null {
		return "", nil
	}
	return Str(v, ptr)
}

// Bool reads v as true or false.
func Bool(v []byte, ptr string) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, ShapeErr(ptr, "want a boolean, got %s", strictjson.KindOf(v))
}

// Kind requires v to be of kind k.
func Kind(v []byte, k strictjson.Kind, ptr string) error {
	if got := strictjson.KindOf(v); got != k {
		return ShapeErr(ptr, "want %s, got %s", k, got)
	}
	return nil
}

// IsKind reports whether v is of kind k.
func IsKind(v []byte, k strictjson.Kind) bool { return strictjson.KindOf(v) == k }

// Has reports whether obj has a member named key.
func Has(obj []byte, key string) bool { return strictjson.Get(obj, key) != nil }

// Tagged returns the string value of obj's "type" member, or "".
func Tagged(obj []byte) string {
	v := strictjson.Get(obj, "type")
	if !IsKind(v, strictjson.String) {
		return ""
	}
	s, _ := strictjson.Unquote(v)
	return s
}

// Names finds, for the codec named by prefix, empty and duplicate tool names; ptr(i) is the pointer of
// the name of defs[i].
func Names(prefix string, defs []tool.Definition, ptr func(int) string) error {
	var seen map[string]int
	for i := range defs {
		n := defs[i].Name
		if n == "" {
			return DefErr(prefix, ptr(i), "empty tool name")
		}
		if len(defs) < 16 {
			for j := range i {
				if defs[j].Name == n {
					return DefErr(prefix, ptr(i), "duplicate tool name %q, first at %s", n, At(ptr(j)))
				}
			}
			continue
		}
		if seen == nil {
			seen = make(map[string]int, len(defs))
		}
		if j, ok := seen[n]; ok {
			return DefErr(prefix, ptr(i), "duplicate tool name %q, first at %s", n, At(ptr(j)))
		}
		seen[n] = i
	}
	return nil
}

// SchemaObject requires a schema to be a JSON object.
func SchemaObject(prefix string, v []byte, ptr string) error {
	if !IsKind(v, strictjson.Object) {
		return DefErr(prefix, ptr, "schema is %s, not a JSON object", strictjson.KindOf(v))
	}
	return nil
}

// Arguments decodes a string holding a JSON object, once and strictly;
// anything else is reported as the codec's invalid error.
// The returned bytes are the string's content, trimmed of whitespace.
func Arguments(invalid error, v []byte, ptr string) (json.RawMessage, error) {
	s, err := Str(v, ptr)
	if err != nil {
		return nil, err
	}
	b := bytes.TrimSpace([]byte(s))
	if err := strictjson.Check(b, nil); err != nil {
		// The inner error's offset is within the string, not the
		// document, so it is described rather than wrapped.
		return nil, fmt.Errorf("%w at %s: %v", invalid, ptr, err)
	}
	if !IsKind(b, strictjson.Object) {
		return nil, fmt.Errorf("%w at %s: got a JSON %s", invalid, ptr, strictjson.KindOf(b))
	}
	return b, nil
}

// ArgsObject returns a call's arguments for writing: nil becomes {}.
func ArgsObject(a json.RawMessage) []byte {
	if len(bytes.TrimSpace(a)) == 0 {
		return []byte("{}")
	}
	return a
}

// AppendKey appends "key":, after a comma unless the object is empty or
// the comma is already there.
func AppendKey(dst []byte, key string) []byte {
	if c := dst[len(dst)-1]; c != '{' && c != '[' && c != ',' {
		dst = append(dst, ',')
	}
	dst = strictjson.AppendQuote(dst, key)
	return append(dst, ':')
}

// AppendStr appends "key":"value".
func AppendStr(dst []byte, key, value string) []byte {
	return strictjson.AppendQuote(AppendKey(dst, key), value)
}

// AppendRaw appends "key":raw, the value written as the bytes given.
func AppendRaw(dst []byte, key string, raw []byte) []byte {
	return append(AppendKey(dst, key), bytes.TrimSpace(raw)...)
}

// Dropped reports, for the definition at ptr(), every field the format
// cannot carry. owned reports the extension keys the format writes back.
// An inferred capability is not reported: it is recomputed from the name
// and description, so nothing is lost.
func Dropped(ws []tool.Warning, d *tool.Definition, ptr func() string, format string, owned func(string) bool) []tool.Warning {
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
	if d.Behavior != nil && !d.Behavior.Inferred {
		drop("capability")
	}
	if d.Security != nil {
		drop("security")
	}
	if d.Version != "" {
		drop("version")
	}
	if len(d.Extensions) == 0 {
		return ws // most tools; ranging over even an empty map costs an iterator
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
