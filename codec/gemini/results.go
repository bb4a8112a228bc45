// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini

import (
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// DecodeResults reads functionResponse parts: a content object ({"role",
// "parts"}), an array of parts, one part, or a bare functionResponse
// ({"name", "response"}). Each becomes a [tool.Result] with the function's
// name and id.
//
// Gemini's documented convention is {"output": …} for a result and
// {"error": …} for a failure: a string there becomes a text part, another
// value a JSON part, and "error" sets IsError. Any other response object
// becomes the result's structured content.
func DecodeResults(data []byte) ([]tool.Result, error) {
	v, err := decodeResults(data)
	return v, wire.Fail(codec.Gemini, data, err)
}

// decodeResults is [DecodeResults] with its error not yet a *codec.Error.
func decodeResults(data []byte) ([]tool.Result, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	var out []tool.Result
	add := func(part []byte, ptr string) error {
		if strictjson.KindOf(part) != strictjson.Object {
			return shapeErr(ptr, "want a part object, got %s", strictjson.KindOf(part))
		}
		fr := get(part, "functionResponse")
		if fr == nil {
			return shapeErr(ptr, "part holds no functionResponse")
		}
		r, err := decodeFunctionResponse(fr, ptr+"/functionResponse")
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	}
	switch strictjson.KindOf(data) {
	case strictjson.Array:
		err := strictjson.Elements(data, func(i int, el []byte) error { return add(el, wire.Index("", i)) })
		return out, err
	case strictjson.Object:
	default:
		return nil, shapeErr("", "want functionResponse parts, got %s", strictjson.KindOf(data))
	}
	if parts := get(data, "parts"); parts != nil {
		if strictjson.KindOf(parts) != strictjson.Array {
			return nil, shapeErr("/parts", "want an array of parts, got %s", strictjson.KindOf(parts))
		}
		err := strictjson.Elements(parts, func(i int, el []byte) error { return add(el, wire.Index("/parts", i)) })
		return out, err
	}
	if get(data, "functionResponse") != nil {
		err := add(data, "")
		return out, err
	}
	if get(data, "name") != nil {
		r, err := decodeFunctionResponse(data, "")
		if err != nil {
			return nil, err
		}
		return []tool.Result{r}, nil
	}
	return nil, shapeErr("", "want a content with parts, a part or a functionResponse")
}

func decodeFunctionResponse(v []byte, ptr string) (tool.Result, error) {
	var r tool.Result
	if strictjson.KindOf(v) != strictjson.Object {
		return r, shapeErr(ptr, "want a functionResponse object, got %s", strictjson.KindOf(v))
	}
	var resp []byte
	err := strictjson.Members(v, func(k, val []byte) error {
		p := wire.Member(ptr, string(k))
		var err error
		switch string(k) {
		case "name":
			r.Name, err = wire.Str(val, p)
		case "id":
			r.CallID, err = wire.Str(val, p)
		case "response":
			if strictjson.KindOf(val) != strictjson.Object {
				return shapeErr(p, "response must be an object, got %s", strictjson.KindOf(val))
			}
			resp = val
		default:
			r.Extensions = r.Extensions.Set(extPrefix+"functionResponse/"+string(k), wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return r, err
	}
	if r.Name == "" {
		return r, shapeErr(ptr, "a functionResponse needs a name")
	}
	if resp == nil {
		return r, shapeErr(ptr, "a functionResponse needs a response object")
	}
	var only string
	var val []byte
	n := 0
	_ = strictjson.Members(resp, func(k, v []byte) error {
		n++
		only, val = string(k), v
		return nil
	})
	if n == 1 && (only == "output" || only == "error") {
		r.IsError = only == "error"
		if strictjson.KindOf(val) == strictjson.String {
			s, _ := strictjson.Unquote(val)
			r.Content = []tool.Content{&tool.Text{Text: s}}
		} else {
			r.Content = []tool.Content{&tool.JSON{Value: wire.Clone(val)}}
		}
		return r, nil
	}
	r.StructuredContent = wire.Clone(resp)
	return r, nil
}

// EncodeResults writes rs as one content object {"role": "user", "parts":
// […]} of functionResponse parts, ready to append to a request's contents.
// A result with structured content (an object) and no error sends it as
// the response; otherwise its text goes under "output", or "error" when
// IsError is set. One JSON part is sent as its value. Parts Gemini cannot
// take here (images, audio, resources) are written as their text with a
// warning. Gemini pairs results with calls by name, so a result without a
// [tool.Result.Name] is an error.
func EncodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResults(rs)
	if err != nil {
		return nil, nil, wire.Fail(codec.Gemini, nil, err)
	}
	return v, ws, nil
}

// encodeResults is [EncodeResults] with its error not yet a *codec.Error.
func encodeResults(rs []tool.Result) ([]byte, []tool.Warning, error) {
	var warns []tool.Warning
	dst := []byte(`{"role":"user","parts":[`)
	for i := range rs {
		r := &rs[i]
		p := wire.Index("", i)
		if i > 0 {
			dst = append(dst, ',')
		}
		if r.Name == "" {
			return nil, nil, wire.Errf(codec.ErrCannotEncode, p+"/name", "a Gemini functionResponse needs the function's name")
		}
		first := true
		dst = append(dst, `{"functionResponse":{`...)
		if r.CallID != "" {
			dst = wire.AppendString(dst, &first, "id", r.CallID)
		}
		dst = wire.AppendString(dst, &first, "name", r.Name)
		dst = wire.AppendMember(dst, &first, "response", nil)
		switch {
		case strictjson.KindOf(r.StructuredContent) == strictjson.Object && !r.IsError:
			if !wire.ValidRaw(r.StructuredContent) {
				return nil, nil, shapeErr(p+"/structured_content", "structured content is not valid JSON")
			}
			dst = append(dst, r.StructuredContent...)
			if len(r.Content) > 0 {
				warns = append(warns, tool.Warning{Pointer: p + "/content", Code: "gemini-content-dropped",
					Message: "the structured content was sent as the response; the content parts beside it were left out"})
			}
		default:
			key := "output"
			if r.IsError {
				key = "error"
			}
			dst = append(dst, '{')
			dst = strictjson.AppendQuote(dst, key)
			dst = append(dst, ':')
			if len(r.Content) == 1 {
				if j, ok := r.Content[0].(*tool.JSON); ok && wire.ValidRaw(j.Value) {
					dst = append(dst, j.Value...)
					dst = append(dst, '}')
					break
				}
			}
			for j, c := range r.Content {
				switch c.(type) {
				case *tool.Text, *tool.JSON:
				default:
					warns = append(warns, tool.Warning{Pointer: wire.Index(p+"/content", j), Code: "gemini-part-as-text",
						Message: "a functionResponse's output is text; this part was replaced by a note naming it"})
				}
			}
			if len(r.StructuredContent) > 0 {
				warns = append(warns, tool.Warning{Pointer: p + "/structured_content", Code: "gemini-dropped",
					Message: "structured content that is not an object, or of an error result, has no place in the response and was left out"})
			}
			dst = strictjson.AppendQuote(dst, r.Text())
			dst = append(dst, '}')
		}
		for _, k := range wire.SortedKeys(r.Extensions) {
			name, ok := strings.CutPrefix(k, extPrefix+"functionResponse/")
			if !ok || name == "id" || name == "name" || name == "response" {
				warns = append(warns, tool.Warning{Pointer: p + "/extensions/" + strictjson.EscapePointer(k), Code: "gemini-dropped",
					Message: "extension " + k + " has no place in a Gemini functionResponse"})
				continue
			}
			if !wire.ValidRaw(r.Extensions[k]) {
				return nil, nil, shapeErr(p, "extension %q is not valid JSON", k)
			}
			dst = wire.AppendMember(dst, &first, name, r.Extensions[k])
		}
		dst = append(dst, "}}"...)
	}
	return append(dst, "]}"...), warns, nil
}
