// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/tool"
)

// toolsAndChoice reads the tools and tool_choice members with the
// provider codec that owns their shape, which also reads the parallel
// flag (parallel_tool_calls, disable_parallel_tool_use).
func toolsAndChoice(r *Request, m *memberSet, decodeTools func([]byte) ([]tool.Definition, error), decodeChoice func([]byte) (tool.Choice, error), parallelKey string) error {
	if raw, ok := m.get("tools"); ok {
		m.del("tools")
		if string(raw) != "null" && string(raw) != "[]" {
			defs, err := decodeTools(raw)
			if err != nil {
				return badRequest("/tools", "unreadable tool definitions: %v", err)
			}
			r.Tools = defs
		}
	}
	choice, hasChoice := m.get("tool_choice")
	parallel, hasParallel := m.get(parallelKey)
	if !hasChoice && !hasParallel {
		return nil
	}
	body := []byte("{")
	if hasChoice {
		body = append(append(body, `"tool_choice":`...), choice...)
	}
	if hasParallel && parallelKey == "parallel_tool_calls" {
		if hasChoice {
			body = append(body, ',')
		}
		body = append(append(body, `"parallel_tool_calls":`...), parallel...)
	}
	body = append(body, '}')
	m.del("tool_choice")
	m.del("parallel_tool_calls")
	c, err := decodeChoice(body)
	if err != nil {
		return badRequest("/tool_choice", "unreadable: %v", err)
	}
	if !hasChoice {
		c.Mode = tool.ChoiceAuto
	}
	r.Choice = &c
	return nil
}

func defsOf(decode func([]byte) (*codec.Tools, error)) func([]byte) ([]tool.Definition, error) {
	return func(b []byte) ([]tool.Definition, error) {
		t, err := decode(b)
		if err != nil {
			return nil, err
		}
		return t.Defs, nil
	}
}

// content reads an OpenAI content member: a string or an array of parts.
func chatContent(raw json.RawMessage, at func() string) ([]Part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if fastTake(raw, &s) {
			return []Part{{Kind: PartText, Text: s}}, nil
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, badRequest(at(), "wrong type")
		}
		return []Part{{Kind: PartText, Text: s}}, nil
	}
	items, err := decodeChatParts(raw)
	if err != nil {
		return nil, badRequest(at(), "must be a string or an array of content parts")
	}
	var out []Part
	if len(items) > 0 {
		out = make([]Part, 0, len(items))
	}
	for i, it := range items {
		switch it.Type {
		case "text", "input_text", "output_text":
			out = append(out, Part{Kind: PartText, Text: it.Text})
		case "refusal":
			out = append(out, Part{Kind: PartText, Text: it.Refusal})
		case "image_url":
			if it.ImageURL == nil || it.ImageURL.URL == "" {
				return nil, badRequest(fmt.Sprintf("%s/%d/image_url", at(), i), "url is required")
			}
			out = append(out, imagePart(it.ImageURL.URL))
		default:
			return nil, badRequest(fmt.Sprintf("%s/%d/type", at(), i), "content part type %q is not supported", clip(it.Type))
		}
	}
	return out, nil
}

// imagePart reads an image URL; a data: URL becomes base64 data.
func imagePart(url string) Part {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		if meta, data, ok := strings.Cut(rest, ","); ok && strings.HasSuffix(meta, ";base64") {
			return Part{Kind: PartImage, MediaType: strings.TrimSuffix(meta, ";base64"), Data: data}
		}
	}
	return Part{Kind: PartImage, URL: url}
}

