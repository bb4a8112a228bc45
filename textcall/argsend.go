// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"errors"
	"fmt"
)

// This file sends what an argStream reads: it announces each call, sends
// its arguments as they arrive, and when the body ends settles the calls
// announced against the calls the body really holds.

// streamArgs reads the body of the engine's call in progress up to end
// (an offset in buf); see Scanner.streamArgs.
func (e *engine) streamArgs(end int) {
	if e.as != nil {
		e.s.streamArgs(e.as, e.buf[e.bstart:], end-e.bstart)
	}
}

// settle ends the streaming of the engine's call in progress; see
// Scanner.settle.
func (e *engine) settle(calls []rawCall, at int64, why error) []rawCall {
	a := e.as
	e.as = nil
	return e.s.settle(a, calls, at, why)
}

// abandon withdraws the engine's calls in progress when their body is
// given up on without being read (too large, or no call after all).
func (e *engine) abandon(why string) {
	if e.as != nil {
		e.settle(nil, 0, errors.New(why))
	}
}

// streamArgs reads body[:end] with a and sends what it can: each call's
// start once its name is known and its arguments have begun, then each
// new piece of the arguments.
func (s *Scanner) streamArgs(a *argStream, body []byte, end int) {
	for a.pos < end && a.live() {
		from := a.pos
		a.advance(body, end)
		s.sendArgs(a)
		if a.pos == from {
			// The head needs more text.
			break
		}
	}
}

// sendArgs announces a's current call when it can be and sends the
// arguments read since the last call.
func (s *Scanner) sendArgs(a *argStream) {
	if !a.announced {
		if !a.haveName || !a.argsSeen || a.st == asDead || a.blocked || len(a.args) == 0 {
			return
		}
		if s.p.offered != nil && !s.p.offered[a.name] && !s.p.cfg.AllowUnknownTools {
			// A rejected call is never announced.
			a.st = asDead
			return
		}
		a.announced = true
		a.index = s.streamIndex
		s.streamIndex++
		n := s.calls
		s.calls++
		a.callID = s.callID(n, a.id)
		s.ev = append(s.ev, Event{Kind: EventCall, Index: a.index, ID: a.callID, Name: a.name})
	}
	if len(a.args) > a.sent {
		// args is append-only (see appendOnlyString), so the event's
		// text can be cut from it without a copy.
		s.ev = append(s.ev, Event{Kind: EventArguments, Index: a.index, Text: appendOnlyString(a.args[a.sent:])})
		a.sent = len(a.args)
	}
}

// settle ends the streaming of a body once it has been read whole into
// calls, and returns the calls still to report. The calls announced
// while it streamed in must be the first calls found, in order, each with
// the arguments sent as a prefix of its own: those are reported here,
// with the rest of their arguments. From the first that is not, the
// announced calls are withdrawn, each with a warning saying why, and the
// calls found from there on are left to be reported as new ones.
func (s *Scanner) settle(a *argStream, calls []rawCall, at int64, why error) []rawCall {
	if a == nil {
		return calls
	}
	list := a.prev
	if a.announced {
		list = append(list, sentCall{index: a.index, callID: a.callID, name: a.name, args: a.args, sent: a.sent})
	}
	for j, sc := range list {
		var bad error
		switch {
		case j >= len(calls):
			bad = why
			if bad == nil {
				bad = fmt.Errorf("the call was not found")
			}
		case calls[j].name != sc.name:
			bad = fmt.Errorf("it names %q", calls[j].name)
		case !bytes.HasPrefix(calls[j].args, sc.args[:sc.sent]):
			bad = fmt.Errorf("its arguments are not the ones sent")
		default:
			s.reportCall(calls[j], sc.callID, at, &sc)
			continue
		}
		for _, w := range list[j:] {
			s.warn("", "call-withdrawn", fmt.Sprintf("call %d (%q), announced while its arguments streamed in, turned out not to be a valid call: %v; it is not among the calls", w.index, w.name, bad))
		}
		return calls[j:]
	}
	return calls[len(list):]
}
