// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// messagesPassthrough is the same-API fast path of a Messages client in
// front of a Messages backend (see [chatPassthrough]): it writes the
// content_block_delta events of text, thinking and the open call's input
// itself and hands every other event to the decoder.
//
// The decoder reads events with encoding/json, which matches member
// names without regard to case and ignores those it does not know: the
// fast path takes only events whose members are exactly the ones it
// reads (type, index, delta; the delta's type and its one string), so
// that no reading of a name can differ, and leaves strings with a \u
// escape to the decoder, so that no unquoting can.
type messagesPassthrough struct {
	dec  *messagesDecoder
	enc  *messagesEncoder
	fr   *flushingReader
	h    *Handler
	s    *served
	opts strictjson.Options

	// The event being scanned.
	kind   EventKind // EventText, EventReasoning or EventArguments
	index  int
	lit    []byte // the delta's raw string; nil when absent
	litKey []byte // its member's name
	text   []byte // lit unquoted
	tpl    template
	tplK   EventKind
	tplI   int
}

func (m *messagesPassthrough) End() ([]Event, error)        { return m.dec.End() }
func (m *messagesPassthrough) setReader(fr *flushingReader) { m.fr = fr }

// Decode writes data's event to the client and returns no events when
// the fast path can take it, else returns the decoder's answer.
func (m *messagesPassthrough) Decode(name string, data []byte) ([]Event, error) {
	d, enc := m.dec, m.enc
	if !d.started || d.done || !enc.started || enc.ended {
		return d.Decode(name, data)
	}
	m.opts.MaxBytes = -1
	if lit := m.tpl.match(data, &m.opts); lit != nil {
		m.kind, m.index, m.lit = m.tplK, m.tplI, lit
	} else if strictjson.Check(data, &m.opts) != nil || m.scan(data) != nil {
		// What the decoder reads may open or close blocks and calls: no
		// template survives.
		m.tpl.ok = false
		return d.Decode(name, data)
	} else {
		m.tpl.keep(data, m.lit)
		m.tplK, m.tplI = m.kind, m.index
	}
	if bytes.Contains(m.lit, []byte(`\u`)) {
		m.tpl.ok = false
		return d.Decode(name, data)
	}
	var err error
	if m.text, err = strictjson.AppendUnquote(m.text[:0], m.lit); err != nil {
		m.tpl.ok = false
		return d.Decode(name, data)
	}
	// What the decoder and the encoder would do, checked before anything
	// is written.
	switch m.kind {
	case EventText:
		if enc.block < 0 || enc.kind != "text" {
			return m.slow(name, data)
		}
	case EventReasoning:
		if enc.block < 0 || enc.kind != "thinking" {
			return m.slow(name, data)
		}
	case EventArguments:
		if !d.tool[m.index] || !d.calls.open {
			return m.slow(name, data)
		}
	}
	d.n++
	if len(m.text) == 0 {
		return nil, nil
	}
	m.h.noteFast(m.s, m.kind, m.text)
	b := append(enc.buf[:0], `{"type":"content_block_delta","index":`...)
	b = jsonInt(b, int64(enc.block))
	switch m.kind {
	case EventText:
		b = append(b, `,"delta":{"type":"text_delta","text":`...)
	case EventReasoning:
		b = append(b, `,"delta":{"type":"thinking_delta","thinking":`...)
	case EventArguments:
		d.calls.gotArg = true
		b = append(b, `,"delta":{"type":"input_json_delta","partial_json":`...)
	}
	b = appendQuoteBytes(b, m.text)
	b = append(b, "}}"...)
	if err := enc.write("content_block_delta", b); err != nil {
		return nil, err
	}
	return nil, m.fr.written()
}

// noteFast notes what a fast path writes for the audit record, as the
// relay's emit notes the event (see [Handler.note]): the answer's text,
// with CaptureContent, and a call's arguments.
func (h *Handler) noteFast(s *served, kind EventKind, text []byte) {
	if s.reqID == "" || h.cfg.Audit == nil {
		return
	}
	switch kind {
	case EventText:
		if h.cfg.CaptureContent {
			s.answer = append(s.answer, text...)
		}
	case EventArguments:
		s.calls.write(string(text))
	}
}

// slow hands an event the fast path read but cannot take to the decoder.
func (m *messagesPassthrough) slow(name string, data []byte) ([]Event, error) {
	m.tpl.ok = false
	return m.dec.Decode(name, data)
}

// scan reads an event that passed strictjson.Check and returns errSlow
// unless it is a content_block_delta of text, thinking or input JSON
// whose every member is one the decoder reads, by its exact name.
func (m *messagesPassthrough) scan(data []byte) error {
	m.kind, m.index, m.lit = 0, 0, nil
	if strictjson.KindOf(data) != strictjson.Object {
		return errSlow
	}
	typed, delta := false, false
	err := strictjson.Members(data, func(key, v []byte) error {
		switch string(key) {
		case "type":
			if string(v) != `"content_block_delta"` {
				return errSlow
			}
			typed = true
		case "index":
			n, ok := smallIndex(v)
			if !ok {
				return errSlow
			}
			m.index = n
		case "delta":
			if v[0] != '{' {
				return errSlow
			}
			delta = true
			return m.delta(v)
		default:
			return errSlow
		}
		return nil
	})
	if err != nil || !typed || !delta || m.lit == nil || m.kind == 0 {
		return errSlow
	}
	return nil
}

func (m *messagesPassthrough) delta(v []byte) error {
	field := ""
	return strictjson.Members(v, func(key, v []byte) error {
		switch string(key) {
		case "type":
			switch string(v) {
			case `"text_delta"`:
				m.kind, field = EventText, "text"
			case `"thinking_delta"`:
				m.kind, field = EventReasoning, "thinking"
			case `"input_json_delta"`:
				m.kind, field = EventArguments, "partial_json"
			default:
				return errSlow
			}
			if m.lit != nil && string(m.litKey) != field {
				return errSlow
			}
		case "text", "thinking", "partial_json":
			if v[0] != '"' || (field != "" && string(key) != field) {
				return errSlow
			}
			m.lit = v
			m.litKey = append(m.litKey[:0], key...)
		default:
			return errSlow
		}
		return nil
	})
}