// clip bounds a client's string before it goes into an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func decodeChatRequest(r *Request, m *memberSet) error {
	if err := take(m, "model", &r.Model); err != nil {
		return err
	}
	var msgs []json.RawMessage
	if err := take(m, "messages", &msgs); err != nil {
		return err
	}
	if len(msgs) == 0 {
		return badRequest("/messages", "must hold at least one message")
	}
	// An agent's request holds hundreds of messages: room for them all,
	// one message struct for all, and no pointer built but for an error.
	r.Messages = slices.Grow(r.Messages, len(msgs))
	var msg chatMessageIn
	for i, raw := range msgs {
		msg = chatMessageIn{}
		if err := decodeChatMessage(raw, &msg); err != nil {
			return badRequest("/messages/"+strconv.Itoa(i), "wrong type")
		}
		ptr := func() string { return "/messages/" + strconv.Itoa(i) }
		parts, err := chatContent(msg.Content, func() string { return ptr() + "/content" })
		if err != nil {
			return err
		}
		switch msg.Role {
		case "system", "developer":
			for _, p := range parts {
				if p.Kind != PartText {
					return badRequest(ptr()+"/content", "a system message holds text only")
				}
			}
			systemIn(r, parts)
		case "user":
			r.Messages = append(r.Messages, Message{Role: RoleUser, Parts: parts})
		case "assistant":
			reasoning := ""
			if s := msg.ReasoningContent; s != nil && *s != "" {
				reasoning = *s
			} else if s := msg.Reasoning; s != nil && *s != "" {
				reasoning = *s
			}
			ps := parts
			if reasoning != "" || len(msg.ToolCalls) > 0 {
				ps = make([]Part, 0, 1+len(parts)+len(msg.ToolCalls))
				if reasoning != "" {
					ps = append(ps, Part{Kind: PartReasoning, Text: reasoning})
				}
				ps = append(ps, parts...)
			}
			for j, tc := range msg.ToolCalls {
				args := json.RawMessage(tc.Function.Arguments)
				if strings.TrimSpace(tc.Function.Arguments) == "" {
					args = json.RawMessage("{}")
				} else if !json.Valid(args) {
					return badRequest(fmt.Sprintf("%s/tool_calls/%d/function/arguments", ptr(), j), "is not JSON")
				}
				ps = append(ps, Part{Kind: PartCall, CallID: tc.ID, Name: tc.Function.Name, Arguments: args})
			}
			r.Messages = append(r.Messages, Message{Role: RoleAssistant, Parts: ps})
		case "tool":
			if msg.ToolCallID == "" {
				return badRequest(ptr()+"/tool_call_id", "is required")
			}
			r.Messages = append(r.Messages, Message{Role: RoleTool, Parts: []Part{{Kind: PartResult, CallID: msg.ToolCallID, Content: parts}}})
		default:
			return badRequest(ptr()+"/role", "role %q is not supported", clip(msg.Role))
		}
	}
	if err := toolsAndChoice(r, m, defsOf(openai.DecodeTools), openai.DecodeChoice, "parallel_tool_calls"); err != nil {
		return err
	}
	var maxTokens, maxCompletion int
	if err := takeBound(m, "max_tokens", &maxTokens); err != nil {
		return err
	}
	if err := takeBound(m, "max_completion_tokens", &maxCompletion); err != nil {
		return err
	}
	r.MaxTokens = max(maxTokens, maxCompletion)
	if err := takeSampling(r, m); err != nil {
		return err
	}
	if raw, ok := m.get("stop"); ok {
		m.del("stop")
		var one string
		if json.Unmarshal(raw, &one) == nil {
			r.Stop = []string{one}
		} else if string(raw) != "null" && json.Unmarshal(raw, &r.Stop) != nil {
			return badRequest("/stop", "must be a string or an array of strings")
		}
	}
	if err := take(m, "stream", &r.Stream); err != nil {
		return err
	}
	var so streamOptions
	if err := take(m, "stream_options", &so); err != nil {
		return err
	}
	r.IncludeUsage = so.IncludeUsage
	if err := take(m, "reasoning_effort", &r.ReasoningEffort); err != nil {
		return err
	}
	var n int
	if err := take(m, "n", &n); err != nil {
		return err
	}
	if n > 1 {
		return badRequest("/n", "only one choice is supported")
	}
	return nil
}

// streamOptions is what the gateway reads of a Chat request's
// stream_options.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

