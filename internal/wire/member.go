// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// The helpers below serve the codecs whose messages name the place first
// ("gemini: /parameters: unknown shape: …"): canonical, jsonschema,
// langchain, gemini and mcp.

// Errf reports sentinel at ptr, the message starting with the codec's
// prefix ("gemini: ") and the place.
func Errf(prefix string, sentinel error, ptr, format string, args ...any) error {
	return fmt.Errorf("%s%s: %w: %s", prefix, At(ptr), sentinel, fmt.Sprintf(format, args...))
}

// PrefixedStr reads v as a JSON string member; a value of another kind is
// reported with [Errf] and codec.ErrUnknownShape.
func PrefixedStr(prefix string, v []byte, ptr string) (string, error) {
	if strictjson.KindOf(v) != strictjson.String {
		return "", Errf(prefix, codec.ErrUnknownShape, ptr, "want a string, have %s", strictjson.KindOf(v))
	}
	return strictjson.Unquote(v)
}

// PrefixedBool reads v as a JSON boolean member; a value of another kind
// is reported with [Errf] and codec.ErrUnknownShape.
func PrefixedBool(prefix string, v []byte, ptr string) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, Errf(prefix, codec.ErrUnknownShape, ptr, "want a boolean, have %s", strictjson.KindOf(v))
}

// Clone returns a copy of v that shares no memory with it.
func Clone(v []byte) json.RawMessage { return append(json.RawMessage(nil), v...) }

// SortedKeys returns the keys of e in order.
func SortedKeys(e tool.Extensions) []string {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// AppendMember appends ,"key":raw (the comma only when needed).
func AppendMember(dst []byte, first *bool, key string, raw []byte) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = strictjson.AppendQuote(dst, key)
	dst = append(dst, ':')
	return append(dst, raw...)
}

// AppendString appends ,"key":"s" (the comma only when needed).
func AppendString(dst []byte, first *bool, key, s string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = strictjson.AppendQuote(dst, key)
	dst = append(dst, ':')
	return strictjson.AppendQuote(dst, s)
}

// AppendBool appends ,"key":true or false (the comma only when needed).
func AppendBool(dst []byte, first *bool, key string, b bool) []byte {
	if b {
		return AppendMember(dst, first, key, []byte("true"))
	}
	return AppendMember(dst, first, key, []byte("false"))
}

// ValidRaw reports whether an extension value can be written as is.
func ValidRaw(v []byte) bool { return len(v) > 0 && json.Valid(v) }
