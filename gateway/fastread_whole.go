// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// A whole Messages answer, read without reflection.
//
// wholeMessages read the answer with encoding/json, which took more than
// twice as long as the Chat decoder takes for the same text. The usual
// message (its type, id, model, stop reason, usage and content blocks of
// flat members) is read here by strictjson's walker into the struct
// encoding/json fills; anything else (an error object, a member of a
// wrong type, a name that differs only in case)
// goes to encoding/json, so that the result and the errors are
// encoding/json's in every case. FuzzDecodeMessagesAnswer holds the two
// to that, as FuzzDecodeMessagesEvent does for the stream's events.

// decodeMessagesAnswer reads data, a whole Messages answer, into m as
// unmarshal does.
func decodeMessagesAnswer(data []byte, m *messagesAnswer) error {
	if err := strictjson.Check(data, &checkEvent); err != nil {
		return err
	}
	var fast messagesAnswer
	if fastMessagesAnswer(data, &fast) == nil {
		*m = fast
		return nil
	}
	return json.Unmarshal(data, m)
}

var messagesAnswerNames = []string{"type", "id", "model", "content", "stop_reason", "usage", "error"}

func fastMessagesAnswer(data []byte, m *messagesAnswer) error {
	if strictjson.KindOf(data) != strictjson.Object {
		return errUnusual
	}
	return strictjson.Members(data, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return fastString(v, &m.Type)
		case "id":
			return fastString(v, &m.ID)
		case "model":
			return fastString(v, &m.Model)
		case "stop_reason":
			return fastOptString(v, &m.StopReason)
		case "content":
			if string(v) == "null" {
				m.Content = nil
				return nil
			}
			blocks, ok := fastObjects(v, 2, messagesAnswerBlock)
			if !ok {
				return errUnusual
			}
			m.Content = blocks
			return nil
		case "usage":
			if null, err := nullOr(v, strictjson.Object); null || err != nil {
				m.Usage = nil
				return err
			}
			var u messagesUsage
			if err := fastMessagesUsage(v, &u); err != nil {
				return err
			}
			m.Usage = &u
			return nil
		case "error":
			return onlyNull(v)
		}
		return foldsTo(k, messagesAnswerNames...)
	})
}

var messagesAnswerBlockNames = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input"}

// messagesAnswerBlock reads member k of a content block of an answer.
func messagesAnswerBlock(b *messagesBlock, k, v []byte) error {
	if ok, err := b.member(k, v); ok {
		return err
	}
	return foldsTo(k, messagesAnswerBlockNames...)
}

// member reads member k of b, an answer's content block or the part of
// a request's that is the same; false when k is none of b's members.
func (b *messagesBlock) member(k, v []byte) (bool, error) {
	switch string(k) {
	case "type":
		return true, fastString(v, &b.Type)
	case "text":
		return true, fastString(v, &b.Text)
	case "thinking":
		return true, fastString(v, &b.Thinking)
	case "signature":
		return true, fastString(v, &b.Signature)
	case "data":
		return true, fastString(v, &b.Data)
	case "id":
		return true, fastString(v, &b.ID)
	case "name":
		return true, fastString(v, &b.Name)
	case "input":
		// A json.RawMessage takes the value as it is, null too (the
		// body it is a slice of outlives the block).
		b.Input = v
		return true, nil
	}
	return false, nil
}

var messagesUsageNames = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}

func fastMessagesUsage(v []byte, u *messagesUsage) error {
	return strictjson.Members(v, func(k, v []byte) error {
		switch string(k) {
		case "input_tokens":
			return fastOptInt(v, &u.InputTokens)
		case "output_tokens":
			return fastOptInt(v, &u.OutputTokens)
		case "cache_creation_input_tokens":
			return fastOptInt(v, &u.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			return fastOptInt(v, &u.CacheReadInputTokens)
		}
		return foldsTo(k, messagesUsageNames...)
	})
}
