// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

// maxHeldRaw bounds the model text a streaming text filter keeps after a
// call it had announced was withdrawn, for the error that ends the stream.
const maxHeldRaw = 4 << 10

// textFilter reads a text model's output: the backend's text goes through
// a textcall scanner, which splits reasoning off and reads the calls of
// the provider's family out of it.
//
// A non-streaming client gets whole calls only: a call that turns out
// broken is content, with a warning. A streaming client gets each call as
// soon as its name is in and its arguments as they are written
// ([textcall.Config.StreamArguments]). Such a call can still turn out
// broken when its text ends; the client has seen it by then and cannot
// un-see it, so the stream ends with the API's error event instead of a
// half call the agent might execute, and the error carries the model's
// text from there (at most maxHeldRaw bytes). Every call's arguments are
// checked against its tool's input schema when the call ends: an invalid
// call is kept as the model wrote it, with a warning, so that the agent
// can answer it.
type textFilter struct {
	tp *textcall.Parser
	// sc is tp's scanner, made when the first text comes (see scanner):
	// a whole answer with plain text needs none (see plainTurn).
	sc     *textcall.Scanner
	stream bool
	defs   map[string]*tool.Definition
	cache  *schema.Cache
	warns  *[]tool.Warning

	next   int         // the next client call index
	idx    map[int]int // scanner call index -> client index
	native map[int]int // backend call index -> client index
	open   int         // client index of the open scanner call, or -1
	name   string      // its tool
	args   []byte      // its arguments so far
	calls  int         // calls sent

	drained bool
	broken  string // why the stream ended, once a sent call was withdrawn
	raw     strings.Builder
}

// newTextFilter returns the filter of a turn of provider p for request r.
// answer makes all text answer (pass 2 of two passes: the reasoning was
// closed before).
func newTextFilter(p *Provider, r *Request, cache *schema.Cache, warns *[]tool.Warning, answer bool) (*textFilter, error) {
	tp, calls, err := textParser(p, r, answer)
	if err != nil {
		return nil, err
	}
	f := &textFilter{stream: r.Stream, cache: cache, warns: warns, open: -1, tp: tp}
	if len(calls) > 0 {
		f.defs = make(map[string]*tool.Definition, len(calls))
		for i := range calls {
			f.defs[calls[i].Name] = &calls[i]
		}
	}
	*warns = append(*warns, tp.Warnings()...)
	return f, nil
}

// textParser returns the text parser of a turn of provider p for request
// r (from p's cache), as newTextFilter uses it, and the tools it reads
// calls of: none when it reads none.
func textParser(p *Provider, r *Request, answer bool) (*textcall.Parser, []tool.Definition, error) {
	family := p.ToolParser
	cfg := textcall.Config{
		ThinkTag: p.ThinkTag, ThinkOpen: p.ThinkOpen && !answer,
		// The strict reading: an answer streams from its first byte. A
		// template that prints the opener itself is what think_open says;
		// without it such output warns stray-reasoning-close.
		DisableImpliedReasoning: true,
		DisableReasoning:        answer || p.Parsing != ParsingThinkTags,
		DiscardText:             true,
		StreamArguments:         r.Stream,
	}
	offered := offeredTools(r)
	switch {
	case family == "":
		// think_tags with native calls: only the reasoning is read here.
		family, cfg.DisableCalls = "hermes", true
	case len(offered) == 0:
		// No tools, or tool_choice none: a call the model prints anyway
		// is its text.
		cfg.DisableCalls = true
	default:
		cfg.Tools = offered
	}
	build := func(tools []tool.Definition) (*textcall.Parser, error) {
		c := cfg
		if len(c.Tools) > 0 {
			c.Tools = tools
		}
		return textcall.New(family, &c)
	}
	var tp *textcall.Parser
	var err error
	if p.parsers != nil {
		tp, err = p.parsers.get(parserKey{answer: answer, stream: r.Stream, noCalls: cfg.DisableCalls}, cfg.Tools, build)
	} else {
		tp, err = build(cfg.Tools)
	}
	if err != nil {
		return nil, nil, err
	}
	return tp, cfg.Tools, nil
}

// offeredTools are the tools the model may call: none for tool_choice
// none, the named one for a named choice, else all.
func offeredTools(r *Request) []tool.Definition {
	if r.Choice == nil {
		return r.Tools
	}
	switch r.Choice.Mode {
	case tool.ChoiceNone:
		return nil
	case tool.ChoiceTool:
		for _, d := range r.Tools {
			if d.Name == r.Choice.Name {
				return []tool.Definition{d}
			}
		}
		return nil
	}
	return r.Tools
}

