// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

// This file keeps the first checker, which tracked the path in a stack of
// frames and the offset in a field, as the oracle the faster Check is
// fuzzed against: same verdict, sentinel, offset, pointer and detail on
// every input.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// refCheck is the first Check.
func refCheck(data []byte, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	maxBytes := o.MaxBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxBytes > 0 && len(data) > maxBytes {
		return &Error{Err: ErrTooLarge, Offset: int64(maxBytes), Detail: fmt.Sprintf("%d bytes, limit %d", len(data), maxBytes)}
	}
	c := &refChecker{data: data, maxDepth: o.MaxDepth, dupes: !o.AllowDuplicateNames}
	if c.maxDepth == 0 {
		c.maxDepth = DefaultMaxDepth
	}
	c.skipSpace()
	if c.i >= len(data) {
		return c.fail(ErrSyntax, "empty document")
	}
	if err := c.value(); err != nil {
		return err
	}
	c.skipSpace()
	if c.i < len(data) {
		return c.fail(ErrSyntax, "data after the top-level value")
	}
	return nil
}

// refFrame is one open container on the checker's path.
type refFrame struct {
	keyStart, keyEnd int // raw key bytes (between quotes) when in an object
	index            int // element index when in an array; -1 in an object
	keysFrom         int // where this object's keys start in checker.keys
	// seen replaces the linear scan of keys once an object is large, so
	// that a hostile object with many names stays linear.
	seen map[string]struct{}
}

type refChecker struct {
	data     []byte
	i        int
	maxDepth int
	dupes    bool
	stack    []refFrame
	keys     []keyRange // keys of every open object, stacked
	scratch  []byte
	scratch2 []byte
}

func (c *refChecker) fail(err error, detail string) *Error {
	return &Error{Err: err, Offset: int64(c.i), Pointer: c.pointer(), Detail: detail}
}

func (c *refChecker) pointer() string {
	var b strings.Builder
	for _, f := range c.stack {
		if f.index < 0 && f.keyEnd < f.keyStart {
			continue // in an object, before its first name
		}
		b.WriteByte('/')
		if f.index >= 0 {
			b.WriteString(strconv.Itoa(f.index))
			continue
		}
		k, err := unquoteRaw(c.data[f.keyStart:f.keyEnd], nil)
		if err != nil {
			k = c.data[f.keyStart:f.keyEnd]
		}
		b.WriteString(EscapePointer(string(k)))
	}
	return b.String()
}

