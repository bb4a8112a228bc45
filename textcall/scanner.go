// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	"github.com/toolgate/toolgate/tool"
)

// EventKind says what an [Event] carries.
type EventKind uint8

// The event kinds, in the order an OpenAI-style stream needs them.
const (
	// EventContent carries answer text in Text.
	EventContent EventKind = iota + 1
	// EventReasoning carries reasoning text in Text.
	EventReasoning
	// EventCall starts call number Index with its ID and Name.
	EventCall
	// EventArguments carries a piece of call Index's JSON arguments in
	// Text; the pieces of one call join to its [tool.Call.Arguments].
	EventArguments
	// EventWarning carries a [tool.Warning].
	EventWarning
)

func (k EventKind) String() string {
	switch k {
	case EventContent:
		return "content"
	case EventReasoning:
		return "reasoning"
	case EventCall:
		return "call"
	case EventArguments:
		return "arguments"
	case EventWarning:
		return "warning"
	}
	return "unknown"
}

// Event is one thing a [Scanner] found.
type Event struct {
	Kind EventKind
	// Text is the content, reasoning or arguments piece.
	Text string
	// Index is the call an EventCall or EventArguments is about.
	Index int
	// ID and Name are set on EventCall.
	ID, Name string
	// Warning is set on EventWarning.
	Warning *tool.Warning
}

// Scanner parses an output while it streams in. Feed it deltas of any size
// and read the events each call returns; [Scanner.Close] ends the output.
// A call is reported once its text is complete, so a call never has to be
// taken back (unless [Config.StreamArguments] asks for calls to be
// announced early); text that might be the start of a marker is held back
// until the next bytes tell. Every byte is scanned once, and the scanner holds
// at most the call in progress and a marker's length of text.
//
// A Scanner is not safe for concurrent use.
type Scanner struct {
	p   *Parser
	m   machine
	eng *engine // m, when it is the engine: called directly on the hot path
	ev  []Event
	// keep is set when content and reasoning are kept for Result in
	// the growing buffers (not Parse's pieces, not DiscardText).
	keep bool

	// reasoning split
	tstate  int
	tbuf    []byte
	tscan   int
	answer0 int64 // offset of the answer's first byte in the output
	total   int64 // bytes fed so far

	// content and reasoning grow by doubling: one-byte deltas appended
	// with the usual 1.25× growth would copy the text five times over.
	content   []byte
	reasoning []byte
	// whole is set by Parse, which reads no events: text is kept as
	// pieces joined once, and no events are recorded.
	whole  bool
	pieces []string
	res    Result
	calls  int // calls seen, accepted or not
	ids    map[string]bool
	closed bool
	// streamIndex is the index the next call announced in events gets.
	streamIndex int

	// The one-byte fast path. After each call of the general path, route
	// says, per byte value, whether a next one-byte delta holding it may
	// take a shortcut, and which: plain text while the engine looks for a
	// marker, or the inside of a call that ends at one. Bytes that may
	// start a marker take the general path. routeOf is the table route
	// was copied from (nil: all zero); fast is the shortcut in force.
	// fastN counts the bytes taken by the shortcut since, which sync
	// folds into the offsets; fastLim caps the call buffer (its capacity,
	// MaxCallBytes). The body shortcut runs only while the engine's scan
	// position is at the end of its buffer, where it keeps it.
	// In a call body, the shortcut appends to body, which shares the
	// engine's buffer; sync gives the engine the new length.
	route   [256]uint8
	routeOf *[256]uint8
	fast    uint8
	evText  []Event
	// per kind (content, reasoning) and byte value, 1 + the index of its
	// one-byte event in byteEvs, or 0
	byteIdx [2][256]uint16
	byteEvs [2][]Event
	// want is a marker the engine holds a proper prefix of (text, or the
	// end of a call body), wantAt the length of that prefix: its next
	// byte only has to be kept. routeDirty says route was changed in
	// place and matches no table.
	want       string
	wantAt     int
	routeDirty bool
	fastN      int
	body       []byte
	fastLim    int
}

