// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"bytes"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// Extensions keys of a [tool.Response] this package keeps.
const (
	// ExtStopReason keeps a stop_reason that [tool.StopReason] cannot tell
	// apart ("model_context_window_exceeded", or one this package does not
	// know), so that it is written back unchanged.
	ExtStopReason = "anthropic/stop_reason"
	// ExtStopSequence keeps the "stop_sequence" that ended the message.
	ExtStopSequence = "anthropic/stop_sequence"
	// ExtServerBlocks keeps, as a JSON array of the blocks as they
	// arrived, the content blocks that have no canonical form: server tool
	// use and results (server_tool_use, web_search_tool_result…) and block
	// types this package does not know. They are written back, in order,
	// after the thinking blocks and before the text.
	ExtServerBlocks = "anthropic/server_blocks"
)

// stopReason maps a stop_reason to a [tool.StopReason]; the bool is false
// when the mapping loses information.
func stopReason(s string) (tool.StopReason, bool) {
	switch s {
	case "":
		return "", true
	case "end_turn":
		return tool.StopEnd, true
	case "tool_use":
		return tool.StopToolCalls, true
	case "max_tokens":
		return tool.StopMaxTokens, true
	case "stop_sequence":
		return tool.StopSequence, true
	case "pause_turn":
		return tool.StopPauseTurn, true
	case "refusal":
		return tool.StopRefusal, true
	case "model_context_window_exceeded":
		return tool.StopMaxTokens, false
	}
	return tool.StopOther, false
}

// anthropicStop maps a [tool.StopReason] to a stop_reason; "" means null.
// Anthropic has no content-filter reason: it is written as "refusal".
func anthropicStop(s tool.StopReason) string {
	switch s {
	case "":
		return ""
	case tool.StopToolCalls:
		return "tool_use"
	case tool.StopMaxTokens:
		return "max_tokens"
	case tool.StopSequence:
		return "stop_sequence"
	case tool.StopPauseTurn:
		return "pause_turn"
	case tool.StopRefusal, tool.StopContentFilter:
		return "refusal"
	}
	return "end_turn"
}

// DecodeResponse reads an Anthropic message (the body of a /v1/messages
// response, or an assistant message of a conversation).
//
// Text blocks are joined into [tool.Response.Content]; thinking blocks'
// text into [tool.Response.Reasoning]. Each tool_use block becomes a call
// whose arguments are its "input" object. The thinking and
// redacted_thinking blocks that precede a tool_use are kept, as a JSON
// array of the blocks as they arrived (signatures included), in
// [tool.ExtAnthropicThinking] of that call, so that they can be replayed
// before it as the API requires; thinking blocks after the last tool_use
// are kept in the response's Extensions under the same key. stop_reason
// maps to [tool.StopReason] (pause_turn, refusal and
// model_context_window_exceeded included); a message holding a tool_use
// block stops for [tool.StopToolCalls] whatever its stop_reason. Content
// blocks of server tools (server_tool_use, web_search_tool_result…) are
// errors: they have no canonical form.
func DecodeResponse(data []byte) (*tool.Response, error) {
	v, err := decodeResponse(data)
	return v, wire.Fail(codec.Anthropic, data, err)
}

