// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"net/http"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/textcall"
)

// The same-API fast path for a whole answer.
//
// A Chat Completions client that does not stream, in front of a Chat
// backend that answered with one body, under the conditions of the
// stream's fast path (one pass, no mediation, no tool parser), gets that
// body read straight into the [Turn] the encoder writes: the usual
// chat.completion (one choice, a message of text and reasoning, a finish
// reason, usage, calls; no refusal, no error) is checked as strictly
// as the decoder checks it and walked once, with no events, no filter
// and no collector. What the gateway notes of the answer (the backend's
// model name, the usage, the text and calls a model record keeps) it
// notes from that turn.
//
// Every other answer takes the decoder, from the bytes already read: a
// refusal, more than one choice, calls numbered otherwise than in order
// from 0, a member of the wrong type, no finish reason, an error body,
// and an answer that the think-tag filter would change (see
// [textFilter.plainTurn]: text with a tag, or a call). The turn is the one the decoder
// and the collector make of the same body, and so is everything after it
// (the differential tests and fuzzers in passthrough_whole_test.go and
// plainwhole_test.go hold the two to that).

// wholeSame reports whether a whole answer of the turn may take the fast
// path: what [turn.passthrough] asks of a stream, for a client that does
// not stream, both sides Chat Completions.
func (t *turn) wholeSame() bool {
	return !t.h.slowStreams && t.h.med == nil && t.out.base == nil && t.out.whole && !t.req.Stream &&
		t.s.front == APIChat && t.p.API == APIChat && t.p.ToolParser == ""
}

// readWholeSame reads the backend's answer through the fast path. It
// returns the turn; or the error pumpWhole would have returned, with an
// empty turn; or neither, when the answer takes the decoder: pumpWhole
// then reads the bytes already read (t.read).
func (t *turn) readWholeSame(resp *http.Response) (*Turn, error) {
	if eventStream(resp) {
		return nil, nil
	}
	// The filter a decoder's pass would make is not made: its parser
	// alone says whether the filter would hand the answer on unchanged.
	var tp *textcall.Parser
	if t.p.ToolParser != "" || t.p.Parsing == ParsingThinkTags {
		var err error
		if tp, _, err = textParser(t.p, t.req, false); err != nil {
			return &Turn{Usage: unknownUsage()}, err
		}
	}
	data, err := readWhole(resp.Body, resp.ContentLength, maxWholeBytes(t.h.cfg.MaxEventBytes))
	if err != nil {
		return &Turn{Usage: unknownUsage()}, err
	}
	tn := &Turn{Usage: unknownUsage()}
	if scanWholeChat(data, tn) && plainWith(tp, tn) {
		if tp != nil {
			// What making the filter would have warned.
			t.warns = append(t.warns, tp.Warnings()...)
		}
		tn.StopReason = t.p.masker().String(tn.StopReason)
		if t.out.Names != nil {
			for i := range tn.Calls {
				if orig, ok := t.out.Names.Unmap(tn.Calls[i].Name); ok {
					tn.Calls[i].Name = orig
				}
			}
		}
		return tn, nil
	}
	t.read = data
	return nil, nil
}

// plainWith reports whether a new filter with text parser tp (nil: no
// filter) hands on the whole answer tn unchanged: plainFor of it,
// without it made.
func plainWith(tp *textcall.Parser, tn *Turn) bool {
	switch {
	case tp == nil:
		return true
	case len(tn.Calls) > 0 || !tp.Plain(""):
		return false
	}
	return tn.Text == "" || tp.Plain(tn.Text)
}

// scanWholeChat reads data, a chat.completion, into tn (whose Usage is
// unknown) as wholeChat and a Collector read it, and reports whether it
// could: false leaves the answer, and any error in it, to wholeChat.
//
// It walks the checked document by offsets, so that each byte is read
// once more after the check: nested containers (the choices, the message,
// the calls) are walked where they are rather than first skipped to find
// their end and then walked.
func scanWholeChat(data []byte, tn *Turn) bool {
	if strictjson.Check(data, &checkEvent) != nil || strictjson.KindOf(data) != strictjson.Object {
		return false
	}
	var w wholeScan
	_, err := strictjson.WalkObject(data, 0, func(key []byte, vs int) (int, error) {
		switch string(key) {
		case "id":
			return scanStrAt(data, vs, &tn.ID)
		case "model":
			return scanStrAt(data, vs, &tn.Model)
		case "choices":
			if data[vs] != '[' {
				return vs, errSlow
			}
			return strictjson.WalkArray(data, vs, func(i, es int) (int, error) {
				if i > 0 {
					return es, errSlow
				}
				w.choices++
				return w.choice(data, es)
			})
		case "usage":
			ve := strictjson.SkipValue(data, vs)
			if data[vs] == 'n' {
				return ve, nil
			}
			var u chatUsage
			if decodeChatUsage(data[vs:ve], &u) != nil {
				return vs, errSlow
			}
			tn.Usage.merge(u.usage())
			return ve, nil
		case "error":
			if data[vs] != 'n' {
				return vs, errSlow
			}
		}
		return -1, nil
	})
	if err != nil || w.choices != 1 || w.finish == "" {
		return false
	}
	// As the decoder: reasoning_content hides reasoning.
	tn.Reasoning = w.reasoningContent
	if tn.Reasoning == "" {
		tn.Reasoning = w.reasoning
	}
	tn.Text = w.content
	tn.Finish, tn.StopReason = finishOf(w.finish), w.finish
	if len(w.calls) > 0 {
		// As the collector: the text before the first call, and a turn
		// that holds calls ends tool_calls whatever the backend said.
		tn.PreCallText = tn.Text
		tn.Calls = w.calls
		if tn.Finish == FinishStop {
			tn.Finish = FinishToolCalls
		}
	}
	return true
}

