// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openai

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// DecodeResults reads tool results: one message with role "tool" (or the
// legacy role "function"), a JSON array of messages, or an object holding
// "messages" such as a request body. In a list, messages of other roles are
// skipped: they are not results.
//
// Chat Completions has no error flag, so [tool.Result.IsError] is false, and
// a tool message's content is text: a string, or an array of text parts
// (one [tool.Text] each).
func DecodeResults(data []byte) ([]tool.Result, error) {
	v, err := decodeResults(data)
	return v, wire.Fail(codec.OpenAI, data, err)
}

// decodeResults is [DecodeResults] with its error not yet a *codec.Error.
func decodeResults(data []byte) ([]tool.Result, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	var rs []tool.Result
	list := func(arr []byte, base string) error {
		if err := wire.Kind(arr, strictjson.Array, base); err != nil {
			return err
		}
		return strictjson.Elements(arr, func(i int, m []byte) error {
			p := wire.Index(base, i)
			if err := wire.Kind(m, strictjson.Object, p); err != nil {
				return err
			}
			role, err := wire.Str(strictjson.Get(m, "role"), p+"/role")
			if err != nil {
				return err
			}
			if role != "tool" && role != "function" {
				return nil
			}
			r, err := result(m, p)
			rs = append(rs, r)
			return err
		})
	}
	switch strictjson.KindOf(data) {
	case strictjson.Array:
		if err := list(data, ""); err != nil {
			return nil, err
		}
	case strictjson.Object:
		if msgs := strictjson.Get(data, "messages"); msgs != nil {
			if err := list(msgs, "/messages"); err != nil {
				return nil, err
			}
			break
		}
		r, err := result(data, "")
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	default:
		return nil, wire.ShapeErr("", "want a tool message or an array of messages, got %s", strictjson.KindOf(data))
	}
	return rs, nil
}

// result reads one tool or function message.
func result(m []byte, ptr string) (tool.Result, error) {
	var r tool.Result
	var role string
	var text []byte
	idSeen := false
	err := strictjson.Members(m, func(k, v []byte) error {
		p := wire.Member(ptr, string(k))
		var err error
		switch string(k) {
		case "role":
			role, err = wire.Str(v, p)
		case "tool_call_id":
			r.CallID, err = wire.Str(v, p)
			idSeen = true
		case "name":
			if role == "function" || tagRole(m) == "function" {
				r.Name, err = wire.Str(v, p)
			}
		case "content":
			text = v
			r.Content, err = resultContent(v, p)
		}
		return err
	})
	if err != nil {
		return r, err
	}
	switch role {
	case "tool":
		if !idSeen {
			return r, wire.ShapeErr(ptr, "a tool message without \"tool_call_id\"")
		}
		if r.CallID == "" {
			return r, wire.ShapeErr(ptr+"/tool_call_id", "empty tool_call_id")
		}
	case "function":
		if r.Name == "" {
			return r, wire.ShapeErr(ptr, "a function message without \"name\"")
		}
	default:
		return r, wire.ShapeErr(ptr+"/role", "want a tool message")
	}
	if text == nil {
		return r, wire.ShapeErr(ptr, "a tool message without \"content\"")
	}
	return r, nil
}

func tagRole(m []byte) string {
	s, _ := strictjson.Unquote(strictjson.Get(m, "role"))
	return s
}

// resultContent reads a tool message's content.
func resultContent(v []byte, ptr string) ([]tool.Content, error) {
	switch strictjson.KindOf(v) {
	case strictjson.Null:
		return nil, nil
	case strictjson.String:
		s, err := wire.Str(v, ptr)
		if s == "" {
			return nil, err // as written for a result with no content
		}
		return []tool.Content{&tool.Text{Text: s}}, err
	case strictjson.Array:
		var cs []tool.Content
		err := strictjson.Elements(v, func(i int, part []byte) error {
			p := wire.Index(ptr, i)
			if typ := wire.Tagged(part); typ != "text" {
				return wire.ShapeErr(p, "tool message part of another type than text")
			}
			s, err := wire.Str(strictjson.Get(part, "text"), p+"/text")
			cs = append(cs, &tool.Text{Text: s})
			return err
		})
		if len(cs) == 1 && cs[0].(*tool.Text).Text == "" {
			cs = nil // written as "" for a result with no content
		}
		return cs, err
	}
	return nil, wire.ShapeErr(ptr, "want a string or an array of text parts, got %s", strictjson.KindOf(v))
}

// EncodeResults writes rs as a JSON array of tool messages
// ({"role":"tool","tool_call_id","content"}); a result without a call id
// but with a name is written as a legacy function message. Content with
// one part, or none, is written as a string; several parts as an array of
// text parts. Parts that are not text (JSON, images, resources) are
// written as their text, as [tool.Result.Text] renders them: Chat
// Completions tool messages carry text only. IsError has no field and is
// not written.
func EncodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResults(rs)
	if err != nil {
		return nil, nil, wire.Fail(codec.OpenAI, nil, err)
	}
	return v, ws, nil
}

// encodeResults is [EncodeResults] with its error not yet a *codec.Error.
func encodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	out := make([]byte, 0, 64*len(rs)+16)
	out = append(out, '[')
	var ws []tool.Warning
	for i := range rs {
		r := &rs[i]
		ws = wire.ResultWarnings(ws, r, wire.Index("", i), formatName, nil, false)
		if i > 0 {
			out = append(out, ',')
		}
		switch {
		case r.CallID != "":
			out = wire.AppendStr(wire.AppendStr(append(out, '{'), "role", "tool"), "tool_call_id", r.CallID)
		case r.Name != "":
			out = wire.AppendStr(wire.AppendStr(append(out, '{'), "role", "function"), "name", r.Name)
		default:
			return nil, nil, wire.Errf(codec.ErrCannotEncode, wire.Index("", i)+"/call_id", "a result needs a call id or a name")
		}
		if len(r.Content) <= 1 {
			out = wire.AppendStr(out, "content", r.Text())
		} else {
			out = append(wire.AppendKey(out, "content"), '[')
			for j, c := range r.Content {
				if j > 0 {
					out = append(out, ',')
				}
				out = wire.AppendStr(append(out, `{"type":"text"`...), "text", wire.PartText(c))
				out = append(out, '}')
			}
			out = append(out, ']')
		}
		out = append(out, '}')
	}
	return append(out, ']'), ws, nil
}
