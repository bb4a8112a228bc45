// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"

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
// at most the call in progress, a marker's length of text and the text
// it cannot yet tell reasoning from answer by ([Config.MaxReasoningHoldBytes]).
//
// A Scanner is not safe for concurrent use.
//
// Its code is split by idea: this file is the public surface and the
// general path; think.go splits reasoning off the front of the output;
// engine.go finds calls; route.go is the per-byte shortcut that skips
// the engine; eventcache.go holds the events the shortcut returns;
// eventtext.go keeps content and reasoning and states the rule that keeps
// every [Event.Text] valid; argstream.go reads arguments as they arrive
// and argsend.go sends them; report.go and callid.go report calls and name
// them.
type Scanner struct {
	// fixed at creation
	p   *Parser
	m   machine
	eng *engine // m, when it is the engine: called directly on the hot path
	// keep is set when content and reasoning are kept for Result in
	// the growing buffers (not Parse's pieces, not DiscardText).
	keep bool
	// whole is set by Parse, which reads no events: text is kept as
	// pieces joined once, and no events are recorded.
	whole bool

	// The general path's state: the events of the current Feed, the
	// offsets, and what Result reports.
	ev      []Event
	answer0 int64 // offset of the answer's first byte in the output
	total   int64 // bytes fed so far
	res     Result
	calls   int // calls seen, accepted or not
	ids     map[string]bool
	// seed is the random seed of generated ids when Config.Seed is zero,
	// drawn once seeded is set (callid.go).
	seed   uint64
	seeded bool
	closed bool
	// streamIndex is the index the next call announced in events gets
	// (argument streaming can announce calls that are later withdrawn).
	streamIndex int

	// The kept text, append-only (see eventtext.go). It grows by
	// doubling: one-byte deltas appended with the usual 1.25× growth
	// would copy the text five times over.
	content   []byte
	reasoning []byte
	pieces    []string // Parse's content, joined once at the end

	thinkState
	router
	byteEvents
}

// thinkState is the reasoning split at the front of the output (think.go).
type thinkState struct {
	tstate int // tStart, tReason, tAnswer, tImplied or tReasonCall
	// tbuf holds what is not decided yet: a possible tag, or the text
	// held in tImplied and tReasonCall. It is reused in place.
	tbuf  []byte
	tscan int // where the search in tbuf resumes
}

// router is the one-byte fast path's state (route.go). After each call of
// the general path, route says, per byte value, whether a next one-byte
// delta holding it may take a shortcut, and which: plain text while the
// engine looks for a marker, or the inside of a call that ends at one.
// Bytes that may start a marker take the general path.
type router struct {
	route [256]uint8
	// routeOf is the table route was copied from (nil: all zero);
	// routeDirty says route was changed in place and matches no table.
	routeOf    *[256]uint8
	routeDirty bool
	fast       uint8 // the shortcut in force
	// fastN counts the bytes taken by the shortcut since the general
	// path last ran, which sync folds into the offsets.
	fastN int
	// In a call body, the shortcut appends to body, which shares the
	// engine's buffer; sync gives the engine the new length. fastLim
	// caps it (its capacity, MaxCallBytes). The body shortcut runs only
	// while the engine's scan position is at the end of its buffer,
	// where it keeps it. fastImplied does the same with think's tbuf.
	body    []byte
	fastLim int
	// want is a marker the engine holds a proper prefix of (text, or the
	// end of a call body), wantAt the length of that prefix: its next
	// byte only has to be kept.
	want   string
	wantAt int
	// evText is the two-slot event slice the shortcuts for runs and held
	// bytes return.
	evText []Event
}

// byteEvents caches the one-byte events the shortcuts return
// (eventcache.go).
type byteEvents struct {
	// per kind (content, reasoning) and byte value, 1 + the index of its
	// one-byte event in byteEvs, or 0
	byteIdx [2][256]uint16
	byteEvs [2][]Event
}

// machine turns answer text into events; one per family kind.
type machine interface {
	feed(s string)
	close()
}

// NewScanner returns a scanner for one output.
func (p *Parser) NewScanner() *Scanner {
	s := &Scanner{p: p}
	if p.cfg.DisableReasoning || p.sp.ownReasoning {
		s.tstate = tAnswer
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
// The returned slice belongs to the scanner and is reused by the next
// call: copy the events you keep (copying an Event is enough: the strings
// in it never change, whatever is fed later), and do not change them.
// Text events may be cut from delta itself; a delta that ends inside a UTF-8 sequence gives a text
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
	r.Content = strings.TrimSpace(appendOnlyString(s.content))
	if s.whole {
		r.Content = strings.TrimSpace(strings.Join(s.pieces, ""))
	}
	r.Reasoning = strings.TrimSpace(appendOnlyString(s.reasoning))
	r.Calls = append([]tool.Call(nil), s.res.Calls...)
	r.Rejected = append([]tool.Call(nil), s.res.Rejected...)
	r.Warnings = append([]tool.Warning(nil), s.res.Warnings...)
	return &r
}
