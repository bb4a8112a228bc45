// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"encoding/binary"
	"math/bits"
)

// The skippers and walkers below read documents that have passed [Check].
// They find the end of each value with a table-driven scan and skip
// strings eight bytes a step: decoding tool files is dominated by
// skipping over schemas, which must stay a few microseconds per
// definition. On malformed input they stop at the end of data; they never
// panic.

// structural marks the bytes SkipValue stops at inside a container.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// SkipSpace returns the offset of the first byte at or after i that is not
// JSON whitespace, or len(data).
func SkipSpace(data []byte, i int) int { return skipWS(data, i) }

func skipWS(data []byte, i int) int {
	// One comparison for the usual case, a byte that is not white space
	// (every byte of compact JSON).
	for i < len(data) && data[i] <= ' ' {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the offset just past the string whose opening quote
// is at data[i]. It looks at eight bytes a step for the next quote or
// backslash: schemas are mostly strings, and every walk of a tool file
// skips them.
func SkipString(data []byte, i int) int {
	return stringEnd(data, i+1)
}

// stringEnd returns the offset just past the closing quote of the string
// whose body starts at i, or len(data).
func stringEnd(data []byte, i int) int {
	end, _ := scanString(data, i)
	return end
}

// scanString is stringEnd that also reports whether the string holds no
// escape, which the scan finds on its way: a walker need not look for a
// backslash in a name again.
func scanString(data []byte, i int) (end int, plain bool) {
	plain = true
	for {
		if i+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[i:])
			m := zeroBytes(w^('"'*ones)) | zeroBytes(w^('\\'*ones))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < len(data) && data[i] != '"' && data[i] != '\\' {
				i++
			}
			if i >= len(data) {
				return len(data), plain
			}
		}
		if data[i] == '"' {
			return i + 1, plain
		}
		plain = false
		i += 2 // an escape; what follows the backslash is not a quote
	}
}

// shortKeyEnd returns the offset past the string at i when its closing
// quote is among its first eight bytes and no backslash comes before it,
// and -1 otherwise. It is small enough to be inlined, so that the short
// names of the objects a decoder walks cost no call.
func shortKeyEnd(data []byte, i int) int {
	if i+9 > len(data) {
		return -1
	}
	w := binary.LittleEndian.Uint64(data[i+1:])
	m := zeroBytes(w^('"'*ones)) | zeroBytes(w^('\\'*ones))
	j := i + 1 + bits.TrailingZeros64(m)>>3
	if m == 0 || data[j] != '"' {
		return -1
	}
	return j + 1
}

// Byte masks for the word-at-a-time scans: each byte of w compared at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7f7f7f7f7f7f7f7f
)

// zeroBytes returns w with 0x80 in its lowest zero byte, 0 when it has
// none. Bytes above the lowest zero byte may be flagged wrongly (a borrow
// carries up), so only the lowest set bit is to be read, as the scans do
// with bits.TrailingZeros64.
func zeroBytes(w uint64) uint64 { return (w - ones) &^ w & highs }

// Skip returns the offset just past the value that starts at or after
// offset i of data (whitespace before it is skipped). data must have passed
// [Check]; on malformed input Skip returns len(data) or less, never panics.
func Skip(data []byte, i int) int {
	return SkipValue(data, skipWS(data, i))
}

