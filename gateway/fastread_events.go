// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// The events of a Messages or Responses stream, read without reflection.
//
// The events a stream is made of, one per token, are the deltas: a
// content_block_delta of Messages, a response.output_text.delta (or
// reasoning, refusal or arguments delta) of Responses, with a few flat
// members. They are read by strictjson's walker into the same structs
// encoding/json fills; any event of another shape (an object where the
// decoder reads one, such as the response of response.completed or the
// message of message_start, a member of a wrong type, a name that
// differs only in case, which encoding/json matches) goes to
// encoding/json, so that the result and the errors are encoding/json's
// in every case. FuzzDecodeMessagesEvent and FuzzDecodeResponsesEvent
// hold the two to that.

// checkEvent is the strictness every event is read with (see unmarshal).
var checkEvent = strictjson.Options{MaxBytes: -1}

// decodeMessagesEvent reads data, a Messages stream event, into e as
// unmarshal does.
func decodeMessagesEvent(data []byte, e *messagesEvent, names *nameCache) error {
	if err := strictjson.Check(data, &checkEvent); err != nil {
		return err
	}
	var fast messagesEvent
	if fastMessagesEvent(data, &fast, names) == nil {
		*e = fast
		return nil
	}
	return json.Unmarshal(data, e)
}

var messagesEventNames = []string{"type", "message", "index", "content_block", "delta", "usage", "error"}

func fastMessagesEvent(data []byte, e *messagesEvent, names *nameCache) error {
	if strictjson.KindOf(data) != strictjson.Object {
		return errUnusual
	}
	return strictjson.Members(data, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return names.read(0, v, &e.Type)
		case "index":
			return fastInt(v, &e.Index)
		case "delta":
			if null, err := nullOr(v, strictjson.Object); null || err != nil {
				e.Delta = nil
				return err
			}
			var d messagesDelta
			if err := fastMessagesDelta(v, &d, names); err != nil {
				return err
			}
			e.Delta = &d
			return nil
		case "message", "content_block", "usage", "error":
			return onlyNull(v)
		}
		return foldsTo(k, messagesEventNames...)
	})
}

var messagesDeltaNames = []string{"type", "text", "thinking", "signature", "partial_json", "stop_reason"}

func fastMessagesDelta(v []byte, d *messagesDelta, names *nameCache) error {
	return strictjson.Members(v, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return names.read(1, v, &d.Type)
		case "text":
			return fastString(v, &d.Text)
		case "thinking":
			return fastString(v, &d.Thinking)
		case "signature":
			return fastString(v, &d.Signature)
		case "partial_json":
			return fastString(v, &d.PartialJSON)
		case "stop_reason":
			return fastOptString(v, &d.StopReason)
		}
		return foldsTo(k, messagesDeltaNames...)
	})
}

// decodeResponsesEvent reads data, a Responses stream event, into e as
// unmarshal does.
func decodeResponsesEvent(data []byte, e *responsesEvent, names *nameCache) error {
	if err := strictjson.Check(data, &checkEvent); err != nil {
		return err
	}
	var fast responsesEvent
	if fastResponsesEvent(data, &fast, names) == nil {
		*e = fast
		return nil
	}
	return json.Unmarshal(data, e)
}

var responsesEventNames = []string{"type", "response", "item", "item_id", "summary_index", "delta", "arguments", "code", "message", "error"}

func fastResponsesEvent(data []byte, e *responsesEvent, names *nameCache) error {
	if strictjson.KindOf(data) != strictjson.Object {
		return errUnusual
	}
	return strictjson.Members(data, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return names.read(0, v, &e.Type)
		case "item_id":
			return names.read(1, v, &e.ItemID)
		case "delta":
			return fastString(v, &e.Delta)
		case "arguments":
			return fastString(v, &e.Arguments)
		case "message":
			return fastString(v, &e.Message)
		case "summary_index":
			return fastInt(v, &e.SummaryIndex)
		case "response", "item", "error":
			return onlyNull(v)
		case "code":
			// encoding/json keeps even a null as it is: an error
			// event, rare, is left to it.
			return errUnusual
		}
		return foldsTo(k, responsesEventNames...)
	})
}

// nameCache keeps the last string read in each of two places of a
// stream's events (the event's type, and its item's id or its delta's
// type): every delta of a stream repeats them, and a string read again
// from the same bytes is the same string, so that a delta allocates only
// its text. nil reads every string anew.
type nameCache struct {
	raw [2][]byte
	s   [2]string
}

// read reads v, a string or null, into *dst as fastString does, from the
// cache when v is the bytes the slot's string was read from.
func (c *nameCache) read(slot int, v []byte, dst *string) error {
	if c != nil && len(v) > 0 && v[0] == '"' && string(v) == string(c.raw[slot]) {
		*dst = c.s[slot]
		return nil
	}
	if err := fastString(v, dst); err != nil {
		return err
	}
	if c != nil && len(v) > 0 && v[0] == '"' && len(v) <= 256 {
		c.raw[slot], c.s[slot] = append(c.raw[slot][:0], v...), *dst
	}
	return nil
}

// onlyNull takes a null, which leaves a pointer nil; anything else goes
// to encoding/json.
func onlyNull(v []byte) error {
	if string(v) == "null" {
		return nil
	}
	return errUnusual
}

// fastInt reads an integer, as encoding/json does (ParseInt, which
// refuses a fraction or an exponent), or null, which leaves *dst as it
// is.
func fastInt(v []byte, dst *int) error {
	if string(v) == "null" {
		return nil
	}
	if !isNumber(v) {
		return errUnusual
	}
	n, err := parseInt(v, 0)
	if err != nil {
		return errUnusual
	}
	*dst = int(n)
	return nil
}