func (f *textFilter) Feed(e Event, emit func(Event) error) error {
	switch e.Kind {
	case EventText:
		return f.scan(f.scanner().Feed(e.Text), emit)
	case EventReasoning:
		if f.broken != "" {
			return nil
		}
		if err := f.closeCall(emit); err != nil {
			return err
		}
		return emit(e)
	case EventCall, EventArguments, EventCallEnd:
		// Native calls of a backend that has some after all: numbered
		// after the calls read from the text.
		if f.broken != "" {
			return nil
		}
		if err := f.closeCall(emit); err != nil {
			return err
		}
		if e.Kind == EventCall {
			if f.native == nil {
				f.native = map[int]int{}
			}
			f.native[e.Index] = f.next
			f.next++
			f.calls++
		}
		ci, ok := f.native[e.Index]
		if !ok {
			return nil
		}
		e.Index = ci
		return emit(e)
	case EventUsage, EventFinish, EventError:
		if err := f.drain(emit); err != nil {
			return err
		}
		if f.broken != "" {
			return nil
		}
		if e.Kind == EventFinish && f.calls > 0 && e.Finish == FinishStop {
			e.Finish = FinishToolCalls
		}
		return emit(e)
	}
	if f.broken != "" {
		return nil
	}
	return emit(e)
}

func (f *textFilter) Close(emit func(Event) error) error { return f.drain(emit) }

// scanner returns the filter's scanner, made at the first call.
func (f *textFilter) scanner() *textcall.Scanner {
	if f.sc == nil {
		f.sc = f.tp.NewScanner()
	}
	return f.sc
}

// plainTurn reports whether the filter, not yet fed, would hand on evs, a
// whole pass of a client that does not stream, as they are but for how
// its text is cut and where text held for a while (leading white space)
// falls among the reasoning: no call and no error among them, all text
// before the turn's end and plain ([textcall.Parser.Plain]), for which
// the scanner reads it all as answer and warns of nothing. The client's
// collector keeps text and reasoning apart, in order each, so it makes
// the same turn of either: the caller may then skip the filter, and the
// scanner is never made.
func (f *textFilter) plainTurn(evs []Event) bool {
	if f.stream || f.sc != nil || f.drained || !f.tp.Plain("") {
		// Plain("") asks of the parser itself: the scanner of one that
		// starts inside the reasoning has to say so even of no text.
		return false
	}
	ended := false
	for i := range evs {
		switch evs[i].Kind {
		case EventText:
			if ended || !f.tp.Plain(evs[i].Text) {
				return false
			}
		case EventCall, EventArguments, EventCallEnd, EventError:
			return false
		case EventUsage, EventFinish:
			ended = true
		}
	}
	return true
}

// passesOn reports whether Feed now hands every event but text (reasoning
// from the backend, a native call's arguments) to emit as it is: no call
// read from the text is open to be closed first, none was withdrawn, and
// the backend's turn has not ended.
func (f *textFilter) passesOn() bool { return f.open < 0 && f.broken == "" && !f.drained }

// feedText is Feed of the text event text for a caller that writes the
// client's text itself (the same-API fast path): when the filter would
// emit that very text as one text event and nothing else, as it does for
// answer text past the reasoning with no byte that may start a tag, it
// emits nothing and reports same; the caller writes it. Otherwise it
// emits what Feed would: text the scanner held before, reasoning, a
// shorter piece while it holds the start of a possible tag.
//
// The decision is the scanner's own, made on each text: a think tag may
// open again later in the answer (interleaved reasoning), so no state of
// the filter makes all later text the identity.
func (f *textFilter) feedText(text []byte, emit func(Event) error) (same bool, err error) {
	s := string(text)
	evs := f.scanner().Feed(s)
	if len(evs) == 1 && evs[0].Kind == textcall.EventContent && evs[0].Text == s && f.broken == "" && f.open < 0 {
		return true, nil
	}
	return false, f.scan(evs, emit)
}