// Shortcuts of the one-byte fast path.
const (
	fastNone    uint8 = iota
	fastContent       // plain text, kept for Result
	fastText          // plain text, not kept (DiscardText)
	fastBody          // the inside of a call that ends at a marker
	fastHeld          // the byte after one held as a possible marker start, which makes both text
	fastReason        // reasoning at the start of the output, before its closing tag
	fastPrefix        // the next byte of the marker whose start the engine holds
	fastHold          // in text, a byte that may start a marker: held, with nothing sent
)

const (
	tStart = iota
	tReason
	tAnswer
)

// machine turns answer text into events; one per family kind.
type machine interface {
	feed(s string)
	close()
}

// NewScanner returns a scanner for one output.
func (p *Parser) NewScanner() *Scanner {
	s := &Scanner{p: p}
	switch {
	case p.cfg.DisableReasoning || p.sp.ownReasoning:
		s.tstate = tAnswer
	case p.cfg.ThinkOpen:
		s.tstate = tReason
	}
	if p.sp.machine != nil {
		s.m = p.sp.machine(s)
	} else {
		s.eng = newEngine(s)
		s.m = s.eng
	}
	s.keep = !p.cfg.DiscardText
	return s
}

// Feed adds the next delta of output and returns the events it completed.
// The returned slice and its events belong to the scanner and are reused
// by the next call: copy what you keep, and do not change them. Text events may be cut
// from delta itself; a delta that ends inside a UTF-8 sequence gives a text
// event that does too, so callers reading bytes should cut them at rune
// boundaries (as the parse command does).
func (s *Scanner) Feed(delta string) []Event {
	if len(delta) == 1 {
		c := delta[0]
		// The common shortcuts are tested first and apart: a switch
		// over all of them compiles to a search that costs the common
		// ones a few instructions more.
		m := s.route[c]
		if m == fastBody {
			if n := len(s.body); n < s.fastLim {
				s.body = s.body[:n+1]
				s.body[n] = c
				return nil
			}
			return s.feedSlow(delta)
		}
		if m == fastContent {
			if n := len(s.content); n < cap(s.content) {
				s.fastN++
				// Reslicing from 0 keeps the slice's pointer, so no
				// write barrier runs for it.
				s.content = s.content[:n+1]
				s.content[n] = c
				if i := int(s.byteIdx[0][c]); i > 0 {
					return s.byteEvs[0][i-1 : i : i]
				}
				return s.newByteEvent(0, c)
			}
			return s.feedSlow(delta)
		}
		if m == fastText {
			// fastContent for a scanner that keeps no text.
			s.fastN++
			if i := int(s.byteIdx[0][c]); i > 0 {
				return s.byteEvs[0][i-1 : i : i]
			}
			return s.newByteEvent(0, c)
		}
		if m != fastNone {
			if ev, ok := s.feedByte(m, c); ok {
				return ev
			}
		}
		return s.feedSlow(delta)
	}
	if s.fast != fastNone && len(delta) > 1 {
		if ev, ok := s.feedRun(delta); ok {
			return ev
		}
	}
	return s.feedSlow(delta)
}

// feedByte takes the less common one-byte shortcuts, m being the route of
// byte c. It reports false when the byte must take the general path.
func (s *Scanner) feedByte(m uint8, c byte) ([]Event, bool) {
	switch m {
	case fastHold:
		return s.holdByte(c), true
	case fastHeld:
		if ev := s.heldByte(c); ev != nil {
			return ev, true
		}
	case fastPrefix:
		return s.prefixByte(c)
	case fastReason:
		n := len(s.reasoning)
		if !s.keep || n < cap(s.reasoning) {
			s.fastN++
			if s.keep {
				s.reasoning = s.reasoning[:n+1]
				s.reasoning[n] = c
			}
			return s.byteEvent(1, c), true
		}
	}
	return nil, false
}

