// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/tool"
)

// spec is what a family declares about its output: where calls start and
// end and how the text between is read. The engine does the rest.
type spec struct {
	name    string
	aliases []string
	openers []opener
	// drop lists markers removed from content without a trace (section
	// markers around calls, end-of-turn tokens).
	drop    []string
	idStyle IDStyle
	// ownReasoning turns the think-tag split off: the family marks
	// reasoning its own way.
	ownReasoning bool
	// machine replaces the engine for families that are not marker,
	// body, marker (Harmony's channels).
	machine func(*Scanner) machine
}

// end is how a call body ends.
type endKind uint8

const (
	endMarker endKind = iota // at one of ends
	endJSON                  // where the JSON value that starts it ends
	endPython                // where the Python list that starts it ends
)

// opener is one way a call starts.
type opener struct {
	// marker opens the call; it is not part of the body. Empty for
	// openers that are a bare value at the start of the answer.
	marker string
	// atStart restricts the opener to the start of the answer (after
	// whitespace), or after an earlier call when chain is set.
	atStart bool
	// trigger, for an atStart opener without marker, lists the bytes
	// that start the body (and are part of it).
	trigger string
	end     endKind
	// ends are the markers that close the body (consumed); next are
	// markers that end it without being consumed: the opener of the next
	// call when the model forgot a close.
	ends, next []string
	// eosOK lets the end of output close the body.
	eosOK bool
	// prefix lets a name precede an endJSON value.
	prefix bool
	// chain lets another atStart call follow this one, after whitespace
	// or ';'.
	chain bool
	// quiet makes a body that is not a call content without a warning
	// (a JSON answer is not a malformed call).
	quiet bool
	// streamArgs marks a body that is a JSON call object, whose
	// arguments Config.StreamArguments sends as they arrive.
	streamArgs bool
	// argsHead, set with streamArgs for a body that is a name and then
	// the arguments object, finds the name (and the model's id) and the
	// object's '{' in the body so far; see argStream.head.
	argsHead func(body []byte) (name, id string, at int)
	// argsXML, set with streamArgs, marks the Qwen3-Coder XML form:
	// xmlBody for a body holding <function=…> elements, xmlBare for one
	// that starts after "<function=".
	argsXML uint8
	parse   func(c *callCtx, body []byte) ([]rawCall, error)
}

// rawCall is a call read from a body: its name, its arguments as a checked
// JSON object (nil for none) and the model's own id, if any.
type rawCall struct {
	name string
	args []byte
	id   string
	// warns are about the arguments; their pointers start at
	// "/arguments" and are moved under the call when it is reported.
	warns []tool.Warning
}

// errNotCall is returned by body parsers for text that is not a call at
// all; the body becomes content, with a warning unless the opener is quiet.
var errNotCall = errors.New("not a tool call")

// skipError is returned by body parsers for a call that is recognisably a
// call but cannot be used (Kimi's id without an index): its text is
// dropped, with an invalid-call warning, and the calls around it are kept.
type skipError struct{ why string }

func (e *skipError) Error() string { return e.why }

// cutError is returned with the calls read before a body broke off: the
// text from at on was not read and becomes content.
type cutError struct {
	at  int
	err error
}