// SkipValue returns the offset just past the value that starts exactly at
// data[i] (no whitespace is skipped: at whitespace it returns i). data must
// have passed [Check].
func SkipValue(data []byte, i int) int {
	if i >= len(data) {
		return len(data)
	}
	switch data[i] {
	case '"':
		return SkipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			c := data[i]
			if !structural[c] {
				i++
				continue
			}
			switch c {
			case '"':
				i = stringEnd(data, i+1)
				continue
			case '{', '[':
				depth++
			default:
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

// WalkObject walks the object that starts at or after data[i] and returns
// the offset just past it. fn gets each member's unescaped name (valid
// during the call only) and the offset of its value; it returns the offset
// just past the value when it read the value itself, or -1 to have it
// skipped. Reading nested containers this way scans each byte once.
//
// When fn returns an error the walk stops and returns fn's offset and
// error; on input that did not pass [Check] it returns the offset where it
// stopped and an error.
func WalkObject(data []byte, i int, fn func(key []byte, vs int) (int, error)) (int, error) {
	return walkObject(data, i, false, fn)
}

// WalkObjectRaw is [WalkObject] with each name given as it is in the
// document, quotes and escapes included, for callers that copy names byte
// for byte.
func WalkObjectRaw(data []byte, i int, fn func(key []byte, vs int) (int, error)) (int, error) {
	return walkObject(data, i, true, fn)
}

func walkObject(data []byte, i int, raw bool, fn func(key []byte, vs int) (int, error)) (int, error) {
	i = skipWS(data, i)
	if i >= len(data) || data[i] != '{' {
		return i, errNotValid
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	var scratch []byte
	for i < len(data) {
		if data[i] != '"' {
			return i, errNotValid
		}
		end, plain := shortKeyEnd(data, i), true
		if end < 0 {
			end, plain = scanString(data, i+1)
		}
		var key []byte
		if raw {
			key = data[i:end]
		} else {
			key = data[i+1 : max(end-1, i+1)]
			if !plain {
				var err error
				if scratch, err = unquoteRaw(key, scratch[:0]); err != nil {
					return i, err
				}
				key = scratch
			}
		}
		i = skipWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return i, errNotValid
		}
		vs := skipWS(data, i+1)
		if vs >= len(data) {
			return vs, errNotValid
		}
		ve, err := fn(key, vs)
		if err != nil {
			return ve, err
		}
		if ve < 0 {
			ve = SkipValue(data, vs)
		}
		if ve <= vs {
			return vs, errNotValid
		}
		i = skipWS(data, ve)
		if i >= len(data) {
			return i, errNotValid
		}
		if data[i] == '}' {
			return i + 1, nil
		}
		if data[i] != ',' {
			return i, errNotValid
		}
		i = skipWS(data, i+1)
	}
	return i, errNotValid
}

// WalkArray is [WalkObject] for arrays: fn gets each element's index and
// offset.
func WalkArray(data []byte, i int, fn func(n, vs int) (int, error)) (int, error) {
	i = skipWS(data, i)
	if i >= len(data) || data[i] != '[' {
		return i, errNotValid
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for n := 0; i < len(data); n++ {
		ve, err := fn(n, i)
		if err != nil {
			return ve, err
		}
		if ve < 0 {
			ve = SkipValue(data, i)
		}
		if ve <= i {
			return i, errNotValid
		}
		i = skipWS(data, ve)
		if i >= len(data) {
			return i, errNotValid
		}
		if data[i] == ']' {
			return i + 1, nil
		}
		if data[i] != ',' {
			return i, errNotValid
		}
		i = skipWS(data, i+1)
	}
	return i, errNotValid
}

// Members calls fn for each member of the object obj, in document order,
// with the unescaped name and the raw value (without surrounding
// whitespace). key is only valid during the call. obj must have passed
// [Check]. An error from fn stops the walk and is returned.
func Members(obj []byte, fn func(key, value []byte) error) error {
	_, err := walkObject(obj, 0, false, func(key []byte, vs int) (int, error) {
		ve := SkipValue(obj, vs)
		return ve, fn(key, obj[vs:ve])
	})
	return err
}

// Elements calls fn for each element of the array arr with its index and
// raw value. arr must have passed [Check].
func Elements(arr []byte, fn func(i int, value []byte) error) error {
	_, err := WalkArray(arr, 0, func(n, vs int) (int, error) {
		ve := SkipValue(arr, vs)
		return ve, fn(n, arr[vs:ve])
	})
	return err
}
