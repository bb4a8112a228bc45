// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// imageLink is the MIME type given to a [tool.Resource] read from an
// input_image given by URL, so that it is written back as one.
const imageLink = "image/*"

// DecodeResults reads function_call_output input items: one item, a JSON
// array of input items, or an object holding "input" such as a request
// body. Items of other types (messages, function_call…) are skipped.
//
// "output" is a string or an array of input_text and input_image parts;
// data-URL images become [tool.Image], other image URLs a [tool.Resource]
// link with MIME type "image/*". The item's "id" and "status" are kept in
// [tool.ExtResponsesItemID] and [tool.ExtResponsesStatus]. Responses has no
// error flag, so [tool.Result.IsError] is false.
func DecodeResults(data []byte) ([]tool.Result, error) {
	v, err := decodeResults(data)
	return v, wire.Fail(codec.OpenAIResponses, data, err)
}

// decodeResults is [DecodeResults] with its error not yet a *codec.Error.
func decodeResults(data []byte) ([]tool.Result, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	data = bytes.Clone(data)
	rs := []tool.Result{}
	list := func(arr []byte, base string) error {
		return strictjson.Elements(arr, func(i int, it []byte) error {
			p := wire.Index(base, i)
			if err := wire.Kind(it, strictjson.Object, p); err != nil {
				return err
			}
			if wire.Tagged(it) != "function_call_output" {
				if !wire.Has(it, "type") && !wire.Has(it, "role") {
					return wire.ShapeErr(p, "want an input item")
				}
				return nil
			}
			r, err := result(it, p)
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
		if in := strictjson.Get(data, "input"); in != nil {
			if wire.IsKind(in, strictjson.String) {
				return rs, nil // a text-only request
			}
			if err := wire.Kind(in, strictjson.Array, "/input"); err != nil {
				return nil, err
			}
			if err := list(in, "/input"); err != nil {
				return nil, err
			}
			break
		}
		if t := wire.Tagged(data); t != "function_call_output" {
			return nil, wire.ShapeErr("/type", "want a function_call_output item")
		}
		r, err := result(data, "")
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	default:
		return nil, wire.ShapeErr("", "want an input item or an array of them, got %s", strictjson.KindOf(data))
	}
	return rs, nil
}

// result reads one function_call_output item.
func result(it []byte, ptr string) (tool.Result, error) {
	var r tool.Result
	outputSeen := false
	err := strictjson.Members(it, func(k, v []byte) error {
		p := wire.Member(ptr, string(k))
		var err error
		switch string(k) {
		case "call_id":
			r.CallID, err = wire.Str(v, p)
		case "output":
			outputSeen = true
			r.Content, err = outputContent(v, p)
		case "id":
			if !wire.IsKind(v, strictjson.Null) {
				if _, err = wire.Str(v, p); err == nil {
					r.Extensions = r.Extensions.Set(tool.ExtResponsesItemID, v)
				}
			}
		case "status":
			if !wire.IsKind(v, strictjson.Null) {
				if _, err = wire.Str(v, p); err == nil {
					r.Extensions = r.Extensions.Set(tool.ExtResponsesStatus, v)
				}
			}
		}
		return err
	})
	if err != nil {
		return r, err
	}
	if r.CallID == "" {
		return r, wire.ShapeErr(ptr, "a function_call_output without a call_id")
	}
	if !outputSeen {
		return r, wire.ShapeErr(ptr, "a function_call_output without \"output\"")
	}
	if len(r.Content) == 1 {
		if t, ok := r.Content[0].(*tool.Text); ok && t.Text == "" {
			r.Content = nil // written as "" for a result with no content
		}
	}
	return r, nil
}

// outputContent reads an output: a string or input parts.
func outputContent(v []byte, ptr string) ([]tool.Content, error) {
	if wire.IsKind(v, strictjson.String) {
		s, err := wire.Str(v, ptr)
		return []tool.Content{&tool.Text{Text: s}}, err
	}
	if err := wire.Kind(v, strictjson.Array, ptr); err != nil {
		return nil, err
	}
	var cs []tool.Content
	err := strictjson.Elements(v, func(i int, part []byte) error {
		p := wire.Index(ptr, i)
		if err := wire.Kind(part, strictjson.Object, p); err != nil {
			return err
		}
		switch typ := wire.Tagged(part); typ {
		case "input_text":
			s, err := wire.Str(strictjson.Get(part, "text"), p+"/text")
			cs = append(cs, &tool.Text{Text: s})
			return err
		case "input_image":
			u, err := wire.Str(strictjson.Get(part, "image_url"), p+"/image_url")
			if err != nil {
				return err
			}
			c, err := imageURL(u, p+"/image_url")
			cs = append(cs, c)
			return err
		default:
			return wire.ShapeErr(p, "output part of another type than input_text and input_image")
		}
	})
	return cs, err
}

// imageURL reads a data URL into an image, or keeps another URL as a link.
func imageURL(u, ptr string) (tool.Content, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return &tool.Resource{URI: u, MIMEType: imageLink, Link: true}, nil
	}
	mime, b64, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return nil, wire.ShapeErr(ptr, "a data URL that is not base64")
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, wire.ShapeErr(ptr, "bad base64: %v", err)
	}
	return &tool.Image{MIMEType: mime, Data: data}, nil
}

// EncodeResults writes rs as a JSON array of function_call_output items,
// ready to append to a request's "input". Content with one text part, or
// none, is written as a string; otherwise as input_text and input_image
// parts (images as data URLs), with the text rendering of what the format
// cannot carry (JSON parts, audio, other resources) as [tool.Result.Text]
// renders it. IsError has no field and is not written.
func EncodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResults(rs)
	if err != nil {
		return nil, nil, wire.Fail(codec.OpenAIResponses, nil, err)
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
		ws = wire.ResultWarnings(ws, r, wire.Index("", i), formatName, nativePart, false, tool.ExtResponsesItemID, tool.ExtResponsesStatus)
		if r.CallID == "" {
			return nil, nil, wire.Errf(codec.ErrCannotEncode, wire.Index("", i)+"/call_id", "a Responses function_call_output needs the call id")
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"type":"function_call_output"`...)
		if id := stringExt(r.Extensions, tool.ExtResponsesItemID); id != nil {
			out = wire.AppendRaw(out, "id", id)
		}
		out = wire.AppendStr(out, "call_id", r.CallID)
		if len(r.Content) > 1 || len(r.Content) == 1 && !wire.IsText(r.Content[0]) {
			out = append(wire.AppendKey(out, "output"), '[')
			for j, c := range r.Content {
				if j > 0 {
					out = append(out, ',')
				}
				out = part(out, c)
			}
			out = append(out, ']')
		} else {
			out = wire.AppendStr(out, "output", r.Text())
		}
		if st := stringExt(r.Extensions, tool.ExtResponsesStatus); st != nil {
			out = wire.AppendRaw(out, "status", st)
		}
		out = append(out, '}')
	}
	return append(out, ']'), ws, nil
}

// part appends one content part as an input part.
func part(out []byte, c tool.Content) []byte {
	switch c := c.(type) {
	case *tool.Image:
		url := "data:" + c.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(c.Data)
		return append(wire.AppendStr(append(out, `{"type":"input_image"`...), "image_url", url), '}')
	case *tool.Resource:
		if c.Link && strings.HasPrefix(c.MIMEType, "image/") {
			return append(wire.AppendStr(append(out, `{"type":"input_image"`...), "image_url", c.URI), '}')
		}
	}
	return append(wire.AppendStr(append(out, `{"type":"input_text"`...), "text", wire.PartText(c)), '}')
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