func takeSampling(r *Request, m *memberSet) error {
	if err := take(m, "temperature", &r.Temperature); err != nil {
		return err
	}
	return take(m, "top_p", &r.TopP)
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// messagesBlocks reads Anthropic content: a string or an array of blocks.
// isResult reports whether p is a tool's result.
func isResult(p Part) bool { return p.Kind == PartResult }

func messagesBlocks(raw json.RawMessage, ptr string) ([]Part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if fastTake(raw, &s) {
			return []Part{{Kind: PartText, Text: s}}, nil
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, badRequest(ptr, "wrong type")
		}
		return []Part{{Kind: PartText, Text: s}}, nil
	}
	blocks, err := decodeMessagesBlocks(raw)
	if err != nil {
		return nil, badRequest(ptr, "must be a string or an array of content blocks")
	}
	var out []Part
	if len(blocks) > 0 {
		out = make([]Part, 0, len(blocks))
	}
	for i, b := range blocks {
		// The block's pointer, built only for an error or a result's
		// content.
		bp := func() string { return ptr + "/" + strconv.Itoa(i) }
		switch b.Type {
		case "text":
			out = append(out, Part{Kind: PartText, Text: b.Text})
		case "image":
			if b.Source == nil {
				return nil, badRequest(bp()+"/source", "is required")
			}
			switch b.Source.Type {
			case "base64":
				out = append(out, Part{Kind: PartImage, MediaType: b.Source.MediaType, Data: b.Source.Data})
			case "url":
				out = append(out, Part{Kind: PartImage, URL: b.Source.URL})
			default:
				return nil, badRequest(bp()+"/source/type", "image source %q is not supported", clip(b.Source.Type))
			}
		case "thinking":
			out = append(out, Part{Kind: PartReasoning, Text: b.Thinking, Signature: b.Signature, SignedBy: APIMessages})
		case "redacted_thinking":
			out = append(out, Part{Kind: PartRedacted, Data: b.Data})
		case "tool_use":
			args := b.Input
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			out = append(out, Part{Kind: PartCall, CallID: b.ID, Name: b.Name, Arguments: args})
		case "tool_result":
			inner, err := messagesBlocks(b.Content, bp()+"/content")
			if err != nil {
				return nil, err
			}
			out = append(out, Part{Kind: PartResult, CallID: b.ToolUseID, Content: inner, IsError: b.IsError})
		case "mcp_tool_use":
			// A call the gateway ran for the model in an earlier turn,
			// replayed as the client got it: a call and, in the same
			// assistant message, its mcp_tool_result.
			args := b.Input
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			out = append(out, Part{Kind: PartCall, CallID: b.ID, Name: b.Name, Arguments: args})
		case "mcp_tool_result":
			inner, err := messagesBlocks(b.Content, bp()+"/content")
			if err != nil {
				return nil, err
			}
			out = append(out, Part{Kind: PartResult, CallID: b.ToolUseID, Content: inner, IsError: b.IsError})
		default:
			return nil, badRequest(bp()+"/type", "content block type %q is not supported", clip(b.Type))
		}
	}
	return out, nil
}

func decodeMessagesRequest(r *Request, m *memberSet) error {
	if err := take(m, "model", &r.Model); err != nil {
		return err
	}
	if raw, ok := m.get("system"); ok {
		m.del("system")
		parts, err := messagesBlocks(raw, "/system")
		if err != nil {
			return err
		}
		for _, p := range parts {
			if p.Kind != PartText {
				return badRequest("/system", "holds text blocks only")
			}
			r.System = joinText(r.System, p.Text)
		}
	}
	var msgs []messagesMessageIn
	if err := take(m, "messages", &msgs); err != nil {
		return err
	}
	if len(msgs) == 0 {
		return badRequest("/messages", "must hold at least one message")
	}
	r.Messages = slices.Grow(r.Messages, len(msgs))
	for i, msg := range msgs {
		ptr := "/messages/" + strconv.Itoa(i) + "/content"
		parts, err := messagesBlocks(msg.Content, ptr)
		if err != nil {
			return err
		}
		switch msg.Role {
		case "user":
			if !slices.ContainsFunc(parts, isResult) {
				if len(parts) > 0 {
					r.Messages = append(r.Messages, Message{Role: RoleUser, Parts: parts})
				}
				break
			}
			// Tool results travel in user messages; the gateway keeps
			// them apart, in order, as RoleTool messages.
			var user []Part
			for _, p := range parts {
				if p.Kind == PartResult {
					if len(user) > 0 {
						r.Messages = append(r.Messages, Message{Role: RoleUser, Parts: user})
						user = nil
					}
					r.Messages = append(r.Messages, Message{Role: RoleTool, Parts: []Part{p}})
					continue
				}
				user = append(user, p)
			}
			if len(user) > 0 {
				r.Messages = append(r.Messages, Message{Role: RoleUser, Parts: user})
			}
		case "assistant":
			if !slices.ContainsFunc(parts, isResult) {
				r.Messages = append(r.Messages, Message{Role: RoleAssistant, Parts: parts})
				break
			}
			// The results of calls the gateway ran (mcp_tool_result) are
			// in the assistant's own message: each ends the assistant
			// message so far and becomes a RoleTool message after it.
			var own []Part
			split := false
			for _, p := range parts {
				if p.Kind == PartResult {
					r.Messages = append(r.Messages, Message{Role: RoleAssistant, Parts: own}, Message{Role: RoleTool, Parts: []Part{p}})
					own, split = nil, true
					continue
				}
				own = append(own, p)
			}
			if len(own) > 0 || !split {
				r.Messages = append(r.Messages, Message{Role: RoleAssistant, Parts: own})
			}
		case "system":
			// Claude Code sends system-role messages mid-conversation.
			for _, p := range parts {
				if p.Kind != PartText {
					return badRequest(ptr, "a system message holds text only")
				}
			}
			r.Messages = append(r.Messages, Message{Role: RoleSystem, Parts: parts})
		default:
			return badRequest(fmt.Sprintf("/messages/%d/role", i), "role %q is not supported", clip(msg.Role))
		}
	}
	if err := readMessagesTools(r, m); err != nil {
		return err
	}
	if err := toolsAndChoice(r, m, defsOf(anthropic.DecodeTools), anthropic.DecodeChoice, "disable_parallel_tool_use"); err != nil {
		return err
	}
	if err := takeBound(m, "max_tokens", &r.MaxTokens); err != nil {
		return err
	}
	if err := takeSampling(r, m); err != nil {
		return err
	}
	if err := take(m, "stop_sequences", &r.Stop); err != nil {
		return err
	}
	if err := take(m, "stream", &r.Stream); err != nil {
		return err
	}
	var thinking struct {
		Type         string          `json:"type"`
		BudgetTokens json.RawMessage `json:"budget_tokens"`
		Display      string          `json:"display"`
	}
	if err := take(m, "thinking", &thinking); err != nil {
		return err
	}
	budget, err := tokenBound(thinking.BudgetTokens, "/thinking/budget_tokens")
	if err != nil {
		return err
	}
	r.Thinking, r.ThinkingDisplay = thinking.Type, thinking.Display
	if thinking.Type == "enabled" {
		r.ThinkingBudget = budget
	}
	return nil
}

