// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
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

// linearKeys is how many names an object may hold before duplicates are
// found with a map rather than by comparing with each earlier name, so
// that a hostile object with many names stays linear.
const linearKeys = 16

type keyRange struct {
	start, end int
	escaped    bool // the raw key holds a backslash
}

// The checker reads with the offset in a local variable, passed in and
// returned by each method, and keeps no stack of frames: the JSON Pointer
// of a problem is gathered only when there is one, as the error returns
// through the containers around it (each adds its name or index to path).
type checker struct {
	data     []byte
	maxDepth int
	depth    int
	dupes    bool
	ends     *Ends       // where to record containers' ends, or nil
	keys     []keyRange  // names of every open object, stacked
	path     []pathToken // on failure: the containers left, innermost first
	scratch  []byte
	scratch2 []byte
}

// pathToken is one reference token of a failure's pointer: an object
// member's raw name (between quotes), or an array index when index >= 0.
type pathToken struct {
	keyStart, keyEnd int
	index            int
}

// Check reports whether data is exactly one strict JSON value, optionally
// surrounded by whitespace.
func Check(data []byte, opts *Options) error {
	return check(data, opts, nil)
}

// check is Check, recording the ends of containers in ends when it is not
// nil.
func check(data []byte, opts *Options, ends *Ends) error {
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
	c.data, c.depth, c.maxDepth, c.dupes, c.ends = data, 0, o.MaxDepth, !o.AllowDuplicateNames, ends
	if c.maxDepth == 0 {
		c.maxDepth = DefaultMaxDepth
	}
	i := skipWS(data, 0)
	if i >= len(data) {
		return c.fail(i, ErrSyntax, "empty document")
	}
	i, e := c.value(i)
	if e != nil {
		e.Pointer = c.pointer()
		return e
	}
	if i = skipWS(data, i); i < len(data) {
		return c.fail(i, ErrSyntax, "data after the top-level value")
	}
	return nil
}

// checkers recycles the checker's stacks, so that checking a small document
// (a tool call's arguments) allocates nothing.
var checkers = sync.Pool{New: func() any {
	return &checker{keys: make([]keyRange, 0, 64)}
}}

// release returns c to the pool, unless a hostile document grew its
// stacks so far that keeping them would pin the memory.
func (c *checker) release() {
	if cap(c.keys) > 4096 || cap(c.path) > 1024 {
		return
	}
	c.data, c.keys, c.path, c.ends = nil, c.keys[:0], c.path[:0], nil
	c.scratch, c.scratch2 = c.scratch[:0], c.scratch2[:0]
	checkers.Put(c)
}

// fail returns the error for a problem at offset i; its Pointer is filled
// in by Check from c.path.
func (c *checker) fail(i int, err error, detail string) *Error {
	return &Error{Err: err, Offset: int64(i), Detail: detail}
}

// inMember records, for an error leaving an object, the member being read
// (none before the first name), and returns e.
func (c *checker) inMember(e *Error, keyStart, keyEnd int) *Error {
	if keyEnd >= keyStart {
		c.path = append(c.path, pathToken{keyStart: keyStart, keyEnd: keyEnd, index: -1})
	}
	return e
}

// inElement records, for an error leaving an array, the element being
// read, and returns e.
func (c *checker) inElement(e *Error, n int) *Error {
	c.path = append(c.path, pathToken{index: n})
	return e
}