// feedRun is the shortcut for a delta of several bytes (a token or a few)
// none of which leaves the current shortcut: text with no byte that may
// start a marker, or the inside of a call with no byte that may start its
// end. It reports whether it took the delta.
func (s *Scanner) feedRun(delta string) ([]Event, bool) {
	mode := s.fast
	if mode != fastContent && mode != fastText && mode != fastBody {
		return nil, false
	}
	for i := 0; i < len(delta); i++ {
		r := s.route[delta[i]]
		if r == mode {
			continue
		}
		// In text, a byte that may start a marker followed in the same
		// delta by one that can neither continue a marker nor start
		// one ("a < b") is text too.
		if r == fastHold && i+1 < len(delta) && s.p.tab.heldRoute[delta[i]][delta[i+1]] == fastHeld {
			i++
			continue
		}
		return nil, false
	}
	switch mode {
	case fastBody:
		n := len(s.body)
		if n+len(delta) > s.fastLim {
			return nil, false
		}
		s.body = s.body[:n+len(delta)]
		copy(s.body[n:], delta)
		return nil, true
	case fastContent:
		n := len(s.content)
		if n+len(delta) > cap(s.content) {
			return nil, false
		}
		s.content = s.content[:n+len(delta)]
		copy(s.content[n:], delta)
	}
	s.fastN += len(delta)
	ev := s.evText[:1:1]
	ev[0].Text = delta
	return ev, true
}

// feedSlow is Feed's general path, kept apart so that the shortcuts pay
// for no more of a stack frame than they need.
func (s *Scanner) feedSlow(delta string) []Event {
	s.sync()
	s.ev = s.ev[:0]
	if !s.closed && delta != "" {
		s.total += int64(len(delta))
		if s.tstate == tAnswer {
			if s.eng != nil {
				s.eng.feed(delta)
			} else {
				s.m.feed(delta)
			}
		} else {
			s.think(delta, false)
		}
	}
	s.setFast()
	return s.ev
}

// byteEvent returns the one-byte event of kind k (0 content, 1
// reasoning) for byte c. Each byte value gets its event once, in
// byteEvs, and later deltas holding it return that event again: the
// shortcuts write no pointer, so they pay no write barrier while the GC
// marks (which it does a third of the time at GOMAXPROCS=1, and which
// cost a tenth of a one-byte stream when each delta wrote its event's
// text). The content shortcuts in Feed do the look-up inline.
func (s *Scanner) byteEvent(k int, c byte) []Event {
	if i := int(s.byteIdx[k][c]); i > 0 {
		return s.byteEvs[k][i-1 : i : i]
	}
	return s.newByteEvent(k, c)
}

// newByteEvent makes the event for byteEvent.
func (s *Scanner) newByteEvent(k int, c byte) []Event {
	if s.byteEvs[k] == nil {
		s.byteEvs[k] = make([]Event, 0, 64)
	}
	kind := EventContent
	if k == 1 {
		kind = EventReasoning
	}
	// Slices returned earlier keep the array they were cut from, so
	// growing byteEvs changes none of them.
	s.byteEvs[k] = append(s.byteEvs[k], Event{Kind: kind, Text: byteText[c : int(c)+1]})
	i := len(s.byteEvs[k])
	s.byteIdx[k][c] = uint16(i)
	return s.byteEvs[k][i-1 : i : i]
}

// prefixByte keeps byte c, the next byte of the marker s.want whose start
// the engine holds, when the marker is still not complete: what the
// general path would do (hold it) without running the engine. It reports
// false when the byte must take the general path.
func (s *Scanner) prefixByte(c byte) ([]Event, bool) {
	e := s.eng
	n := len(e.buf)
	if s.wantAt+1 >= len(s.want) || n == cap(e.buf) || e.state == sBody && e.max > 0 && n+1-e.bstart > e.max {
		return nil, false
	}
	e.buf = e.buf[:n+1]
	e.buf[n] = c
	if e.cur != "" {
		// buf no longer holds just the delta it was cut from.
		e.cur = ""
	}
	s.total++
	if s.fast != fastPrefix {
		// From fastHeld: the held byte's other routes end here.
		s.route = [256]uint8{}
		s.fast = fastPrefix
	}
	s.route[c] = 0
	s.wantAt++
	s.route[s.want[s.wantAt]] = fastPrefix
	s.routeOf, s.routeDirty = nil, true
	return nil, true
}

