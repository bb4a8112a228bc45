// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcp

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// ExtExplicitNoError marks a result whose "isError" was present and false,
// so that it is written back rather than left out.
const ExtExplicitNoError = "mcp/isError"

// contentExt is the Extensions key holding the members of content part i
// that [tool.Content] has no field for (its _meta, annotations, a resource
// link's name, title, size and icons…), as a JSON object.
func contentExt(i int) string { return extPrefix + "content/" + strconv.Itoa(i) }

// resourceExt is the same for the inner "resource" of an embedded resource.
func resourceExt(i int) string { return contentExt(i) + "/resource" }

// DecodeResult reads a CallToolResult, or a whole JSON-RPC response whose
// result is one (its id becomes [tool.Result.CallID]).
//
// Content parts map to [tool.Text], [tool.Image], [tool.Audio] and
// [tool.Resource] (Link set for resource_link); image, audio and blob data
// are decoded from base64. What a part carries beyond those fields is kept
// in Extensions under "mcp/content/<i>", and result members other than
// content, structuredContent and isError (resultType, _meta…) under "mcp/" +
// their name.
func DecodeResult(data []byte) (*tool.Result, error) {
	v, err := decodeResult(data)
	return v, wire.Fail(codec.MCP, data, err)
}

// decodeResult is [DecodeResult] with its error not yet a *codec.Error.
func decodeResult(data []byte) (*tool.Result, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	if strictjson.KindOf(data) != strictjson.Object {
		return nil, shapeErr("", "want a CallToolResult, got %s", strictjson.KindOf(data))
	}
	r := &tool.Result{}
	ptr := ""
	body := data
	if strictjson.Get(data, "jsonrpc") != nil || (strictjson.Get(data, "result") != nil && strictjson.Get(data, "content") == nil) {
		if id := strictjson.Get(data, "id"); id != nil {
			r.CallID = idText(id)
			r.Extensions = r.Extensions.Set(ExtRequestID, wire.Clone(id))
		}
		body = strictjson.Get(data, "result")
		ptr = "/result"
		if strictjson.KindOf(body) != strictjson.Object {
			return nil, shapeErr(ptr, "want a CallToolResult object, got %s", strictjson.KindOf(body))
		}
	}
	hasContent := false
	err := strictjson.Members(body, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		switch key {
		case "content":
			hasContent = true
			if strictjson.KindOf(val) != strictjson.Array {
				return shapeErr(p, "content must be an array, got %s", strictjson.KindOf(val))
			}
			return strictjson.Elements(val, func(i int, part []byte) error {
				c, err := decodeContent(part, wire.Index(p, i), i, r)
				if err == nil {
					r.Content = append(r.Content, c)
				}
				return err
			})
		case "structuredContent":
			r.StructuredContent = wire.Clone(val)
		case "isError":
			b, err := wire.Bool(val, p)
			r.IsError = b
			if err == nil && !b {
				r.Extensions = r.Extensions.Set(ExtExplicitNoError, []byte("false"))
			}
			return err
		default:
			r.Extensions = r.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !hasContent {
		return nil, shapeErr(ptr, "a CallToolResult needs \"content\"")
	}
	return r, nil
}

// extras collects the members of a part that have no field, as an object.
type extras struct{ buf []byte }

func (e *extras) add(k, v []byte) {
	if len(e.buf) == 0 {
		e.buf = append(e.buf, '{')
	} else {
		e.buf = append(e.buf, ',')
	}
	e.buf = strictjson.AppendQuote(e.buf, string(k))
	e.buf = append(e.buf, ':')
	e.buf = append(e.buf, v...)
}

func (e *extras) done() []byte {
	if len(e.buf) == 0 {
		return nil
	}
	return append(e.buf, '}')
}

func decodeContent(v []byte, ptr string, i int, r *tool.Result) (tool.Content, error) {
	if strictjson.KindOf(v) != strictjson.Object {
		return nil, shapeErr(ptr, "want a content object, got %s", strictjson.KindOf(v))
	}
	typ, err := wire.Str(strictjson.Get(v, "type"), wire.Member(ptr, "type"))
	if err != nil {
		return nil, err
	}
	var (
		ex                          extras
		text, mime, uri, data, blob string
		hasText, hasData, hasBlob   bool
		resource                    []byte
	)
	err = strictjson.Members(v, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var err error
		switch {
		case key == "type":
		case key == "text" && typ == "text":
			hasText = true
			text, err = wire.Str(val, p)
		case key == "data" && (typ == "image" || typ == "audio"):
			hasData = true
			data, err = wire.Str(val, p)
		case key == "mimeType" && typ != "text" && typ != "resource":
			mime, err = wire.Str(val, p)
		case key == "uri" && typ == "resource_link":
			uri, err = wire.Str(val, p)
		case key == "resource" && typ == "resource":
			resource = val
		default:
			ex.add(k, val)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if x := ex.done(); x != nil {
		r.Extensions = r.Extensions.Set(contentExt(i), x)
	}
	switch typ {
	case "text":
		if !hasText {
			return nil, shapeErr(ptr, "a text part needs \"text\"")
		}
		return &tool.Text{Text: text}, nil
	case "image", "audio":
		if !hasData {
			return nil, shapeErr(ptr, "an %s part needs \"data\"", typ)
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, shapeErr(wire.Member(ptr, "data"), "data is not base64: %v", err)
		}
		if typ == "image" {
			return &tool.Image{MIMEType: mime, Data: b}, nil
		}
		return &tool.Audio{MIMEType: mime, Data: b}, nil
	case "resource_link":
		if uri == "" {
			return nil, shapeErr(ptr, "a resource_link needs \"uri\"")
		}
		return &tool.Resource{URI: uri, MIMEType: mime, Link: true}, nil
	case "resource":
		if strictjson.KindOf(resource) != strictjson.Object {
			return nil, shapeErr(wire.Member(ptr, "resource"), "an embedded resource needs a \"resource\" object")
		}
		res := &tool.Resource{}
		var rex extras
		rp := wire.Member(ptr, "resource")
		err := strictjson.Members(resource, func(k, val []byte) error {
			key := string(k)
			p := wire.Member(rp, key)
			var err error
			switch key {
			case "uri":
				res.URI, err = wire.Str(val, p)
			case "mimeType":
				res.MIMEType, err = wire.Str(val, p)
			case "text":
				hasText = true
				res.Text, err = wire.Str(val, p)
			case "blob":
				hasBlob = true
				blob, err = wire.Str(val, p)
			default:
				rex.add(k, val)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if hasText == hasBlob {
			return nil, shapeErr(rp, "an embedded resource needs exactly one of \"text\" and \"blob\"")
		}
		if hasBlob {
			if res.Blob, err = base64.StdEncoding.DecodeString(blob); err != nil {
				return nil, shapeErr(wire.Member(rp, "blob"), "blob is not base64: %v", err)
			}
			if res.Blob == nil {
				res.Blob = []byte{}
			}
		}
		if x := rex.done(); x != nil {
			r.Extensions = r.Extensions.Set(resourceExt(i), x)
		}
		return res, nil
	}
	return nil, shapeErr(wire.Member(ptr, "type"), "unknown content type")
}

// EncodeResult writes r as a CallToolResult. A [tool.JSON] part, which MCP
// lacks, is written as a text part holding the JSON, with a warning.
func EncodeResult(r *tool.Result) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResult(r)
	if err != nil {
		return nil, nil, wire.Fail(codec.MCP, nil, err)
	}
	return v, ws, nil
}

// encodeResult is [EncodeResult] with its error not yet a *codec.Error.
func encodeResult(r *tool.Result) ([]byte, []tool.Warning, error) {
	var warns []tool.Warning
	first := true
	dst := []byte{'{'}
	dst = wire.AppendMember(dst, &first, "content", nil)
	dst = append(dst, '[')
	for i, c := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		p := wire.Index("/content", i)
		var err error
		dst, err = appendContent(dst, c, i, p, r, &warns)
		if err != nil {
			return nil, nil, err
		}
	}
	dst = append(dst, ']')
	if len(r.StructuredContent) > 0 {
		if !wire.ValidRaw(r.StructuredContent) {
			return nil, nil, shapeErr("/structuredContent", "structured content is not valid JSON")
		}
		dst = wire.AppendMember(dst, &first, "structuredContent", r.StructuredContent)
	}
	if r.IsError || r.Extensions.Get(ExtExplicitNoError) != nil {
		dst = wire.AppendBool(dst, &first, "isError", r.IsError)
	}
	for _, k := range wire.SortedKeys(r.Extensions) {
		p := "/extensions/" + strictjson.EscapePointer(k)
		name := strings.TrimPrefix(k, extPrefix)
		switch {
		case k == ExtRequestID, k == ExtExplicitNoError, strings.HasPrefix(k, extPrefix+"content/"):
			continue
		case !isOwnExt(k), name == "content", name == "structuredContent", name == "isError":
			warns = append(warns, dropped(p, "extension "+k))
			continue
		}
		if !wire.ValidRaw(r.Extensions[k]) {
			return nil, nil, shapeErr(p, "extension %q is not valid JSON", k)
		}
		dst = wire.AppendMember(dst, &first, name, r.Extensions[k])
	}
	return append(dst, '}'), warns, nil
}

func appendContent(dst []byte, c tool.Content, i int, ptr string, r *tool.Result, warns *[]tool.Warning) ([]byte, error) {
	first := true
	dst = append(dst, '{')
	written := []string{"type", "text", "data", "mimeType"}
	switch c := c.(type) {
	case *tool.Text:
		dst = wire.AppendString(dst, &first, "type", "text")
		dst = wire.AppendString(dst, &first, "text", c.Text)
	case *tool.JSON:
		*warns = append(*warns, tool.Warning{Pointer: ptr, Code: "mcp-json-as-text", Message: "MCP has no JSON content part; the value was written as a text part"})
		dst = wire.AppendString(dst, &first, "type", "text")
		dst = wire.AppendString(dst, &first, "text", string(c.Value))
	case *tool.Image:
		dst = wire.AppendString(dst, &first, "type", "image")
		dst = wire.AppendString(dst, &first, "data", base64.StdEncoding.EncodeToString(c.Data))
		dst = wire.AppendString(dst, &first, "mimeType", c.MIMEType)
	case *tool.Audio:
		dst = wire.AppendString(dst, &first, "type", "audio")
		dst = wire.AppendString(dst, &first, "data", base64.StdEncoding.EncodeToString(c.Data))
		dst = wire.AppendString(dst, &first, "mimeType", c.MIMEType)
	case *tool.Resource:
		if c.Link {
			dst = wire.AppendString(dst, &first, "type", "resource_link")
			dst = wire.AppendString(dst, &first, "uri", c.URI)
			if c.MIMEType != "" {
				dst = wire.AppendString(dst, &first, "mimeType", c.MIMEType)
			}
			written = []string{"type", "uri", "mimeType"}
			if c.MIMEType == "" {
				written = written[:2]
			}
			if !hasMember(r.Extensions.Get(contentExt(i)), "name") {
				// name is required; the URI is the best name there is.
				dst = wire.AppendString(dst, &first, "name", c.URI)
			}
			break
		}
		written = []string{"type", "resource"}
		dst = wire.AppendString(dst, &first, "type", "resource")
		dst = wire.AppendMember(dst, &first, "resource", nil)
		rfirst := true
		dst = append(dst, '{')
		dst = wire.AppendString(dst, &rfirst, "uri", c.URI)
		if c.MIMEType != "" {
			dst = wire.AppendString(dst, &rfirst, "mimeType", c.MIMEType)
		}
		if c.Blob != nil {
			dst = wire.AppendString(dst, &rfirst, "blob", base64.StdEncoding.EncodeToString(c.Blob))
		} else {
			dst = wire.AppendString(dst, &rfirst, "text", c.Text)
		}
		var err error
		inner := []string{"uri", "mimeType", "blob", "text"}
		if dst, err = appendExtras(dst, &rfirst, r.Extensions.Get(resourceExt(i)), ptr+"/resource", inner); err != nil {
			return nil, err
		}
		dst = append(dst, '}')
	default:
		return nil, shapeErr(ptr, "unknown content part %T", c)
	}
	var err error
	if _, ok := c.(*tool.Text); ok {
		written = written[:2]
	}
	if dst, err = appendExtras(dst, &first, r.Extensions.Get(contentExt(i)), ptr, written); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

func hasMember(obj []byte, key string) bool {
	return strictjson.KindOf(obj) == strictjson.Object && wire.ValidRaw(obj) && strictjson.Get(obj, key) != nil
}

// appendExtras writes the members of the extras object x, skipping those
// the part already has.
func appendExtras(dst []byte, first *bool, x []byte, ptr string, written []string) ([]byte, error) {
	if x == nil {
		return dst, nil
	}
	if strictjson.KindOf(x) != strictjson.Object || !wire.ValidRaw(x) {
		return nil, shapeErr(ptr, "content extension is not a JSON object")
	}
	err := strictjson.Members(x, func(k, v []byte) error {
		for _, w := range written {
			if w == string(k) {
				return shapeErr(wire.Member(ptr, string(k)), "content extension repeats a member the part has")
			}
		}
		dst = wire.AppendMember(dst, first, string(k), v)
		return nil
	})
	return dst, err
}
