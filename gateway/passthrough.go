// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// The same-API fast path.
//
// A client in front of a backend of its own API (Chat Completions,
// Messages or Responses), with nothing between them that changes the events (no
// mediation, no text parser, one pass), gets the backend's events
// rewritten rather than decoded into events and encoded again: an event
// that only carries text, reasoning or arguments of the open call is
// checked as strictly as the decoder checks it (strictjson.Check, then
// every member the decoder reads, with its type), and written as the
// encoder would write it — the client's model name, id and created time,
// the configured reasoning field, the encoder's block or item index and
// sequence number — straight
// from the checked bytes, with no Event, no string and no allocation (but
// for a call's arguments noted for the audit record, when there is one).
// An event laid out as the one before it with only its string changed is
// not walked again (see [template]); a Responses delta, which numbers
// itself and carries a random obfuscation string, never is.
//
// Every other event (the first, the finish, usage, an error, a new call
// or block, a second choice, a refusal, anything the decoder would refuse
// or repair) goes through the decoder and the relay's emit as before; the
// fast path keeps the decoder's state (event count, open call) as the
// decoder would have, so the two alternate within one stream. The bytes
// the client gets are the same, byte for byte, as without it (the
// differential test and fuzzer in passthrough_test.go and
// passthrough_fuzz_test.go hold it to that), and so is what the gateway
// records: the events the fast path writes carry nothing the relay's emit
// acts on but the audit record's notes (answer text, call arguments),
// which it takes itself; the masker has nothing to mask in them (it masks
// errors and raw finish reasons, which take the slow path). Gemini takes
// the slow path.
//
// A Chat provider that reads reasoning in think tags (the default of an
// openai_compat server) and has no tool parser keeps the fast path: its
// text filter reads every chunk's text, and the fast path writes the text
// itself only when the filter would have handed it on unchanged, as one
// piece of answer ([textFilter.feedText]); the filter's other output
// (reasoning, text it held back, the pieces around a possible tag) goes
// to the relay's emit in its place, in order. A think tag may open again
// later in an answer, so the decision is made on each chunk, never once
// for the rest of the stream.

// stream runs the turn of a streaming client as [turn.run] does, through
// the same-API fast path where it applies. enc is the encoder emit ends
// in.
func (t *turn) stream(ctx context.Context, resp *http.Response, enc StreamEncoder, emit func(Event) error, flush func() error) error {
	if t.passthrough() {
		switch enc := enc.(type) {
		case *chatEncoder:
			f, tf, err := t.sameFilter()
			if err != nil {
				return err
			}
			return t.pumpSame(resp, &chatPassthrough{dec: newChatDecoder(), enc: enc, h: t.h, s: t.s, tf: tf, emit: emit}, f, emit, flush)
		case *messagesEncoder:
			return t.pumpSame(resp, &messagesPassthrough{dec: newMessagesDecoder(), enc: enc, h: t.h, s: t.s}, passThrough{}, emit, flush)
		case *responsesEncoder:
			return t.pumpSame(resp, &responsesPassthrough{dec: newResponsesDecoder(), enc: enc, h: t.h, s: t.s}, passThrough{}, emit, flush)
		}
	}
	return t.run(ctx, resp, emit, flush)
}

// sameFilter returns the turn's filter, as [turn.filter] does, and the
// text filter it is, if it is one.
func (t *turn) sameFilter() (eventFilter, *textFilter, error) {
	f, err := t.filter()
	if err != nil {
		return nil, nil, err
	}
	tf, _ := f.(*textFilter)
	return f, tf, nil
}

// A sameDecoder is a StreamDecoder that writes some events to the client
// itself, noting each write on the flushingReader it is given.
type sameDecoder interface {
	StreamDecoder
	setReader(*flushingReader)
}

// passthrough reports whether the turn's events can reach the client as
// the backend sent them: same API on both sides, one pass, no mediation,
// no tool parser. The filter is then the identity, or a text filter that
// only splits reasoning off in think tags and is the identity for most
// text once the reasoning is behind it (see [chatPassthrough.text]; Chat
// only: the Messages and Responses fast paths write text without a
// filter).
func (t *turn) passthrough() bool {
	return !t.h.slowStreams && t.h.med == nil && t.out.base == nil &&
		t.s.front == t.p.API && t.req.Stream && t.p.ToolParser == "" &&
		(t.p.API == APIChat || (t.p.API == APIMessages || t.p.API == APIResponses) && t.p.Parsing != ParsingThinkTags)
}

