// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/toolgate/toolgate/tool"
)

// A turn is one client request's answer: the backend passes it takes and
// the filter that turns the backend's events into the client's.
type turn struct {
	h   *Handler
	req *Request // the client's request
	p   *Provider
	out *Outbound
	s   *served
	// warns are what the filters noticed: calls salvaged, dropped or
	// invalid, for the x-toolgate-warnings header (or trailer).
	warns []tool.Warning
	// read is the backend's whole answer when the same-API fast path
	// read it and left it to the decoder (see [turn.readWholeSame]).
	read []byte
}

// run reads the backend's response resp and hands the client's events to
// emit, in order, calling flush after each batch the backend sent (a
// streaming client then sees them at once). It returns the first error of
// the backend's stream or of emit.
func (t *turn) run(ctx context.Context, resp *http.Response, emit func(Event) error, flush func() error) error {
	if t.h.med != nil {
		return t.runMediated(ctx, resp, emit, flush)
	}
	return t.runPass(ctx, resp, emit, flush)
}

// runPass reads one backend response: one pass, or two for a provider
// that caps reasoning with two passes.
func (t *turn) runPass(ctx context.Context, resp *http.Response, emit func(Event) error, flush func() error) error {
	if t.out.base != nil {
		return t.runTwoPass(ctx, resp, emit, flush)
	}
	f, err := t.filter()
	if err != nil {
		return err
	}
	return t.pump(resp, f, emit, flush)
}

// pump reads one backend pass through filter f.
func (t *turn) pump(resp *http.Response, f eventFilter, emit func(Event) error, flush func() error) error {
	if t.out.whole && !eventStream(resp) {
		return t.pumpWhole(resp, f, emit, flush)
	}
	dec, _ := NewStreamDecoder(t.p.API)
	fr := &flushingReader{r: resp.Body, flush: flush}
	err := pump(fr, dec, t.h.cfg.MaxEventBytes, func(evs []Event) error {
		for i := range evs {
			t.unmap(&evs[i])
			if err := f.Feed(evs[i], emit); err != nil {
				return err
			}
		}
		return fr.written()
	})
	if err != nil {
		return err
	}
	if err := f.Close(emit); err != nil {
		return err
	}
	return flush()
}

// maxFlushDelay bounds how long written events wait for a flush while the
// backend keeps sending without pause.
const maxFlushDelay = 2 * time.Millisecond

// flushingReader coalesces the client's writes: events written are
// flushed when the backend's stream is read again, that is, before a
// read that may block, instead of one write(2) per event. The first
// event is never held: it goes out before the next read, and nothing is
// held longer than maxFlushDelay (or than net/http's response buffer,
// a few KiB, which writes itself out when full).
type flushingReader struct {
	r     io.Reader
	flush func() error
	since time.Time // when the oldest unflushed event was written; zero: none
}

func (fr *flushingReader) Read(p []byte) (int, error) {
	if !fr.since.IsZero() {
		fr.since = time.Time{}
		if err := fr.flush(); err != nil {
			return 0, err
		}
	}
	return fr.r.Read(p)
}

// written notes that events were written, flushing them if the oldest has
// waited maxFlushDelay.
func (fr *flushingReader) written() error {
	now := time.Now()
	if fr.since.IsZero() {
		fr.since = now
		return nil
	}
	if now.Sub(fr.since) >= maxFlushDelay {
		fr.since = time.Time{}
		return fr.flush()
	}
	return nil
}

// unmap gives a call the client's name for the tool when lowering renamed
// it for the backend.
func (t *turn) unmap(e *Event) {
	if e.Kind == EventCall && t.out.Names != nil {
		if orig, ok := t.out.Names.Unmap(e.Name); ok {
			e.Name = orig
		}
	}
}

// An eventFilter turns one backend pass's events into the client's.
// Feed takes the backend's events in order and hands zero or more events
// to emit for each; Close is called once the backend's stream has ended
// well and emits what the filter still holds.
type eventFilter interface {
	Feed(e Event, emit func(Event) error) error
	Close(emit func(Event) error) error
}

// filter returns the filter for the turn's provider: a text filter for a
// text model (a tool parser family, or reasoning in think tags), the
// identity for a backend that gives reasoning and calls as such.
func (t *turn) filter() (eventFilter, error) {
	if t.p.ToolParser == "" && t.p.Parsing != ParsingThinkTags {
		return passThrough{}, nil
	}
	return newTextFilter(t.p, t.req, t.h.schemas, &t.warns, false)
}

// answerFilter returns the filter for an answer that follows reasoning
// already closed (pass 2 of two passes): text is the answer and the calls
// in it, never reasoning.
func (t *turn) answerFilter() (eventFilter, error) {
	if t.p.ToolParser == "" {
		return passThrough{}, nil
	}
	return newTextFilter(t.p, t.req, t.h.schemas, &t.warns, true)
}

// passThrough is the identity filter.
type passThrough struct{}

func (passThrough) Feed(e Event, emit func(Event) error) error { return emit(e) }
func (passThrough) Close(func(Event) error) error              { return nil }
