// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// responsesPassthrough is the same-API fast path of a Responses client in
// front of a Responses backend (see [chatPassthrough]): it writes the
// delta events of the open message's text, the open reasoning item's
// summary and the open function call's arguments itself, and hands every
// other event to the decoder.
//
// It takes only events whose members are among those OpenAI sends with a
// delta (type, item_id, delta, summary_index, and sequence_number,
// output_index, content_index, logprobs and obfuscation, which the
// decoder does not read), by their exact names, so that no reading of a
// name can differ (the decoder matches names without regard to case);
// and it leaves strings with a \u escape to the decoder, so that no
// unquoting can.
type responsesPassthrough struct {
	dec  *responsesDecoder
	enc  *responsesEncoder
	fr   *flushingReader
	h    *Handler
	s    *served
	opts strictjson.Options

	// The event being scanned.
	kind   EventKind // EventText, EventReasoning or EventArguments
	lit    []byte    // the delta's raw string; nil when absent
	item   []byte    // the item_id's string, unquoted (it has no escape); nil when absent
	text   []byte    // lit unquoted
	seq    []byte    // the sequence_number's token; nil when absent
	obf    []byte    // the obfuscation's token; nil when absent
	tpl    holeTemplate
	tplK   EventKind
	tplIID []byte
}

func (m *responsesPassthrough) End() ([]Event, error)        { return m.dec.End() }
func (m *responsesPassthrough) setReader(fr *flushingReader) { m.fr = fr }

// Decode writes data's event to the client and returns no events when
// the fast path can take it, else returns the decoder's answer.
func (m *responsesPassthrough) Decode(name string, data []byte) ([]Event, error) {
	d, enc := m.dec, m.enc
	if !d.started || d.done || !enc.started || enc.ended {
		return d.Decode(name, data)
	}
	m.opts.MaxBytes = -1
	if lit := m.tpl.match(data, &m.opts); lit != nil {
		m.kind, m.lit, m.item = m.tplK, lit, m.tplIID
	} else if strictjson.Check(data, &m.opts) != nil || m.scan(data) != nil {
		// What the decoder reads may open or close items and calls: no
		// template survives.
		m.tpl.ok = false
		return d.Decode(name, data)
	} else {
		// A delta numbers itself and carries a random obfuscation: they
		// are the template's other holes.
		m.tpl.keep(data, m.lit, m.seq, m.obf)
		m.tplK, m.tplIID = m.kind, append(m.tplIID[:0], m.item...)
		if m.item == nil {
			m.tplIID = nil
		}
		m.item = m.tplIID
	}
	if bytes.Contains(m.lit, []byte(`\u`)) {
		return m.slow(name, data)
	}
	var err error
	if m.text, err = strictjson.AppendUnquote(m.text[:0], m.lit); err != nil {
		return m.slow(name, data)
	}
	// What the decoder and the encoder would do, checked before anything
	// is written: the encoder opens no item, the decoder refuses nothing.
	switch m.kind {
	case EventText:
		if enc.item < 0 || enc.kind != "message" {
			return m.slow(name, data)
		}
	case EventReasoning:
		if enc.item < 0 || enc.kind != "reasoning" {
			return m.slow(name, data)
		}
	case EventArguments:
		i, ok := d.items[string(m.item)]
		if m.item == nil || !ok || i != d.calls.n-1 || !d.calls.open || enc.item < 0 || enc.kind != "function_call" {
			return m.slow(name, data)
		}
	}
	d.n++
	if len(m.text) == 0 {
		return nil, nil
	}
	m.h.noteFast(m.s, m.kind, m.text)
	enc.text = append(enc.text, m.text...)
	b := enc.itemHead(enc.delta[:0])
	typ := "response.output_text.delta"
	switch m.kind {
	case EventText:
		b = append(b, `,"content_index":0,"delta":`...)
	case EventReasoning:
		typ = "response.reasoning_summary_text.delta"
		b = append(b, `,"summary_index":0,"delta":`...)
	case EventArguments:
		d.calls.gotArg = true
		typ = "response.function_call_arguments.delta"
		b = append(b, `,"delta":`...)
	}
	b = appendQuoteBytes(b, m.text)
	enc.delta = b
	if err := enc.event(typ, b); err != nil {
		return nil, err
	}
	return nil, m.fr.written()
}

// slow hands an event the fast path read but cannot take to the decoder.
func (m *responsesPassthrough) slow(name string, data []byte) ([]Event, error) {
	m.tpl.ok = false
	return m.dec.Decode(name, data)
}

// scan reads an event that passed strictjson.Check and returns errSlow
// unless it is a delta of text, reasoning or arguments whose every member
// is one of those the fast path knows, by its exact name, of the type
// the decoder reads.
func (m *responsesPassthrough) scan(data []byte) error {
	m.kind, m.lit, m.item, m.seq, m.obf = 0, nil, nil, nil, nil
	if strictjson.KindOf(data) != strictjson.Object {
		return errSlow
	}
	err := strictjson.Members(data, func(key, v []byte) error {
		switch string(key) {
		case "type":
			switch string(v) {
			case `"response.output_text.delta"`:
				m.kind = EventText
			case `"response.reasoning_summary_text.delta"`, `"response.reasoning_text.delta"`:
				m.kind = EventReasoning
			case `"response.function_call_arguments.delta"`:
				m.kind = EventArguments
			default:
				return errSlow
			}
		case "delta":
			if v[0] != '"' {
				return errSlow
			}
			m.lit = v
		case "item_id":
			if v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
				return errSlow
			}
			m.item = v[1 : len(v)-1]
		case "summary_index":
			if _, ok := smallIndex(v); !ok {
				return errSlow
			}
		case "sequence_number":
			m.seq = v // not read by the decoder, whatever it holds
		case "obfuscation":
			m.obf = v // likewise
		case "output_index", "content_index", "logprobs":
			// Not read by the decoder, whatever they hold.
		default:
			return errSlow
		}
		return nil
	})
	if err != nil || m.kind == 0 || m.lit == nil {
		return errSlow
	}
	return nil
}
