// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// The content arrays of a request's messages, read as encoding/json reads
// them into the structs below, by strictjson's walker when they have the
// usual shape: an agent's request holds hundreds, and reflection was most
// of the cost of reading it. Anything unusual (a member that matches a
// field only but for case, a value of another type, a null element) goes
// to encoding/json, so that the result and the errors are always its own
// (FuzzDecodeChatParts and FuzzDecodeMessagesBlocks hold the two readers
// to that, and FuzzDecodeMessagesMessages the messages array of a
// Messages request).

// chatPartIn is a content part of a Chat message.
type chatPartIn struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	ImageURL *chatImageURLIn `json:"image_url"`
	Refusal  string          `json:"refusal"`
}

type chatImageURLIn struct {
	URL string `json:"url"`
}

// decodeChatParts reads raw, an array of content parts of a checked body.
func decodeChatParts(raw []byte) ([]chatPartIn, error) {
	if parts, ok := fastChatParts(raw); ok {
		return parts, nil
	}
	var parts []chatPartIn
	err := json.Unmarshal(raw, &parts)
	return parts, err
}

func fastChatParts(raw []byte) ([]chatPartIn, bool) {
	if strictjson.KindOf(raw) != strictjson.Array {
		return nil, false
	}
	out := make([]chatPartIn, 0, 1)
	err := strictjson.Elements(raw, func(_ int, e []byte) error {
		if strictjson.KindOf(e) != strictjson.Object {
			return errUnusual
		}
		var p chatPartIn
		err := strictjson.Members(e, func(k, v []byte) error {
			switch string(k) {
			case "type":
				return fastString(v, &p.Type)
			case "text":
				return fastString(v, &p.Text)
			case "refusal":
				return fastString(v, &p.Refusal)
			case "image_url":
				p.ImageURL = nil
				if null, err := nullOr(v, strictjson.Object); null || err != nil {
					return err
				}
				u := &chatImageURLIn{}
				p.ImageURL = u
				return strictjson.Members(v, func(k, v []byte) error {
					if string(k) == "url" {
						return fastString(v, &u.URL)
					}
					return foldsTo(k, "url")
				})
			}
			return foldsTo(k, "type", "text", "image_url", "refusal")
		})
		out = append(out, p)
		return err
	})
	return out, err == nil
}

// messagesMessageIn is a message of a Messages request.
type messagesMessageIn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// fastMessagesMessages reads raw, the messages array of a checked
// Messages request, for [fastTake].
func fastMessagesMessages(raw []byte) ([]messagesMessageIn, bool) {
	if strictjson.KindOf(raw) != strictjson.Array {
		return nil, false
	}
	out := make([]messagesMessageIn, 0, 8)
	err := strictjson.Elements(raw, func(_ int, e []byte) error {
		if strictjson.KindOf(e) != strictjson.Object {
			return errUnusual
		}
		var m messagesMessageIn
		err := strictjson.Members(e, func(k, v []byte) error {
			switch string(k) {
			case "role":
				return fastString(v, &m.Role)
			case "content":
				m.Content = v
				return nil
			}
			return foldsTo(k, "role", "content")
		})
		out = append(out, m)
		return err
	})
	return out, err == nil
}

// messagesBlockIn is a content block of a Messages message (or of a tool
// result's content).
type messagesBlockIn struct {
	// The members of an answer's block, and those of the blocks only a
	// request holds.
	messagesBlock
	ToolUseID string            `json:"tool_use_id"`
	Content   json.RawMessage   `json:"content"`
	IsError   bool              `json:"is_error"`
	Source    *messagesSourceIn `json:"source"`
}

type messagesSourceIn struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

// decodeMessagesBlocks reads raw, an array of content blocks of a
// checked body.
func decodeMessagesBlocks(raw []byte) ([]messagesBlockIn, error) {
	if blocks, ok := fastMessagesBlocks(raw); ok {
		return blocks, nil
	}
	var blocks []messagesBlockIn
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

var messagesBlockNames = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "content", "is_error", "source"}

func fastMessagesBlocks(raw []byte) ([]messagesBlockIn, bool) {
	if strictjson.KindOf(raw) != strictjson.Array {
		return nil, false
	}
	out := make([]messagesBlockIn, 0, 2)
	err := strictjson.Elements(raw, func(_ int, e []byte) error {
		if strictjson.KindOf(e) != strictjson.Object {
			return errUnusual
		}
		var b messagesBlockIn
		err := strictjson.Members(e, func(k, v []byte) error {
			switch string(k) {
			case "type":
				return fastString(v, &b.Type)
			case "text":
				return fastString(v, &b.Text)
			case "thinking":
				return fastString(v, &b.Thinking)
			case "signature":
				return fastString(v, &b.Signature)
			case "data":
				return fastString(v, &b.Data)
			case "id":
				return fastString(v, &b.ID)
			case "name":
				return fastString(v, &b.Name)
			case "tool_use_id":
				return fastString(v, &b.ToolUseID)
			case "input":
				// A json.RawMessage takes the value as it is, null too.
				b.Input = v
			case "content":
				b.Content = v
			case "is_error":
				switch string(v) {
				case "true":
					b.IsError = true
				case "false":
					b.IsError = false
				case "null":
				default:
					return errUnusual
				}
			case "source":
				b.Source = nil
				if null, err := nullOr(v, strictjson.Object); null || err != nil {
					return err
				}
				s := &messagesSourceIn{}
				b.Source = s
				return strictjson.Members(v, func(k, v []byte) error {
					switch string(k) {
					case "type":
						return fastString(v, &s.Type)
					case "media_type":
						return fastString(v, &s.MediaType)
					case "data":
						return fastString(v, &s.Data)
					case "url":
						return fastString(v, &s.URL)
					}
					return foldsTo(k, "type", "media_type", "data", "url")
				})
			default:
				return foldsTo(k, messagesBlockNames...)
			}
			return nil
		})
		out = append(out, b)
		return err
	})
	return out, err == nil
}