// holdByte takes a byte of text that may start a marker (but is not one):
// the engine holds it and nothing is sent, as the general path would do,
// and the next byte is routed by what may follow it.
func (s *Scanner) holdByte(c byte) []Event {
	s.sync()
	e := s.eng
	e.buf = e.base[:0]
	if e.cur != "" {
		e.cur = ""
	}
	e.grow(byteText[c : int(c)+1])
	s.total++
	s.fast = fastHeld
	s.route, s.routeOf, s.routeDirty = *s.p.tab.heldRoute[c], nil, true
	if s.setWant(e.markers, e.buf) {
		s.route[s.want[s.wantAt]] = fastPrefix
	}
	return nil
}

// heldByte handles byte c after a single byte the engine held as a
// possible marker start, when c shows there is no marker: both bytes are
// content, sent as two one-byte events, and the scanner is back in text.
// It returns nil when the kept text has no room.
func (s *Scanner) heldByte(c byte) []Event {
	e := s.eng
	b0 := e.buf[0]
	if s.keep {
		n := len(s.content)
		if n+2 > cap(s.content) {
			return nil
		}
		s.content = s.content[:n+2]
		s.content[n], s.content[n+1] = b0, c
	}
	s.total++
	e.off += 2
	e.buf = e.buf[:0]
	if e.cur != "" {
		e.cur = ""
	}
	ev := s.evText[:2:2]
	ev[0].Text = byteText[b0 : int(b0)+1]
	ev[1].Text = byteText[c : int(c)+1]
	route := &s.p.tab.contentRoute
	s.fast = fastContent
	if !s.keep {
		route, s.fast = &s.p.tab.contentRouteNoKeep, fastText
	}
	s.route, s.routeOf = *route, route
	return ev
}

// byteText holds every byte value once. The fast path's one-byte events
// are cut from it rather than from the delta: both are the same text, but
// this one is static data, which the write barrier that storing the event
// costs while the GC marks passes over without looking the object up (that
// look-up was a tenth of a one-byte stream's time).
const byteText = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x21\x22\x23\x24\x25\x26\x27\x28\x29\x2a\x2b\x2c\x2d\x2e\x2f\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x3a\x3b\x3c\x3d\x3e\x3f\x40\x41\x42\x43\x44\x45\x46\x47\x48\x49\x4a\x4b\x4c\x4d\x4e\x4f\x50\x51\x52\x53\x54\x55\x56\x57\x58\x59\x5a\x5b\x5c\x5d\x5e\x5f\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f\x70\x71\x72\x73\x74\x75\x76\x77\x78\x79\x7a\x7b\x7c\x7d\x7e\x7f\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff"

// sync brings the engine and the offsets up to date with the bytes the
// fast path took.
func (s *Scanner) sync() {
	switch s.fast {
	case fastContent, fastText:
		if n := s.fastN; n > 0 {
			s.fastN = 0
			s.total += int64(n)
			s.eng.off += int64(n)
		}
	case fastReason:
		s.total += int64(s.fastN)
		s.fastN = 0
	case fastBody:
		e := s.eng
		n := len(s.body) - len(e.buf)
		if n == 0 {
			return
		}
		e.buf = e.buf[:len(s.body)]
		s.total += int64(n)
		// buf no longer holds just the delta it was cut from.
		e.cur = ""
		e.scan = len(e.buf)
	}
}

