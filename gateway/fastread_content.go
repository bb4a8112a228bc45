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

// fastObjects reads raw, an array of objects, as encoding/json reads it
// into a []T, member by member with member; false when raw is not an
// array of objects or member returns an error (errUnusual: encoding/json
// decides). Each element is filled in place in the slice.
func fastObjects[T any](raw []byte, capHint int, member func(t *T, k, v []byte) error) ([]T, bool) {
	if strictjson.KindOf(raw) != strictjson.Array {
		return nil, false
	}
	out := make([]T, 0, capHint)
	err := strictjson.Elements(raw, func(_ int, e []byte) error {
		if strictjson.KindOf(e) != strictjson.Object {
			return errUnusual
		}
		var zero T
		out = append(out, zero)
		t := &out[len(out)-1]
		return strictjson.Members(e, func(k, v []byte) error { return member(t, k, v) })
	})
	return out, err == nil
}

// decodeObjects reads raw, an array of a checked body, into a []T: by
// fastObjects when it can, else by encoding/json.
func decodeObjects[T any](raw []byte, capHint int, member func(t *T, k, v []byte) error) ([]T, error) {
	if out, ok := fastObjects(raw, capHint, member); ok {
		return out, nil
	}
	var out []T
	err := json.Unmarshal(raw, &out)
	return out, err
}

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
	return decodeObjects(raw, 1, chatPartMember)
}

func fastChatParts(raw []byte) ([]chatPartIn, bool) { return fastObjects(raw, 1, chatPartMember) }

func chatPartMember(p *chatPartIn, k, v []byte) error {
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
}

// messagesMessageIn is a message of a Messages request.
type messagesMessageIn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// fastMessagesMessages reads raw, the messages array of a checked
// Messages request, for [fastTake].
func fastMessagesMessages(raw []byte) ([]messagesMessageIn, bool) {
	return fastObjects(raw, 8, func(m *messagesMessageIn, k, v []byte) error {
		switch string(k) {
		case "role":
			return fastString(v, &m.Role)
		case "content":
			m.Content = v
			return nil
		}
		return foldsTo(k, "role", "content")
	})
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
	return decodeObjects(raw, 2, messagesBlockMember)
}

var messagesBlockNames = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "content", "is_error", "source"}

func fastMessagesBlocks(raw []byte) ([]messagesBlockIn, bool) {
	return fastObjects(raw, 2, messagesBlockMember)
}

func messagesBlockMember(b *messagesBlockIn, k, v []byte) error {
	if ok, err := b.messagesBlock.member(k, v); ok {
		return err
	}
	switch string(k) {
	case "tool_use_id":
		return fastString(v, &b.ToolUseID)
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
}

// responsesInputItem is an input item of a Responses request.
type responsesInputItem struct {
	Type             string               `json:"type"`
	Role             string               `json:"role"`
	Content          json.RawMessage      `json:"content"`
	CallID           string               `json:"call_id"`
	Name             string               `json:"name"`
	Arguments        string               `json:"arguments"`
	Output           json.RawMessage      `json:"output"`
	EncryptedContent string               `json:"encrypted_content"`
	Summary          []responsesSummaryIn `json:"summary"`
	ID               string               `json:"id"`
	Error            *string              `json:"error"`
	// Namespace and Input are a namespaced tool's and a custom tool's
	// (see responses_tools.go).
	Namespace string `json:"namespace"`
	Input     string `json:"input"`
}

type responsesSummaryIn struct {
	Text string `json:"text"`
}

var responsesItemNames = []string{"type", "role", "content", "call_id", "name", "arguments", "output", "encrypted_content", "summary", "id", "error", "namespace", "input"}

// decodeResponsesItem reads raw, an input item of a checked body, into it
// (which it zeroes first).
func decodeResponsesItem(raw []byte, it *responsesInputItem) error {
	*it = responsesInputItem{}
	if fastResponsesItem(raw, it) {
		return nil
	}
	*it = responsesInputItem{}
	return json.Unmarshal(raw, it)
}

func fastResponsesItem(raw []byte, it *responsesInputItem) bool {
	if strictjson.KindOf(raw) != strictjson.Object {
		return false
	}
	return strictjson.Members(raw, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return fastString(v, &it.Type)
		case "role":
			return fastString(v, &it.Role)
		case "content":
			it.Content = v
		case "call_id":
			return fastString(v, &it.CallID)
		case "name":
			return fastString(v, &it.Name)
		case "arguments":
			return fastString(v, &it.Arguments)
		case "output":
			it.Output = v
		case "encrypted_content":
			return fastString(v, &it.EncryptedContent)
		case "summary":
			it.Summary = nil
			if null, err := nullOr(v, strictjson.Array); null || err != nil {
				return err
			}
			out, ok := fastObjects(v, 1, func(s *responsesSummaryIn, k, v []byte) error {
				if string(k) == "text" {
					return fastString(v, &s.Text)
				}
				return foldsTo(k, "text")
			})
			if !ok {
				return errUnusual
			}
			it.Summary = out
			return nil
		case "id":
			return fastString(v, &it.ID)
		case "error":
			return fastOptString(v, &it.Error)
		case "namespace":
			return fastString(v, &it.Namespace)
		case "input":
			return fastString(v, &it.Input)
		default:
			return foldsTo(k, responsesItemNames...)
		}
		return nil
	}) == nil
}

