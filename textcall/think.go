// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import "fmt"

// This file splits reasoning off the front of the output. Later blocks
// (interleaved thinking) are the engine's (sReason).
//
// Every decision here depends on the text alone, never on how it was cut
// into deltas, and nothing sent is taken back: where the text so far
// cannot tell reasoning from answer, it is held (tImplied, tReasonCall),
// at most Config.MaxReasoningHoldBytes of it.

// Where the reasoning split stands.
const (
	tStart      = iota // at the start of the output: a think tag may open
	tReason            // inside the opening reasoning block
	tAnswer            // past it: everything goes to the machine
	tImplied           // text held: it is reasoning if a closing tag ends it
	tReasonCall        // inside the opening block, held from a call marker on
)

// think splits reasoning off the front of the output.
func (s *Scanner) think(delta string, final bool) {
	if s.tstate == tReason && len(s.tbuf) == 0 && !final {
		// Fast path: reasoning text with no byte that may start a
		// closing tag or a call marker needs no buffering.
		i := s.p.tab.treason.nextString(delta, 0)
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
			switch s.startAs(int(delta[i])) {
			case tAnswer:
				s.tstate = tAnswer
				s.answer0 = s.total - int64(len(delta))
				s.m.feed(delta)
				return
			case tReason:
				s.tstate = tReason
				s.think(delta, false)
				return
			case tImplied:
				s.tstate = tImplied
			}
		}
	}
	if s.tstate == tImplied && len(s.tbuf) == 0 && !final && s.impliedRun(delta) {
		return
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
				// With ThinkOpen this is the opener printed again: it
				// is dropped all the same.
				n := i + len(s.p.tab.topen.list[k])
				s.tbuf = append(s.tbuf[:0], s.tbuf[n:]...)
				s.tscan = 0
				s.tstate = tReason
				continue
			}
			c := -1 // an empty output: with ThinkOpen, unclosed reasoning
			if len(rest) > 0 {
				c = int(rest[0])
			}
			s.tstate = s.startAs(c)
			if s.tstate == tAnswer {
				s.toAnswer(0)
				return
			}
			s.tscan = 0
		case tReason:
			at, which, hold := s.p.tab.treason.find(s.tbuf, s.tscan, final)
			if at < 0 {
				if final {
					hold = len(s.tbuf)
				}
				s.emitReasoningBytes(s.tbuf[:hold])
				s.tbuf = append(s.tbuf[:0], s.tbuf[hold:]...)
				s.tscan = 0
				if final {
					s.unclosed()
				}
				return
			}
			s.emitReasoningBytes(s.tbuf[:at])
			if which < len(s.p.tab.tclose.list) {
				s.toAnswer(at + len(s.p.tab.tclose.list[which]))
				return
			}
			// A call marker inside the block: a call if the block
			// never closes, reasoning if it does. Hold it.
			s.tbuf = append(s.tbuf[:0], s.tbuf[at:]...)
			s.tscan = 0
			s.tstate = tReasonCall
		case tReasonCall:
			at, which, limited := s.findHeld(s.p.tab.tclose, final)
			switch {
			case at >= 0:
				// The block closed after all: all of it was reasoning.
				s.emitReasoningBytes(s.tbuf[:at])
				s.toAnswer(at + len(s.p.tab.tclose.list[which]))
				return
			case limited:
				// Too long to wait for: the marker is reasoning, and
				// the text from the limit on is read again.
				n := s.p.cfg.MaxReasoningHoldBytes
				s.emitReasoningBytes(s.tbuf[:n])
				s.tbuf = append(s.tbuf[:0], s.tbuf[n:]...)
				s.tscan = 0
				s.tstate = tReason
			case final:
				if !s.holdsCall(s.tbuf) {
					s.emitReasoningBytes(s.tbuf)
					s.tbuf = s.tbuf[:0]
					s.unclosed()
					return
				}
				s.warn("", "reasoning-closed-by-call", fmt.Sprintf("the reasoning block never closed and a %s call follows in it at offset %d; the call marker ended the reasoning", s.p.sp.name, s.total-int64(len(s.tbuf))))
				s.toAnswer(0)
				return
			default:
				return
			}
		case tImplied:
			at, which, limited := s.findHeld(s.p.tab.timplied, final)
			if at >= 0 && which < len(s.p.tab.tclose.list) {
				s.emitReasoningBytes(s.tbuf[:at])
				s.impliedWarn(s.p.tab.tclose.list[which], s.total-int64(len(s.tbuf)-at))
				s.toAnswer(at + len(s.p.tab.tclose.list[which]))
				return
			}
			if at >= 0 || limited || final {
				// A call or an opening tag came first, or no closing
				// tag did: the text is the answer.
				s.toAnswer(0)
			}
			return
		}
	}
}