func (c *refChecker) skipSpace() {
	for c.i < len(c.data) {
		switch c.data[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *refChecker) value() error {
	if c.i >= len(c.data) {
		return c.fail(ErrSyntax, "unexpected end of input")
	}
	switch ch := c.data[c.i]; {
	case ch == '{':
		return c.object()
	case ch == '[':
		return c.array()
	case ch == '"':
		_, err := c.str()
		return err
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return c.number()
	default:
		return c.fail(ErrSyntax, fmt.Sprintf("invalid character %s looking for a value", quoteChar(ch)))
	}
}

func (c *refChecker) literal(lit string) error {
	if len(c.data)-c.i < len(lit) || string(c.data[c.i:c.i+len(lit)]) != lit {
		return c.fail(ErrSyntax, "invalid literal")
	}
	c.i += len(lit)
	return nil
}

func (c *refChecker) number() error {
	d := c.data
	i := c.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		c.i = i
		return c.fail(ErrSyntax, "invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			c.i = i
			return c.fail(ErrSyntax, "invalid number: no digit after the decimal point")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			c.i = i
			return c.fail(ErrSyntax, "invalid number: no digit in the exponent")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	c.i = i
	return nil
}

// str checks a string starting at c.i (the opening quote) and returns
// whether it held an escape.
func (c *refChecker) str() (escaped bool, err error) {
	d := c.data
	i := c.i + 1
	for {
		// Fast path over plain ASCII, eight bytes a round.
		for i+8 <= len(d) && plain[d[i]] && plain[d[i+1]] && plain[d[i+2]] && plain[d[i+3]] &&
			plain[d[i+4]] && plain[d[i+5]] && plain[d[i+6]] && plain[d[i+7]] {
			i += 8
		}
		for i < len(d) && plain[d[i]] {
			i++
		}
		if i >= len(d) {
			c.i = i
			return escaped, c.fail(ErrSyntax, "unterminated string")
		}
		switch ch := d[i]; {
		case ch == '"':
			c.i = i + 1
			return escaped, nil
		case ch == '\\':
			escaped = true
			if i+1 >= len(d) {
				c.i = i
				return escaped, c.fail(ErrSyntax, "unterminated string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex4(d[i+2:i+6]) {
					c.i = i
					return escaped, c.fail(ErrSyntax, "invalid \\u escape")
				}
				r := hex4(d[i+2 : i+6])
				i += 6
				if r >= 0xD800 && r < 0xDC00 {
					// A high surrogate must be followed by a low one.
					if i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' && isHex4(d[i+2:i+6]) {
						r2 := hex4(d[i+2 : i+6])
						if r2 >= 0xDC00 && r2 < 0xE000 {
							i += 6
							continue
						}
					}
					c.i = i - 6
					return escaped, c.fail(ErrInvalidUTF8, "unpaired surrogate escape")
				}
				if r >= 0xDC00 && r < 0xE000 {
					c.i = i - 6
					return escaped, c.fail(ErrInvalidUTF8, "unpaired surrogate escape")
				}
			default:
				c.i = i
				return escaped, c.fail(ErrSyntax, "invalid escape")
			}
		case ch < 0x20:
			c.i = i
			return escaped, c.fail(ErrSyntax, "control character in string")
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				c.i = i
				return escaped, c.fail(ErrInvalidUTF8, "")
			}
			i += size
		}
	}
}

func (c *refChecker) push(f refFrame) error {
	if c.maxDepth > 0 && len(c.stack) >= c.maxDepth {
		return c.fail(ErrTooDeep, fmt.Sprintf("limit %d", c.maxDepth))
	}
	c.stack = append(c.stack, f)
	return nil
}

func (c *refChecker) object() error {
	if err := c.push(refFrame{keyStart: 0, keyEnd: -1, index: -1, keysFrom: len(c.keys)}); err != nil {
		return err
	}
	top := len(c.stack) - 1
	c.i++ // '{'
	c.skipSpace()
	if c.i < len(c.data) && c.data[c.i] == '}' {
		c.i++
		c.stack = c.stack[:top]
		return nil
	}
	for {
		if c.i >= len(c.data) || c.data[c.i] != '"' {
			return c.fail(ErrSyntax, "expected a string for an object name")
		}
		start := c.i
		escaped, err := c.str()
		if err != nil {
			return err
		}
		kr := keyRange{start + 1, c.i - 1, escaped}
		c.stack[top].keyStart, c.stack[top].keyEnd = kr.start, kr.end
		if c.dupes {
			if err := c.checkDuplicate(top, kr, escaped, start); err != nil {
				return err
			}
		}
		c.skipSpace()
		if c.i >= len(c.data) || c.data[c.i] != ':' {
			return c.fail(ErrSyntax, "expected ':' after an object name")
		}
		c.i++
		c.skipSpace()
		if err := c.value(); err != nil {
			return err
		}
		c.skipSpace()
		if c.i >= len(c.data) {
			return c.fail(ErrSyntax, "unterminated object")
		}
		switch c.data[c.i] {
		case ',':
			c.i++
			c.skipSpace()
		case '}':
			c.i++
			c.keys = c.keys[:c.stack[top].keysFrom]
			c.stack = c.stack[:top]
			return nil
		default:
			return c.fail(ErrSyntax, fmt.Sprintf("invalid character %s after an object member", quoteChar(c.data[c.i])))
		}
	}
}

func (c *refChecker) checkDuplicate(top int, kr keyRange, escaped bool, start int) error {
	key := c.data[kr.start:kr.end]
	if escaped {
		var err error
		c.scratch, err = unquoteRaw(key, c.scratch[:0])
		if err != nil {
			return nil // already reported by str
		}
		key = c.scratch
	}
	f := &c.stack[top]
	if f.seen != nil {
		if _, ok := f.seen[string(key)]; ok {
			c.i = start
			return c.fail(ErrDuplicateName, strconv.Quote(string(key)))
		}
		f.seen[string(key)] = struct{}{}
		return nil
	}
	if len(c.keys)-f.keysFrom >= linearKeys {
		f.seen = make(map[string]struct{}, 2*linearKeys)
		for _, prev := range c.keys[f.keysFrom:] {
			p, _ := unquoteRaw(c.data[prev.start:prev.end], nil)
			f.seen[string(p)] = struct{}{}
		}
		c.keys = c.keys[:f.keysFrom]
		return c.checkDuplicate(top, kr, escaped, start)
	}
	for _, prev := range c.keys[f.keysFrom:] {
		p := c.data[prev.start:prev.end]
		if len(p) != len(key) && !prev.escaped && !escaped {
			continue
		}
		if prev.escaped {
			c.scratch2, _ = unquoteRaw(p, c.scratch2[:0])
			p = c.scratch2
		}
		if string(p) == string(key) {
			c.i = start
			return c.fail(ErrDuplicateName, strconv.Quote(string(key)))
		}
	}
	c.keys = append(c.keys, kr)
	return nil
}

func (c *refChecker) array() error {
	if err := c.push(refFrame{index: 0}); err != nil {
		return err
	}
	top := len(c.stack) - 1
	c.i++ // '['
	c.skipSpace()
	if c.i < len(c.data) && c.data[c.i] == ']' {
		c.i++
		c.stack = c.stack[:top]
		return nil
	}
	for {
		if err := c.value(); err != nil {
			return err
		}
		c.skipSpace()
		if c.i >= len(c.data) {
			return c.fail(ErrSyntax, "unterminated array")
		}
		switch c.data[c.i] {
		case ',':
			c.i++
			c.stack[top].index++
			c.skipSpace()
		case ']':
			c.i++
			c.stack = c.stack[:top]
			return nil
		default:
			return c.fail(ErrSyntax, fmt.Sprintf("invalid character %s after an array element", quoteChar(c.data[c.i])))
		}
	}
}

// FuzzCheckReference checks Check against the first checker (refCheck) on
// every input and under every option: the same verdict, and for a
// rejected document the same sentinel, offset, pointer and detail.
func FuzzCheckReference(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `{"a":1,"a":2}`, "\"\xff\"",
		`[1e5,-0.5,true]`, `{"\u0061":1,"a":2}`, `{"a/b":{"c~d":[0,{"e":1,"e":1}]}}`, `{"a" 1}`, `[1,]`, `{"a":1,}`,
		`{"x":[{"k":1},{"k":1,"k":2}]}`, "{\"\xc3\":1}", `"\udc00\ud800"`, `{"a":"b`, `[[[[[[`, `{"k\"":{"\u00e9":[0,1,[2,{"x":tru}]]}}`,
		"\"abcdefgh\x01\"", "\"abcdefghij\u00e9klmnopq\xe9\"", `{"a":{}} x`, `01`, `-`, `1.e`, `  `} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		var opts *Options
		switch mode % 4 {
		case 1:
			opts = &Options{MaxDepth: 3}
		case 2:
			opts = &Options{AllowDuplicateNames: true, MaxDepth: -1}
		case 3:
			opts = &Options{MaxBytes: 64}
		}
		got, want := Check(data, opts), refCheck(data, opts)
		if diff := errorDiff(want, got); diff != "" {
			t.Fatalf("Check(%q) error differs (-reference +new):\n%s", data, diff)
		}
	})
}

