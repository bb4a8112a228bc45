// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// JSON returns v with every secret masked at every depth, keeping member
// order and formatting outside the changed values:
//
//   - a member whose name is a secret name (see [Config.Keys]) has its value,
//     whatever its type, replaced by the string "[REDACTED]" (null and
//     booleans are kept: they carry no secret);
//   - strings, including member names, are masked as by [Redactor.String];
//   - integers that are card numbers become the string "[REDACTED:card-number]".
//
// The result is always valid JSON. When v is not valid JSON it is treated as
// text: the result is a JSON string holding the redacted text. When nothing
// needs masking, v itself is returned without allocating.
func (r *Redactor) JSON(v json.RawMessage) json.RawMessage {
	if !json.Valid(v) {
		return appendQuote(nil, r.String(strings.ToValidUTF8(string(v), "\uFFFD")))
	}
	if !r.jsonNeeds(v) {
		return v
	}
	out := make([]byte, 0, len(v)+32)
	out, _ = r.rewrite(out, v, 0)
	return out
}

// CheckedJSON is [Redactor.JSON] for v that the caller has already
// checked is valid JSON (with package strictjson, say): it skips the
// validity check when nothing needs masking. Given invalid JSON it does
// not panic, but may return it unchanged.
func (r *Redactor) CheckedJSON(v json.RawMessage) json.RawMessage {
	if !r.jsonNeeds(v) {
		return v
	}
	return r.JSON(v)
}

// ContainsJSON reports whether [Redactor.JSON] would change valid JSON v.
func (r *Redactor) ContainsJSON(v json.RawMessage) bool {
	return r.jsonNeeds(v)
}

// jsonNeeds walks valid JSON and reports whether any value needs masking.
// It allocates only to unescape strings that contain backslashes.
func (r *Redactor) jsonNeeds(v []byte) bool {
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c == '"':
			end := stringEnd(v, i)
			s := v[i+1 : max(end-1, i+1)] // an unterminated string in invalid input
			j := skipWS(v, end)
			isKey := j < len(v) && v[j] == ':'
			if r.stringNeeds(s) {
				return true
			}
			if isKey && !r.disableKeys {
				name := unsafeString(s)
				if hasBackslash(s) {
					name = unescapeBytes(s)
				}
				if r.secretKey(name) {
					vs := skipWS(v, j+1)
					if vs >= len(v) {
						return true
					}
					if k := v[vs]; k != 'n' && k != 't' && k != 'f' {
						return true
					}
				}
			}
			i = end
		case c == '-' || isDigit(c):
			e := i
			for e < len(v) && (isDigit(v[e]) || v[e] == '-' || v[e] == '+' || v[e] == '.' || v[e] == 'e' || v[e] == 'E') {
				e++
			}
			if !r.disableCards && cardNumber(v[i:e]) {
				return true
			}
			i = e
		default:
			i++
		}
	}
	return false
}

func (r *Redactor) stringNeeds(s []byte) bool {
	if len(s) < 8 {
		return false
	}
	if !hasBackslash(s) {
		return len(r.find(unsafeString(s), nil)) > 0
	}
	return len(r.find(unescapeBytes(s), nil)) > 0
}

// rewrite appends the redacted form of the valid JSON value starting at
// v[i] to out and returns the index after it.
func (r *Redactor) rewrite(out, v []byte, i int) ([]byte, int) {
	i = copyWS(&out, v, i)
	if i >= len(v) {
		return out, i
	}
	switch c := v[i]; {
	case c == '{':
		out = append(out, '{')
		i++
		for {
			i = copyWS(&out, v, i)
			if v[i] == '}' {
				return append(out, '}'), i + 1
			}
			end := stringEnd(v, i)
			name := unescapeBytes(v[i+1 : end-1]) // copied: out may not alias v
			out = r.appendString(out, v[i:end])
			i = copyWS(&out, v, end)
			out = append(out, ':') // v[i] == ':'
			i = copyWS(&out, v, i+1)
			if !r.disableKeys && r.secretKey(name) && v[i] != 'n' && v[i] != 't' && v[i] != 'f' {
				out = append(out, `"`+maskKey+`"`...)
				i = skipValue(v, i)
			} else {
				out, i = r.rewrite(out, v, i)
			}
			i = copyWS(&out, v, i)
			if v[i] == ',' {
				out = append(out, ',')
				i++
				continue
			}
			return append(out, '}'), i + 1
		}
	case c == '[':
		out = append(out, '[')
		i++
		for {
			i = copyWS(&out, v, i)
			if v[i] == ']' {
				return append(out, ']'), i + 1
			}
			out, i = r.rewrite(out, v, i)
			i = copyWS(&out, v, i)
			if v[i] == ',' {
				out = append(out, ',')
				i++
				continue
			}
			return append(out, ']'), i + 1
		}
	case c == '"':
		end := stringEnd(v, i)
		return r.appendString(out, v[i:end]), end
	default:
		end := skipValue(v, i)
		if !r.disableCards && cardNumber(v[i:end]) {
			return append(out, `"`+maskCard+`"`...), end
		}
		return append(out, v[i:end]...), end
	}
}

// appendString appends the quoted JSON string q, redacted; unchanged
// strings keep their original escaping.
func (r *Redactor) appendString(out, q []byte) []byte {
	body := q[1 : len(q)-1]
	if len(body) < 8 {
		return append(out, q...)
	}
	s := unsafeString(body)
	if hasBackslash(body) {
		s = unescapeBytes(body)
	}
	spans := r.find(s, nil)
	if len(spans) == 0 {
		return append(out, q...)
	}
	return appendQuote(out, apply(s, spans))
}

// cardNumber reports whether the JSON number n is a card number.
func cardNumber(n []byte) bool {
	if len(n) < 13 || len(n) > 19 {
		return false
	}
	for _, c := range n {
		if !isDigit(c) {
			return false
		}
	}
	return knownIssuer(n) && luhn(n)
}

func skipWS(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

func copyWS(out *[]byte, v []byte, i int) int {
	j := skipWS(v, i)
	*out = append(*out, v[i:j]...)
	return j
}

// stringEnd returns the index after the closing quote of the string that
// starts at v[i].
func stringEnd(v []byte, i int) int {
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(v)
}

// skipValue returns the index after the valid JSON value at v[i].
func skipValue(v []byte, i int) int {
	depth := 0
	for j := i; j < len(v); j++ {
		switch v[j] {
		case '"':
			j = stringEnd(v, j) - 1
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
			if depth < 0 {
				return j
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j
			}
		}
	}
	return len(v)
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// unsafeString views b as a string without copying; the string must not
// outlive b or escape the call.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// unescapeBytes returns the value of a valid JSON string body.
func unescapeBytes(b []byte) string {
	if !hasBackslash(b) {
		return string(b)
	}
	dst := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			dst = append(dst, c)
			i++
			continue
		}
		switch b[i+1] {
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
			if i+6 > len(b) {
				return string(dst)
			}
			r := hex4(b[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) && i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
				if d := utf16.DecodeRune(r, hex4(b[i+2:i+6])); d != utf8.RuneError {
					r = d
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			dst = append(dst, b[i+1])
		}
		i += 2
	}
	return string(dst)
}

func hex4(b []byte) rune {
	n, err := strconv.ParseUint(string(b), 16, 32)
	if err != nil {
		return utf8.RuneError
	}
	return rune(n)
}

// appendQuote appends s as a JSON string, replacing invalid UTF-8.
func appendQuote(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
