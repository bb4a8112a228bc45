// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

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
	fastImplied       // text held while it may be reasoning whose opener was implied
)

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
	case fastImplied:
		// fastBody for the text think holds: appended to tbuf.
		if n := len(s.body); n < s.fastLim {
			s.body = s.body[:n+1]
			s.body[n] = c
			return nil, true
		}
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
	if mode != fastContent && mode != fastText && mode != fastBody && mode != fastImplied {
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
	case fastBody, fastImplied:
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
	case fastImplied:
		if n := len(s.body) - len(s.tbuf); n > 0 {
			s.tbuf = s.tbuf[:len(s.body)]
			s.total += int64(n)
			s.tscan = len(s.tbuf)
		}
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
	if s.tstate == tImplied && s.tscan == len(s.tbuf) && len(s.tbuf) > 0 && !s.closed && !s.whole {
		// think's hold: text with no byte that may start a closing tag,
		// a call marker or an opener is only kept. The general path
		// runs again at the end of the window findHeld decides on.
		s.fast, route = fastImplied, &s.p.tab.impliedRoute
		s.body = s.tbuf
		s.fastLim = cap(s.tbuf)
		if n := s.p.cfg.MaxReasoningHoldBytes; n > 0 {
			s.fastLim = min(s.fastLim, n+s.p.tab.timplied.maxLen()-2)
		}
	}
	if s.fast != fastNone && s.fast != fastBody && s.fast != fastImplied && s.evText == nil {
		s.evText = []Event{{Kind: EventContent}, {Kind: EventContent}}
	}
	if s.fast != fastBody && s.fast != fastImplied && s.body != nil {
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