// wholeScan is what scanWholeChat read of the choice.
type wholeScan struct {
	choices                              int
	content, reasoning, reasoningContent string
	finish                               string
	calls                                []Call
}

// choice reads the first choice, at offset i of the checked document d,
// as parseChoice reads it, when it is choice 0 of a message without calls
// or refusal. It returns the offset past the choice.
func (w *wholeScan) choice(d []byte, i int) (int, error) {
	if d[i] != '{' {
		return i, errSlow
	}
	return strictjson.WalkObject(d, i, func(key []byte, vs int) (int, error) {
		switch string(key) {
		case "index":
			ve := strictjson.SkipValue(d, vs)
			if string(d[vs:ve]) != "0" {
				return vs, errSlow
			}
			return ve, nil
		case "finish_reason":
			return scanStrAt(d, vs, &w.finish)
		case "delta":
			if d[vs] != 'n' {
				return vs, errSlow
			}
		case "message":
			return objectOrNullAt(d, vs, func(key []byte, vs int) (int, error) {
				switch string(key) {
				case "content":
					return scanStrAt(d, vs, &w.content)
				case "reasoning":
					return scanStrAt(d, vs, &w.reasoning)
				case "reasoning_content":
					return scanStrAt(d, vs, &w.reasoningContent)
				case "refusal":
					ve := strictjson.SkipValue(d, vs)
					if d[vs] != 'n' && string(d[vs:ve]) != `""` {
						return vs, errSlow
					}
					return ve, nil
				case "tool_calls":
					switch d[vs] {
					case 'n':
						return -1, nil
					case '[':
						return strictjson.WalkArray(d, vs, w.call(d))
					}
					return vs, errSlow
				}
				return -1, nil
			})
		}
		return -1, nil
	})
}

// call returns the reader of the message's calls, each at offset i of
// the checked document d, which reads call n as parseCall reads it, when
// its index, if it has one, is n: the decoder numbers such calls as they
// come, one call to an element.
func (w *wholeScan) call(d []byte) func(n, i int) (int, error) {
	return func(n, i int) (int, error) {
		if d[i] != '{' {
			return i, errSlow
		}
		var c Call
		var args string
		end, err := strictjson.WalkObject(d, i, func(key []byte, vs int) (int, error) {
			switch string(key) {
			case "index":
				ve := strictjson.SkipValue(d, vs)
				if k, ok := smallIndex(d[vs:ve]); !ok || k != n {
					return vs, errSlow
				}
				return ve, nil
			case "id":
				return scanStrAt(d, vs, &c.ID)
			case "function":
				return objectOrNullAt(d, vs, func(key []byte, vs int) (int, error) {
					switch string(key) {
					case "name":
						return scanStrAt(d, vs, &c.Name)
					case "arguments":
						if d[vs] == '{' {
							// An object rather than a string, as some
							// servers send: the decoder keeps its bytes.
							ve := strictjson.SkipValue(d, vs)
							args = string(d[vs:ve])
							return ve, nil
						}
						return scanStrAt(d, vs, &args)
					}
					return -1, nil
				})
			}
			return -1, nil
		})
		if err != nil {
			return end, err
		}
		if args == "" {
			// As the decoder: a call without arguments gets an empty object.
			args = "{}"
		}
		c.Arguments = json.RawMessage(args)
		w.calls = append(w.calls, c)
		return end, nil
	}
}

// objectOrNullAt walks the members of the object at offset vs of the
// checked document d with fn and returns the offset past it; null has
// none; anything else is errSlow.
func objectOrNullAt(d []byte, vs int, fn func(key []byte, vs int) (int, error)) (int, error) {
	switch d[vs] {
	case 'n':
		return strictjson.SkipValue(d, vs), nil
	case '{':
		return strictjson.WalkObject(d, vs, fn)
	}
	return vs, errSlow
}

// scanStrAt reads the string or null at offset vs of the checked
// document d into *dst as scanStr does and returns the offset past it.
func scanStrAt(d []byte, vs int, dst *string) (int, error) {
	ve := strictjson.SkipValue(d, vs)
	s, err := scanStr(d[vs:ve])
	if err != nil {
		return vs, err
	}
	*dst = s
	return ve, nil
}

// scanStr reads a string or null as str does; anything else is errSlow.
func scanStr(v []byte) (string, error) {
	if v[0] != '"' && v[0] != 'n' {
		return "", errSlow
	}
	s, err := str(v, "", "")
	if err != nil {
		return "", errSlow
	}
	return s, nil
}
