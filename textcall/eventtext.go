// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"math/bits"
	"unsafe"
)

// This file keeps the content and reasoning a Scanner has seen and makes
// the text of its events. Who owns the bytes behind an [Event.Text] is
// decided here, by the rule on [appendOnlyString].

// emitContent emits text, which nothing will change (a piece of a delta, a
// static string or a fresh copy), as content, keeping it for Result.
func (s *Scanner) emitContent(text string) {
	if text == "" {
		return
	}
	if s.keep {
		// In place when it fits: reslicing from 0 leaves the slice's
		// pointer as it is, so no write barrier runs while the GC does.
		if n := len(s.content); n+len(text) <= cap(s.content) {
			s.content = s.content[:n+len(text)]
			if len(text) == 1 {
				s.content[n] = text[0]
			} else {
				copy(s.content[n:], text)
			}
		} else {
			s.content = appendDoubling(s.content, text)
		}
	} else if s.whole {
		s.pieces = append(s.pieces, text)
		return
	}
	s.pushText(EventContent, text)
}

// emitContentBytes emits b, which the caller will reuse, as content. When
// content is kept the event's text is cut from the kept copy, which is
// only ever appended to, so b is copied once rather than twice.
func (s *Scanner) emitContentBytes(b []byte) {
	if len(b) == 0 {
		return
	}
	if !s.keep {
		s.emitContent(string(b))
		return
	}
	n := len(s.content)
	s.content = appendBytes(s.content, b)
	s.pushText(EventContent, appendOnlyString(s.content[n:]))
}

// emitReasoningBytes is emitContentBytes for reasoning.
func (s *Scanner) emitReasoningBytes(b []byte) {
	if len(b) == 0 {
		return
	}
	if !s.keep {
		s.emitReasoning(string(b))
		return
	}
	n := len(s.reasoning)
	s.reasoning = appendBytes(s.reasoning, b)
	s.pushText(EventReasoning, appendOnlyString(s.reasoning[n:]))
}

// appendBytes appends b to dst, doubling its capacity when it runs out.
// The string it makes of b lives only for the copy.
func appendBytes(dst, b []byte) []byte {
	if len(dst)+len(b) <= cap(dst) {
		return append(dst, b...)
	}
	return appendDoubling(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}

// emitReasoning is emitContent for reasoning.
func (s *Scanner) emitReasoning(text string) {
	if text == "" {
		return
	}
	if s.keep || s.whole {
		s.reasoning = appendDoubling(s.reasoning, text)
	}
	if !s.whole {
		s.pushText(EventReasoning, text)
	}
}

// appendOnlyString returns b's bytes as a string without a copy. It is the
// only place a Scanner makes a string that shares memory with a buffer of
// its own, and the strings it makes reach callers: in [Event.Text], which
// stays valid after later Feeds, Close and Result (only the event slice is
// reused), and in [Result]. So:
//
// The rule: b must be cut from an append-only buffer: one whose bytes
// below its length are never written again for the life of the Scanner.
// Such a buffer only grows at its end; when it runs out of room a new array
// is allocated (appendDoubling, appendBytes) and the old one stays with
// the strings already cut from it; it is never truncated and refilled,
// and starting over means dropping it (a nil slice or a new struct), never
// reslicing it to [:0].
//
// The buffers that follow the rule are Scanner.content and
// Scanner.reasoning (the kept text; the one-byte shortcuts in route.go
// only append to them) and argStream.args (each streamed call gets a
// fresh argStream, see engine.openBody). The engine's scanning buffer
// (engine.buf), the reasoning split's tbuf and the fast path's body are
// reused in place and never reach a string without a copy. Every other
// event text is a piece of the caller's delta, a piece of the static
// byteText, or a fresh copy (string(b)). TestEventTextStable pins this.
func appendOnlyString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// appendDoubling appends text to b, doubling its capacity when it runs out.
func appendDoubling(b []byte, text string) []byte {
	if len(b)+len(text) <= cap(b) {
		return append(b, text...)
	}
	{
		// A power of two, so the sizes reached do not depend on the
		// first piece's length.
		nb := make([]byte, len(b), 1<<bits.Len(uint(max(2*cap(b), len(b)+len(text), 256)-1)))
		copy(nb, b)
		b = nb
	}
	return append(b, text...)
}