// impliedRun is tImplied's fast path for a first delta that decides by
// itself (a whole Parse, or a large first chunk): it is read in place
// rather than copied into tbuf and out again. It reports whether it
// decided; if not, nothing was done.
func (s *Scanner) impliedRun(delta string) bool {
	m := s.p.tab.timplied
	win, limited := delta, false
	n := s.p.cfg.MaxReasoningHoldBytes
	if n > 0 {
		if end := n + m.maxLen() - 1; len(win) >= end {
			win, limited = win[:end], true
		}
	}
	at, which, _ := m.findString(win, 0, limited)
	if n > 0 && at >= n {
		at, limited = -1, true
	}
	s.answer0 = s.total - int64(len(delta))
	switch {
	case at >= 0 && which < len(s.p.tab.tclose.list):
		closer := s.p.tab.tclose.list[which]
		s.emitReasoning(delta[:at])
		s.impliedWarn(closer, s.answer0+int64(at))
		s.tstate = tAnswer
		rest := delta[at+len(closer):]
		s.answer0 = s.total - int64(len(rest))
		if rest != "" {
			s.m.feed(rest)
		}
	case at >= 0 || limited:
		s.tstate = tAnswer
		s.m.feed(delta)
	default:
		return false
	}
	return true
}

// impliedWarn reports the closing tag at offset at whose opener was
// implied.
func (s *Scanner) impliedWarn(closer string, at int64) {
	s.warn("", "implied-reasoning-open", fmt.Sprintf("%q at offset %d closes a reasoning block the output did not open; the text before it was read as reasoning whose opener the chat template printed (set DisableImpliedReasoning, or --think-open=false, to read it as content)", closer, at))
}

// startAs returns the state an output whose first byte (after
// whitespace) is c, -1 for none, and does not open with a think tag
// starts in.
func (s *Scanner) startAs(c int) int {
	switch {
	case s.p.cfg.ThinkOpen:
		return tReason
	case c < 0 || s.p.cfg.DisableImpliedReasoning || s.p.tab.startsCall[c]:
		return tAnswer
	}
	return tImplied
}

// findHeld looks for a marker of m in the held text, tbuf. Only a marker
// that starts within the first MaxReasoningHoldBytes counts; limited
// reports that none does, for certain: tbuf is long enough for every such
// marker to be complete, or the first marker starts past them.
func (s *Scanner) findHeld(m *markerSet, final bool) (at, which int, limited bool) {
	win := s.tbuf
	if n := s.p.cfg.MaxReasoningHoldBytes; n > 0 {
		if end := n + m.maxLen() - 1; len(win) >= end {
			win, limited = win[:end], true
		}
	}
	at, which, hold := m.find(win, s.tscan, final || limited)
	if n := s.p.cfg.MaxReasoningHoldBytes; n > 0 && at >= n {
		// The first marker starts past the limit: none starts within
		// it, which is as final as a full window.
		return -1, -1, true
	}
	if at < 0 {
		s.tscan = min(hold, len(win))
		return -1, -1, limited
	}
	return at, which, limited
}

// unclosed reports the opening reasoning block still open at the end.
func (s *Scanner) unclosed() {
	s.res.UnclosedReasoning = true
	s.warn("", "unclosed-reasoning", "the reasoning block was still open at the end of the output; all of it is reasoning and there is no answer")
}

// holdsCall reports whether text, read as an answer on its own, holds a
// call (accepted or rejected).
func (s *Scanner) holdsCall(text []byte) bool {
	t := &Scanner{p: s.p, whole: true}
	t.tstate = tAnswer
	t.eng = newEngine(t)
	t.m = t.eng
	t.m.feed(string(text))
	t.m.close()
	return len(t.res.Calls)+len(t.res.Rejected) > 0
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
