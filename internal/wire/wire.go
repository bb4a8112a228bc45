// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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

// ShapeErr reports a value that is not the shape expected at ptr, as a
// *codec.Error wrapping codec.ErrUnknownShape; [Fail] names the format.
// The words must not quote the input's values.
func ShapeErr(ptr, format string, args ...any) error {
	return Errf(codec.ErrUnknownShape, ptr, format, args...)
}

// DefErr reports a definition no provider could accept, as a *codec.Error
// wrapping tool.ErrInvalidDefinition.
func DefErr(ptr, format string, args ...any) error {
	return Errf(tool.ErrInvalidDefinition, ptr, format, args...)
}

// Errf reports sentinel at ptr as a *codec.Error whose format [Fail] fills
// in. The words must not quote the input's values.
func Errf(sentinel error, ptr, format string, args ...any) error {
	return &codec.Error{Pointer: ptr, Offset: -1, Err: fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}

// ErrAt reports err at ptr as a *codec.Error.
func ErrAt(ptr string, err error) error {
	return &codec.Error{Pointer: ptr, Offset: -1, Err: err}
}

// Fail makes err, returned by a decoder of format f reading data (nil for
// an encoder), the *codec.Error the codec packages return: a *codec.Error
// gets the format and, when its pointer names a value in data, the offset
// of that value; a *strictjson.Error becomes the cause of a *codec.Error
// with its pointer and offset; anything else becomes the cause of one at
// the document root.
func Fail(f codec.Format, data []byte, err error) error {
	if err == nil {
		return nil
	}
	if ce, ok := err.(*codec.Error); ok {
		if ce.Format == "" { // not already made one by the codec
			ce.Format = f
			if ce.Offset < 0 && data != nil {
				ce.Offset = PointerOffset(data, ce.Pointer)
			}
		}
		return ce
	}
	if se, ok := errors.AsType[*strictjson.Error](err); ok && data != nil {
		return &codec.Error{Format: f, Pointer: se.Pointer, Offset: se.Offset, Err: err}
	}
	return &codec.Error{Format: f, Offset: -1, Err: err}
}

// errFound stops a walk in [PointerOffset].
var errFound = errors.New("found")

// PointerOffset returns the offset in data, a document that passed
// strictjson's Check, of the value ptr names, or -1 when ptr names no value
// in it (a member the decoder found missing, or a place inside a string
// that holds JSON).
func PointerOffset(data []byte, ptr string) int64 {
	i := strictjson.SkipSpace(data, 0)
	for ptr != "" {
		if ptr[0] != '/' || i >= len(data) {
			return -1
		}
		ptr = ptr[1:]
		tok := ptr
		if j := strings.IndexByte(ptr, '/'); j >= 0 {
			tok, ptr = ptr[:j], ptr[j:]
		} else {
			ptr = ""
		}
		if strings.IndexByte(tok, '~') >= 0 {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		}
		at := -1
		var err error
		switch data[i] {
		case '{':
			_, err = strictjson.WalkObject(data, i, func(k []byte, vs int) (int, error) {
				if string(k) == tok {
					at = vs
					return vs, errFound
				}
				return -1, nil
			})
		case '[':
			n, convErr := strconv.Atoi(tok)
			if convErr != nil || n < 0 || (len(tok) > 1 && tok[0] == '0') {
				return -1
			}
			_, err = strictjson.WalkArray(data, i, func(k, vs int) (int, error) {
				if k == n {
					at = vs
					return vs, errFound
				}
				return -1, nil
			})
		}
		if err != errFound || at < 0 {
			return -1
		}
		i = at
	}
	return int64(i)
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

// Names finds empty and duplicate tool names; ptr(i) is the pointer of the
// name of defs[i].
func Names(defs []tool.Definition, ptr func(int) string) error {
	var seen map[string]int
	for i := range defs {
		n := defs[i].Name
		if n == "" {
			return DefErr(ptr(i), "empty tool name")
		}
		if len(defs) < 16 {
			for j := range i {
				if defs[j].Name == n {
					return DefErr(ptr(i), "duplicate tool name, first at %s", At(ptr(j)))
				}
			}
			continue
		}
		if seen == nil {
			seen = make(map[string]int, len(defs))
		}
		if j, ok := seen[n]; ok {
			return DefErr(ptr(i), "duplicate tool name, first at %s", At(ptr(j)))
		}
		seen[n] = i
	}
	return nil
}

// SchemaObject requires a schema to be a JSON object.
func SchemaObject(v []byte, ptr string) error {
	if !IsKind(v, strictjson.Object) {
		return DefErr(ptr, "schema is %s, not a JSON object", strictjson.KindOf(v))
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
		// document, so only its sentinel is kept.
		if se, ok := errors.AsType[*strictjson.Error](err); ok {
			err = se.Err
		}
		return nil, Errf(invalid, ptr, "not strict JSON: %w", err)
	}
	if !IsKind(b, strictjson.Object) {
		return nil, Errf(invalid, ptr, "got a JSON %s", strictjson.KindOf(b))
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
// cannot carry. owned reports the extension keys the format writes back;
// outputSchema says whether it writes the output schema.
// An inferred capability is not reported: it is recomputed from the name
// and description, so nothing is lost.
func Dropped(ws []tool.Warning, d *tool.Definition, ptr func() string, format string, owned func(string) bool, outputSchema bool) []tool.Warning {
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
	if len(d.OutputSchema) > 0 && !outputSchema {
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
		foreign = foreign || (!owned(k) && !tool.IsSpelling(k))
	}
	if foreign {
		for _, k := range slices.Sorted(maps.Keys(d.Extensions)) {
			if !owned(k) && !tool.IsSpelling(k) {
				drop("extension " + k)
			}
		}
	}
	return ws
}
