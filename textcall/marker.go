// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import "bytes"

// markerSet finds the earliest of several literal markers in a buffer that
// grows at its end. A caller scanning a stream keeps the offset find
// returns as its next start, so no byte is looked at more than a marker's
// length of times.
type markerSet struct {
	list  []string
	first [256]bool
	one   int // the single first byte all markers share, or -1
}

func newMarkerSet(list ...string) *markerSet {
	m := &markerSet{one: -1}
	for _, s := range list {
		if s == "" {
			continue
		}
		m.list = append(m.list, s)
		m.first[s[0]] = true
	}
	n := 0
	for b, ok := range m.first {
		if ok {
			n++
			m.one = b
		}
	}
	if n != 1 {
		m.one = -1
	}
	return m
}

// next returns the offset of the first byte at or after i that may start a
// marker, or -1.
func (m *markerSet) next(buf []byte, i int) int {
	if i >= len(buf) {
		return -1
	}
	if m.one >= 0 {
		j := bytes.IndexByte(buf[i:], byte(m.one))
		if j < 0 {
			return -1
		}
		return i + j
	}
	for ; i < len(buf); i++ {
		if m.first[buf[i]] {
			return i
		}
	}
	return -1
}

// nextString is next over a string, for the paths that scan a delta before
// copying it.
func (m *markerSet) nextString(s string, i int) int {
	if m.one >= 0 {
		for ; i < len(s); i++ {
			if s[i] == byte(m.one) {
				return i
			}
		}
		return -1
	}
	for ; i < len(s); i++ {
		if m.first[s[i]] {
			return i
		}
	}
	return -1
}

// find looks for a marker in buf starting at from. It returns the offset and
// index of the first marker found, or at == -1 and hold, the offset from
// which buf might hold the start of a marker still arriving (len(buf) when
// nothing need be held; with final set nothing is held).
func (m *markerSet) find(buf []byte, from int, final bool) (at, which, hold int) {
	for i := from; ; i++ {
		i = m.next(buf, i)
		if i < 0 {
			return -1, -1, len(buf)
		}
		rest := buf[i:]
		best, partial := -1, false
		for k, s := range m.list {
			if len(rest) >= len(s) {
				if string(rest[:len(s)]) == s && (best < 0 || len(s) > len(m.list[best])) {
					best = k
				}
			} else if !final && string(rest) == s[:len(rest)] {
				partial = true
			}
		}
		if partial {
			// A longer marker may still arrive here.
			return -1, -1, i
		}
		if best >= 0 {
			return i, best, i
		}
	}
}

// findString is find over a string, for the paths that read a delta
// before copying it.
func (m *markerSet) findString(s string, from int, final bool) (at, which, hold int) {
	for i := from; ; i++ {
		i = m.nextString(s, i)
		if i < 0 {
			return -1, -1, len(s)
		}
		rest := s[i:]
		best, partial := -1, false
		for k, mk := range m.list {
			if len(rest) >= len(mk) {
				if rest[:len(mk)] == mk && (best < 0 || len(mk) > len(m.list[best])) {
					best = k
				}
			} else if !final && rest == mk[:len(rest)] {
				partial = true
			}
		}
		if partial {
			return -1, -1, i
		}
		if best >= 0 {
			return i, best, i
		}
	}
}

// prefixOf reports whether b is a proper prefix of one of the markers.
func (m *markerSet) prefixOf(b []byte) bool {
	for _, s := range m.list {
		if len(b) < len(s) && string(b) == s[:len(b)] {
			return true
		}
	}
	return false
}

// match returns the index of the longest marker b starts with, or -1.
func (m *markerSet) match(b []byte) int {
	best := -1
	for k, s := range m.list {
		if bytes.HasPrefix(b, []byte(s)) && (best < 0 || len(s) > len(m.list[best])) {
			best = k
		}
	}
	return best
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// valueEnd finds where a JSON value (or, with python set, a Python literal)
// that starts in a growing buffer ends, keeping its state between calls so
// that each byte is read once.
type valueEnd struct {
	python bool
	// prefix allows a name before the value (Mistral's name{…} form): bytes
	// up to the first bracket are skipped if they are name characters, and
	// the [ARGS] and [CALL_ID] tokens are skipped.
	prefix  bool
	started bool
	depth   int
	quote   byte // the open string's quote, or 0
	triple  bool
	esc     bool
	pos     int // offset relative to the value start scanned so far
}

// What valueEnd.scan returns when it has not found the end: veMore when
// the value may still end in bytes to come, veFail when the bytes before
// the value cannot be a name.
const (
	veMore = -1
	veFail = -2
)

// scan continues over body (the whole text since the value start) and
// returns the offset just past the value, veMore or veFail.
func (v *valueEnd) scan(body []byte, final bool) int {
	i := v.pos
	defer func() { v.pos = i }()
	for i < len(body) {
		c := body[i]
		if !v.started {
			switch {
			case c == '{' || c == '[':
				if v.prefix && c == '[' {
					rest := body[i:]
					for _, t := range [...]string{"[ARGS]", "[CALL_ID]"} {
						if bytes.HasPrefix(rest, []byte(t)) {
							i += len(t)
							goto next
						}
						if len(rest) < len(t) && string(rest) == t[:len(rest)] {
							if final {
								return veFail
							}
							return veMore
						}
					}
				}
				v.started = true
				v.depth = 1
				i++
			case isSpace(c):
				i++
			case v.prefix && (c == '_' || c == '-' || c == '.' || c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
				i++
			default:
				return veFail
			}
		next:
			continue
		}
		if v.quote != 0 {
			switch {
			case v.esc:
				v.esc = false
			case c == '\\':
				v.esc = true
			case c == v.quote:
				if !v.triple {
					v.quote = 0
				} else if i+2 < len(body) && body[i+1] == c && body[i+2] == c {
					v.quote = 0
					i += 2
				} else if i+2 >= len(body) && !final {
					return veMore // the closing triple quote may still arrive
				}
			}
			i++
			continue
		}
		switch c {
		case '"', '\'':
			if c == '\'' && !v.python {
				break
			}
			if v.python {
				if i+2 >= len(body) && !final {
					return veMore
				}
				v.triple = i+2 < len(body) && body[i+1] == c && body[i+2] == c
				if v.triple {
					i += 2
				}
			}
			v.quote = c
		case '{', '[', '(':
			v.depth++
		case '}', ']', ')':
			v.depth--
			if v.depth == 0 {
				i++
				return i
			}
		}
		i++
	}
	return veMore
}
