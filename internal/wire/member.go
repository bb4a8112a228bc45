// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"encoding/json"
	"sort"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// Clone copies v.
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
