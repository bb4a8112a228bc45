// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package langchain

import (
	"encoding/base64"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// Extensions keys of a [tool.Response] read by [DecodeResponse]; any other
// AIMessage member is kept under "langchain/" + its name.
const (
	// ExtInvalidToolCalls keeps AIMessage.invalid_tool_calls, the calls
	// LangChain could not parse, as a JSON array.
	ExtInvalidToolCalls = "langchain/invalid_tool_calls"
	// ExtContent keeps an AIMessage's content when it is a list of blocks,
	// so that it is written back as it was.
	ExtContent = "langchain/content"
	// ExtResponseMetadata keeps AIMessage.response_metadata.
	ExtResponseMetadata = "langchain/response_metadata"
)

func stopReason(s string) tool.StopReason {
	switch s {
	case "":
		return ""
	case "stop", "end_turn", "STOP", "COMPLETE":
		return tool.StopEnd
	case "tool_calls", "tool_use", "function_call":
		return tool.StopToolCalls
	case "length", "max_tokens", "MAX_TOKENS":
		return tool.StopMaxTokens
	case "content_filter", "SAFETY":
		return tool.StopContentFilter
	case "stop_sequence":
		return tool.StopSequence
	case "refusal":
		return tool.StopRefusal
	case "pause_turn":
		return tool.StopPauseTurn
	}
	return tool.StopOther
}

func finishReason(s tool.StopReason) string {
	switch s {
	case tool.StopEnd, tool.StopSequence:
		return "stop"
	case tool.StopToolCalls:
		return "tool_calls"
	case tool.StopMaxTokens:
		return "length"
	case tool.StopContentFilter, tool.StopRefusal:
		return "content_filter"
	case "":
		return ""
	}
	return string(s)
}

// unwrap returns the message of a message_to_dict dump ({"type", "data"})
// or the message itself, checking its type against want.
func unwrap(v []byte, ptr string, want ...string) ([]byte, string, error) {
	if strictjson.KindOf(v) != strictjson.Object {
		return nil, ptr, shapeErr(ptr, "want a message object, got %s", strictjson.KindOf(v))
	}
	if data := strictjson.Get(v, "data"); data != nil && strictjson.KindOf(data) == strictjson.Object && strictjson.Get(v, "content") == nil {
		v, ptr = data, wire.Member(ptr, "data")
	}
	if t := strictjson.Get(v, "type"); t != nil {
		s, _ := strictjson.Unquote(t)
		ok := false
		for _, w := range want {
			ok = ok || s == w
		}
		if !ok {
			return nil, ptr, shapeErr(wire.Member(ptr, "type"), "want a message of type %s", strings.Join(want, " or "))
		}
	}
	return v, ptr, nil
}

// DecodeResponse reads a serialised AIMessage (its dict, or the
// message_to_dict form {"type": "ai", "data": {…}}). tool_calls become
// calls; invalid_tool_calls are kept under [ExtInvalidToolCalls]. A string
// content is the answer; a list of content blocks gives the text of its
// text blocks as content and of its reasoning or thinking blocks as
// reasoning, and is kept under [ExtContent]. The stop reason comes from
// response_metadata (finish_reason or stop_reason) and is tool_calls
// whenever the message holds a call.
func DecodeResponse(data []byte) (*tool.Response, error) {
	v, err := decodeResponse(data)
	return v, wire.Fail(codec.LangChain, data, err)
}

// decodeResponse is [DecodeResponse] with its error not yet a *codec.Error.
func decodeResponse(data []byte) (*tool.Response, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	msg, ptr, err := unwrap(data, "", "ai", "AIMessageChunk")
	if err != nil {
		return nil, err
	}
	r := &tool.Response{}
	hasContent := false
	err = strictjson.Members(msg, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		switch key {
		case "type":
		case "content":
			hasContent = true
			return decodeAIContent(val, p, r)
		case "tool_calls":
			if strictjson.KindOf(val) != strictjson.Array {
				return shapeErr(p, "tool_calls must be an array, got %s", strictjson.KindOf(val))
			}
			return strictjson.Elements(val, func(i int, el []byte) error {
				c, err := decodeToolCall(el, wire.Index(p, i))
				if err == nil {
					r.Calls = append(r.Calls, c)
				}
				return err
			})
		case "invalid_tool_calls":
			if strictjson.KindOf(val) != strictjson.Array {
				return shapeErr(p, "invalid_tool_calls must be an array, got %s", strictjson.KindOf(val))
			}
			if string(val) != "[]" {
				r.Extensions = r.Extensions.Set(ExtInvalidToolCalls, wire.Clone(val))
			}
		case "id":
			if string(val) != "null" {
				s, err := wire.Str(val, p)
				r.ID = s
				return err
			}
		case "response_metadata":
			if strictjson.KindOf(val) != strictjson.Object {
				return shapeErr(p, "response_metadata must be an object, got %s", strictjson.KindOf(val))
			}
			for _, f := range []string{"finish_reason", "stop_reason"} {
				if fr := strictjson.Get(val, f); strictjson.KindOf(fr) == strictjson.String && r.Stop == "" {
					s, _ := strictjson.Unquote(fr)
					r.Stop = stopReason(s)
				}
			}
			for _, f := range []string{"model_name", "model"} {
				if m := strictjson.Get(val, f); strictjson.KindOf(m) == strictjson.String && r.Model == "" {
					r.Model, _ = strictjson.Unquote(m)
				}
			}
			r.Extensions = r.Extensions.Set(ExtResponseMetadata, wire.Clone(val))
		default:
			r.Extensions = r.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !hasContent {
		return nil, shapeErr(ptr, "an AIMessage needs \"content\"")
	}
	if len(r.Calls) > 0 {
		r.Stop = tool.StopToolCalls
	}
	return r, nil
}

func decodeAIContent(v []byte, ptr string, r *tool.Response) error {
	switch strictjson.KindOf(v) {
	case strictjson.String:
		s, err := strictjson.Unquote(v)
		r.Content = s
		return err
	case strictjson.Array:
	default:
		return shapeErr(ptr, "content must be a string or a list of blocks, got %s", strictjson.KindOf(v))
	}
	var text, reasoning strings.Builder
	err := strictjson.Elements(v, func(i int, el []byte) error {
		switch strictjson.KindOf(el) {
		case strictjson.String:
			s, _ := strictjson.Unquote(el)
			text.WriteString(s)
			return nil
		case strictjson.Object:
		default:
			return shapeErr(wire.Index(ptr, i), "want a content block, got %s", strictjson.KindOf(el))
		}
		t, _ := strictjson.Unquote(strictjson.Get(el, "type"))
		field := ""
		switch t {
		case "text":
			field = "text"
		case "thinking":
			field = "thinking"
		case "reasoning":
			field = "reasoning"
		default:
			return nil
		}
		s, err := wire.Str(strictjson.Get(el, field), wire.Member(wire.Index(ptr, i), field))
		if err != nil {
			if t == "reasoning" { // v0 reasoning blocks hold a summary list instead
				return nil
			}
			return err
		}
		if field == "text" {
			text.WriteString(s)
		} else {
			reasoning.WriteString(s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.Content, r.Reasoning = text.String(), reasoning.String()
	r.Extensions = r.Extensions.Set(ExtContent, wire.Clone(v))
	return nil
}

func decodeToolCall(v []byte, ptr string) (tool.Call, error) {
	var c tool.Call
	if strictjson.KindOf(v) != strictjson.Object {
		return c, shapeErr(ptr, "want a tool call object, got %s", strictjson.KindOf(v))
	}
	err := strictjson.Members(v, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var err error
		switch key {
		case "name":
			c.Name, err = wire.Str(val, p)
		case "id":
			if string(val) != "null" {
				c.ID, err = wire.Str(val, p)
			}
		case "args":
			if strictjson.KindOf(val) != strictjson.Object {
				return shapeErr(p, "args must be an object, got %s", strictjson.KindOf(val))
			}
			c.Arguments = wire.Clone(val)
		case "type":
			if string(val) != `"tool_call"` {
				return shapeErr(p, "want type \"tool_call\", got %s", val)
			}
		default:
			c.Extensions = c.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return c, err
	}
	if c.Name == "" {
		return c, shapeErr(ptr, "a tool call needs a name")
	}
	if c.Arguments == nil {
		c.Arguments = []byte("{}")
	}
	return c, nil
}

// EncodeResponse writes r as an AIMessage dict ({"type": "ai", …}) with
// tool_calls in LangChain's form. Content kept under [ExtContent] is
// written back as it was; otherwise reasoning, which a string content
// cannot hold, makes the content a list of a reasoning block and a text
// block.
func EncodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResponse(r)
	if err != nil {
		return nil, nil, wire.Fail(codec.LangChain, nil, err)
	}
	return v, ws, nil
}

// encodeResponse is [EncodeResponse] with its error not yet a *codec.Error.
func encodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	var warns []tool.Warning
	first := true
	dst := []byte{'{'}
	dst = wire.AppendString(dst, &first, "type", "ai")
	switch raw := r.Extensions.Get(ExtContent); {
	case raw != nil:
		if strictjson.KindOf(raw) != strictjson.Array || !wire.ValidRaw(raw) {
			return nil, nil, shapeErr("/extensions", "%s is not a JSON array", ExtContent)
		}
		dst = wire.AppendMember(dst, &first, "content", raw)
	case r.Reasoning != "":
		dst = wire.AppendMember(dst, &first, "content", nil)
		dst = append(dst, `[{"type":"reasoning","reasoning":`...)
		dst = strictjson.AppendQuote(dst, r.Reasoning)
		dst = append(dst, '}')
		if r.Content != "" {
			dst = append(dst, `,{"type":"text","text":`...)
			dst = strictjson.AppendQuote(dst, r.Content)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	default:
		dst = wire.AppendString(dst, &first, "content", r.Content)
	}
	dst = wire.AppendMember(dst, &first, "tool_calls", nil)
	dst = append(dst, '[')
	for i, c := range r.Calls {
		if i > 0 {
			dst = append(dst, ',')
		}
		p := wire.Index("/tool_calls", i)
		var err error
		if dst, err = appendToolCall(dst, &c, p, &warns); err != nil {
			return nil, nil, err
		}
	}
	dst = append(dst, ']')
	if inv := r.Extensions.Get(ExtInvalidToolCalls); inv != nil {
		if strictjson.KindOf(inv) != strictjson.Array || !wire.ValidRaw(inv) {
			return nil, nil, shapeErr("/extensions", "%s is not a JSON array", ExtInvalidToolCalls)
		}
		dst = wire.AppendMember(dst, &first, "invalid_tool_calls", inv)
	}
	if r.ID != "" {
		dst = wire.AppendString(dst, &first, "id", r.ID)
	}
	if md := r.Extensions.Get(ExtResponseMetadata); md != nil {
		if strictjson.KindOf(md) != strictjson.Object || !wire.ValidRaw(md) {
			return nil, nil, shapeErr("/extensions", "%s is not a JSON object", ExtResponseMetadata)
		}
		dst = wire.AppendMember(dst, &first, "response_metadata", md)
	} else if fr := finishReason(r.Stop); fr != "" || r.Model != "" {
		mfirst := true
		dst = wire.AppendMember(dst, &first, "response_metadata", nil)
		dst = append(dst, '{')
		if fr != "" {
			dst = wire.AppendString(dst, &mfirst, "finish_reason", fr)
		}
		if r.Model != "" {
			dst = wire.AppendString(dst, &mfirst, "model_name", r.Model)
		}
		dst = append(dst, '}')
	}
	for _, k := range wire.SortedKeys(r.Extensions) {
		name := strings.TrimPrefix(k, extPrefix)
		switch {
		case k == ExtContent, k == ExtInvalidToolCalls, k == ExtResponseMetadata:
			continue
		case !isOwnExt(k), name == "type", name == "content", name == "tool_calls", name == "id":
			warns = append(warns, dropped("/extensions/"+strictjson.EscapePointer(k), "extension "+k))
			continue
		}
		if !wire.ValidRaw(r.Extensions[k]) {
			return nil, nil, shapeErr("/extensions", "extension %q is not valid JSON", k)
		}
		dst = wire.AppendMember(dst, &first, name, r.Extensions[k])
	}
	return append(dst, '}'), warns, nil
}

func appendToolCall(dst []byte, c *tool.Call, ptr string, warns *[]tool.Warning) ([]byte, error) {
	if c.Name == "" {
		return nil, shapeErr(ptr, "a call needs a name")
	}
	args := c.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	if strictjson.KindOf(args) != strictjson.Object || !wire.ValidRaw(args) {
		return nil, shapeErr(wire.Member(ptr, "arguments"), "arguments must be a JSON object")
	}
	first := true
	dst = append(dst, '{')
	dst = wire.AppendString(dst, &first, "name", c.Name)
	dst = wire.AppendMember(dst, &first, "args", args)
	if c.ID != "" {
		dst = wire.AppendString(dst, &first, "id", c.ID)
	} else {
		dst = wire.AppendMember(dst, &first, "id", []byte("null"))
	}
	dst = wire.AppendString(dst, &first, "type", "tool_call")
	for _, k := range wire.SortedKeys(c.Extensions) {
		name := strings.TrimPrefix(k, extPrefix)
		if !isOwnExt(k) || name == "name" || name == "args" || name == "id" || name == "type" {
			*warns = append(*warns, dropped(ptr+"/extensions/"+strictjson.EscapePointer(k), "extension "+k))
			continue
		}
		if !wire.ValidRaw(c.Extensions[k]) {
			return nil, shapeErr(ptr, "extension %q is not valid JSON", k)
		}
		dst = wire.AppendMember(dst, &first, name, c.Extensions[k])
	}
	return append(dst, '}'), nil
}

// DecodeResults reads serialised ToolMessages: one message, a JSON array
// of them, or their message_to_dict form. tool_call_id, name, status
// ("error" sets IsError) and artifact (the structured content) map to
// [tool.Result]; a string content is one text part, and in a list of
// content blocks text blocks become text parts, base64 image and audio
// blocks become images and audio, and other blocks JSON parts.
func DecodeResults(data []byte) ([]tool.Result, error) {
	v, err := decodeResults(data)
	return v, wire.Fail(codec.LangChain, data, err)
}

// decodeResults is [DecodeResults] with its error not yet a *codec.Error.
func decodeResults(data []byte) ([]tool.Result, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	switch strictjson.KindOf(data) {
	case strictjson.Array:
		var out []tool.Result
		err := strictjson.Elements(data, func(i int, el []byte) error {
			r, err := decodeToolMessage(el, wire.Index("", i))
			if err == nil {
				out = append(out, r)
			}
			return err
		})
		return out, err
	case strictjson.Object:
		r, err := decodeToolMessage(data, "")
		if err != nil {
			return nil, err
		}
		return []tool.Result{r}, nil
	}
	return nil, shapeErr("", "want a ToolMessage or a list of them, got %s", strictjson.KindOf(data))
}

func decodeToolMessage(v []byte, ptr string) (tool.Result, error) {
	var r tool.Result
	msg, ptr, err := unwrap(v, ptr, "tool", "ToolMessageChunk")
	if err != nil {
		return r, err
	}
	hasID, hasContent := false, false
	err = strictjson.Members(msg, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var err error
		switch key {
		case "type":
		case "tool_call_id":
			hasID = true
			r.CallID, err = wire.Str(val, p)
		case "name":
			if string(val) != "null" {
				r.Name, err = wire.Str(val, p)
			}
		case "status":
			var s string
			if s, err = wire.Str(val, p); err == nil {
				switch s {
				case "error":
					r.IsError = true
				case "success":
				default:
					err = shapeErr(p, "status must be success or error")
				}
			}
		case "artifact":
			if string(val) != "null" {
				r.StructuredContent = wire.Clone(val)
			}
		case "content":
			hasContent = true
			r.Content, err = decodeToolContent(val, p)
		default:
			r.Extensions = r.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return r, err
	}
	if !hasID || !hasContent {
		return r, shapeErr(ptr, "a ToolMessage needs tool_call_id and content")
	}
	return r, nil
}

func decodeToolContent(v []byte, ptr string) ([]tool.Content, error) {
	switch strictjson.KindOf(v) {
	case strictjson.String:
		s, err := strictjson.Unquote(v)
		return []tool.Content{&tool.Text{Text: s}}, err
	case strictjson.Array:
	default:
		return nil, shapeErr(ptr, "content must be a string or a list of blocks, got %s", strictjson.KindOf(v))
	}
	parts := []tool.Content{}
	err := strictjson.Elements(v, func(i int, el []byte) error {
		p := wire.Index(ptr, i)
		if strictjson.KindOf(el) == strictjson.String {
			s, _ := strictjson.Unquote(el)
			parts = append(parts, &tool.Text{Text: s})
			return nil
		}
		if strictjson.KindOf(el) != strictjson.Object {
			parts = append(parts, &tool.JSON{Value: wire.Clone(el)})
			return nil
		}
		t, _ := strictjson.Unquote(strictjson.Get(el, "type"))
		switch t {
		case "text":
			if onlyKeys(el, "type", "text") {
				s, err := wire.Str(strictjson.Get(el, "text"), wire.Member(p, "text"))
				if err != nil {
					return err
				}
				parts = append(parts, &tool.Text{Text: s})
				return nil
			}
		case "image", "audio":
			b64 := strictjson.Get(el, "base64")
			if b64 == nil && string(strictjson.Get(el, "source_type")) == `"base64"` {
				b64 = strictjson.Get(el, "data")
			}
			mime := strictjson.Get(el, "mime_type")
			if b64 != nil && strictjson.KindOf(b64) == strictjson.String && strictjson.KindOf(mime) == strictjson.String {
				s, _ := strictjson.Unquote(b64)
				data, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return shapeErr(p, "%s data is not base64: %v", t, err)
				}
				m, _ := strictjson.Unquote(mime)
				if t == "image" {
					parts = append(parts, &tool.Image{MIMEType: m, Data: data})
				} else {
					parts = append(parts, &tool.Audio{MIMEType: m, Data: data})
				}
				return nil
			}
		}
		parts = append(parts, &tool.JSON{Value: wire.Clone(el)})
		return nil
	})
	return parts, err
}

func onlyKeys(obj []byte, keys ...string) bool {
	ok := true
	_ = strictjson.Members(obj, func(k, _ []byte) error {
		found := false
		for _, want := range keys {
			found = found || string(k) == want
		}
		ok = ok && found
		return nil
	})
	return ok
}

// EncodeResults writes rs as a JSON array of ToolMessage dicts. One text
// part is written as a string content, anything else as a list of content
// blocks; JSON parts that are content blocks (objects with a "type") are
// written as they are, other JSON values and resources as text blocks
// with a warning. Structured content is written as the artifact.
func EncodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResults(rs)
	if err != nil {
		return nil, nil, wire.Fail(codec.LangChain, nil, err)
	}
	return v, ws, nil
}

// encodeResults is [EncodeResults] with its error not yet a *codec.Error.
func encodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	var warns []tool.Warning
	dst := []byte{'['}
	for i := range rs {
		r := &rs[i]
		p := wire.Index("", i)
		if i > 0 {
			dst = append(dst, ',')
		}
		first := true
		dst = append(dst, '{')
		dst = wire.AppendString(dst, &first, "type", "tool")
		dst = wire.AppendMember(dst, &first, "content", nil)
		if len(r.Content) == 1 {
			if t, ok := r.Content[0].(*tool.Text); ok {
				dst = strictjson.AppendQuote(dst, t.Text)
				goto rest
			}
		}
		dst = append(dst, '[')
		for j, c := range r.Content {
			if j > 0 {
				dst = append(dst, ',')
			}
			cp := wire.Index(p+"/content", j)
			switch c := c.(type) {
			case *tool.Text:
				dst = append(dst, `{"type":"text","text":`...)
				dst = strictjson.AppendQuote(dst, c.Text)
				dst = append(dst, '}')
			case *tool.Image, *tool.Audio:
				kind, mime, data := "image", "", []byte(nil)
				if im, ok := c.(*tool.Image); ok {
					mime, data = im.MIMEType, im.Data
				} else {
					au := c.(*tool.Audio)
					kind, mime, data = "audio", au.MIMEType, au.Data
				}
				dst = append(dst, `{"type":`...)
				dst = strictjson.AppendQuote(dst, kind)
				dst = append(dst, `,"source_type":"base64","data":`...)
				dst = strictjson.AppendQuote(dst, base64.StdEncoding.EncodeToString(data))
				dst = append(dst, `,"mime_type":`...)
				dst = strictjson.AppendQuote(dst, mime)
				dst = append(dst, '}')
			case *tool.JSON:
				if strictjson.KindOf(c.Value) == strictjson.Object && wire.ValidRaw(c.Value) && strictjson.Get(c.Value, "type") != nil {
					dst = append(dst, c.Value...)
					break
				}
				warns = append(warns, tool.Warning{Pointer: cp, Code: "langchain-json-as-text", Message: "a JSON value that is not a content block was written as a text block"})
				dst = append(dst, `{"type":"text","text":`...)
				dst = strictjson.AppendQuote(dst, string(c.Value))
				dst = append(dst, '}')
			case *tool.Resource:
				warns = append(warns, tool.Warning{Pointer: cp, Code: "langchain-resource-as-text", Message: "a resource was written as a text block holding its text or URI"})
				text := c.Text
				if text == "" {
					text = c.URI
				}
				dst = append(dst, `{"type":"text","text":`...)
				dst = strictjson.AppendQuote(dst, text)
				dst = append(dst, '}')
			default:
				return nil, nil, shapeErr(cp, "unknown content part %T", c)
			}
		}
		dst = append(dst, ']')
	rest:
		dst = wire.AppendString(dst, &first, "tool_call_id", r.CallID)
		if r.Name != "" {
			dst = wire.AppendString(dst, &first, "name", r.Name)
		}
		if r.IsError {
			dst = wire.AppendString(dst, &first, "status", "error")
		} else {
			dst = wire.AppendString(dst, &first, "status", "success")
		}
		if len(r.StructuredContent) > 0 {
			if !wire.ValidRaw(r.StructuredContent) {
				return nil, nil, shapeErr(p+"/structured_content", "structured content is not valid JSON")
			}
			dst = wire.AppendMember(dst, &first, "artifact", r.StructuredContent)
		}
		for _, k := range wire.SortedKeys(r.Extensions) {
			name := strings.TrimPrefix(k, extPrefix)
			switch {
			case !isOwnExt(k), name == "type", name == "content", name == "tool_call_id", name == "name", name == "status", name == "artifact":
				warns = append(warns, dropped(p+"/extensions/"+strictjson.EscapePointer(k), "extension "+k))
				continue
			}
			if !wire.ValidRaw(r.Extensions[k]) {
				return nil, nil, shapeErr(p, "extension %q is not valid JSON", k)
			}
			dst = wire.AppendMember(dst, &first, name, r.Extensions[k])
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), warns, nil
}