// setFast decides whether the next one-byte delta may take a fast path.
// Bytes the fast path takes never start or end anything: they are what
// the general path would have passed on or kept without a second look.
func (s *Scanner) setFast() {
	var route *[256]uint8
	s.fast = fastNone
	if e := s.eng; e != nil && !s.closed && !s.whole && s.tstate == tAnswer {
		switch {
		case e.state == sContent && len(e.buf) == 0:
			s.fast, route = fastContent, &s.p.tab.contentRoute
			if !s.keep {
				s.fast, route = fastText, &s.p.tab.contentRouteNoKeep
			}
		case e.state == sContent && len(e.buf) == 1 && s.p.tab.heldRoute[e.buf[0]] != nil:
			s.fast, route = fastHeld, s.p.tab.heldRoute[e.buf[0]]
			s.setWant(e.markers, e.buf)
		case e.state == sContent && len(e.buf) > 1:
			if s.setWant(e.markers, e.buf) {
				s.fast = fastPrefix
			}
		case e.state == sBody && s.p.tab.bodyRoute[e.op] != nil && e.as == nil && e.scan == len(e.buf):
			// Not while the start of an end marker is held (scan
			// short of the end): the next byte may complete it.
			s.fast, route = fastBody, s.p.tab.bodyRoute[e.op]
			s.body = e.buf
			s.fastLim = cap(e.buf)
			if e.max > 0 {
				s.fastLim = min(s.fastLim, e.bstart+e.max)
			}
		case e.state == sBody && e.as == nil && e.scan < len(e.buf) && e.sp.openers[e.op].end == endMarker:
			if s.setWant(e.ends[e.op], e.buf[e.scan:]) {
				s.fast = fastPrefix
			}
		}
	}
	if s.tstate == tReason && len(s.tbuf) == 0 && !s.closed && !s.whole {
		// think's own shortcut: reasoning with no byte that can start
		// the closing tag goes out as it came.
		s.fast, route = fastReason, &s.p.tab.reasonRoute
	}
	if s.fast != fastNone && s.fast != fastBody && s.evText == nil {
		s.evText = []Event{{Kind: EventContent}, {Kind: EventContent}}
	}
	if s.fast != fastBody && s.body != nil {
		s.body = nil
	}
	if route != s.routeOf || s.routeDirty {
		if route == nil {
			s.route = [256]uint8{}
		} else {
			s.route = *route
		}
		s.routeOf, s.routeDirty = route, false
	}
	if s.want != "" && (s.fast == fastPrefix || s.fast == fastHeld) {
		// The one byte that continues the held marker.
		s.route[s.want[s.wantAt]] = fastPrefix
		s.routeOf, s.routeDirty = nil, true
	}
}

// setWant finds a marker of m that held is a proper prefix of and makes
// it the one the fast path follows. It reports whether there is one.
func (s *Scanner) setWant(m *markerSet, held []byte) bool {
	s.want = ""
	for _, k := range m.list {
		if len(held) < len(k) && string(held) == k[:len(held)] {
			s.want, s.wantAt = k, len(held)
			return true
		}
	}
	return false
}

// Close ends the output and returns the last events: held-back text, a
// call cut off by the end, warnings. Feed after Close does nothing.
func (s *Scanner) Close() []Event {
	s.sync()
	s.fast, s.route, s.routeOf, s.routeDirty = fastNone, [256]uint8{}, nil, false
	s.ev = s.ev[:0]
	if s.closed {
		return s.ev
	}
	s.closed = true
	if s.tstate != tAnswer {
		s.think("", true)
	}
	if s.tstate == tAnswer {
		s.m.close()
	}
	return s.ev
}

// Result returns everything found so far, as [Parser.Parse] reports it; after
// [Scanner.Close] it is the parse of the whole output.
func (s *Scanner) Result() *Result {
	r := s.res
	// content and reasoning are only ever appended to: the bytes a
	// string is cut from here never change, so they need no copy.
	r.Content = strings.TrimSpace(bytesString(s.content))
	if s.whole {
		r.Content = strings.TrimSpace(strings.Join(s.pieces, ""))
	}
	r.Reasoning = strings.TrimSpace(bytesString(s.reasoning))
	r.Calls = append([]tool.Call(nil), s.res.Calls...)
	r.Rejected = append([]tool.Call(nil), s.res.Rejected...)
	r.Warnings = append([]tool.Warning(nil), s.res.Warnings...)
	return &r
}