// pointer renders c.path, outermost container first.
func (c *checker) pointer() string {
	var b strings.Builder
	for k := len(c.path) - 1; k >= 0; k-- {
		t := c.path[k]
		b.WriteByte('/')
		if t.index >= 0 {
			b.WriteString(strconv.Itoa(t.index))
			continue
		}
		key, err := unquoteRaw(c.data[t.keyStart:t.keyEnd], nil)
		if err != nil {
			key = c.data[t.keyStart:t.keyEnd]
		}
		b.WriteString(EscapePointer(string(key)))
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

func (c *checker) value(i int) (int, *Error) {
	d := c.data
	if i >= len(d) {
		return i, c.fail(i, ErrSyntax, "unexpected end of input")
	}
	switch ch := d[i]; {
	case ch == '"':
		i, _, e := c.str(i)
		return i, e
	case ch == '{':
		return c.object(i)
	case ch == '[':
		return c.array(i)
	case ch == 't':
		return c.literal(i, "true")
	case ch == 'f':
		return c.literal(i, "false")
	case ch == 'n':
		return c.literal(i, "null")
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return c.number(i)
	default:
		return i, c.fail(i, ErrSyntax, fmt.Sprintf("invalid character %s looking for a value", quoteChar(ch)))
	}
}

func quoteChar(ch byte) string {
	if ch < 0x20 || ch >= 0x7f {
		return fmt.Sprintf("0x%02x", ch)
	}
	return strconv.QuoteRune(rune(ch))
}

func (c *checker) literal(i int, lit string) (int, *Error) {
	if len(c.data)-i < len(lit) || string(c.data[i:i+len(lit)]) != lit {
		return i, c.fail(i, ErrSyntax, "invalid literal")
	}
	return i + len(lit), nil
}

func (c *checker) number(i int) (int, *Error) {
	d := c.data
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
		return i, c.fail(i, ErrSyntax, "invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return i, c.fail(i, ErrSyntax, "invalid number: no digit after the decimal point")
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
			return i, c.fail(i, ErrSyntax, "invalid number: no digit in the exponent")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	return i, nil
}

// stopBytes returns w with 0x80 in each byte that a string cannot hold
// without a closer look ('"', '\\', a control character, or the start of
// a multi-byte sequence), 0 in the others. It works on the low seven bits
// of each byte, t, where no sum carries into the next byte: t^'"' + 0x7f
// keeps its high bit clear only where t is '"' (likewise '\\'), and
// t + 0x60 only where t < 0x20; a byte with its own high bit set is a stop
// byte whatever its low bits say.
func stopBytes(w uint64) uint64 {
	t := w & lows
	keep := ((t ^ '"'*ones) + lows) & ((t ^ '\\'*ones) + lows) & (t + 0x60*ones)
	return (^keep | w) & highs
}

// plainEnd returns the offset of the first byte at or after j that
// [stopBytes] flags, looking eight bytes a step, or where fewer than eight
// bytes are left. It is small enough to be inlined: where it stops at a
// '"', the string read from j is plain and ends there; anything else is
// left to [checker.str].
func plainEnd(d []byte, j int) int {
	for j+8 <= len(d) {
		if m := stopBytes(binary.LittleEndian.Uint64(d[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
		j += 8
	}
	return j
}

// str checks the string whose opening quote is at i, and returns the
// offset past it and whether it held an escape.
func (c *checker) str(i int) (int, bool, *Error) {
	d := c.data
	escaped := false
	i++
	for {
		// Plain ASCII, eight bytes a step; the last few byte by byte.
		if i+8 <= len(d) {
			m := stopBytes(binary.LittleEndian.Uint64(d[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < len(d) && plain[d[i]] {
				i++
			}
			if i >= len(d) {
				return i, escaped, c.fail(i, ErrSyntax, "unterminated string")
			}
		}
		switch ch := d[i]; {
		case ch == '"':
			return i + 1, escaped, nil
		case ch == '\\':
			escaped = true
			if i+1 >= len(d) {
				return i, escaped, c.fail(i, ErrSyntax, "unterminated string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex4(d[i+2:i+6]) {
					return i, escaped, c.fail(i, ErrSyntax, "invalid \\u escape")
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
					return i - 6, escaped, c.fail(i-6, ErrInvalidUTF8, "unpaired surrogate escape")
				}
				if r >= 0xDC00 && r < 0xE000 {
					return i - 6, escaped, c.fail(i-6, ErrInvalidUTF8, "unpaired surrogate escape")
				}
			default:
				return i, escaped, c.fail(i, ErrSyntax, "invalid escape")
			}
		case ch < 0x20:
			return i, escaped, c.fail(i, ErrSyntax, "control character in string")
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, escaped, c.fail(i, ErrInvalidUTF8, "")
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

// enter counts one more level of nesting for the container at i, and
// returns the slot where its end is to be recorded, or -1.
func (c *checker) enter(i int) (int, *Error) {
	if c.maxDepth > 0 && c.depth >= c.maxDepth {
		return -1, c.fail(i, ErrTooDeep, fmt.Sprintf("limit %d", c.maxDepth))
	}
	c.depth++
	if c.ends == nil || c.depth > EndsDepth {
		return -1, nil
	}
	c.ends.spans = append(c.ends.spans, span{start: i})
	return len(c.ends.spans) - 1, nil
}

// leave closes the container whose last byte is at i, recording its end
// in slot when that is not -1, and returns the offset past it.
func (c *checker) leave(i, slot int) int {
	c.depth--
	if slot >= 0 {
		c.ends.spans[slot].end = i + 1
	}
	return i + 1
}

func (c *checker) object(i int) (int, *Error) {
	slot, e := c.enter(i)
	if e != nil {
		return i, e
	}
	d := c.data
	keysFrom := len(c.keys)
	var seen map[string]struct{} // the names, once there are many
	keyStart, keyEnd := 0, -1    // the member being read; none yet
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == '}' {
		return c.leave(i, slot), nil
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return i, c.inMember(c.fail(i, ErrSyntax, "expected a string for an object name"), keyStart, keyEnd)
		}
		start := i
		escaped := false
		if j := plainEnd(d, i+1); j < len(d) && d[j] == '"' {
			i = j + 1 // a plain name, the usual case
		} else if i, escaped, e = c.str(i); e != nil {
			return i, c.inMember(e, keyStart, keyEnd)
		}
		keyStart, keyEnd = start+1, i-1
		switch {
		case !c.dupes:
		case len(c.keys) == keysFrom && seen == nil:
			c.keys = append(c.keys, keyRange{keyStart, keyEnd, escaped}) // the first name
		default:
			if e := c.checkDuplicate(keysFrom, &seen, keyRange{keyStart, keyEnd, escaped}, start); e != nil {
				return start, c.inMember(e, keyStart, keyEnd)
			}
		}
		i = skipWS(d, i)
		if i >= len(d) || d[i] != ':' {
			return i, c.inMember(c.fail(i, ErrSyntax, "expected ':' after an object name"), keyStart, keyEnd)
		}
		if i = skipWS(d, i+1); i < len(d) && d[i] == '"' {
			// Most values of a schema are strings, and plain.
			if j := plainEnd(d, i+1); j < len(d) && d[j] == '"' {
				i = j + 1
			} else {
				i, _, e = c.str(i)
			}
		} else {
			i, e = c.value(i)
		}
		if e != nil {
			return i, c.inMember(e, keyStart, keyEnd)
		}
		i = skipWS(d, i)
		if i >= len(d) {
			return i, c.inMember(c.fail(i, ErrSyntax, "unterminated object"), keyStart, keyEnd)
		}
		switch d[i] {
		case ',':
			i = skipWS(d, i+1)
		case '}':
			c.keys = c.keys[:keysFrom]
			return c.leave(i, slot), nil
		default:
			return i, c.inMember(c.fail(i, ErrSyntax, fmt.Sprintf("invalid character %s after an object member", quoteChar(d[i]))), keyStart, keyEnd)
		}
	}
}

// checkDuplicate reports kr, the name starting at start, when the object
// whose names are c.keys[keysFrom:] (or *seen, once there are many)
// already has it, and records it otherwise.
func (c *checker) checkDuplicate(keysFrom int, seen *map[string]struct{}, kr keyRange, start int) *Error {
	key := c.data[kr.start:kr.end]
	if kr.escaped {
		var err error
		c.scratch, err = unquoteRaw(key, c.scratch[:0])
		if err != nil {
			return nil // already reported by str
		}
		key = c.scratch
	}
	if *seen != nil {
		if _, ok := (*seen)[string(key)]; ok {
			return c.fail(start, ErrDuplicateName, strconv.Quote(string(key)))
		}
		(*seen)[string(key)] = struct{}{}
		return nil
	}
	if len(c.keys)-keysFrom >= linearKeys {
		m := make(map[string]struct{}, 2*linearKeys)
		for _, prev := range c.keys[keysFrom:] {
			p := c.data[prev.start:prev.end]
			if prev.escaped {
				c.scratch2, _ = unquoteRaw(p, c.scratch2[:0])
				p = c.scratch2
			}
			m[string(p)] = struct{}{}
		}
		c.keys = c.keys[:keysFrom]
		*seen = m
		return c.checkDuplicate(keysFrom, seen, kr, start)
	}
	for _, prev := range c.keys[keysFrom:] {
		if !prev.escaped && !kr.escaped {
			// Raw names compare as they are; lengths first, without
			// slicing the document for names that cannot be equal.
			if prev.end-prev.start != len(key) || string(c.data[prev.start:prev.end]) != string(key) {
				continue
			}
			return c.fail(start, ErrDuplicateName, strconv.Quote(string(key)))
		}
		p := c.data[prev.start:prev.end]
		if prev.escaped {
			c.scratch2, _ = unquoteRaw(p, c.scratch2[:0])
			p = c.scratch2
		}
		if string(p) == string(key) {
			return c.fail(start, ErrDuplicateName, strconv.Quote(string(key)))
		}
	}
	c.keys = append(c.keys, kr)
	return nil
}

// hasBackslash reports whether b holds a '\\'. Names are short and
// scanned inline; longer text (descriptions) with bytes.IndexByte.
func hasBackslash(b []byte) bool {
	if len(b) > 16 {
		return bytes.IndexByte(b, '\\') >= 0
	}
	for _, ch := range b {
		if ch == '\\' {
			return true
		}
	}
	return false
}

func (c *checker) array(i int) (int, *Error) {
	slot, e := c.enter(i)
	if e != nil {
		return i, e
	}
	d := c.data
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == ']' {
		return c.leave(i, slot), nil
	}
	for n := 0; ; n++ {
		if i, e = c.value(i); e != nil {
			return i, c.inElement(e, n)
		}
		i = skipWS(d, i)
		if i >= len(d) {
			return i, c.inElement(c.fail(i, ErrSyntax, "unterminated array"), n)
		}
		switch d[i] {
		case ',':
			i = skipWS(d, i+1)
		case ']':
			return c.leave(i, slot), nil
		default:
			return i, c.inElement(c.fail(i, ErrSyntax, fmt.Sprintf("invalid character %s after an array element", quoteChar(d[i]))), n)
		}
	}
}
