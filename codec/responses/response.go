// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"bytes"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// Extensions keys this package keeps beside the ones package tool names.
const (
	// ExtReasoning holds, as a JSON array of the items as they arrived,
	// the reasoning items that preceded a function_call item (on that
	// [tool.Call]) or that no call followed (on the [tool.Response]). The
	// API requires them replayed with the call when a conversation is sent
	// back without previous_response_id.
	ExtReasoning = "openai-responses/reasoning"
	// ExtIncompleteReason keeps an incomplete_details.reason this package
	// does not know, read as [tool.StopOther].
	ExtIncompleteReason = "openai-responses/incomplete_reason"
	// ExtItems keeps, as a JSON array of the items as they arrived, the
	// output items that have no canonical form: built-in tool calls
	// (web_search_call, file_search_call, mcp_call…) and item types this
	// package does not know. They are written back, in order, before the
	// message.
	ExtItems = "openai-responses/items"
)

// DecodeResponse reads an OpenAI Responses response object (or a bare
// array of its output items).
//
// message items' output_text parts become [tool.Response.Content] (a
// refusal part becomes the content with [tool.StopRefusal]); each
// function_call item becomes a call: "call_id" is [tool.Call.ID], "id"
// (fc_…) is kept in [tool.ExtResponsesItemID] and "status" in
// [tool.ExtResponsesStatus], and "arguments", a JSON string, is decoded
// once, strictly, and must hold an object. reasoning items' summary and
// reasoning text become [tool.Response.Reasoning], and the items
// themselves are kept for replay under [ExtReasoning]. "status" and
// incomplete_details map to [tool.StopReason]: completed is an end (or a
// tool-call stop when the output holds a call), max_output_tokens and
// content_filter map to their stops; other statuses are [tool.StopOther]
// with the status kept in [tool.ExtResponsesStatus]. Output items of
// built-in tools (web_search_call…) and other items with no canonical form
// are kept in order under [ExtItems].
func DecodeResponse(data []byte) (*tool.Response, error) {
	v, err := decodeResponse(data)
	return v, wire.Fail(codec.OpenAIResponses, data, err)
}

