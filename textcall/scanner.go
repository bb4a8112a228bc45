// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"fmt"
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
// taken back; text that might be the start of a marker is held back until
// the next bytes tell. Every byte is scanned once, and the scanner holds
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
}

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
// The returned slice is reused by the next call. Text events may be cut
// from delta itself; a delta that ends inside a UTF-8 sequence gives a text
// event that does too, so callers reading bytes should cut them at rune
// boundaries (as the parse command does).
func (s *Scanner) Feed(delta string) []Event {
	s.ev = s.ev[:0]
	if s.closed || delta == "" {
		return s.ev
	}
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
	return s.ev
}

// Close ends the output and returns the last events: held-back text, a
// call cut off by the end, warnings. Feed after Close does nothing.
func (s *Scanner) Close() []Event {
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
	r.Content = strings.TrimSpace(string(s.content))
	if s.whole {
		r.Content = strings.TrimSpace(strings.Join(s.pieces, ""))
	}
	r.Reasoning = strings.TrimSpace(string(s.reasoning))
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
				s.emitReasoning(string(s.tbuf[:hold]))
				s.tbuf = append(s.tbuf[:0], s.tbuf[hold:]...)
				s.tscan = 0
				if final {
					s.res.UnclosedReasoning = true
					s.warn("", "unclosed-reasoning", "the reasoning block was still open at the end of the output; all of it is reasoning and there is no answer")
				}
				return
			}
			s.emitReasoning(string(s.tbuf[:at]))
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
		s.content = appendDoubling(s.content, text)
	} else if s.whole {
		s.pieces = append(s.pieces, text)
		return
	}
	s.ev = append(s.ev, Event{Kind: EventContent, Text: text})
}

func (s *Scanner) emitReasoning(text string) {
	if text == "" {
		return
	}
	if s.keep || s.whole {
		s.reasoning = appendDoubling(s.reasoning, text)
	}
	if !s.whole {
		s.ev = append(s.ev, Event{Kind: EventReasoning, Text: text})
	}
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
	id := s.callID(n, c.id)
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
	s.ev = append(s.ev,
		Event{Kind: EventCall, Index: idx, ID: id, Name: c.name},
		Event{Kind: EventArguments, Index: idx, Text: string(args)})
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
