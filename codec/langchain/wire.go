// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package langchain

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// extPrefix is the prefix of the [tool.Extensions] keys this codec owns:
// every tool member it has no field for is kept as "langchain/" + its name.
const extPrefix = "langchain/"

// where names a JSON Pointer for messages.
func where(ptr string) string {
	if ptr == "" {
		return "document root"
	}
	return ptr
}

func shapeErr(ptr, format string, args ...any) error {
	return fmt.Errorf("langchain: %s: %w: %s", where(ptr), codec.ErrUnknownShape, fmt.Sprintf(format, args...))
}

func defErr(ptr, format string, args ...any) error {
	return fmt.Errorf("langchain: %s: %w: %s", where(ptr), tool.ErrInvalidDefinition, fmt.Sprintf(format, args...))
}

func join(ptr, key string) string { return ptr + "/" + strictjson.EscapePointer(key) }

func index(ptr string, i int) string { return fmt.Sprintf("%s/%d", ptr, i) }

// str reads a JSON string member.
func str(v []byte, ptr string) (string, error) {
	if strictjson.KindOf(v) != strictjson.String {
		return "", shapeErr(ptr, "want a string, have %s", strictjson.KindOf(v))
	}
	return strictjson.Unquote(v)
}

func clone(v []byte) json.RawMessage { return append(json.RawMessage(nil), v...) }

// check runs strictjson.Check, keeping its *strictjson.Error unwrapped so
// callers can turn the offset into a line and column.
func check(data []byte) error {
	return strictjson.Check(data, nil)
}

// sortedKeys returns the keys of e in order.
func sortedKeys(e tool.Extensions) []string {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// appendMember appends ,"key":raw (the comma only when needed).
func appendMember(dst []byte, first *bool, key string, raw []byte) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = strictjson.AppendQuote(dst, key)
	dst = append(dst, ':')
	return append(dst, raw...)
}

func appendString(dst []byte, first *bool, key, s string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = strictjson.AppendQuote(dst, key)
	dst = append(dst, ':')
	return strictjson.AppendQuote(dst, s)
}

// validRaw reports whether an extension value can be written as is.
func validRaw(v []byte) bool { return len(v) > 0 && json.Valid(v) }

// dropped is the warning for a value the LangChain shape has no place for.
func dropped(ptr, what string) tool.Warning {
	return tool.Warning{Pointer: ptr, Code: "langchain-dropped", Message: what + " has no place in the LangChain shape and was left out"}
}

func isOwnExt(k string) bool { return strings.HasPrefix(k, extPrefix) }