// decodeResponse is [DecodeResponse] with its error not yet a *codec.Error.
func decodeResponse(data []byte) (*tool.Response, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	data = bytes.Clone(data)
	r := &tool.Response{}
	if wire.IsKind(data, strictjson.Array) {
		if err := output(r, data, ""); err != nil {
			return nil, err
		}
		if len(r.Calls) > 0 {
			r.Stop = tool.StopToolCalls
		}
		return r, nil
	}
	if err := wire.Kind(data, strictjson.Object, ""); err != nil {
		return nil, err
	}
	var status, reason string
	var items []byte
	err := strictjson.Members(data, func(k, v []byte) error {
		p := wire.Member("", string(k))
		var err error
		switch string(k) {
		case "id":
			r.ID, err = wire.OptStr(v, p)
		case "model":
			r.Model, err = wire.OptStr(v, p)
		case "object":
			var o string
			if o, err = wire.Str(v, p); err == nil && o != "response" {
				err = wire.ShapeErr(p, "object is not a response")
			}
		case "status":
			status, err = wire.OptStr(v, p)
		case "incomplete_details":
			if wire.IsKind(v, strictjson.Object) {
				if rv := strictjson.Get(v, "reason"); rv != nil {
					reason, err = wire.OptStr(rv, p+"/reason")
				}
			}
		case "output":
			items = v
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if items == nil {
		return nil, wire.ShapeErr("", "a response without \"output\"")
	}
	if err := output(r, items, "/output"); err != nil {
		return nil, err
	}
	if len(r.Calls) > 0 {
		r.Stop = tool.StopToolCalls
		return r, nil
	}
	if r.Stop == tool.StopRefusal {
		return r, nil
	}
	switch status {
	case "":
	case "completed":
		r.Stop = tool.StopEnd
	case "incomplete":
		switch reason {
		case "max_output_tokens":
			r.Stop = tool.StopMaxTokens
		case "content_filter":
			r.Stop = tool.StopContentFilter
		default:
			r.Stop = tool.StopOther
			r.Extensions = r.Extensions.Set(tool.ExtResponsesStatus, strictjson.AppendQuote(nil, status))
			r.Extensions = r.Extensions.Set(ExtIncompleteReason, strictjson.AppendQuote(nil, reason))
		}
	default:
		r.Stop = tool.StopOther
		r.Extensions = r.Extensions.Set(tool.ExtResponsesStatus, strictjson.AppendQuote(nil, status))
	}
	return r, nil
}

// output reads output items into r.
func output(r *tool.Response, items []byte, ptr string) error {
	if err := wire.Kind(items, strictjson.Array, ptr); err != nil {
		return err
	}
	var text, reasoning strings.Builder
	var pending [][]byte // reasoning items waiting for the call they precede
	var other [][]byte   // items with no canonical form
	refusal := false
	err := strictjson.Elements(items, func(i int, it []byte) error {
		p := wire.Index(ptr, i)
		if err := wire.Kind(it, strictjson.Object, p); err != nil {
			return err
		}
		typ, err := wire.Str(strictjson.Get(it, "type"), p+"/type")
		if err != nil {
			return err
		}
		switch typ {
		case "message":
			if id := strictjson.Get(it, "id"); wire.IsKind(id, strictjson.String) && r.Extensions.Get(tool.ExtResponsesItemID) == nil {
				r.Extensions = r.Extensions.Set(tool.ExtResponsesItemID, id)
			}
			if role := strictjson.Get(it, "role"); role != nil {
				if s, err := wire.Str(role, p+"/role"); err != nil || s != "assistant" {
					return wire.ShapeErr(p+"/role", "want an assistant message")
				}
			}
			parts := strictjson.Get(it, "content")
			if err := wire.Kind(parts, strictjson.Array, p+"/content"); err != nil {
				return err
			}
			return strictjson.Elements(parts, func(j int, part []byte) error {
				pp := wire.Index(p+"/content", j)
				switch pt := wire.Tagged(part); pt {
				case "output_text":
					s, err := wire.Str(strictjson.Get(part, "text"), pp+"/text")
					text.WriteString(s)
					return err
				case "refusal":
					s, err := wire.Str(strictjson.Get(part, "refusal"), pp+"/refusal")
					text.WriteString(s)
					refusal = true
					return err
				default:
					return wire.ShapeErr(pp, "message content part of an unknown type")
				}
			})
		case "function_call":
			c, err := functionCall(it, p)
			if err != nil {
				return err
			}
			if len(pending) > 0 {
				c.Extensions = c.Extensions.Set(ExtReasoning, wire.JoinArray(pending))
				pending = nil
			}
			r.Calls = append(r.Calls, c)
		case "reasoning":
			for _, field := range [...]string{"summary", "content"} {
				parts := strictjson.Get(it, field)
				if parts == nil || wire.IsKind(parts, strictjson.Null) {
					continue
				}
				if err := wire.Kind(parts, strictjson.Array, p+"/"+field); err != nil {
					return err
				}
				err := strictjson.Elements(parts, func(j int, part []byte) error {
					s, err := wire.Str(strictjson.Get(part, "text"), wire.Index(p+"/"+field, j)+"/text")
					if reasoning.Len() > 0 && s != "" {
						reasoning.WriteByte('\n')
					}
					reasoning.WriteString(s)
					return err
				})
				if err != nil {
					return err
				}
			}
			pending = append(pending, it)
		default:
			other = append(other, it)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		r.Extensions = r.Extensions.Set(ExtReasoning, wire.JoinArray(pending))
	}
	if len(other) > 0 {
		r.Extensions = r.Extensions.Set(ExtItems, wire.JoinArray(other))
	}
	r.Content, r.Reasoning = text.String(), reasoning.String()
	if refusal {
		r.Stop = tool.StopRefusal
	}
	return nil
}

// functionCall reads a function_call item.
func functionCall(it []byte, ptr string) (tool.Call, error) {
	var c tool.Call
	var args []byte
	idSeen := false
	err := strictjson.Members(it, func(k, v []byte) error {
		p := wire.Member(ptr, string(k))
		var err error
		switch string(k) {
		case "call_id":
			c.ID, err = wire.Str(v, p)
			idSeen = true
		case "name":
			c.Name, err = wire.Str(v, p)
		case "arguments":
			args = v
		case "id":
			if _, err = wire.Str(v, p); err == nil {
				c.Extensions = c.Extensions.Set(tool.ExtResponsesItemID, v)
			}
		case "status":
			if _, err = wire.Str(v, p); err == nil {
				c.Extensions = c.Extensions.Set(tool.ExtResponsesStatus, v)
			}
		}
		return err
	})
	if err != nil {
		return c, err
	}
	if !idSeen {
		return c, wire.ShapeErr(ptr, "a function_call without \"call_id\"")
	}
	if c.Name == "" {
		return c, wire.ShapeErr(ptr+"/name", "a function_call without a name")
	}
	if args == nil {
		return c, wire.Errf(ErrInvalidArguments, ptr+"/arguments", "missing")
	}
	c.Arguments, err = wire.Arguments(ErrInvalidArguments, args, ptr+"/arguments")
	return c, err
}

// itemArray checks kept items before they are written out.
func itemArray(v []byte) error {
	if v == nil {
		return nil
	}
	if err := strictjson.Check(v, nil); err != nil {
		return wire.Errf(codec.ErrCannotEncode, "", "kept output items are not strict JSON: %w", err)
	}
	if !wire.IsKind(v, strictjson.Array) {
		return wire.Errf(codec.ErrCannotEncode, "", "kept output items are not a JSON array")
	}
	return nil
}

// stringExt returns the extension under key when it is a JSON string.
func stringExt(e tool.Extensions, key string) []byte {
	if v := e.Get(key); wire.IsKind(v, strictjson.String) && strictjson.Check(v, nil) == nil {
		return v
	}
	return nil
}

// EncodeResponse writes r as an OpenAI Responses response object. Kept
// reasoning items are written as they arrived (a call's just before its
// function_call item); reasoning with no kept items becomes one reasoning
// item with a summary. Kept built-in tool items ([ExtItems]) come next.
// The content is one message item (a refusal part for
// [tool.StopRefusal]); each call a function_call item with its arguments
// as a JSON string. The stop maps to "status" and incomplete_details.
func EncodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResponse(r)
	if err != nil {
		return nil, nil, wire.Fail(codec.OpenAIResponses, nil, err)
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
		if err := itemArray(c.Extensions.Get(ExtReasoning)); err != nil {
			return nil, nil, wire.ErrAt(wire.Index("/calls", i)+"/extensions", err)
		}
	}
	kept := r.Extensions.Get(ExtReasoning)
	if err := itemArray(kept); err != nil {
		return nil, nil, wire.ErrAt("/extensions", err)
	}
	items := r.Extensions.Get(ExtItems)
	if err := itemArray(items); err != nil {
		return nil, nil, wire.ErrAt("/extensions", err)
	}
	stop := r.Stop
	if len(r.Calls) > 0 {
		stop = tool.StopToolCalls
	}
	out := make([]byte, 0, 256+len(r.Content)+len(r.Reasoning))
	out = append(out, '{')
	if r.ID != "" {
		out = wire.AppendStr(out, "id", r.ID)
	}
	out = wire.AppendStr(out, "object", "response")
	var incomplete string
	switch stop {
	case "":
	case tool.StopMaxTokens:
		out, incomplete = wire.AppendStr(out, "status", "incomplete"), "max_output_tokens"
	case tool.StopContentFilter:
		out, incomplete = wire.AppendStr(out, "status", "incomplete"), "content_filter"
	case tool.StopOther:
		status := stringExt(r.Extensions, tool.ExtResponsesStatus)
		if status == nil {
			status = []byte(`"failed"`)
		}
		out = wire.AppendRaw(out, "status", status)
		if reason := stringExt(r.Extensions, ExtIncompleteReason); reason != nil {
			out = append(wire.AppendRaw(append(wire.AppendKey(out, "incomplete_details"), '{'), "reason", reason), '}')
		}
	default:
		out = wire.AppendStr(out, "status", "completed")
	}
	if incomplete != "" {
		out = append(wire.AppendStr(append(wire.AppendKey(out, "incomplete_details"), '{'), "reason", incomplete), '}')
	}
	if r.Model != "" {
		out = wire.AppendStr(out, "model", r.Model)
	}
	out = append(wire.AppendKey(out, "output"), '[')
	switch {
	case kept != nil && len(r.Calls) == 0:
		out = wire.AppendElements(out, kept)
	case kept == nil && r.Reasoning != "" && !hasKeptReasoning(r.Calls):
		out = wire.AppendStr(wire.Comma(out, '{'), "type", "reasoning")
		out = append(wire.AppendStr(append(wire.AppendKey(out, "summary"), `[{"type":"summary_text"`...), "text", r.Reasoning), "}]}"...)
	}
	out = wire.AppendElements(out, items)
	msgID := stringExt(r.Extensions, tool.ExtResponsesItemID)
	if r.Content != "" || msgID != nil || stop == tool.StopRefusal && len(r.Calls) == 0 {
		out = wire.AppendStr(wire.Comma(out, '{'), "type", "message")
		if msgID != nil {
			out = wire.AppendRaw(out, "id", msgID)
		}
		out = wire.AppendStr(out, "role", "assistant")
		if stop == tool.StopRefusal && len(r.Calls) == 0 {
			out = wire.AppendStr(append(wire.AppendKey(out, "content"), `[{"type":"refusal"`...), "refusal", r.Content)
		} else {
			out = wire.AppendStr(append(wire.AppendKey(out, "content"), `[{"type":"output_text"`...), "text", r.Content)
			out = append(out, `,"annotations":[]`...)
		}
		out = append(out, "}]}"...)
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		out = wire.AppendElements(out, c.Extensions.Get(ExtReasoning))
		out = wire.AppendStr(wire.Comma(out, '{'), "type", "function_call")
		if id := stringExt(c.Extensions, tool.ExtResponsesItemID); id != nil {
			out = wire.AppendRaw(out, "id", id)
		}
		out = wire.AppendStr(wire.AppendStr(out, "call_id", c.ID), "name", c.Name)
		out = strictjson.AppendQuote(wire.AppendKey(out, "arguments"), string(wire.ArgsObject(c.Arguments)))
		if st := stringExt(c.Extensions, tool.ExtResponsesStatus); st != nil {
			out = wire.AppendRaw(out, "status", st)
		}
		out = append(out, '}')
	}
	if kept != nil && len(r.Calls) > 0 {
		out = wire.AppendElements(out, kept)
	}
	ws := wire.DroppedExtensions(nil, r.Extensions, "", formatName, tool.ExtResponsesStatus, ExtIncompleteReason, tool.ExtResponsesItemID, ExtReasoning, ExtItems)
	for i := range r.Calls {
		ws = wire.DroppedExtensions(ws, r.Calls[i].Extensions, wire.Index("/calls", i), formatName, ExtReasoning, tool.ExtResponsesItemID, tool.ExtResponsesStatus)
	}
	return append(out, "]}"...), ws, nil
}

func hasKeptReasoning(calls []tool.Call) bool {
	for i := range calls {
		if calls[i].Extensions.Get(ExtReasoning) != nil {
			return true
		}
	}
	return false
}
