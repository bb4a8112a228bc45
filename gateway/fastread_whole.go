// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// A whole Messages or Responses answer, read without reflection.
//
// wholeMessages and wholeResponses read the answer with encoding/json,
// which took two to three times as long as the Chat decoder takes for the
// same text. The usual message or response (its names, status or stop
// reason, usage, and blocks or output items of flat members) is read
// here by strictjson's walker into the struct encoding/json fills;
// anything else (an error object, a member of a wrong type, a name that
// differs only in case) goes to encoding/json, so that the result and
// the errors are encoding/json's in every case. FuzzDecodeMessagesAnswer
// and FuzzDecodeResponsesAnswer hold the two to that, as
// FuzzDecodeMessagesEvent does for a stream's events.

// decodeMessagesAnswer reads data, a whole Messages answer, into m as
// unmarshal does.
func decodeMessagesAnswer(data []byte, m *messagesAnswer) error {
	return decodeFast(data, m, fastMessagesAnswer)
}

// decodeResponsesAnswer reads data, a whole Responses answer (a response
// object), into r as unmarshal does.
func decodeResponsesAnswer(data []byte, r *responsesAnswer) error {
	return decodeFast(data, r, fastResponsesAnswer)
}

// decodeFast reads data into v as unmarshal does: by fast, a walker that
// returns an error for anything it does not read as encoding/json would,
// and else by encoding/json.
func decodeFast[T any](data []byte, v *T, fast func([]byte, *T) error) error {
	if err := strictjson.Check(data, &checkEvent); err != nil {
		return err
	}
	var f T
	if fast(data, &f) == nil {
		*v = f
		return nil
	}
	return json.Unmarshal(data, v)
}

// fastArray reads v, an array of objects or null, into *dst as
// encoding/json does, member by member with member (see fastObjects).
func fastArray[T any](v []byte, dst *[]T, capHint int, member func(t *T, k, v []byte) error) error {
	if string(v) == "null" {
		*dst = nil
		return nil
	}
	out, ok := fastObjects(v, capHint, member)
	if !ok {
		return errUnusual
	}
	*dst = out
	return nil
}

// fastObject reads v, an object or null, into *dst as encoding/json reads
// it into a pointer: nil for null, else a new T, member by member with
// member.
func fastObject[T any](v []byte, dst **T, member func(t *T, k, v []byte) error) error {
	if null, err := nullOr(v, strictjson.Object); null || err != nil {
		*dst = nil
		return err
	}
	t := new(T)
	*dst = t
	return strictjson.Members(v, func(k, v []byte) error { return member(t, k, v) })
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
			return fastArray(v, &m.Content, 2, messagesAnswerBlock)
		case "usage":
			return fastObject(v, &m.Usage, messagesUsageMember)
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

func messagesUsageMember(u *messagesUsage, k, v []byte) error {
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
}

var responsesAnswerNames = []string{"id", "object", "model", "status", "output", "usage", "error", "incomplete_details"}

func fastResponsesAnswer(data []byte, r *responsesAnswer) error {
	if strictjson.KindOf(data) != strictjson.Object {
		return errUnusual
	}
	return strictjson.Members(data, func(k, v []byte) error {
		switch string(k) {
		case "id":
			return fastString(v, &r.ID)
		case "object":
			return fastString(v, &r.Object)
		case "model":
			return fastString(v, &r.Model)
		case "status":
			return fastString(v, &r.Status)
		case "output":
			return fastArray(v, &r.Output, 2, responsesOutputMember)
		case "usage":
			return fastObject(v, &r.Usage, responsesUsageMember)
		case "incomplete_details":
			return fastObject(v, &r.IncompleteDetails, func(d *responsesIncomplete, k, v []byte) error {
				if string(k) == "reason" {
					return fastString(v, &d.Reason)
				}
				return foldsTo(k, "reason")
			})
		case "error":
			return onlyNull(v)
		}
		return foldsTo(k, responsesAnswerNames...)
	})
}

var responsesOutputNames = []string{"id", "type", "call_id", "name", "arguments", "encrypted_content", "summary", "content"}

func responsesOutputMember(it *responsesOutput, k, v []byte) error {
	switch string(k) {
	case "id":
		return fastString(v, &it.ID)
	case "type":
		return fastString(v, &it.Type)
	case "call_id":
		return fastString(v, &it.CallID)
	case "name":
		return fastString(v, &it.Name)
	case "arguments":
		return fastString(v, &it.Arguments)
	case "encrypted_content":
		return fastString(v, &it.EncryptedContent)
	case "summary":
		return fastArray(v, &it.Summary, 1, func(p *responsesSummaryPart, k, v []byte) error {
			if string(k) == "text" {
				return fastString(v, &p.Text)
			}
			return foldsTo(k, "text")
		})
	case "content":
		return fastArray(v, &it.Content, 1, responsesContentPartMember)
	}
	return foldsTo(k, responsesOutputNames...)
}

var responsesContentPartNames = []string{"type", "text", "refusal"}

func responsesContentPartMember(p *responsesContentPart, k, v []byte) error {
	switch string(k) {
	case "type":
		return fastString(v, &p.Type)
	case "text":
		return fastString(v, &p.Text)
	case "refusal":
		return fastString(v, &p.Refusal)
	}
	return foldsTo(k, responsesContentPartNames...)
}

var responsesUsageNames = []string{"input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details"}

func responsesUsageMember(u *responsesUsage, k, v []byte) error {
	switch string(k) {
	case "input_tokens":
		return fastOptInt(v, &u.InputTokens)
	case "output_tokens":
		return fastOptInt(v, &u.OutputTokens)
	case "input_tokens_details":
		return fastObject(v, &u.InputTokensDetails, func(d *responsesInputDetails, k, v []byte) error {
			if string(k) == "cached_tokens" {
				return fastOptInt(v, &d.CachedTokens)
			}
			return foldsTo(k, "cached_tokens")
		})
	case "output_tokens_details":
		return fastObject(v, &u.OutputTokensDetails, func(d *responsesOutputDetails, k, v []byte) error {
			if string(k) == "reasoning_tokens" {
				return fastOptInt(v, &d.ReasoningTokens)
			}
			return foldsTo(k, "reasoning_tokens")
		})
	}
	return foldsTo(k, responsesUsageNames...)
}
