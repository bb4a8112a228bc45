// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openai

import (
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// ExtFinishReason keeps, in [tool.Response.Extensions], a finish_reason
// this package does not know, read as [tool.StopOther], so that it is
// written back unchanged.
const ExtFinishReason = "openai/finish_reason"

// stopReason maps a finish_reason to a [tool.StopReason]. A missing or null
// finish_reason maps to "".
func stopReason(s string) tool.StopReason {
	switch s {
	case "":
		return ""
	case "stop":
		return tool.StopEnd
	case "tool_calls", "function_call":
		return tool.StopToolCalls
	case "length":
		return tool.StopMaxTokens
	case "content_filter":
		return tool.StopContentFilter
	}
	return tool.StopOther
}

// finishReason maps a [tool.StopReason] to a finish_reason; "" means null.
// Chat Completions has no stop-sequence, pause or refusal reason: they are
// all "stop" (a refusal is carried by the message's "refusal" field).
func finishReason(s tool.StopReason) string {
	switch s {
	case "":
		return ""
	case tool.StopToolCalls:
		return "tool_calls"
	case tool.StopMaxTokens:
		return "length"
	case tool.StopContentFilter:
		return "content_filter"
	}
	return "stop"
}

// DecodeResponse reads a Chat Completions response (an object holding
// "choices", of which there must be one) or a bare assistant message.
//
// Each tool call's "arguments" string is decoded once, strictly, and must
// hold a JSON object; a legacy "function_call" becomes a call without an
// id. "reasoning_content" or "reasoning" (as vLLM and DeepSeek write it)
// becomes [tool.Response.Reasoning]; a "refusal" becomes the content with
// [tool.StopRefusal]. A response holding any call stops for
// [tool.StopToolCalls], whatever its finish_reason. Members toolgate does
// not model (usage, logprobs…) are ignored.
func DecodeResponse(data []byte) (*tool.Response, error) {
	v, err := decodeResponse(data)
	return v, wire.Fail(codec.OpenAI, data, err)
}

// decodeResponse is [DecodeResponse] with its error not yet a *codec.Error.
func decodeResponse(data []byte) (*tool.Response, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	if err := wire.Kind(data, strictjson.Object, ""); err != nil {
		return nil, err
	}
	r := &tool.Response{}
	choices := strictjson.Get(data, "choices")
	if choices == nil {
		if !wire.Has(data, "role") && !wire.Has(data, "content") && !wire.Has(data, "tool_calls") {
			return nil, wire.ShapeErr("", "want a chat completion (\"choices\") or an assistant message")
		}
		if err := message(r, data, ""); err != nil {
			return nil, err
		}
		if len(r.Calls) > 0 {
			r.Stop = tool.StopToolCalls
		}
		return r, nil
	}
	var finish string
	err := strictjson.Members(data, func(k, v []byte) error {
		var err error
		switch string(k) {
		case "id":
			r.ID, err = wire.OptStr(v, "/id")
		case "model":
			r.Model, err = wire.OptStr(v, "/model")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := wire.Kind(choices, strictjson.Array, "/choices"); err != nil {
		return nil, err
	}
	n := 0
	err = strictjson.Elements(choices, func(i int, c []byte) error {
		n++
		if i > 0 {
			return wire.ShapeErr(wire.Index("/choices", i), "more than one choice; toolgate reads one (n=1)")
		}
		if err := wire.Kind(c, strictjson.Object, "/choices/0"); err != nil {
			return err
		}
		msg := strictjson.Get(c, "message")
		if msg == nil {
			return wire.ShapeErr("/choices/0", "a choice without \"message\"")
		}
		if fr := strictjson.Get(c, "finish_reason"); fr != nil {
			var err error
			if finish, err = wire.OptStr(fr, "/choices/0/finish_reason"); err != nil {
				return err
			}
		}
		return message(r, msg, "/choices/0/message")
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, wire.ShapeErr("/choices", "no choices")
	}
	if r.Stop == "" {
		r.Stop = stopReason(finish)
		if r.Stop == tool.StopOther {
			// Kept so that the response is written back as it came.
			r.Extensions = r.Extensions.Set(ExtFinishReason, strictjson.AppendQuote(nil, finish))
		}
	}
	if len(r.Calls) > 0 {
		r.Stop = tool.StopToolCalls
	}
	return r, nil
}

// message reads an assistant message into r.
func message(r *tool.Response, msg []byte, ptr string) error {
	if err := wire.Kind(msg, strictjson.Object, ptr); err != nil {
		return err
	}
	var reasoning []string
	var text, refusalText string
	refusal := false
	err := strictjson.Members(msg, func(k, v []byte) error {
		p := wire.Member(ptr, string(k))
		switch string(k) {
		case "role":
			role, err := wire.OptStr(v, p)
			if err == nil && role != "" && role != "assistant" {
				err = wire.ShapeErr(p, "role is not assistant")
			}
			return err
		case "content":
			var err error
			text, err = content(v, p)
			return err
		case "refusal":
			if wire.IsKind(v, strictjson.Null) {
				return nil
			}
			var err error
			refusalText, err = wire.Str(v, p)
			refusal = true
			return err
		case "reasoning_content", "reasoning":
			s, err := wire.OptStr(v, p)
			if s != "" {
				reasoning = append(reasoning, s)
			}
			return err
		case "tool_calls":
			if wire.IsKind(v, strictjson.Null) {
				return nil
			}
			if err := wire.Kind(v, strictjson.Array, p); err != nil {
				return err
			}
			return strictjson.Elements(v, func(i int, c []byte) error {
				call, err := toolCall(c, wire.Index(p, i))
				r.Calls = append(r.Calls, call)
				return err
			})
		case "function_call":
			if wire.IsKind(v, strictjson.Null) {
				return nil
			}
			call, err := functionCall(v, p)
			r.Calls = append(r.Calls, call)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.Reasoning = strings.Join(reasoning, "\n")
	r.Content = text
	if text != "" && refusalText != "" {
		r.Content += "\n"
	}
	r.Content += refusalText
	if refusal {
		r.Stop = tool.StopRefusal
	}
	return nil
}

// content reads a message's content: a string, null, or an array of text
// (and refusal) parts, joined.
func content(v []byte, ptr string) (string, error) {
	switch strictjson.KindOf(v) {
	case strictjson.Null:
		return "", nil
	case strictjson.String:
		return wire.Str(v, ptr)
	case strictjson.Array:
		var b strings.Builder
		err := strictjson.Elements(v, func(i int, part []byte) error {
			p := wire.Index(ptr, i)
			switch typ := wire.Tagged(part); typ {
			case "text", "refusal":
				s, err := wire.Str(strictjson.Get(part, typ), wire.Member(p, typ))
				b.WriteString(s)
				return err
			default:
				return wire.ShapeErr(p, "content part of an unknown type")
			}
		})
		return b.String(), err
	}
	return "", wire.ShapeErr(ptr, "want a string or an array of parts, got %s", strictjson.KindOf(v))
}

// toolCall reads {"id","type":"function","function":{"name","arguments"}}.
func toolCall(v []byte, ptr string) (tool.Call, error) {
	var c tool.Call
	if err := wire.Kind(v, strictjson.Object, ptr); err != nil {
		return c, err
	}
	var fn []byte
	err := strictjson.Members(v, func(k, val []byte) error {
		var err error
		switch string(k) {
		case "id":
			c.ID, err = wire.Str(val, ptr+"/id")
		case "type":
			var typ string
			if typ, err = wire.Str(val, ptr+"/type"); err == nil && typ != "function" {
				err = wire.ShapeErr(ptr+"/type", "tool call of another type than function")
			}
		case "function":
			fn = val
		}
		return err
	})
	if err != nil {
		return c, err
	}
	if fn == nil {
		return c, wire.ShapeErr(ptr, "a tool call without \"function\"")
	}
	call, err := functionCall(fn, ptr+"/function")
	call.ID = c.ID
	return call, err
}

// functionCall reads {"name","arguments"}.
func functionCall(v []byte, ptr string) (tool.Call, error) {
	var c tool.Call
	if err := wire.Kind(v, strictjson.Object, ptr); err != nil {
		return c, err
	}
	name, args := strictjson.Get(v, "name"), strictjson.Get(v, "arguments")
	if name == nil {
		return c, wire.ShapeErr(ptr, "a call without \"name\"")
	}
	var err error
	if c.Name, err = wire.Str(name, ptr+"/name"); err != nil {
		return c, err
	}
	if c.Name == "" {
		return c, wire.ShapeErr(ptr+"/name", "empty tool name")
	}
	if args == nil {
		return c, wire.Errf(ErrInvalidArguments, ptr+"/arguments", "missing")
	}
	c.Arguments, err = wire.Arguments(ErrInvalidArguments, args, ptr+"/arguments")
	return c, err
}

// EncodeResponse writes r as a Chat Completions response with one choice.
// Calls are written as tool_calls with their arguments as a JSON string;
// [tool.StopRefusal] writes the content as the message's "refusal";
// reasoning goes in "reasoning_content". A response with calls is written
// with finish_reason "tool_calls".
func EncodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResponse(r)
	if err != nil {
		return nil, nil, wire.Fail(codec.OpenAI, nil, err)
	}
	return v, ws, nil
}

// encodeResponse is [EncodeResponse] with its error not yet a *codec.Error.
func encodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	out := make([]byte, 0, 256+len(r.Content)+len(r.Reasoning))
	out = append(out, '{')
	if r.ID != "" {
		out = wire.AppendStr(out, "id", r.ID)
	}
	out = wire.AppendStr(out, "object", "chat.completion")
	if r.Model != "" {
		out = wire.AppendStr(out, "model", r.Model)
	}
	out = append(wire.AppendKey(out, "choices"), `[{"index":0,"message":{"role":"assistant"`...)
	switch {
	case r.Stop == tool.StopRefusal && len(r.Calls) == 0:
		out = wire.AppendStr(wire.AppendRaw(out, "content", []byte("null")), "refusal", r.Content)
	case r.Content == "":
		out = wire.AppendRaw(out, "content", []byte("null"))
	default:
		out = wire.AppendStr(out, "content", r.Content)
	}
	if r.Reasoning != "" {
		out = wire.AppendStr(out, "reasoning_content", r.Reasoning)
	}
	if len(r.Calls) > 0 {
		out = append(wire.AppendKey(out, "tool_calls"), '[')
		for i := range r.Calls {
			c := &r.Calls[i]
			if c.Name == "" {
				return nil, nil, wire.Errf(codec.ErrCannotEncode, wire.Index("/calls", i)+"/name", "empty tool name")
			}
			args := wire.ArgsObject(c.Arguments)
			if !wire.IsKind(args, strictjson.Object) {
				return nil, nil, wire.Errf(ErrInvalidArguments, wire.Index("/calls", i)+"/arguments", "got %s", strictjson.KindOf(wire.ArgsObject(c.Arguments)))
			}
			if i > 0 {
				out = append(out, ',')
			}
			out = append(wire.AppendStr(append(out, '{'), "id", c.ID), `,"type":"function","function":{`...)
			out = wire.AppendStr(out, "name", c.Name)
			out = strictjson.AppendQuote(wire.AppendKey(out, "arguments"), string(args))
			out = append(out, "}}"...)
		}
		out = append(out, ']')
	}
	out = append(out, '}')
	stop := r.Stop
	if len(r.Calls) > 0 {
		stop = tool.StopToolCalls
	}
	if raw := r.Extensions.Get(ExtFinishReason); stop == tool.StopOther && wire.IsKind(raw, strictjson.String) {
		out = wire.AppendRaw(out, "finish_reason", raw)
	} else if f := finishReason(stop); f != "" {
		out = wire.AppendStr(out, "finish_reason", f)
	} else {
		out = wire.AppendRaw(out, "finish_reason", []byte("null"))
	}
	ws := wire.DroppedExtensions(nil, r.Extensions, "", formatName, ExtFinishReason)
	for i := range r.Calls {
		ws = wire.DroppedExtensions(ws, r.Calls[i].Extensions, wire.Index("/calls", i), formatName)
	}
	return append(out, "}]}"...), ws, nil
}
