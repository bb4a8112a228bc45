// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// MaxNameLen is the longest tool name every provider accepts (OpenAI and
// Gemini allow 64 characters).
const MaxNameLen = 64

// SanitizeName returns s as a tool name every provider accepts: ASCII
// letters, digits, '_' and '-', starting with a letter or '_' (Gemini's
// rule), at most [MaxNameLen] bytes. Runs of other characters become one
// '_'; camelCase is kept. An empty result becomes "operation".
func SanitizeName(s string) string {
	b := make([]byte, 0, len(s))
	under := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-':
			b = append(b, c)
			under = false
		default:
			if !under && len(b) > 0 {
				b = append(b, '_')
			}
			under = true
		}
	}
	out := strings.Trim(string(b), "_-")
	if out == "" {
		return "operation"
	}
	if c := out[0]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		out = "_" + out
	}
	if len(out) > MaxNameLen {
		out = strings.TrimRight(out[:MaxNameLen], "_-")
	}
	return out
}

// uniqueName returns name, or name with the smallest suffix "_2", "_3"…
// that no earlier name took, and marks it taken.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		suf := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suf) > MaxNameLen {
			base = base[:MaxNameLen-len(suf)]
		}
		out = base + suf
	}
	taken[out] = true
	return out
}

// maxPropLen is the longest property name Anthropic accepts.
const maxPropLen = 64

// SanitizeProperty returns s as an input property name providers accept
// (Anthropic: letters, digits, '_', '.', '-', at most 64): other runs of
// characters become '_' ("filter[state]" → "filter_state").
func SanitizeProperty(s string) string {
	b := make([]byte, 0, len(s))
	under := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_':
			b = append(b, c)
			under = c == '_'
		default:
			if !under {
				b = append(b, '_')
			}
			under = true
		}
	}
	out := string(b)
	if len(out) > maxPropLen {
		out = out[:maxPropLen]
	}
	out = strings.TrimRight(out, "_")
	if strings.Trim(out, "_") == "" {
		out = "param"
	}
	return out
}

// members is strictjson.Members that treats a missing or non-object
// value as empty: optional spec fields are absent more often than not.
func members(obj []byte, fn func(k, v []byte) error) error {
	if strictjson.KindOf(obj) != strictjson.Object {
		return nil
	}
	return strictjson.Members(obj, fn)
}

// elements is strictjson.Elements that treats a missing or non-array value
// as empty.
func elements(arr []byte, fn func(i int, v []byte) error) error {
	if strictjson.KindOf(arr) != strictjson.Array {
		return nil
	}
	return strictjson.Elements(arr, fn)
}

// escPtr escapes a JSON Pointer token ("~" as "~0", "/" as "~1") without
// allocating when there is nothing to escape, which is almost always.
func escPtr(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
