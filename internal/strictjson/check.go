// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The conditions a caller may branch on; [*Error] wraps one of them.
var (
	ErrSyntax        = errors.New("strictjson: syntax error")
	ErrDuplicateName = errors.New("strictjson: duplicate name")
	ErrInvalidUTF8   = errors.New("strictjson: invalid UTF-8")
	ErrTooDeep       = errors.New("strictjson: nesting too deep")
	ErrTooLarge      = errors.New("strictjson: document too large")
)

// Default limits, used when the [Options] field is zero.
const (
	DefaultMaxBytes = 16 << 20
	DefaultMaxDepth = 256
)

// Options sets the limits of [Check]. A nil *Options uses the defaults.
type Options struct {
	// MaxBytes is the largest document accepted. If zero, DefaultMaxBytes;
	// a negative value turns the limit off.
	MaxBytes int
	// MaxDepth is the deepest nesting of objects and arrays accepted. If
	// zero, DefaultMaxDepth; a negative value turns the limit off.
	MaxDepth int
	// AllowDuplicateNames turns off the duplicate-name check.
	AllowDuplicateNames bool
}

// Error is a problem found in a document.
type Error struct {
	// Err is one of the sentinel errors of this package.
	Err error
	// Offset is the byte offset at which the problem was found.
	Offset int64
	// Pointer is the JSON Pointer (RFC 6901) of the value being read.
	Pointer string
	// Detail says more, for people; it never holds document content other
	// than an object name.
	Detail string
}

// maxShownPointer is the longest pointer Error prints whole.
const maxShownPointer = 120

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	b.WriteString(" at ")
	switch p := e.Pointer; {
	case p == "":
		b.WriteString("document root")
	case len(p) > maxShownPointer:
		// A pointer 256 levels deep says nothing a person can read; keep
		// its ends. The Pointer field keeps it whole.
		b.WriteString(p[:maxShownPointer/2])
		b.WriteString("/…")
		b.WriteString(p[len(p)-maxShownPointer/2:])
	default:
		b.WriteString(p)
	}
	b.WriteString(" (offset ")
	b.WriteString(strconv.FormatInt(e.Offset, 10))
	b.WriteByte(')')
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// LineCol returns the 1-based line and column (in bytes) of offset in data.
func LineCol(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	line, col = 1, 1
	for _, c := range data[:offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// plain marks the bytes a string may hold without a closer look: printable
// ASCII other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// frame is one open container on the checker's path.
type frame struct {
	keyStart, keyEnd int // raw key bytes (between quotes) when in an object
	index            int // element index when in an array; -1 in an object
	keysFrom         int // where this object's keys start in checker.keys
	// seen replaces the linear scan of keys once an object is large, so
	// that a hostile object with many names stays linear.
	seen map[string]struct{}
}

// linearKeys is how many names an object may hold before duplicates are
// found with a map rather than by comparing with each earlier name.
const linearKeys = 16

type keyRange struct {
	start, end int
	escaped    bool // the raw key holds a backslash
}

type checker struct {
	data     []byte
	i        int
	maxDepth int
	dupes    bool
	stack    []frame
	keys     []keyRange // keys of every open object, stacked
	scratch  []byte
	scratch2 []byte
}

// Check reports whether data is exactly one strict JSON value, optionally
// surrounded by whitespace.
func Check(data []byte, opts *Options) error {
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
	c := checkers.Get().(*checker)
	defer c.release()
	c.data, c.i, c.maxDepth, c.dupes = data, 0, o.MaxDepth, !o.AllowDuplicateNames
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

// checkers recycles the checker's stacks, so that checking a small document
// (a tool call's arguments) allocates nothing.
var checkers = sync.Pool{New: func() any {
	return &checker{stack: make([]frame, 0, 16), keys: make([]keyRange, 0, 64)}
}}

// release returns c to the pool, unless a hostile document grew its
// stacks so far that keeping them would pin the memory.
func (c *checker) release() {
	if cap(c.stack) > 1024 || cap(c.keys) > 4096 {
		return
	}
	clear(c.stack[:cap(c.stack)]) // drop the maps of large objects
	c.data, c.stack, c.keys = nil, c.stack[:0], c.keys[:0]
	c.scratch, c.scratch2 = c.scratch[:0], c.scratch2[:0]
	checkers.Put(c)
}

func (c *checker) fail(err error, detail string) *Error {
	return &Error{Err: err, Offset: int64(c.i), Pointer: c.pointer(), Detail: detail}
}

func (c *checker) pointer() string {
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

// EscapePointer escapes one JSON Pointer reference token (RFC 6901).
func EscapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	var b strings.Builder
	b.Grow(len(tok) + 4)
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(tok[i])
		}
	}
	return b.String()
}

func (c *checker) skipSpace() {
	for c.i < len(c.data) {
		switch c.data[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *checker) value() error {
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

func quoteChar(ch byte) string {
	if ch < 0x20 || ch >= 0x7f {
		return fmt.Sprintf("0x%02x", ch)
	}
	return strconv.QuoteRune(rune(ch))
}

func (c *checker) literal(lit string) error {
	if len(c.data)-c.i < len(lit) || string(c.data[c.i:c.i+len(lit)]) != lit {
		return c.fail(ErrSyntax, "invalid literal")
	}
	c.i += len(lit)
	return nil
}

func (c *checker) number() error {
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
func (c *checker) str() (escaped bool, err error) {
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

func isHex4(b []byte) bool {
	for _, ch := range b[:4] {
		if !isHex(ch) {
			return false
		}
	}
	return true
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

func hex4(b []byte) rune {
	var r rune
	for _, ch := range b[:4] {
		r <<= 4
		switch {
		case ch >= '0' && ch <= '9':
			r |= rune(ch - '0')
		case ch >= 'a' && ch <= 'f':
			r |= rune(ch - 'a' + 10)
		default:
			r |= rune(ch - 'A' + 10)
		}
	}
	return r
}

func (c *checker) push(f frame) error {
	if c.maxDepth > 0 && len(c.stack) >= c.maxDepth {
		return c.fail(ErrTooDeep, fmt.Sprintf("limit %d", c.maxDepth))
	}
	c.stack = append(c.stack, f)
	return nil
}

func (c *checker) object() error {
	if err := c.push(frame{keyStart: 0, keyEnd: -1, index: -1, keysFrom: len(c.keys)}); err != nil {
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

func (c *checker) checkDuplicate(top int, kr keyRange, escaped bool, start int) error {
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

func hasBackslash(b []byte) bool {
	for _, ch := range b {
		if ch == '\\' {
			return true
		}
	}
	return false
}

func (c *checker) array() error {
	if err := c.push(frame{index: 0}); err != nil {
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