// drain ends the scanner once, at the backend's end of turn.
func (f *textFilter) drain(emit func(Event) error) error {
	if f.drained {
		return nil
	}
	f.drained = true
	sc := f.scanner()
	if err := f.scan(sc.Close(), emit); err != nil {
		return err
	}
	if err := f.closeCall(emit); err != nil {
		return err
	}
	for i, c := range sc.Result().Rejected {
		*f.warns = append(*f.warns, tool.Warning{
			Pointer: "/rejected/" + strconv.Itoa(i), Code: "unknown-tool-call",
			Message: fmt.Sprintf("dropped: the model called %q, which was not offered, with arguments %s", c.Name, clipUTF8(string(c.Arguments), 1024)),
		})
	}
	if f.broken != "" {
		msg := f.broken
		if f.raw.Len() > 0 {
			msg += "; the model's text from there: " + f.raw.String()
		}
		return emit(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: msg}})
	}
	return nil
}

// scan turns the scanner's events into the client's.
func (f *textFilter) scan(evs []textcall.Event, emit func(Event) error) error {
	for i := range evs {
		ev := &evs[i]
		if f.broken != "" {
			if ev.Kind == textcall.EventContent || ev.Kind == textcall.EventReasoning {
				f.keepRaw(ev.Text)
			}
			continue
		}
		var err error
		switch ev.Kind {
		case textcall.EventContent, textcall.EventReasoning:
			if ev.Text == "" {
				continue
			}
			if err = f.closeCall(emit); err != nil {
				return err
			}
			kind := EventText
			if ev.Kind == textcall.EventReasoning {
				kind = EventReasoning
			}
			err = emit(Event{Kind: kind, Text: ev.Text})
		case textcall.EventCall:
			if err = f.closeCall(emit); err != nil {
				return err
			}
			ci := f.next
			f.next++
			f.calls++
			if f.idx == nil {
				f.idx = map[int]int{}
			}
			f.idx[ev.Index], f.open, f.name, f.args = ci, ci, ev.Name, f.args[:0]
			err = emit(Event{Kind: EventCall, Index: ci, ID: ev.ID, Name: ev.Name})
		case textcall.EventArguments:
			ci, ok := f.idx[ev.Index]
			if !ok || ci != f.open {
				// Arguments of a call already ended: the scanner never
				// does this; refuse rather than corrupt the call.
				return errors.New("gateway: text model arguments out of order")
			}
			f.args = append(f.args, ev.Text...)
			err = emit(Event{Kind: EventArguments, Index: ci, Text: ev.Text})
		case textcall.EventWarning:
			w := *ev.Warning
			*f.warns = append(*f.warns, w)
			if w.Code == "call-withdrawn" && f.stream {
				f.broken = "the model's call could not be read: " + w.Message
				f.open = -1
				continue
			}
			err = emit(Event{Kind: EventWarning, Text: w.Code + ": " + w.Message})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// closeCall ends the open call, checking its arguments against its tool's
// input schema.
func (f *textFilter) closeCall(emit func(Event) error) error {
	if f.open < 0 {
		return nil
	}
	ci := f.open
	f.open = -1
	f.validate(ci)
	return emit(Event{Kind: EventCallEnd, Index: ci})
}

func (f *textFilter) validate(ci int) {
	d := f.defs[f.name]
	if d == nil || len(d.InputSchema) == 0 || f.cache == nil {
		return
	}
	res, err := f.cache.Resolve(d.InputSchema)
	if err != nil {
		return // textcall reported the unreadable schema
	}
	args := f.args
	if len(args) == 0 {
		args = []byte("{}")
	}
	var ve *schema.ValidationError
	if err := res.Validate(args); errors.As(err, &ve) {
		for _, ae := range ve.Errors {
			*f.warns = append(*f.warns, tool.Warning{
				Pointer: "/tool_calls/" + strconv.Itoa(ci) + "/arguments" + ae.Pointer, Code: "invalid-arguments",
				Message: fmt.Sprintf("call %d (%q) does not match the tool's input schema (%s: %s); it is kept as the model wrote it", ci, f.name, ae.Keyword, ae.Expected),
			})
		}
	} else if err != nil {
		*f.warns = append(*f.warns, tool.Warning{Pointer: "/tool_calls/" + strconv.Itoa(ci) + "/arguments", Code: "invalid-arguments",
			Message: fmt.Sprintf("call %d (%q): its arguments could not be checked against the tool's input schema", ci, f.name)})
	}
}

func (f *textFilter) keepRaw(s string) {
	if room := maxHeldRaw - f.raw.Len(); room > 0 {
		f.raw.WriteString(clipUTF8(s, room))
	}
}

// clipUTF8 cuts s to at most n bytes at a rune boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
