// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// imageLink is the MIME type given to a [tool.Resource] read from an image
// block with a URL source, so that it is written back as one.
const imageLink = "image/*"

// DecodeResults reads the tool_result blocks of Anthropic messages: one
// tool_result block, a user message, a JSON array of messages or of content
// blocks, or an object holding "messages" such as a request body. Blocks
// and messages that are not tool results are skipped.
//
// A result's content is a string or an array of text and image blocks;
// base64 images become [tool.Image] and URL images a [tool.Resource] link
// with MIME type "image/*". "is_error" sets [tool.Result.IsError], and
// "cache_control" is kept as [tool.ExtAnthropicCacheControl].
func DecodeResults(data []byte) ([]tool.Result, error) {
	v, err := decodeResults(data)
	return v, wire.Fail(codec.Anthropic, data, err)
}

// decodeResults is [DecodeResults] with its error not yet a *codec.Error.
func decodeResults(data []byte) ([]tool.Result, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	data = bytes.Clone(data)
	rs := []tool.Result{}
	var walk func(v []byte, ptr string, top bool) error
	walk = func(v []byte, ptr string, top bool) error {
		switch strictjson.KindOf(v) {
		case strictjson.Array:
			return strictjson.Elements(v, func(i int, e []byte) error { return walk(e, wire.Index(ptr, i), false) })
		case strictjson.Object:
		case strictjson.String:
			if !top {
				return nil // a message's text-only content
			}
			fallthrough
		default:
			return wire.ShapeErr(ptr, "want a message, a content block or an array of them, got %s", strictjson.KindOf(v))
		}
		if msgs := strictjson.Get(v, "messages"); msgs != nil && top {
			if err := wire.Kind(msgs, strictjson.Array, "/messages"); err != nil {
				return err
			}
			return walk(msgs, "/messages", false)
		}
		if wire.Has(v, "role") {
			c := strictjson.Get(v, "content")
			if c == nil {
				return wire.ShapeErr(ptr, "a message without \"content\"")
			}
			return walk(c, ptr+"/content", false)
		}
		typ := wire.Tagged(v)
		if typ == "tool_result" {
			r, err := result(v, ptr)
			rs = append(rs, r)
			return err
		}
		if typ == "" {
			return wire.ShapeErr(ptr, "want a message or a content block")
		}
		return nil
	}
	if err := walk(data, "", true); err != nil {
		return nil, err
	}
	return rs, nil
}

// result reads one tool_result block.
func result(b []byte, ptr string) (tool.Result, error) {
	var r tool.Result
	idSeen := false
	err := strictjson.Members(b, func(k, v []byte) error {
		p := wire.Member(ptr, string(k))
		var err error
		switch string(k) {
		case "tool_use_id":
			r.CallID, err = wire.Str(v, p)
			idSeen = true
		case "is_error":
			r.IsError, err = wire.Bool(v, p)
		case "content":
			r.Content, err = resultContent(v, p)
		case "cache_control":
			if err = wire.Kind(v, strictjson.Object, p); err == nil {
				r.Extensions = r.Extensions.Set(tool.ExtAnthropicCacheControl, v)
			}
		}
		return err
	})
	if err != nil {
		return r, err
	}
	if !idSeen {
		return r, wire.ShapeErr(ptr, "a tool_result without \"tool_use_id\"")
	}
	if r.CallID == "" {
		return r, wire.ShapeErr(ptr+"/tool_use_id", "empty tool_use_id")
	}
	if len(r.Content) == 1 {
		if t, ok := r.Content[0].(*tool.Text); ok && t.Text == "" {
			r.Content = nil // written without content
		}
	}
	return r, nil
}

// resultContent reads a tool_result's content: a string or blocks.
func resultContent(v []byte, ptr string) ([]tool.Content, error) {
	if wire.IsKind(v, strictjson.String) {
		s, err := wire.Str(v, ptr)
		return []tool.Content{&tool.Text{Text: s}}, err
	}
	if err := wire.Kind(v, strictjson.Array, ptr); err != nil {
		return nil, err
	}
	var cs []tool.Content
	err := strictjson.Elements(v, func(i int, b []byte) error {
		p := wire.Index(ptr, i)
		if err := wire.Kind(b, strictjson.Object, p); err != nil {
			return err
		}
		switch typ := wire.Tagged(b); typ {
		case "text":
			s, err := wire.Str(strictjson.Get(b, "text"), p+"/text")
			cs = append(cs, &tool.Text{Text: s})
			return err
		case "image":
			c, err := image(strictjson.Get(b, "source"), p+"/source")
			cs = append(cs, c)
			return err
		default:
			return wire.ShapeErr(p, "tool_result content block of another type than text and image")
		}
	})
	return cs, err
}

