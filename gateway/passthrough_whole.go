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
func scanWholeChat(data []byte, tn *Turn) bool {
	if strictjson.Check(data, &checkEvent) != nil || strictjson.KindOf(data) != strictjson.Object {
		return false
	}
	var w wholeScan
	err := strictjson.Members(data, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "id":
			tn.ID, err = scanStr(v)
		case "model":
			tn.Model, err = scanStr(v)
		case "choices":
			if v[0] != '[' {
				return errSlow
			}
			err = strictjson.Elements(v, func(i int, cv []byte) error {
				if i > 0 {
					return errSlow
				}
				w.choices++
				return w.choice(cv)
			})
		case "usage":
			if v[0] == 'n' {
				return nil
			}
			var u chatUsage
			if decodeChatUsage(v, &u) != nil {
				return errSlow
			}
			tn.Usage.merge(u.usage())
		case "error":
			if v[0] != 'n' {
				return errSlow
			}
		}
		return err
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

// choice reads the first choice, as parseChoice reads it, when it is
// choice 0 of a message without calls or refusal.
func (w *wholeScan) choice(v []byte) error {
	if v[0] != '{' {
		return errSlow
	}
	return strictjson.Members(v, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "index":
			if string(v) != "0" {
				return errSlow
			}
		case "finish_reason":
			w.finish, err = scanStr(v)
		case "delta":
			if v[0] != 'n' {
				return errSlow
			}
		case "message":
			err = objectOrNull(v, func(key, v []byte) error {
				var err error
				switch string(key) {
				case "content":
					w.content, err = scanStr(v)
				case "reasoning":
					w.reasoning, err = scanStr(v)
				case "reasoning_content":
					w.reasoningContent, err = scanStr(v)
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
					err = strictjson.Elements(v, func(i int, cv []byte) error {
						return w.call(i, cv)
					})
				}
				return err
			})
		}
		return err
	})
}

// call reads call i of the message as parseCall reads it, when its
// index, if it has one, is i: the decoder numbers such calls as they
// come, one call to an element.
func (w *wholeScan) call(i int, v []byte) error {
	if v[0] != '{' {
		return errSlow
	}
	var c Call
	var args string
	err := strictjson.Members(v, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "index":
			if n, ok := smallIndex(v); !ok || n != i {
				return errSlow
			}
		case "id":
			c.ID, err = scanStr(v)
		case "function":
			err = objectOrNull(v, func(key, v []byte) error {
				var err error
				switch string(key) {
				case "name":
					c.Name, err = scanStr(v)
				case "arguments":
					if v[0] == '{' {
						// An object rather than a string, as some servers
						// send: the decoder keeps its bytes.
						args = string(v)
						return nil
					}
					args, err = scanStr(v)
				}
				return err
			})
		}
		return err
	})
	if err != nil {
		return err
	}
	if args == "" {
		// As the decoder: a call without arguments gets an empty object.
		args = "{}"
	}
	c.Arguments = json.RawMessage(args)
	w.calls = append(w.calls, c)
	return nil
}

// objectOrNull walks the members of v, an object, with fn; null has
// none; anything else is errSlow.
func objectOrNull(v []byte, fn func(key, v []byte) error) error {
	switch v[0] {
	case 'n':
		return nil
	case '{':
		return strictjson.Members(v, fn)
	}
	return errSlow
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
