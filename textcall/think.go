// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

// Where the reasoning split stands.
const (
	tStart  = iota // at the start of the output: a think tag may open
	tReason        // inside the opening reasoning block
	tAnswer        // past it: everything goes to the machine
)

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