// image reads an image block's source: base64 data or a URL.
func image(src []byte, ptr string) (tool.Content, error) {
	if err := wire.Kind(src, strictjson.Object, ptr); err != nil {
		return nil, err
	}
	switch typ := wire.Tagged(src); typ {
	case "base64":
		mime, err := wire.Str(strictjson.Get(src, "media_type"), ptr+"/media_type")
		if err != nil {
			return nil, err
		}
		s, err := wire.Str(strictjson.Get(src, "data"), ptr+"/data")
		if err != nil {
			return nil, err
		}
		data, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, wire.ShapeErr(ptr+"/data", "bad base64: %v", err)
		}
		return &tool.Image{MIMEType: mime, Data: data}, nil
	case "url":
		u, err := wire.Str(strictjson.Get(src, "url"), ptr+"/url")
		return &tool.Resource{URI: u, MIMEType: imageLink, Link: true}, err
	default:
		return nil, wire.ShapeErr(ptr+"/type", "image source of an unknown type")
	}
}

// EncodeResults writes rs as one user message holding a tool_result block
// per result ({"role":"user","content":[…]}), ready to append to a
// conversation. Content with one text part is written as a string;
// otherwise as blocks: text, base64 images, URL images (a resource link
// with an image/* MIME type), and the text rendering of what Anthropic
// cannot carry in a tool_result (JSON parts, audio, other resources), as
// [tool.Result.Text] renders it. A result with only structured content
// gets its JSON as text.
func EncodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResults(rs)
	if err != nil {
		return nil, nil, wire.Fail(codec.Anthropic, nil, err)
	}
	return v, ws, nil
}

// encodeResults is [EncodeResults] with its error not yet a *codec.Error.
func encodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	out := make([]byte, 0, 64*len(rs)+32)
	out = append(out, `{"role":"user","content":[`...)
	var ws []tool.Warning
	for i := range rs {
		r := &rs[i]
		ws = wire.ResultWarnings(ws, r, wire.Index("", i), formatName, nativePart, true, tool.ExtAnthropicCacheControl)
		if r.CallID == "" {
			return nil, nil, wire.Errf(codec.ErrCannotEncode, wire.Index("", i)+"/call_id", "an Anthropic tool_result needs the call id")
		}
		if cc := r.Extensions.Get(tool.ExtAnthropicCacheControl); cc != nil && !wire.IsKind(cc, strictjson.Object) {
			return nil, nil, wire.ShapeErr(wire.Index("", i)+"/extensions/"+strictjson.EscapePointer(tool.ExtAnthropicCacheControl), "want an object")
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = wire.AppendStr(append(out, '{'), "type", "tool_result")
		out = wire.AppendStr(out, "tool_use_id", r.CallID)
		switch {
		case len(r.Content) == 0 && len(r.StructuredContent) > 0:
			out = wire.AppendStr(out, "content", r.Text())
		case len(r.Content) == 0:
		case len(r.Content) == 1 && wire.IsText(r.Content[0]):
			out = wire.AppendStr(out, "content", r.Content[0].(*tool.Text).Text)
		default:
			out = append(wire.AppendKey(out, "content"), '[')
			for j, c := range r.Content {
				if j > 0 {
					out = append(out, ',')
				}
				out = block(out, c)
			}
			out = append(out, ']')
		}
		if r.IsError {
			out = wire.AppendRaw(out, "is_error", []byte("true"))
		}
		if cc := r.Extensions.Get(tool.ExtAnthropicCacheControl); cc != nil {
			out = wire.AppendRaw(out, "cache_control", cc)
		}
		out = append(out, '}')
	}
	return append(out, "]}"...), ws, nil
}

// block appends one content part as an Anthropic content block.
func block(out []byte, c tool.Content) []byte {
	switch c := c.(type) {
	case *tool.Image:
		out = wire.AppendStr(append(out, `{"type":"image","source":{"type":"base64"`...), "media_type", c.MIMEType)
		out = wire.AppendStr(out, "data", base64.StdEncoding.EncodeToString(c.Data))
		return append(out, "}}"...)
	case *tool.Resource:
		if c.Link && strings.HasPrefix(c.MIMEType, "image/") {
			out = wire.AppendStr(append(out, `{"type":"image","source":{"type":"url"`...), "url", c.URI)
			return append(out, "}}"...)
		}
	}
	out = wire.AppendStr(append(out, `{"type":"text"`...), "text", wire.PartText(c))
	return append(out, '}')
}

// nativePart reports whether c is written as itself rather than as text:
// images, and links to images.
func nativePart(c tool.Content) bool {
	switch c := c.(type) {
	case *tool.Image:
		return true
	case *tool.Resource:
		return c.Link && strings.HasPrefix(c.MIMEType, "image/")
	}
	return false
}