// think splits reasoning off the front of the output.
func (s *Scanner) think(delta string, final bool) {
	if s.tstate == tReason && len(s.tbuf) == 0 && !final {
		// Fast path: reasoning text with no '<' needs no buffering.
		i := s.p.tab.tclose.nextString(delta, 0)
		if i < 0 {
			s.emitReasoning(delta)
			return
		}
		s.emitReasoning(delta[:i])
		delta = delta[i:]
	}
	if s.tstate == tStart && len(s.tbuf) == 0 && !final {
		// Fast path: an answer that does not open with a tag goes
		// straight to the family without a copy.
		i := 0
		for i < len(delta) && isSpace(delta[i]) {
			i++
		}
		if i < len(delta) && delta[i] != '<' {
			s.tstate = tAnswer
			s.answer0 = s.total - int64(len(delta))
			s.m.feed(delta)
			return
		}
	}
	s.tbuf = append(s.tbuf, delta...)
	for {
		switch s.tstate {
		case tStart:
			i := s.tscan
			for i < len(s.tbuf) && isSpace(s.tbuf[i]) {
				i++
			}
			s.tscan = i
			rest := s.tbuf[i:]
			if len(rest) == 0 && !final {
				return
			}
			if !final && s.p.tab.topen.prefixOf(rest) {
				return
			}
			if k := s.p.tab.topen.match(rest); k >= 0 {
				n := i + len(s.p.tab.topen.list[k])
				s.tbuf = append(s.tbuf[:0], s.tbuf[n:]...)
				s.tscan = 0
				s.tstate = tReason
				continue
			}
			s.toAnswer(0)
			return
		case tReason:
			at, which, hold := s.p.tab.tclose.find(s.tbuf, s.tscan, final)
			if at < 0 {
				if final {
					hold = len(s.tbuf)
				}
				s.emitReasoningBytes(s.tbuf[:hold])
				s.tbuf = append(s.tbuf[:0], s.tbuf[hold:]...)
				s.tscan = 0
				if final {
					s.res.UnclosedReasoning = true
					s.warn("", "unclosed-reasoning", "the reasoning block was still open at the end of the output; all of it is reasoning and there is no answer")
				}
				return
			}
			s.emitReasoningBytes(s.tbuf[:at])
			s.toAnswer(at + len(s.p.tab.tclose.list[which]))
			return
		}
	}
}

// toAnswer hands tbuf[from:] to the machine and passes later deltas
// straight to it.
func (s *Scanner) toAnswer(from int) {
	s.tstate = tAnswer
	rest := string(s.tbuf[from:])
	s.answer0 = s.total - int64(len(rest))
	s.tbuf = nil
	if rest != "" {
		s.m.feed(rest)
	}
}

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

// pushText appends a text event. The common case reuses a slot of the
// event slice in place and writes only its kind and text: copying a whole
// Event costs a write barrier for each of its pointers while the GC runs,
// which made up a third of a one-byte delta's cost.
func (s *Scanner) pushText(kind EventKind, text string) {
	n := len(s.ev)
	if n == cap(s.ev) {
		s.growEvents(kind, text)
		return
	}
	s.ev = s.ev[:n+1]
	e := &s.ev[n]
	if e.ID != "" || e.Name != "" || e.Warning != nil {
		*e = Event{}
	}
	e.Kind, e.Text, e.Index = kind, text, 0
}

//go:noinline
func (s *Scanner) growEvents(kind EventKind, text string) {
	s.ev = append(s.ev, Event{Kind: kind, Text: text})
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
	s.pushText(EventContent, unsafe.String(&s.content[n], len(b)))
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
	s.pushText(EventReasoning, unsafe.String(&s.reasoning[n], len(b)))
}

// appendBytes appends b to dst, doubling its capacity when it runs out.
func appendBytes(dst, b []byte) []byte {
	if len(dst)+len(b) <= cap(dst) {
		return append(dst, b...)
	}
	return appendDoubling(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}

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

// bytesString returns b's bytes as a string without a copy; the caller
// promises they never change.
func bytesString(b []byte) string {
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
		nb := make([]byte, len(b), max(2*cap(b), len(b)+len(text), 256))
		copy(nb, b)
		b = nb
	}
	return append(b, text...)
}

func (s *Scanner) warn(pointer, code, msg string) {
	w := tool.Warning{Pointer: pointer, Code: code, Message: msg}
	s.res.Warnings = append(s.res.Warnings, w)
	if !s.whole {
		s.ev = append(s.ev, Event{Kind: EventWarning, Warning: &w})
	}
}