// TestCheckReference runs the reference comparison over documents that
// stress the paths of the error pointer: every prefix of a nested
// document, each with one byte changed.
func TestCheckReference(t *testing.T) {
	doc := `{"tools":[{"type":"function","function":{"name":"a.b","parameters":{"type":"object","properties":{"x~/y":{"type":"string","enum":["\u00e9","\ud83d\ude00"]},"n":{"type":"number","minimum":-1.5e3}},"required":["x~/y"]}}}]}`
	for n := 0; n <= len(doc); n++ {
		for _, b := range []byte{'"', '}', ']', ',', ':', 'x', 0x01, 0xff} {
			data := []byte(doc[:n])
			if n < len(doc) {
				data = append(data, b)
				data = append(data, doc[n+1:]...)
			}
			got, want := Check(data, nil), refCheck(data, nil)
			if diff := errorDiff(want, got); diff != "" {
				t.Fatalf("Check(%q) error differs (-reference +new):\n%s", data, diff)
			}
		}
	}
}

// errorDiff compares two results of Check field by field, the sentinel
// by identity.
func errorDiff(want, got error) string {
	type fields struct {
		Err             string
		Offset          int64
		Pointer, Detail string
	}
	flat := func(err error) *fields {
		e, ok := errors.AsType[*Error](err)
		if !ok {
			return nil
		}
		return &fields{e.Err.Error(), e.Offset, e.Pointer, e.Detail}
	}
	if (want == nil) != (got == nil) {
		return fmt.Sprintf("-%v\n+%v", want, got)
	}
	return cmp.Diff(flat(want), flat(got))
}