// decodeResponse is [DecodeResponse] with its error not yet a *codec.Error.
func decodeResponse(data []byte) (*tool.Response, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	data = bytes.Clone(data)
	if err := wire.Kind(data, strictjson.Object, ""); err != nil {
		return nil, err
	}
	r := &tool.Response{}
	var blocks []byte
	var stop string
	err := strictjson.Members(data, func(k, v []byte) error {
		p := wire.Member("", string(k))
		var err error
		switch string(k) {
		case "id":
			r.ID, err = wire.OptStr(v, p)
		case "model":
			r.Model, err = wire.OptStr(v, p)
		case "type":
			var t string
			if t, err = wire.Str(v, p); err == nil && t != "message" {
				err = wire.ShapeErr(p, "type is not message")
			}
		case "role":
			var role string
			if role, err = wire.Str(v, p); err == nil && role != "assistant" {
				err = wire.ShapeErr(p, "role is not assistant")
			}
		case "content":
			blocks = v
		case "stop_reason":
			stop, err = wire.OptStr(v, p)
		case "stop_sequence":
			if !wire.IsKind(v, strictjson.Null) {
				_, err = wire.Str(v, p)
				r.Extensions = r.Extensions.Set(ExtStopSequence, v)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if blocks == nil {
		return nil, wire.ShapeErr("", "a message without \"content\"")
	}
	if err := content(r, blocks, "/content"); err != nil {
		return nil, err
	}
	var exact bool
	r.Stop, exact = stopReason(stop)
	switch {
	case len(r.Calls) > 0:
		r.Stop = tool.StopToolCalls
	case !exact:
		r.Extensions = r.Extensions.Set(ExtStopReason, strictjson.AppendQuote(nil, stop))
	}
	return r, nil
}

// content reads a message's content blocks into r.
func content(r *tool.Response, blocks []byte, ptr string) error {
	if wire.IsKind(blocks, strictjson.String) { // the shorthand of a text-only message
		s, err := wire.Str(blocks, ptr)
		r.Content = s
		return err
	}
	if err := wire.Kind(blocks, strictjson.Array, ptr); err != nil {
		return err
	}
	var text, reasoning strings.Builder
	var thinking [][]byte // blocks waiting for the tool_use they precede
	var server [][]byte   // blocks with no canonical form
	err := strictjson.Elements(blocks, func(i int, b []byte) error {
		p := wire.Index(ptr, i)
		if err := wire.Kind(b, strictjson.Object, p); err != nil {
			return err
		}
		typ, err := wire.Str(strictjson.Get(b, "type"), p+"/type")
		if err != nil {
			return err
		}
		switch typ {
		case "text":
			s, err := wire.Str(strictjson.Get(b, "text"), p+"/text")
			text.WriteString(s)
			return err
		case "thinking":
			s, err := wire.Str(strictjson.Get(b, "thinking"), p+"/thinking")
			if err != nil {
				return err
			}
			if reasoning.Len() > 0 && s != "" {
				reasoning.WriteByte('\n')
			}
			reasoning.WriteString(s)
			thinking = append(thinking, b)
		case "redacted_thinking":
			if _, err := wire.Str(strictjson.Get(b, "data"), p+"/data"); err != nil {
				return err
			}
			thinking = append(thinking, b)
		case "tool_use":
			c, err := toolUse(b, p)
			if err != nil {
				return err
			}
			if len(thinking) > 0 {
				c.Extensions = c.Extensions.Set(tool.ExtAnthropicThinking, wire.JoinArray(thinking))
				thinking = nil
			}
			r.Calls = append(r.Calls, c)
		default:
			server = append(server, b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(thinking) > 0 {
		r.Extensions = r.Extensions.Set(tool.ExtAnthropicThinking, wire.JoinArray(thinking))
	}
	if len(server) > 0 {
		r.Extensions = r.Extensions.Set(ExtServerBlocks, wire.JoinArray(server))
	}
	r.Content, r.Reasoning = text.String(), reasoning.String()
	return nil
}

// toolUse reads {"type":"tool_use","id","name","input"}.
func toolUse(b []byte, ptr string) (tool.Call, error) {
	var c tool.Call
	input := strictjson.Get(b, "input")
	err := strictjson.Members(b, func(k, v []byte) error {
		var err error
		switch string(k) {
		case "id":
			c.ID, err = wire.Str(v, ptr+"/id")
		case "name":
			c.Name, err = wire.Str(v, ptr+"/name")
		}
		return err
	})
	if err != nil {
		return c, err
	}
	if c.Name == "" {
		return c, wire.ShapeErr(ptr+"/name", "a tool_use block without a name")
	}
	if !wire.IsKind(input, strictjson.Object) {
		return c, wire.Errf(ErrInvalidArguments, ptr+"/input", "got %s", strictjson.KindOf(input))
	}
	c.Arguments = input
	return c, nil
}

// EncodeResponse writes r as an Anthropic message. Thinking blocks kept in
// [tool.ExtAnthropicThinking] are written as they arrived: a call's before
// it (the first call's at the start of the message, where the API wants
// them), the response's at the start, or at the end when there are calls.
// Reasoning with no kept blocks is written as one unsigned thinking block.
// Kept server blocks ([ExtServerBlocks]) follow the leading thinking.
// Text is one text block; each call one tool_use block.
func EncodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResponse(r)
	if err != nil {
		return nil, nil, wire.Fail(codec.Anthropic, nil, err)
	}
	return v, ws, nil
}

// encodeResponse is [EncodeResponse] with its error not yet a *codec.Error.
func encodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	for i := range r.Calls {
		c := &r.Calls[i]
		if c.Name == "" {
			return nil, nil, wire.Errf(codec.ErrCannotEncode, wire.Index("/calls", i)+"/name", "empty tool name")
		}
		if !wire.IsKind(wire.ArgsObject(c.Arguments), strictjson.Object) {
			return nil, nil, wire.Errf(ErrInvalidArguments, wire.Index("/calls", i)+"/arguments", "got %s", strictjson.KindOf(wire.ArgsObject(c.Arguments)))
		}
		if err := blockArray(c.Extensions.Get(tool.ExtAnthropicThinking)); err != nil {
			return nil, nil, wire.ErrAt(wire.Index("/calls", i)+"/extensions", err)
		}
	}
	th := r.Extensions.Get(tool.ExtAnthropicThinking)
	if err := blockArray(th); err != nil {
		return nil, nil, wire.ErrAt("/extensions", err)
	}
	server := r.Extensions.Get(ExtServerBlocks)
	if err := blockArray(server); err != nil {
		return nil, nil, wire.ErrAt("/extensions", err)
	}
	out := make([]byte, 0, 256+len(r.Content)+len(r.Reasoning))
	out = append(out, '{')
	if r.ID != "" {
		out = wire.AppendStr(out, "id", r.ID)
	}
	out = wire.AppendStr(wire.AppendStr(out, "type", "message"), "role", "assistant")
	if r.Model != "" {
		out = wire.AppendStr(out, "model", r.Model)
	}
	out = append(wire.AppendKey(out, "content"), '[')
	switch {
	case len(r.Calls) > 0:
		out = wire.AppendElements(out, r.Calls[0].Extensions.Get(tool.ExtAnthropicThinking))
	case th != nil:
		out = wire.AppendElements(out, th)
	case r.Reasoning != "":
		out = wire.AppendStr(wire.AppendStr(append(out, '{'), "type", "thinking"), "thinking", r.Reasoning)
		out = append(wire.AppendStr(out, "signature", ""), '}')
	}
	out = wire.AppendElements(out, server)
	if r.Content != "" {
		out = wire.AppendStr(wire.AppendStr(wire.Comma(out, '{'), "type", "text"), "text", r.Content)
		out = append(out, '}')
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		if i > 0 {
			out = wire.AppendElements(out, c.Extensions.Get(tool.ExtAnthropicThinking))
		}
		out = wire.AppendStr(wire.Comma(out, '{'), "type", "tool_use")
		out = wire.AppendStr(wire.AppendStr(out, "id", c.ID), "name", c.Name)
		out = append(wire.AppendRaw(out, "input", wire.ArgsObject(c.Arguments)), '}')
	}
	if len(r.Calls) > 0 && th != nil {
		out = wire.AppendElements(out, th)
	}
	out = append(out, ']')
	stop := r.Stop
	if len(r.Calls) > 0 {
		stop = tool.StopToolCalls
	}
	raw := r.Extensions.Get(ExtStopReason)
	switch s := anthropicStop(stop); {
	case raw != nil && wire.IsKind(raw, strictjson.String) && (stop == tool.StopOther || stop == tool.StopMaxTokens):
		out = wire.AppendRaw(out, "stop_reason", raw)
	case s == "":
		out = wire.AppendRaw(out, "stop_reason", []byte("null"))
	default:
		out = wire.AppendStr(out, "stop_reason", s)
	}
	if seq := r.Extensions.Get(ExtStopSequence); wire.IsKind(seq, strictjson.String) {
		out = wire.AppendRaw(out, "stop_sequence", seq)
	} else {
		out = wire.AppendRaw(out, "stop_sequence", []byte("null"))
	}
	ws := wire.DroppedExtensions(nil, r.Extensions, "", formatName, tool.ExtAnthropicThinking, ExtServerBlocks, ExtStopReason, ExtStopSequence)
	for i := range r.Calls {
		ws = wire.DroppedExtensions(ws, r.Calls[i].Extensions, wire.Index("/calls", i), formatName, tool.ExtAnthropicThinking)
	}
	return append(out, '}'), ws, nil
}

// blockArray checks kept blocks before they are written out.
func blockArray(v []byte) error {
	if v == nil {
		return nil
	}
	if err := strictjson.Check(v, nil); err != nil {
		return wire.Errf(codec.ErrCannotEncode, "", "kept content blocks are not strict JSON: %w", err)
	}
	if !wire.IsKind(v, strictjson.Array) {
		return wire.Errf(codec.ErrCannotEncode, "", "kept content blocks are not a JSON array")
	}
	return nil
}
