// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package jsonschema

import (
	"bytes"
	"errors"
)

// errMalformed is returned by the readers below for input that did not
// pass strictjson.Check; callers always check first.
var errMalformed = errors.New("jsonschema: malformed JSON")

// The readers below walk JSON that has passed strictjson.Check. They are
// strictjson.Members and friends specialised for speed: strings, which
// are most of a function document's bytes, are skipped with
// bytes.IndexByte rather than byte by byte. On malformed input they stop
// at the end of data; they never panic.

func skipWS(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string whose quote is at i.
// Most strings in a function document are short (names, type names), so
// the first bytes are looked at one by one before handing the rest to
// bytes.IndexByte.
func skipString(data []byte, i int) int {
	from := i + 1
	for n := 0; n < 16 && from < len(data); n++ {
		switch data[from] {
		case '"':
			return from + 1
		case '\\':
			n = 16 // leave the escape to the loop below
			continue
		}
		from++
	}
	for from < len(data) {
		j := bytes.IndexByte(data[from:], '"')
		if j < 0 {
			return len(data)
		}
		k := from + j
		n := 0
		for b := k - 1; b >= from && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return k + 1
		}
		from = k + 1
	}
	return len(data)
}

// skipValue returns the offset just past the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return len(data)
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(data)
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// walkObject calls fn with the raw (quoted) key and the start of the value
// of each member of the object at data[i]; fn returns the offset just past
// the value, having walked it itself or skipped it. walkObject returns the
// offset after the object. Values a caller walks are read once, not
// skipped first and walked again.
func walkObject(data []byte, i int, fn func(key []byte, vs int) (int, error)) (int, error) {
	i = skipWS(data, i)
	if i >= len(data) || data[i] != '{' {
		return i, errMalformed
	}
	i++
	for {
		i = skipWS(data, i)
		if i >= len(data) {
			return i, errMalformed
		}
		switch data[i] {
		case '}':
			return i + 1, nil
		case ',':
			i = skipWS(data, i+1)
		}
		if i >= len(data) || data[i] != '"' {
			return i, errMalformed
		}
		ke := skipString(data, i)
		vs := skipWS(data, skipWS(data, ke)+1)
		if vs >= len(data) {
			return vs, errMalformed
		}
		ve, err := fn(data[i:ke], vs)
		if err != nil {
			return ve, err
		}
		if ve <= vs {
			return vs, errMalformed
		}
		i = ve
	}
}