func (e *cutError) Error() string { return e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

// callCtx is what a body parser may use.
type callCtx struct {
	s *Scanner
	// cut is set when the output ended before the body was closed.
	cut     bool
	pending []tool.Warning
}

// argWarn records a warning about the arguments of the call being read;
// take hands the recorded warnings to that call.
func (c *callCtx) argWarn(pointer, code, msg string) {
	c.pending = append(c.pending, tool.Warning{Pointer: pointer, Code: code, Message: msg})
}

func (c *callCtx) take() []tool.Warning {
	w := c.pending
	c.pending = nil
	return w
}

// engine is the machine shared by every marker-delimited family.
type engine struct {
	s   *Scanner
	sp  *spec
	max int
	// content markers: openers' markers first, then drop markers
	markers *markerSet
	kinds   []int // per marker: opener index, kindDrop, kindStray or kindThink
	starts  *markerSet
	startOp []int // per atStart marker: opener index
	ends    []*markerSet
	endLen  []int // per opener: its longest end marker

	buf    []byte
	base   []byte // the array buf was cut from, for reuse
	off    int64  // answer offset of buf[0]
	state  int
	scan   int // where the current state resumes scanning
	op     int // opener of the body in progress
	mstart int // offset in buf of the opener's marker
	bstart int // offset in buf of the body
	ve     valueEnd
	// cur is the delta buf was filled from, when buf holds nothing else;
	// buf[i] is cur[curAt+i].
	cur   string
	curAt int
	vend  int // end of the value in buf, or -1
	// as streams the arguments of the body in progress
	// (Config.StreamArguments); nil when they are sent at its end.
	as      *argStream
	asSpare *argStream
}

// Kinds of content markers that are not openers.
const (
	kindDrop  = -1
	kindStray = -2
	kindThink = -3
)

const (
	sStart      = iota // at the start of the answer: atStart openers may fire
	sSep               // after a chained call: ';' and whitespace are dropped
	sContent           // text, looking for markers
	sBody              // inside a call
	sReason            // inside a reasoning block that opened in the answer
	sReasonCall        // in such a block, held from a call marker on
)

// tables are what a Parser's scanners share, built once by New and only
// read afterwards.
type tables struct {
	// reasoning split; nil when it is off
	topen, tclose *markerSet
	// content markers: openers' markers, then drop, think and stray ones
	markers *markerSet
	kinds   []int // per marker: opener index, kindDrop, kindStray or kindThink
	starts  *markerSet
	startOp []int // per atStart marker: opener index
	ends    []*markerSet
	endLen  []int // per opener: its longest end marker
	state   int   // the engine's first state
	// routes for the Scanner's one-byte fast path: per byte, the fast
	// path it may take in plain text, and in the body of each opener
	// that ends at a marker (nil for the others).
	contentRoute       [256]uint8
	bodyRoute          []*[256]uint8
	contentRouteNoKeep [256]uint8
	// heldRoute[b], for a byte b that starts a marker but is not one,
	// routes the byte after a held b: fastHeld when it neither continues
	// a marker that starts with b nor starts one itself, so that b and it
	// are plain text.
	heldRoute [256]*[256]uint8
	// reasonRoute routes a byte of the reasoning at the start of the
	// output: fastReason unless it may start the closing tag.
	reasonRoute [256]uint8
	// impliedRoute routes a byte of text held while it may be reasoning
	// whose opener was implied: fastImplied unless it may start a marker
	// that decides (timplied).
	impliedRoute [256]uint8
	// treason is what ends the opening reasoning block: its closers,
	// then the markers of the family's calls (callMarks); timplied is
	// what ends text whose opener may have been implied: closers, call
	// markers, then openers.
	treason, timplied *markerSet
	// startsCall marks the first bytes of the family's openers that fire
	// only at the start of the answer: an output opening with one is an
	// answer, never implied reasoning.
	startsCall [256]bool
}

func buildTables(sp *spec, cfg *Config) *tables {
	t := &tables{}
	if !cfg.DisableReasoning && !sp.ownReasoning {
		if cfg.ThinkTag != "" {
			t.topen = newMarkerSet("<" + cfg.ThinkTag + ">")
			t.tclose = newMarkerSet("</" + cfg.ThinkTag + ">")
		} else {
			t.topen = newMarkerSet("<think>", "<thinking>")
			t.tclose = newMarkerSet("</think>", "</thinking>")
		}
	}
	var list, starts []string
	t.state = sContent
	for i, o := range sp.openers {
		if o.atStart {
			t.state = sStart
			if o.marker != "" {
				starts = append(starts, o.marker)
				t.startOp = append(t.startOp, i)
			}
		} else {
			list = append(list, o.marker)
			t.kinds = append(t.kinds, i)
		}
		ends := newMarkerSet(append(append([]string(nil), o.ends...), o.next...)...)
		t.ends = append(t.ends, ends)
		n := 0
		for _, m := range ends.list {
			n = max(n, len(m))
		}
		t.endLen = append(t.endLen, n)
	}
	for _, d := range sp.drop {
		list = append(list, d)
		t.kinds = append(t.kinds, kindDrop)
	}
	if t.tclose != nil {
		// A reasoning block later in the answer (interleaved thinking)
		// is reasoning too. A closing tag with no opener means the
		// template printed the opener and Config.ThinkOpen was not set.
		for _, d := range t.topen.list {
			list = append(list, d)
			t.kinds = append(t.kinds, kindThink)
		}
		for _, d := range t.tclose.list {
			list = append(list, d)
			t.kinds = append(t.kinds, kindStray)
		}
	}
	t.markers = newMarkerSet(list...)
	t.starts = newMarkerSet(starts...)
	for _, o := range sp.openers {
		if o.atStart {
			for i := range len(o.trigger) {
				t.startsCall[o.trigger[i]] = true
			}
			if o.marker != "" {
				t.startsCall[o.marker[0]] = true
			}
		}
	}
	if t.tclose != nil {
		// The drop markers count too: a section marker that opens a
		// family's calls (DeepSeek's, Kimi's) ends the reasoning with them.
		rlist := append(append([]string(nil), t.tclose.list...), callMarks(sp, false)...)
		t.treason = newMarkerSet(append(rlist, sp.drop...)...)
		// Any call marker ends held text: a call is sent once its text
		// is complete, never held to the end.
		list := append(append([]string(nil), t.tclose.list...), callMarks(sp, true)...)
		t.timplied = newMarkerSet(append(list, t.topen.list...)...)
	}
	for c := range 256 {
		if !t.markers.first[c] {
			t.contentRoute[c] = fastContent
			t.contentRouteNoKeep[c] = fastText
		}
	}
	if t.tclose != nil {
		for c := range 256 {
			if !t.timplied.first[c] {
				t.impliedRoute[c] = fastImplied
			}
			if !t.treason.first[c] {
				t.reasonRoute[c] = fastReason
			}
		}
	}
	for b := range 256 {
		if !t.markers.first[b] {
			continue
		}
		var second [256]bool
		whole := false
		for _, m := range t.markers.list {
			if m[0] != byte(b) {
				continue
			}
			if len(m) == 1 {
				whole = true
				break
			}
			second[m[1]] = true
		}
		if whole {
			continue
		}
		r := new([256]uint8)
		for c := range 256 {
			if !second[c] && !t.markers.first[c] {
				r[c] = fastHeld
			}
		}
		t.heldRoute[b] = r
		// In text, the byte itself is held without the engine.
		t.contentRoute[b] = fastHold
		t.contentRouteNoKeep[b] = fastHold
	}
	for k, o := range sp.openers {
		var r *[256]uint8
		if o.end == endMarker {
			r = new([256]uint8)
			for c := range 256 {
				if !t.ends[k].first[c] {
					r[c] = fastBody
				}
			}
		}
		t.bodyRoute = append(t.bodyRoute, r)
	}
	return t
}

// callMarks returns the markers that open the family's calls; with quiet
// unset only those strong enough to end a reasoning block that never
// closed, without the quiet ones (xlam's code fences, which reasoning
// often holds).
func callMarks(sp *spec, quiet bool) []string {
	var list []string
	for _, o := range sp.openers {
		if o.marker != "" && (quiet || !o.quiet) {
			list = append(list, o.marker)
		}
	}
	return list
}

// maxLen returns the length of m's longest marker.
func (m *markerSet) maxLen() int {
	n := 0
	for _, k := range m.list {
		n = max(n, len(k))
	}
	return n
}

func newEngine(s *Scanner) *engine {
	t := s.p.tab
	return &engine{
		s: s, sp: s.p.sp, max: s.p.cfg.MaxCallBytes,
		markers: t.markers, kinds: t.kinds, starts: t.starts, startOp: t.startOp,
		ends: t.ends, endLen: t.endLen, state: t.state,
	}
}

func (e *engine) feed(s string) {
	if e.state == sContent && len(e.buf) == 0 {
		// Fast path: text with no byte that can start a marker goes out
		// as it came, without a copy.
		i := e.markers.nextString(s, 0)
		if i < 0 {
			e.s.emitContent(s)
			e.off += int64(len(s))
			return
		}
		e.s.emitContent(s[:i])
		e.off += int64(i)
		s = s[i:]
	}
	if e.state == sBody && e.as == nil && e.scan == len(e.buf) && e.sp.openers[e.op].end == endMarker && e.ends[e.op].nextString(s, 0) < 0 {
		// Fast path: a delta inside a call that holds no byte starting
		// an end marker cannot end it. Not while the start of an end
		// marker is held: the delta may complete it.
		if e.cur != "" {
			e.cur = ""
		}
		e.grow(s)
		e.scan = len(e.buf)
		if e.max <= 0 || e.scan-e.bstart <= e.max {
			return
		}
		e.run(false)
		return
	}
	if len(e.buf) == 0 {
		e.buf = e.base[:0]
		// buf will hold exactly s: content can be cut from s without a
		// copy until more is appended.
		e.cur, e.curAt = s, 0
	} else {
		e.cur = ""
	}
	e.grow(s)
	e.run(false)
}

// grow appends s to buf, remembering the largest array so that an empty
// buf starts over at its beginning rather than allocating again.
func (e *engine) grow(s string) {
	if n := len(e.buf); n+len(s) <= cap(e.buf) {
		// In place, without rewriting buf's pointer (and paying a
		// write barrier for it while the GC runs).
		e.buf = e.buf[:n+len(s)]
		copy(e.buf[n:], s)
		return
	}
	e.buf = append(e.buf, s...)
	if cap(e.buf) > cap(e.base) {
		e.base = e.buf[:0]
	}
}

func (e *engine) close() { e.run(true) }

// consume drops the first n bytes of buf.
func (e *engine) consume(n int) {
	e.off += int64(n)
	e.curAt += n
	if n >= len(e.buf) {
		e.buf = e.buf[:0]
		e.cur = ""
	} else {
		e.buf = e.buf[n:]
	}
	e.scan = 0
}

// content emits buf[:n] as content and consumes it.
func (e *engine) content(n int) {
	if n > 0 {
		e.emitContent(0, n)
		e.consume(n)
	}
}

// emitContent emits buf[a:b] as content, cut from the delta it came in
// when possible.
func (e *engine) emitContent(a, b int) {
	if e.cur != "" {
		e.s.emitContent(e.cur[e.curAt+a : e.curAt+b])
		return
	}
	e.s.emitContentBytes(e.buf[a:b])
}

// emitReasoning is emitContent for reasoning.
func (e *engine) emitReasoning(a, b int) {
	if e.cur != "" {
		e.s.emitReasoning(e.cur[e.curAt+a : e.curAt+b])
		return
	}
	e.s.emitReasoningBytes(e.buf[a:b])
}

func (e *engine) run(final bool) {
	for {
		switch e.state {
		case sStart, sSep:
			// scan remembers the whitespace already skipped, so a long run
			// of it arriving byte by byte is read once.
			i := e.scan
			for i < len(e.buf) && (isSpace(e.buf[i]) || e.state == sSep && e.buf[i] == ';') {
				i++
			}
			e.scan = i
			if i == len(e.buf) {
				if final {
					if e.state == sStart {
						e.content(i)
					} else {
						e.consume(i)
					}
				}
				return
			}
			rest := e.buf[i:]
			if !final && e.starts.prefixOf(rest) {
				return
			}
			if k := e.starts.match(rest); k >= 0 {
				e.consume(i)
				e.openBody(e.startOp[k], 0, len(e.starts.list[k]))
				continue
			}
			// A marker opener wins over a bare value: "[TOOL_CALLS]" is
			// not a JSON array.
			if !final && e.markers.prefixOf(rest) {
				return
			}
			if op := e.bareOpener(rest); op >= 0 {
				e.consume(i)
				e.openBody(op, 0, 0)
				continue
			}
			if e.state == sSep {
				e.consume(i)
			}
			e.state = sContent
			e.scan = 0
		case sContent:
			at, which, hold := e.markers.find(e.buf, e.scan, final)
			if at < 0 {
				if final {
					hold = len(e.buf)
				}
				e.content(hold)
				return
			}
			e.content(at)
			k := e.kinds[which]
			n := len(e.markers.list[which])
			if k == kindStray {
				e.s.warn("", "stray-reasoning-close", fmt.Sprintf("%q at offset %d closes a reasoning block that never opened; it was dropped and the text before it kept as content (set ThinkOpen, or --think-open, when the chat template prints the opening tag)", e.markers.list[which], e.s.answer0+e.off))
			}
			if k < 0 {
				e.consume(n)
				if k == kindThink {
					e.state = sReason
				}
				continue
			}
			e.openBody(k, 0, n)
		case sReason:
			t := e.s.p.tab
			at, which, hold := t.treason.find(e.buf, e.scan, final)
			if at < 0 {
				if final {
					hold = len(e.buf)
				}
				if hold > 0 {
					e.emitReasoning(0, hold)
					e.consume(hold)
				}
				if final {
					e.unclosed()
				}
				return
			}
			e.emitReasoning(0, at)
			if which < len(t.tclose.list) {
				e.consume(at + len(t.tclose.list[which]))
				e.state = sContent
				continue
			}
			// A call marker inside the block: held, as think does
			// with the block at the start of the output.
			e.consume(at)
			e.state = sReasonCall
		case sReasonCall:
			if !e.reasonCall(final) {
				return
			}
		case sBody:
			if !e.body(final) {
				return
			}
		}
	}
}

// reasonCall decides on a call marker inside a reasoning block that opened
// in the answer, held at the start of buf, by the rule think applies to
// the block at the start of the output: the block closing makes it all
// reasoning; the output ending first makes the marker end the reasoning
// when a call follows it. It reports whether run should go on.
func (e *engine) reasonCall(final bool) bool {
	m := e.s.p.tab.tclose
	n := e.s.p.cfg.MaxReasoningHoldBytes
	win, limited := e.buf, false
	if n > 0 {
		if end := n + m.maxLen() - 1; len(win) >= end {
			win, limited = win[:end], true
		}
	}
	at, which, hold := m.find(win, e.scan, final || limited)
	if n > 0 && at >= n {
		at, limited = -1, true
	}
	switch {
	case at >= 0:
		e.emitReasoning(0, at)
		e.consume(at + len(m.list[which]))
		e.state = sContent
	case limited:
		e.emitReasoning(0, n)
		e.consume(n)
		e.state = sReason
	case final:
		if !e.s.holdsCall(e.buf) {
			e.emitReasoning(0, len(e.buf))
			e.consume(len(e.buf))
			e.unclosed()
			return false
		}
		e.s.warn("", "reasoning-closed-by-call", fmt.Sprintf("a reasoning block in the answer never closed and a %s call follows in it at offset %d; the call marker ended the reasoning", e.sp.name, e.s.answer0+e.off))
		e.state = sContent
		e.scan = 0
	default:
		e.scan = min(hold, len(win))
		return false
	}
	return true
}

// unclosed reports a reasoning block in the answer still open at the end.
func (e *engine) unclosed() {
	e.s.res.UnclosedReasoning = true
	e.s.warn("", "unclosed-reasoning", "a reasoning block in the answer was still open at the end of the output")
}

// bareOpener returns the atStart opener without marker that rest starts,
// or -1; rest starting with a marker is not a bare value.
func (e *engine) bareOpener(rest []byte) int {
	if e.markers.match(rest) >= 0 {
		return -1
	}
	for k, o := range e.sp.openers {
		if o.atStart && o.marker == "" && indexByte(o.trigger, rest[0]) >= 0 {
			return k
		}
	}
	return -1
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// openBody starts the body of opener k whose marker is buf[m:m+n].
func (e *engine) openBody(k, m, n int) {
	e.state = sBody
	e.op = k
	e.mstart = m
	e.bstart = m + n
	e.scan = e.bstart
	e.ve = valueEnd{python: e.sp.openers[k].end == endPython, prefix: e.sp.openers[k].prefix}
	e.vend = -1
	e.as = nil
	if e.sp.openers[k].streamArgs && e.s.p.cfg.StreamArguments && !e.s.whole {
		if e.asSpare == nil {
			e.asSpare = &argStream{}
		}
		// A fresh struct, so a fresh args buffer: events may still hold
		// strings cut from the last one (see appendOnlyString).
		*e.asSpare = argStream{}
		if h := e.sp.openers[k].argsHead; h != nil {
			e.asSpare.head, e.asSpare.st = h, asHead
		}
		switch e.sp.openers[k].argsXML {
		case xmlBody:
			e.asSpare.st = xSeekFn
			e.asSpare.x.schemas = e.s.p.schemas
		case xmlBare:
			e.asSpare.st = xName
			e.asSpare.x.bare = true
			e.asSpare.x.schemas = e.s.p.schemas
		case xmlGLM:
			e.asSpare.st = gName
			e.asSpare.x.glm = true
			e.asSpare.x.schemas = e.s.p.schemas
		}
		e.as = e.asSpare
	}
}

// body looks for the end of the body in progress and handles it. It
// reports whether the state changed and run should go on.
func (e *engine) body(final bool) bool {
	o := &e.sp.openers[e.op]
	end, after := -1, -1 // body end; where scanning resumes
	unclosed := false
	// limit is the buffer offset past which the body is too large. The
	// search never looks past it (plus an end marker's length), so a
	// body that is too large costs MaxCallBytes to find out, once.
	limit := -1
	if e.max > 0 {
		limit = e.bstart + e.max
	}
	switch o.end {
	case endMarker:
		win, cut := e.buf, false
		if limit >= 0 && len(win) >= limit+e.endLen[e.op] {
			win, cut = win[:limit+e.endLen[e.op]], true
		}
		at, which, hold := e.ends[e.op].find(win, e.scan, final || cut)
		switch {
		case at >= 0 && limit >= 0 && at > limit:
			e.tooLarge(limit)
			return true
		case at >= 0:
			end, after = at, at
			if which < len(o.ends) {
				after = at + len(e.ends[e.op].list[which])
			} else {
				unclosed = true
			}
		case cut || limit >= 0 && hold > limit:
			e.tooLarge(limit)
			return true
		default:
			e.scan = max(hold, e.bstart)
			e.streamArgs(e.scan)
		}
	default:
		if e.vend < 0 {
			win, cut := e.buf[e.bstart:], false
			if limit >= 0 && len(e.buf) >= limit {
				win, cut = e.buf[e.bstart:limit], true
			}
			switch r := e.ve.scan(win, final || cut); r {
			case veFail:
				e.fail(o, final)
				return true
			case veMore:
				if cut {
					e.tooLarge(limit)
					return true
				}
			default:
				e.vend = e.bstart + r
			}
		}
		if e.vend < 0 {
			e.streamArgs(len(e.buf))
		}
		if e.vend >= 0 {
			end, after = e.vend, e.vend
			// A value may be followed by the family's close marker.
			if m := e.ends[e.op]; len(m.list) > 0 {
				j := end
				for j < len(e.buf) && isSpace(e.buf[j]) {
					j++
				}
				rest := e.buf[j:]
				if k := m.match(rest); k >= 0 {
					after = j + len(m.list[k])
				} else if !final && (j == len(e.buf) || m.prefixOf(rest)) {
					return false
				}
			}
		}
	}
	if end < 0 {
		if !final {
			return false
		}
		if !o.eosOK {
			e.fail(o, true)
			return true
		}
		end, after, unclosed = len(e.buf), len(e.buf), true
	}
	e.finish(o, end, after, unclosed)
	return true
}

// finish parses the body buf[bstart:end] and resumes at after.
func (e *engine) finish(o *opener, end, after int, unclosed bool) {
	c := &callCtx{s: e.s, cut: unclosed && end == len(e.buf)}
	at := e.off + int64(e.mstart)
	calls, err := o.parse(c, e.buf[e.bstart:end])
	switch {
	case len(calls) == 0 && err == nil:
		e.settle(nil, at, nil)
		e.s.warn("", "empty-call", fmt.Sprintf("%s at offset %d holds no call", e.what(o), e.s.answer0+at))
	case len(calls) == 0 && isSkip(err):
		e.settle(nil, at, err)
		e.s.warn("", "invalid-call", fmt.Sprintf("%s at offset %d: %v; it is skipped", e.what(o), e.s.answer0+at, err))
	case len(calls) == 0:
		e.settle(nil, at, err)
		e.emitContent(e.mstart, after)
		if !(o.quiet && errors.Is(err, errNotCall)) {
			e.s.warn("", "malformed-call", fmt.Sprintf("%s at offset %d: %v; its text is kept as content", e.what(o), e.s.answer0+at, err))
		}
	default:
		if err != nil {
			e.s.warn("", "partial-call", fmt.Sprintf("%s at offset %d: %v; the %d complete calls before it are kept", e.what(o), e.s.answer0+at, err, len(calls)))
		}
		if unclosed && err == nil {
			e.s.warn("", "unclosed-call", fmt.Sprintf("%s at offset %d was not closed; its complete text was read as a call", e.what(o), e.s.answer0+at))
		}
		for _, rc := range e.settle(calls, at, err) {
			e.s.emitCall(rc, at)
		}
		if ce, ok := errors.AsType[*cutError](err); ok {
			e.emitContent(e.bstart+ce.at, after)
		}
	}
	e.consume(after)
	e.state = sContent
	if o.chain {
		e.state = sSep
	}
}

// fail gives up on the call in progress. When the output ended inside it,
// all of it is content; otherwise its marker is content and the body is
// scanned again as text.
func (e *engine) fail(o *opener, final bool) {
	e.abandon("its text is not a call")
	at := e.s.answer0 + e.off + int64(e.mstart)
	if final {
		if !o.quiet {
			e.s.warn("", "malformed-call", fmt.Sprintf("%s at offset %d: the output ended inside it (cut at the token limit?); its text is kept as content", e.what(o), at))
		}
		e.content(len(e.buf))
		e.state = sContent
		return
	}
	if !o.quiet {
		e.s.warn("", "malformed-call", fmt.Sprintf("%s at offset %d: no call follows the marker; its text is kept as content", e.what(o), at))
	}
	e.content(e.bstart)
	e.state = sContent
}

// tooLarge gives up on a call whose body runs past MaxCallBytes: its
// marker and the first MaxCallBytes of the body are content, unscanned,
// and scanning resumes after them.
func (e *engine) tooLarge(limit int) {
	e.abandon(fmt.Sprintf("it ran past %d bytes", e.max))
	o := &e.sp.openers[e.op]
	e.s.warn("", "call-too-large", fmt.Sprintf("%s at offset %d ran past %d bytes without an end; its first %d bytes are kept as content", e.what(o), e.s.answer0+e.off+int64(e.mstart), e.max, e.max))
	e.content(limit)
	e.state = sContent
}

func (e *engine) what(o *opener) string {
	if o.marker != "" {
		return fmt.Sprintf("the %s call opened by %q", e.sp.name, o.marker)
	}
	return fmt.Sprintf("the %s call", e.sp.name)
}

func isSkip(err error) bool {
	_, ok := errors.AsType[*skipError](err)
	return ok
}