// pumpSame is [turn.pump] with dec, a decoder wrapped in the fast path,
// and f, the turn's filter: the events the decoder returns take f as
// they would without the fast path.
func (t *turn) pumpSame(resp *http.Response, dec sameDecoder, f eventFilter, emit func(Event) error, flush func() error) error {
	fr := &flushingReader{r: resp.Body, flush: flush}
	dec.setReader(fr)
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

// errSlow stops a chatPassthrough's scan: the chunk takes the decoder.
var errSlow = errors.New("slow path")

// chatPassthrough is a StreamDecoder that writes the chunks it can to
// the client itself and hands the others to the decoder.
type chatPassthrough struct {
	dec  *chatDecoder
	enc  *chatEncoder
	fr   *flushingReader
	h    *Handler
	s    *served
	opts strictjson.Options
	// tf is the turn's text filter, nil for the identity, and emit the
	// relay's emit its events go to.
	tf   *textFilter
	emit func(Event) error

	// The chunk being scanned: its values unquoted, nil when absent or
	// empty.
	reasoningContent, reasoning, content, args []byte
	callIndex                                  int
	hasCall                                    bool
	// buffers reused for every chunk
	bufRC, bufR, bufC, bufA, body []byte

	// tpl is the last chunk the fast path took, when one string held all
	// it said, and tplField the member that string was.
	tpl      template
	tplField tplField
	// lit is the raw string the scan found that the chunk's events come
	// from, where there was exactly one (nlit counts them).
	lit  []byte
	nlit int
}

// tplField names the member a template's string is.
type tplField uint8

const (
	tplContent tplField = iota
	tplReasoning
	tplReasoningContent
	tplArguments
)

func (c *chatPassthrough) End() ([]Event, error)        { return c.dec.End() }
func (c *chatPassthrough) setReader(fr *flushingReader) { c.fr = fr }

// Decode writes data's chunk to the client and returns no events when
// the fast path can take it, else returns the decoder's answer.
func (c *chatPassthrough) Decode(name string, data []byte) ([]Event, error) {
	d := c.dec
	if !d.started || d.done || !c.enc.started || c.enc.ended || string(data) == "[DONE]" {
		return d.Decode(name, data)
	}
	c.opts.MaxBytes = -1
	if !c.reuse(data) {
		if strictjson.Check(data, &c.opts) != nil || c.scan(data) != nil {
			// The decoder checks it again: it refuses it as it would
			// have, or reads what the fast path leaves to it. What it
			// reads may change the open call: no template survives.
			c.tpl.ok = false
			return d.Decode(name, data)
		}
		c.keep(data)
	}
	if c.tf != nil && !c.tf.passesOn() {
		c.tpl.ok = false
		return d.Decode(name, data)
	}
	d.n++
	if c.reasoningContent != nil {
		if err := c.write(EventReasoning, c.reasoningContent); err != nil {
			return nil, err
		}
	} else if c.reasoning != nil {
		if err := c.write(EventReasoning, c.reasoning); err != nil {
			return nil, err
		}
	}
	if c.content != nil {
		if err := c.text(c.content); err != nil {
			return nil, err
		}
	}
	if c.args != nil {
		d.calls.gotArg = true
		if err := c.write(EventArguments, c.args); err != nil {
			return nil, err
		}
	}
	return nil, c.fr.written()
}

// text does for the text of a chunk what the turn's filter and the
// relay's emit do for it. With a text filter, the filter's scanner reads
// it first: the client gets what the scanner makes of it, and the fast
// path writes it only when that is the text itself, as one piece of
// answer, which the filter would have handed on unchanged. Whatever the
// scanner held from the chunks before, or holds of this one (a byte
// that may start a think tag), or reads as reasoning, goes through the
// filter's own scan and the relay's emit, in order.
func (c *chatPassthrough) text(text []byte) error {
	if c.tf == nil {
		return c.write(EventText, text)
	}
	same, err := c.tf.feedText(text, c.emit)
	if !same || err != nil {
		return err
	}
	return c.write(EventText, text)
}

// write does for one event what the relay's emit does for it: note it
// for the model record, encode it as chatEncoder.Encode does.
func (c *chatPassthrough) write(kind EventKind, text []byte) error {
	s, h := c.s, c.h
	b := c.body[:0]
	switch kind {
	case EventReasoning:
		switch c.enc.o.ReasoningField {
		case ReasoningPlain:
			b = appendQuoteBytes(append(b, `"reasoning":`...), text)
		case ReasoningBoth:
			b = appendQuoteBytes(append(b, `"reasoning_content":`...), text)
			b = appendQuoteBytes(append(b, `,"reasoning":`...), text)
		default:
			b = appendQuoteBytes(append(b, `"reasoning_content":`...), text)
		}
	case EventText:
		if s.reqID != "" && h.cfg.Audit != nil && h.cfg.CaptureContent {
			s.answer = append(s.answer, text...)
		}
		b = appendQuoteBytes(append(b, `"content":`...), text)
	case EventArguments:
		if s.reqID != "" && h.cfg.Audit != nil {
			s.calls.write(string(text))
		}
		b = append(b, `"tool_calls":[{"index":`...)
		b = jsonInt(b, int64(c.enc.calls-1))
		b = append(b, `,"function":{"arguments":`...)
		b = appendQuoteBytes(b, text)
		b = append(b, `}}]`...)
	}
	c.body = b
	return c.enc.delta(b, "")
}

// reuse reads data as the template's chunk with another string in place
// of its one string (see [template]) and, if it is, sets the scan's
// results as scan would.
func (c *chatPassthrough) reuse(data []byte) bool {
	lit := c.tpl.match(data, &c.opts)
	if lit == nil {
		return false
	}
	c.reasoningContent, c.reasoning, c.content, c.args = nil, nil, nil, nil
	var err error
	switch c.tplField {
	case tplContent:
		c.content, c.bufC, err = unquoteField(c.bufC, lit)
	case tplReasoning:
		c.reasoning, c.bufR, err = unquoteField(c.bufR, lit)
	case tplReasoningContent:
		c.reasoningContent, c.bufRC, err = unquoteField(c.bufRC, lit)
	case tplArguments:
		c.args, c.bufA, err = unquoteField(c.bufA, lit)
	}
	return err == nil
}

// keep makes data, which scan took, the template of the chunks after it
// when one string holds all it says.
func (c *chatPassthrough) keep(data []byte) {
	c.tpl.ok = false
	if c.nlit == 1 {
		c.tpl.keep(data, c.lit)
	}
}

// A template is an event the fast path took whose events all came from
// one string: the bytes before and after it.
//
// Backends send every chunk of a text with the same id, model and
// layout, so that a chunk is most often the one before with another
// string. A JSON document with one string token replaced by another
// valid string token has the same members, with the same names and the
// same types: it passes strictjson.Check and the fast path's scan as the
// template did, and says the same but for that string. Only the new
// string is then checked (strictly, as a JSON value of its own) and
// unquoted: a token costs a compare of its chunk's bytes and the check of
// its text.
type template struct {
	prefix, suffix []byte
	ok             bool
}

// match returns the string data holds where the template's string was,
// or nil when data is not the template with another string.
func (t *template) match(data []byte, opts *strictjson.Options) []byte {
	if !t.ok || len(data) < len(t.prefix)+len(t.suffix)+2 ||
		!bytes.HasPrefix(data, t.prefix) || !bytes.HasSuffix(data, t.suffix) {
		return nil
	}
	lit := data[len(t.prefix) : len(data)-len(t.suffix)]
	if lit[0] != '"' || strictjson.Check(lit, opts) != nil {
		return nil
	}
	return lit
}

// keep makes data, whose string lit (a subslice of data) carried all it
// said, the template.
func (t *template) keep(data, lit []byte) {
	t.ok = false
	off := cap(data) - cap(lit)
	if len(lit) == 0 || off < 0 || off+len(lit) > len(data) || &data[off] != &lit[0] {
		return
	}
	t.prefix = append(t.prefix[:0], data[:off]...)
	t.suffix = append(t.suffix[:0], data[off+len(lit):]...)
	t.ok = true
}

// A holeTemplate is a [template] with more than one hole: besides the
// string that carries what the event says, tokens that change from one
// event to the next but that the decoder does not read, such as the
// sequence_number and the obfuscation of a Responses delta. Each hole is
// a string or a non-negative integer, and is matched only by a token of
// its kind (a string checked strictly as a JSON value of its own, an
// integer of digits with no leading zero): a JSON document with tokens
// replaced by others of their kinds has the members, names and types of
// the template, and says what it said but for its holes.
type holeTemplate struct {
	segs  [][]byte // the bytes before each hole, and after the last
	nums  []bool   // whether hole i is an integer
	lit   int      // the hole of the string that carries the event's text
	bytes []byte   // the segments' memory
	ok    bool
}

// keep makes data the template, with the hole lit (a subslice of data,
// the string the event said all with) and the holes others (subslices of
// data, or nil for none): it keeps none when a hole is not a string or an
// integer, or the holes overlap.
func (t *holeTemplate) keep(data, lit []byte, others ...[]byte) {
	t.ok = false
	type span struct {
		from, to int
		lit      bool
	}
	var spans [4]span
	n := 0
	offset := func(v []byte) int {
		off := cap(data) - cap(v)
		if len(v) == 0 || off < 0 || off+len(v) > len(data) || &data[off] != &v[0] {
			return -1
		}
		return off
	}
	for i, v := range append([][]byte{lit}, others...) {
		if v == nil && i > 0 {
			continue
		}
		off := offset(v)
		if off < 0 || n == len(spans) || !(v[0] == '"' || isInteger(v)) {
			return
		}
		spans[n] = span{off, off + len(v), i == 0}
		n++
	}
	ss := spans[:n]
	slices.SortFunc(ss, func(a, b span) int { return a.from - b.from })
	t.bytes = append(t.bytes[:0], data...)
	t.segs, t.nums = t.segs[:0], t.nums[:0]
	at := 0
	for i, sp := range ss {
		if sp.from < at {
			return
		}
		t.segs = append(t.segs, t.bytes[at:sp.from])
		t.nums = append(t.nums, data[sp.from] != '"')
		if sp.lit {
			t.lit = i
		}
		at = sp.to
	}
	t.segs = append(t.segs, t.bytes[at:])
	t.ok = true
}

// match returns the string data holds in the template's hole lit, or nil
// when data is not the template with other tokens in its holes.
func (t *holeTemplate) match(data []byte, opts *strictjson.Options) []byte {
	if !t.ok {
		return nil
	}
	var lit []byte
	at := 0
	for i, seg := range t.segs[:len(t.nums)] {
		if !bytes.HasPrefix(data[at:], seg) {
			return nil
		}
		at += len(seg)
		from := at
		if t.nums[i] {
			at = integerEnd(data, at)
			if at < 0 {
				return nil
			}
		} else {
			if at >= len(data) || data[at] != '"' {
				return nil
			}
			at = strictjson.SkipString(data, at)
			if strictjson.Check(data[from:at], opts) != nil {
				return nil
			}
		}
		if i == t.lit {
			lit = data[from:at]
		}
	}
	if !bytes.Equal(data[at:], t.segs[len(t.nums)]) {
		return nil
	}
	return lit
}

// integerEnd returns the offset past the integer at data[i] (digits, with
// no leading zero), or -1 when there is none.
func integerEnd(data []byte, i int) int {
	j := i
	for j < len(data) && data[j] >= '0' && data[j] <= '9' {
		j++
	}
	if j == i || data[i] == '0' && j > i+1 {
		return -1
	}
	return j
}

// isInteger reports whether v is an integer integerEnd takes.
func isInteger(v []byte) bool { return len(v) > 0 && integerEnd(v, 0) == len(v) }

// scan reads a chunk that passed strictjson.Check as parseChunk does and
// returns errSlow unless all the decoder would make of it is reasoning,
// text and arguments of the open call.
func (c *chatPassthrough) scan(data []byte) error {
	c.reasoningContent, c.reasoning, c.content, c.args = nil, nil, nil, nil
	c.hasCall, c.callIndex = false, 0
	c.lit, c.nlit = nil, 0
	if strictjson.KindOf(data) != strictjson.Object {
		return errSlow
	}
	err := strictjson.Members(data, func(key, v []byte) error {
		switch string(key) {
		case "id", "model":
			return stringOrNull(v)
		case "choices":
			if v[0] == 'n' {
				return nil
			}
			if v[0] != '[' {
				return errSlow
			}
			return strictjson.Elements(v, func(i int, cv []byte) error {
				if i > 0 {
					return errSlow
				}
				return c.choice(cv)
			})
		case "usage", "error":
			if v[0] != 'n' {
				return errSlow
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.hasCall {
		d := c.dec
		if _, ok := d.index[c.callIndex]; !ok || c.callIndex != d.cur || d.closed[c.callIndex] || !d.calls.open {
			return errSlow
		}
	}
	return nil
}

func (c *chatPassthrough) choice(v []byte) error {
	if v[0] != '{' {
		return errSlow
	}
	return strictjson.Members(v, func(key, v []byte) error {
		switch string(key) {
		case "index":
			if string(v) != "0" {
				return errSlow
			}
		case "finish_reason":
			if v[0] != 'n' {
				return errSlow
			}
		case "message":
			return errSlow
		case "delta":
			if v[0] == 'n' {
				return nil
			}
			if v[0] != '{' {
				return errSlow
			}
			return strictjson.Members(v, func(key, v []byte) error {
				var err error
				switch string(key) {
				case "content":
					c.content, c.bufC, err = unquoteField(c.bufC, v)
					c.found(v, tplContent)
				case "reasoning":
					c.reasoning, c.bufR, err = unquoteField(c.bufR, v)
					c.found(v, tplReasoning)
				case "reasoning_content":
					c.reasoningContent, c.bufRC, err = unquoteField(c.bufRC, v)
					c.found(v, tplReasoningContent)
				case "refusal":
					if v[0] != 'n' && string(v) != `""` {
						return errSlow
					}
				case "tool_calls":
					if v[0] == 'n' {
						return nil
					}
					if v[0] != '[' {
						return errSlow
					}
					return strictjson.Elements(v, func(i int, tv []byte) error {
						if i > 0 {
							return errSlow
						}
						return c.call(tv)
					})
				}
				return err
			})
		}
		return nil
	})
}

func (c *chatPassthrough) call(v []byte) error {
	if v[0] != '{' {
		return errSlow
	}
	c.hasCall = true
	return strictjson.Members(v, func(key, v []byte) error {
		switch string(key) {
		case "index":
			n, ok := smallIndex(v)
			if !ok {
				return errSlow
			}
			c.callIndex = n
		case "id":
			return stringOrNull(v)
		case "function":
			if v[0] == 'n' {
				return nil
			}
			if v[0] != '{' {
				return errSlow
			}
			return strictjson.Members(v, func(key, v []byte) error {
				var err error
				switch string(key) {
				case "name":
					return stringOrNull(v)
				case "arguments":
					if v[0] == '{' {
						return errSlow
					}
					c.args, c.bufA, err = unquoteField(c.bufA, v)
					c.found(v, tplArguments)
				}
				return err
			})
		}
		return nil
	})
}

// found notes the raw string v of member f, unless it is null or empty:
// the template's string, if it is the only one.
func (c *chatPassthrough) found(v []byte, f tplField) {
	if v[0] == '"' && len(v) > 2 {
		c.lit, c.tplField = v, f
		c.nlit++
	}
}

// stringOrNull is nil for a value str reads without error.
func stringOrNull(v []byte) error {
	if v[0] == '"' || v[0] == 'n' {
		return nil
	}
	return errSlow
}

// unquoteField reads a value str reads: its text, nil when null or
// empty, unquoted into buf.
func unquoteField(buf, v []byte) (text, newBuf []byte, err error) {
	switch {
	case v[0] == 'n':
		return nil, buf, nil
	case v[0] != '"':
		return nil, buf, errSlow
	}
	buf, err = strictjson.AppendUnquote(buf[:0], v)
	if err != nil {
		return nil, buf, errSlow
	}
	if len(buf) == 0 {
		return nil, buf, nil
	}
	return buf, buf, nil
}

// smallIndex reads a tool call index of at most 9 digits: what num reads
// the same way without question.
func smallIndex(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 9 {
		return 0, false
	}
	n := 0
	for _, ch := range v {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return n, true
}

// appendQuoteBytes is strictjson.AppendQuote for a []byte: the same
// bytes, without converting s to a string.
func appendQuoteBytes(dst, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		ch := s[i]
		if ch < utf8.RuneSelf {
			if ch >= 0x20 && ch != '"' && ch != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch ch {
			case '"', '\\':
				dst = append(dst, '\\', ch)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[ch>>4], hexDigits[ch&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
