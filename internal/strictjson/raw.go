// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"encoding/json"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of a JSON value, told by its first byte.
type Kind byte

// The kinds of JSON value. Invalid is returned for empty or malformed input.
const (
	Invalid Kind = 0
	Object  Kind = '{'
	Array   Kind = '['
	String  Kind = '"'
	Number  Kind = '0'
	Bool    Kind = 't'
	Null    Kind = 'n'
)

func (k Kind) String() string {
	switch k {
	case Object:
		return "object"
	case Array:
		return "array"
	case String:
		return "string"
	case Number:
		return "number"
	case Bool:
		return "boolean"
	case Null:
		return "null"
	}
	return "invalid"
}

// KindOf returns the kind of the value v, skipping leading whitespace.
func KindOf(v []byte) Kind {
	for _, ch := range v {
		switch ch {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[', '"':
			return Kind(ch)
		case 't', 'f':
			return Bool
		case 'n':
			return Null
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return Number
		}
		return Invalid
	}
	return Invalid
}

// errNotValid is returned by the readers when their input was not checked.
var errNotValid = errors.New("strictjson: value was not checked or is not of the expected kind")

// Get returns the raw value of the member named key in obj, or nil.
func Get(obj []byte, key string) []byte {
	var out []byte
	_ = Members(obj, func(k, v []byte) error {
		if string(k) == key {
			out = v
			return errStop
		}
		return nil
	})
	return out
}

var errStop = errors.New("stop")

// Unquote returns the string value of the JSON string s.
func Unquote(s []byte) (string, error) {
	s = trimWS(s)
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", errNotValid
	}
	body := s[1 : len(s)-1]
	if !hasBackslash(body) {
		return string(body), nil
	}
	b, err := unquoteRaw(body, nil)
	return string(b), err
}

// AppendUnquote appends the value of the JSON string s (quotes included)
// to dst: [Unquote] for a reader that gathers many strings in one buffer.
func AppendUnquote(dst, s []byte) ([]byte, error) {
	s = trimWS(s)
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return dst, errNotValid
	}
	body := s[1 : len(s)-1]
	if !hasBackslash(body) {
		return append(dst, body...), nil
	}
	return unquoteRaw(body, dst)
}

func trimWS(s []byte) []byte {
	i := skipWS(s, 0)
	j := len(s)
	for j > i {
		switch s[j-1] {
		case ' ', '\t', '\n', '\r':
			j--
			continue
		}
		break
	}
	return s[i:j]
}

// unquoteRaw appends the unescaped form of the string body b (without
// quotes) to dst.
func unquoteRaw(b, dst []byte) ([]byte, error) {
	for i := 0; i < len(b); {
		ch := b[i]
		if ch != '\\' {
			dst = append(dst, ch)
			i++
			continue
		}
		if i+1 >= len(b) {
			return dst, errNotValid
		}
		switch b[i+1] {
		case '"', '\\', '/':
			dst = append(dst, b[i+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
				return dst, errNotValid
			}
			r := hex4(b[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' && isHex4(b[i+2:i+6]) {
					if dec := utf16.DecodeRune(r, hex4(b[i+2:i+6])); dec != utf8.RuneError {
						i += 6
						dst = utf8.AppendRune(dst, dec)
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return dst, errNotValid
		}
		i += 2
	}
	return dst, nil
}

// AppendQuote appends s to dst as a JSON string. It does not escape HTML
// characters, so text round-trips byte for byte; invalid UTF-8 becomes
// U+FFFD.
func AppendQuote(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes a step while none needs a closer look: names and
		// descriptions are mostly plain ASCII.
		for i+8 <= len(s) && stopBytes(load8(s[i:])) == 0 {
			i += 8
		}
		if i >= len(s) {
			break
		}
		ch := s[i]
		if ch < utf8.RuneSelf {
			if ch >= 0x20 && ch != '"' && ch != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch ch {
			case '"', '\\':
				dst = append(dst, '\\', ch)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[ch>>4], hexDigits[ch&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript embedding.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Unmarshal checks data with [Check] and then decodes it into v with
// encoding/json. Use it for trusted shapes (config, canonical files) where a
// Go struct is the natural target; keep untrusted sub-values as
// json.RawMessage.
func Unmarshal(data []byte, v any, opts *Options) error {
	if err := Check(data, opts); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// load8 reads the first eight bytes of s as a little-endian word; the
// compiler makes it one load.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// WithMember returns a copy of the object obj, which passed [Check], with
// the member key: val appended after its own. It does not check that key
// is new; callers add names the object cannot hold.
func WithMember(obj []byte, key string, val []byte) []byte {
	out := make([]byte, 0, len(obj)+len(key)+len(val)+4)
	out = append(out, '{')
	n := 0
	Members(obj, func(k, v []byte) error {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = AppendQuote(out, string(k))
		out = append(out, ':')
		out = append(out, v...)
		return nil
	})
	if n > 0 {
		out = append(out, ',')
	}
	out = AppendQuote(out, key)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, '}')
}