// responsesPartIn is a content part of a Responses input message.
type responsesPartIn struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// decodeResponsesParts reads raw, a content array of a checked body.
func decodeResponsesParts(raw []byte) ([]responsesPartIn, error) {
	return decodeObjects(raw, 1, responsesPartMember)
}

func fastResponsesParts(raw []byte) ([]responsesPartIn, bool) {
	return fastObjects(raw, 1, responsesPartMember)
}

func responsesPartMember(p *responsesPartIn, k, v []byte) error {
	switch string(k) {
	case "type":
		return fastString(v, &p.Type)
	case "text":
		return fastString(v, &p.Text)
	case "image_url":
		return fastString(v, &p.ImageURL)
	}
	return foldsTo(k, "type", "text", "image_url")
}

// unmarshalString is encoding/json's reading of raw, a checked value, into
// a string: true for a string (read into *s) or null (which leaves it).
func unmarshalString(raw []byte, s *string) bool {
	if string(raw) == "null" || fastTake(raw, s) {
		return true
	}
	return json.Unmarshal(raw, s) == nil
}

// messagesToolHead is what the gateway reads of a Messages tool before
// its codec: whether it is one Anthropic defines (a server tool), and its
// name.
type messagesToolHead struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// responsesToolHead is messagesToolHead for a Responses tool, with a
// namespace's tools.
type responsesToolHead struct {
	Type  string            `json:"type"`
	Name  string            `json:"name"`
	Tools []json.RawMessage `json:"tools"`
}

// readToolHead reads raw, a tool of a checked body, into h (which it
// zeroes first) as encoding/json does: by the walker when the tool has the
// usual shape, which skips its schema rather than reading it twice.
func readToolHead[T messagesToolHead | responsesToolHead](raw []byte, h *T) error {
	*h = *new(T)
	if fastToolHead(raw, h) {
		return nil
	}
	*h = *new(T)
	return json.Unmarshal(raw, h)
}

// fastToolHead is readToolHead's walker; false leaves the decision to
// encoding/json.
func fastToolHead[T messagesToolHead | responsesToolHead](raw []byte, h *T) bool {
	return strictjson.KindOf(raw) == strictjson.Object &&
		strictjson.Members(raw, func(k, v []byte) error { return toolHeadMember(h, k, v) }) == nil
}

func toolHeadMember[T messagesToolHead | responsesToolHead](h *T, k, v []byte) error {
	switch h := any(h).(type) {
	case *messagesToolHead:
		switch string(k) {
		case "type":
			return fastString(v, &h.Type)
		case "name":
			return fastString(v, &h.Name)
		}
		return foldsTo(k, "type", "name")
	case *responsesToolHead:
		switch string(k) {
		case "type":
			return fastString(v, &h.Type)
		case "name":
			return fastString(v, &h.Name)
		case "tools":
			if string(v) == "null" {
				h.Tools = nil
				return nil
			}
			if !fastTake(v, &h.Tools) {
				return errUnusual
			}
			return nil
		}
		return foldsTo(k, "type", "name", "tools")
	}
	return errUnusual
}