// emitCall checks a parsed call (offered name, unique id) and reports it.
// at is the offset of its text in the answer, for warnings.
func (s *Scanner) emitCall(c rawCall, at int64) {
	n := s.calls
	s.calls++
	s.reportCall(c, s.callID(n, c.id), at, nil)
}

// reportCall reports call c with the given id. a, when set, is the
// stream that already announced it and sent a prefix of its arguments.
func (s *Scanner) reportCall(c rawCall, id string, at int64, a *sentCall) {
	// The arguments may alias the scanner's buffer, which is reused: the
	// event's text is a copy, and the call's bytes another.
	// Body parsers return arguments in memory of their own (argsObject,
	// argsBuilder, the Python reader), so the call keeps them; the
	// capacity is cut so an append by the caller cannot write past them.
	args := c.args
	if len(args) == 0 {
		args = []byte("{}")
	}
	call := tool.Call{ID: id, Name: c.name, Arguments: json.RawMessage(args[:len(args):len(args)])}
	if s.p.offered != nil && !s.p.offered[c.name] && !s.p.cfg.AllowUnknownTools {
		for _, w := range c.warns {
			s.warn(fmt.Sprintf("/rejected/%d%s", len(s.res.Rejected), w.Pointer), w.Code, w.Message)
		}
		s.res.Rejected = append(s.res.Rejected, call)
		s.warn("", "unknown-tool", fmt.Sprintf("call to %q at offset %d names a tool that was not offered; it is kept out of the calls", c.name, s.answer0+at))
		return
	}
	idx := len(s.res.Calls)
	for _, w := range c.warns {
		s.warn(fmt.Sprintf("/tool_calls/%d%s", idx, w.Pointer), w.Code, w.Message)
	}
	s.res.Calls = append(s.res.Calls, call)
	if s.whole {
		return
	}
	if a != nil {
		if rest := args[a.sent:]; len(rest) > 0 {
			s.ev = append(s.ev, Event{Kind: EventArguments, Index: a.index, Text: string(rest)})
		}
		return
	}
	// The index in events counts the calls announced, which is the
	// index in Result.Calls unless a streamed call was withdrawn.
	ev := s.streamIndex
	s.streamIndex++
	s.ev = append(s.ev,
		Event{Kind: EventCall, Index: ev, ID: id, Name: c.name},
		Event{Kind: EventArguments, Index: ev, Text: string(args)})
}

// callID returns the id of call n: the model's own when it gave a unique
// one, else a generated one.
func (s *Scanner) callID(n int, native string) string {
	if s.ids == nil {
		s.ids = make(map[string]bool)
	}
	if native != "" && !s.ids[native] {
		s.ids[native] = true
		return native
	}
	for try := 0; ; try++ {
		var id string
		if s.p.cfg.NewID != nil && try == 0 {
			id = s.p.cfg.NewID(n)
		} else {
			id = genID(s.p.cfg.Seed, uint64(n)+uint64(try)<<32, s.p.cfg.IDStyle)
		}
		if id != "" && !s.ids[id] {
			s.ids[id] = true
			return id
		}
	}
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// genID derives an id from seed and n with splitmix64, so ids are stable
// for tests and differ between responses given different seeds. The
// position is mixed in before the stream starts, so neighbouring calls
// get unrelated ids.
func genID(seed, n uint64, style IDStyle) string {
	mix := func(z uint64) uint64 {
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	x := mix(seed + 0x9e3779b97f4a7c15*mix(n+1))
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		return mix(x)
	}
	width, prefix := 24, "call_"
	if style == IDMistral {
		width, prefix = 9, ""
	}
	b := make([]byte, 0, len(prefix)+width)
	b = append(b, prefix...)
	for len(b) < len(prefix)+width {
		v := next()
		for k := 0; k < 10 && len(b) < len(prefix)+width; k++ {
			b = append(b, alnum[v%62])
			v /= 62
		}
	}
	return string(b)
}