func decodeResponsesRequest(r *Request, m *memberSet) error {
	if err := take(m, "model", &r.Model); err != nil {
		return err
	}
	var store bool
	if err := take(m, "store", &store); err != nil {
		return err
	}
	if store {
		return badRequest("/store", "the gateway is stateless: send store: false and the whole conversation in input")
	}
	var prev string
	if err := take(m, "previous_response_id", &prev); err != nil {
		return err
	}
	if prev != "" {
		return badRequest("/previous_response_id", "the gateway is stateless: send the whole conversation in input")
	}
	var instructions string
	if err := take(m, "instructions", &instructions); err != nil {
		return err
	}
	r.System = instructions
	raw, ok := m.get("input")
	m.del("input")
	if !ok || string(raw) == "null" {
		return badRequest("/input", "is required")
	}
	var one string
	if unmarshalString(raw, &one) {
		r.Messages = []Message{{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: one}}}}
	} else {
		var items []json.RawMessage
		if !fastTake(raw, &items) && json.Unmarshal(raw, &items) != nil {
			return badRequest("/input", "must be a string or an array of items")
		}
		// Codex sends its whole session, hundreds of items: one item
		// struct for all.
		r.Messages = slices.Grow(r.Messages, len(items))
		var it responsesInputItem
		for i, raw := range items {
			if err := responsesItemIn(r, raw, &it, "/input/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	if err := readResponsesTools(r, m); err != nil {
		return err
	}
	if err := toolsAndChoice(r, m, defsOf(responses.DecodeTools), responses.DecodeChoice, "parallel_tool_calls"); err != nil {
		return err
	}
	if err := takeBound(m, "max_output_tokens", &r.MaxTokens); err != nil {
		return err
	}
	if err := takeSampling(r, m); err != nil {
		return err
	}
	if err := take(m, "stream", &r.Stream); err != nil {
		return err
	}
	if err := readReasoning(r, m); err != nil {
		return err
	}
	// include stays in Extra: the member table says what becomes of it.
	return nil
}

func responsesItemIn(r *Request, raw json.RawMessage, itp *responsesInputItem, ptr string) error {
	if err := decodeResponsesItem(raw, itp); err != nil {
		return badRequest(ptr, "wrong type")
	}
	it := itp
	last := func(role Role) *Message {
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == role {
			return &r.Messages[n-1]
		}
		r.Messages = append(r.Messages, Message{Role: role})
		return &r.Messages[len(r.Messages)-1]
	}
	switch it.Type {
	case "", "message":
		var parts []Part
		if len(it.Content) > 0 && it.Content[0] == '[' {
			cs, err := decodeResponsesParts(it.Content)
			if err != nil {
				return badRequest(ptr+"/content", "wrong type")
			}
			for j, c := range cs {
				switch c.Type {
				case "input_text", "output_text", "text":
					parts = append(parts, Part{Kind: PartText, Text: c.Text})
				case "input_image":
					parts = append(parts, imagePart(c.ImageURL))
				default:
					return badRequest(fmt.Sprintf("%s/content/%d/type", ptr, j), "content type %q is not supported", clip(c.Type))
				}
			}
		} else {
			var s string
			if !unmarshalString(it.Content, &s) {
				return badRequest(ptr+"/content", "wrong type")
			}
			parts = []Part{{Kind: PartText, Text: s}}
		}
		switch it.Role {
		case "system", "developer":
			systemIn(r, parts)
		case "user":
			r.Messages = append(r.Messages, Message{Role: RoleUser, Parts: parts})
		case "assistant":
			msg := last(RoleAssistant)
			msg.Parts = append(msg.Parts, parts...)
		default:
			return badRequest(ptr+"/role", "role %q is not supported", clip(it.Role))
		}
	case "function_call":
		args := json.RawMessage(it.Arguments)
		if strings.TrimSpace(it.Arguments) == "" {
			args = json.RawMessage("{}")
		} else if !json.Valid(args) {
			return badRequest(ptr+"/arguments", "is not JSON")
		}
		msg := last(RoleAssistant)
		msg.Parts = append(msg.Parts, Part{Kind: PartCall, CallID: it.CallID, Name: flatName(it.Namespace, it.Name), Arguments: args})
	case "custom_tool_call":
		msg := last(RoleAssistant)
		msg.Parts = append(msg.Parts, Part{Kind: PartCall, CallID: it.CallID, Name: flatName(it.Namespace, it.Name), Arguments: customArgs(it.Input)})
	case "function_call_output", "custom_tool_call_output":
		var s string
		var parts []Part
		if unmarshalString(it.Output, &s) {
			parts = []Part{{Kind: PartText, Text: s}}
		} else {
			p, err := chatContent(it.Output, func() string { return ptr + "/output" })
			if err != nil {
				return err
			}
			parts = p
		}
		r.Messages = append(r.Messages, Message{Role: RoleTool, Parts: []Part{{Kind: PartResult, CallID: it.CallID, Content: parts}}})
	case "mcp_call":
		// A call the gateway ran for the model in an earlier turn,
		// replayed: the call, then its output (or error) as its result.
		args := json.RawMessage(it.Arguments)
		if strings.TrimSpace(it.Arguments) == "" {
			args = json.RawMessage("{}")
		} else if !json.Valid(args) {
			return badRequest(ptr+"/arguments", "is not JSON")
		}
		id := strings.TrimPrefix(it.ID, "mcp_")
		msg := last(RoleAssistant)
		msg.Parts = append(msg.Parts, Part{Kind: PartCall, CallID: id, Name: it.Name, Arguments: args})
		res := Part{Kind: PartResult, CallID: id}
		var out string
		if it.Error != nil {
			res.IsError, out = true, *it.Error
		} else if len(it.Output) > 0 && !unmarshalString(it.Output, &out) {
			return badRequest(ptr+"/output", "wrong type")
		}
		res.Content = []Part{{Kind: PartText, Text: out}}
		r.Messages = append(r.Messages, Message{Role: RoleTool, Parts: []Part{res}})
	case "reasoning":
		var text []string
		for _, s := range it.Summary {
			text = append(text, s.Text)
		}
		msg := last(RoleAssistant)
		msg.Parts = append(msg.Parts, Part{Kind: PartReasoning, Text: strings.Join(text, "\n\n"), Signature: it.EncryptedContent, SignedBy: APIResponses})
	default:
		return badRequest(ptr+"/type", "input item type %q is not supported", clip(it.Type))
	}
	return nil
}

// systemIn reads a system or developer message: the system prompt when
// no other message came before it, else a RoleSystem message kept in
// place.
func systemIn(r *Request, parts []Part) {
	if len(r.Messages) > 0 {
		r.Messages = append(r.Messages, Message{Role: RoleSystem, Parts: parts})
		return
	}
	for _, p := range parts {
		r.System = joinText(r.System, p.Text)
	}
}
