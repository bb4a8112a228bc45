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

// Extensions keys of a [tool.Response] read by [DecodeResponse].
const (
	// ExtFinishReason keeps the candidate's finishReason as Gemini wrote
	// it, so that [EncodeResponse] writes it back unchanged.
	ExtFinishReason = "gemini/finishReason"
	// ExtOtherParts keeps, as a JSON array, the parts that are neither
	// text nor function calls (inlineData, executableCode…).
	ExtOtherParts = "gemini/otherParts"
	// ExtRole keeps the content's role when it is not "model".
	ExtRole = "gemini/role"
)

// stopReason maps a Gemini finishReason to a [tool.StopReason].
func stopReason(fr string) tool.StopReason {
	switch fr {
	case "":
		return ""
	case "STOP":
		return tool.StopEnd
	case "MAX_TOKENS":
		return tool.StopMaxTokens
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE":
		return tool.StopContentFilter
	}
	return tool.StopOther
}

// finishReason maps a [tool.StopReason] to Gemini's; Gemini ends a turn
// that calls tools with STOP.
func finishReason(s tool.StopReason) string {
	switch s {
	case "":
		return ""
	case tool.StopEnd, tool.StopToolCalls, tool.StopSequence:
		return "STOP"
	case tool.StopMaxTokens:
		return "MAX_TOKENS"
	case tool.StopContentFilter, tool.StopRefusal:
		return "SAFETY"
	}
	return "OTHER"
}

// DecodeResponse reads a generateContent response (its first candidate), a
// candidate, or a content object ({"role", "parts"}). Text parts become the
// content, thought parts the reasoning, functionCall parts calls; a part's
// thoughtSignature is kept on its call under
// [tool.ExtGeminiThoughtSignature] (for a text part, on the response). A
// response holding a call stopped for [tool.StopToolCalls], whatever its
// finishReason.
func DecodeResponse(data []byte) (*tool.Response, error) {
	v, err := decodeResponse(data)
	return v, wire.Fail(codec.Gemini, data, err)
}

// decodeResponse is [DecodeResponse] with its error not yet a *codec.Error.
func decodeResponse(data []byte) (*tool.Response, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	if strictjson.KindOf(data) != strictjson.Object {
		return nil, shapeErr("", "want a generateContent response, got %s", strictjson.KindOf(data))
	}
	r := &tool.Response{}
	cand, ptr := data, ""
	if cs := get(data, "candidates"); cs != nil {
		if strictjson.KindOf(cs) != strictjson.Array {
			return nil, shapeErr("/candidates", "want an array, got %s", strictjson.KindOf(cs))
		}
		cand = nil
		_ = strictjson.Elements(cs, func(i int, el []byte) error {
			if i == 0 {
				cand = el
			}
			return nil
		})
		ptr = "/candidates/0"
		if cand == nil {
			return nil, shapeErr("/candidates", "no candidates")
		}
		if id := get(data, "responseId"); id != nil {
			r.ID, _ = wire.Str(id, "/responseId")
		}
		if m := get(data, "modelVersion"); m != nil {
			r.Model, _ = wire.Str(m, "/modelVersion")
		}
	}
	if strictjson.KindOf(cand) != strictjson.Object {
		return nil, shapeErr(ptr, "want a candidate object, got %s", strictjson.KindOf(cand))
	}
	content := cand
	cptr := ptr
	if fr := get(cand, "finishReason"); fr != nil {
		s, err := wire.Str(fr, wire.Member(ptr, "finishReason"))
		if err != nil {
			return nil, err
		}
		r.Stop = stopReason(s)
		r.Extensions = r.Extensions.Set(ExtFinishReason, wire.Clone(fr))
	}
	if c := get(cand, "content"); c != nil {
		content, cptr = c, wire.Member(ptr, "content")
	}
	if strictjson.KindOf(content) != strictjson.Object {
		return nil, shapeErr(cptr, "want a content object, got %s", strictjson.KindOf(content))
	}
	if role := get(content, "role"); role != nil && string(role) != `"model"` {
		r.Extensions = r.Extensions.Set(ExtRole, wire.Clone(role))
	}
	parts := get(content, "parts")
	pptr := wire.Member(cptr, "parts")
	if parts == nil {
		if get(content, "role") == nil && ptr == "" && cptr == "" {
			return nil, shapeErr("", "want candidates, a candidate or a content with parts")
		}
		return r, nil
	}
	if strictjson.KindOf(parts) != strictjson.Array {
		return nil, shapeErr(pptr, "want an array of parts, got %s", strictjson.KindOf(parts))
	}
	var text, reasoning strings.Builder
	var other []byte
	err := strictjson.Elements(parts, func(i int, part []byte) error {
		p := wire.Index(pptr, i)
		if strictjson.KindOf(part) != strictjson.Object {
			return shapeErr(p, "want a part object, got %s", strictjson.KindOf(part))
		}
		var fc, txt, sig []byte
		thought := false
		err := strictjson.Members(part, func(k, v []byte) error {
			switch canonicalKey(string(k)) {
			case "functionCall":
				fc = v
			case "text":
				txt = v
			case "thought":
				thought = string(v) == "true"
			case "thoughtSignature":
				sig = v
			}
			return nil
		})
		if err != nil {
			return err
		}
		switch {
		case fc != nil:
			c, err := decodeCall(fc, wire.Member(p, "functionCall"))
			if err != nil {
				return err
			}
			if sig != nil {
				c.Extensions = c.Extensions.Set(tool.ExtGeminiThoughtSignature, wire.Clone(sig))
			}
			r.Calls = append(r.Calls, c)
		case txt != nil:
			s, err := wire.Str(txt, wire.Member(p, "text"))
			if err != nil {
				return err
			}
			if thought {
				reasoning.WriteString(s)
			} else {
				text.WriteString(s)
			}
			if sig != nil && r.Extensions.Get(tool.ExtGeminiThoughtSignature) == nil {
				r.Extensions = r.Extensions.Set(tool.ExtGeminiThoughtSignature, wire.Clone(sig))
			}
		default:
			if other == nil {
				other = append(other, '[')
			} else {
				other = append(other, ',')
			}
			other = append(other, part...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if other != nil {
		r.Extensions = r.Extensions.Set(ExtOtherParts, append(other, ']'))
	}
	r.Content, r.Reasoning = text.String(), reasoning.String()
	if len(r.Calls) > 0 {
		r.Stop = tool.StopToolCalls
	}
	return r, nil
}

func decodeCall(v []byte, ptr string) (tool.Call, error) {
	var c tool.Call
	if strictjson.KindOf(v) != strictjson.Object {
		return c, shapeErr(ptr, "want a functionCall object, got %s", strictjson.KindOf(v))
	}
	hasName := false
	err := strictjson.Members(v, func(k, val []byte) error {
		p := wire.Member(ptr, string(k))
		var err error
		switch string(k) {
		case "name":
			hasName = true
			c.Name, err = wire.Str(val, p)
		case "id":
			c.ID, err = wire.Str(val, p)
		case "args":
			if strictjson.KindOf(val) != strictjson.Object {
				return shapeErr(p, "args must be an object, got %s", strictjson.KindOf(val))
			}
			c.Arguments = wire.Clone(val)
		default:
			c.Extensions = c.Extensions.Set(extPrefix+"functionCall/"+string(k), wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return c, err
	}
	if !hasName || c.Name == "" {
		return c, shapeErr(ptr, "a functionCall needs a name")
	}
	if c.Arguments == nil {
		c.Arguments = []byte("{}")
	}
	return c, nil
}

// EncodeResponse writes r as a generateContent response with one
// candidate: a thought part for the reasoning, a text part, then a
// functionCall part per call (with its thought signature).
func EncodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeResponse(r)
	if err != nil {
		return nil, nil, wire.Fail(codec.Gemini, nil, err)
	}
	return v, ws, nil
}

// encodeResponse is [EncodeResponse] with its error not yet a *codec.Error.
func encodeResponse(r *tool.Response) ([]byte, []tool.Warning, error) {
	var warns []tool.Warning
	dst := []byte(`{"candidates":[{"content":{"parts":[`)
	n := 0
	part := func() {
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
	}
	sig := r.Extensions.Get(tool.ExtGeminiThoughtSignature)
	if r.Reasoning != "" {
		part()
		first := true
		dst = append(dst, '{')
		dst = wire.AppendString(dst, &first, "text", r.Reasoning)
		dst = wire.AppendBool(dst, &first, "thought", true)
		dst = append(dst, '}')
	}
	if r.Content != "" || (sig != nil && r.Reasoning == "") {
		part()
		first := true
		dst = append(dst, '{')
		dst = wire.AppendString(dst, &first, "text", r.Content)
		if sig != nil {
			if !wire.ValidRaw(sig) {
				return nil, nil, shapeErr("/extensions", "thought signature is not valid JSON")
			}
			dst = wire.AppendMember(dst, &first, "thoughtSignature", sig)
		}
		dst = append(dst, '}')
	}
	for i, c := range r.Calls {
		part()
		p := wire.Index("/tool_calls", i)
		if c.Name == "" {
			return nil, nil, shapeErr(p, "a call needs a name")
		}
		args := c.Arguments
		if len(args) == 0 {
			args = []byte("{}")
		}
		if strictjson.KindOf(args) != strictjson.Object || !wire.ValidRaw(args) {
			return nil, nil, shapeErr(wire.Member(p, "arguments"), "arguments must be a JSON object")
		}
		first := true
		dst = append(dst, `{"functionCall":{`...)
		if c.ID != "" {
			dst = wire.AppendString(dst, &first, "id", c.ID)
		}
		dst = wire.AppendString(dst, &first, "name", c.Name)
		dst = wire.AppendMember(dst, &first, "args", args)
		for _, k := range wire.SortedKeys(c.Extensions) {
			name, ok := strings.CutPrefix(k, extPrefix+"functionCall/")
			if !ok || name == "id" || name == "name" || name == "args" {
				if k != tool.ExtGeminiThoughtSignature {
					warns = append(warns, tool.Warning{Pointer: wire.Member(p, "extensions/"+strictjson.EscapePointer(k)), Code: "gemini-dropped", Message: "extension " + k + " has no place in a Gemini functionCall"})
				}
				continue
			}
			if !wire.ValidRaw(c.Extensions[k]) {
				return nil, nil, shapeErr(p, "extension %q is not valid JSON", k)
			}
			dst = wire.AppendMember(dst, &first, name, c.Extensions[k])
		}
		dst = append(dst, '}')
		if s := c.Extensions.Get(tool.ExtGeminiThoughtSignature); s != nil {
			if !wire.ValidRaw(s) {
				return nil, nil, shapeErr(p, "thought signature is not valid JSON")
			}
			dst = append(dst, `,"thoughtSignature":`...)
			dst = append(dst, s...)
		}
		dst = append(dst, '}')
	}
	if other := r.Extensions.Get(ExtOtherParts); other != nil {
		if strictjson.KindOf(other) != strictjson.Array || !wire.ValidRaw(other) {
			return nil, nil, shapeErr("/extensions", "%s is not a JSON array", ExtOtherParts)
		}
		_ = strictjson.Elements(other, func(_ int, el []byte) error {
			part()
			dst = append(dst, el...)
			return nil
		})
	}
	dst = append(dst, `],"role":`...)
	if role := r.Extensions.Get(ExtRole); role != nil && wire.ValidRaw(role) {
		dst = append(dst, role...)
	} else {
		dst = append(dst, `"model"`...)
	}
	dst = append(dst, '}')
	if fr := r.Extensions.Get(ExtFinishReason); fr != nil && wire.ValidRaw(fr) && stopOf(fr, r) {
		dst = append(dst, `,"finishReason":`...)
		dst = append(dst, fr...)
	} else if s := finishReason(r.Stop); s != "" {
		dst = append(dst, `,"finishReason":`...)
		dst = strictjson.AppendQuote(dst, s)
	}
	dst = append(dst, "}]"...)
	if r.Model != "" {
		dst = append(dst, `,"modelVersion":`...)
		dst = strictjson.AppendQuote(dst, r.Model)
	}
	if r.ID != "" {
		dst = append(dst, `,"responseId":`...)
		dst = strictjson.AppendQuote(dst, r.ID)
	}
	for _, k := range wire.SortedKeys(r.Extensions) {
		switch k {
		case ExtFinishReason, ExtOtherParts, ExtRole, tool.ExtGeminiThoughtSignature:
			continue
		}
		warns = append(warns, tool.Warning{Pointer: "/extensions/" + strictjson.EscapePointer(k), Code: "gemini-dropped", Message: "extension " + k + " has no place in a Gemini response"})
	}
	return append(dst, '}'), warns, nil
}

// stopOf reports whether the kept finishReason fr still says what r.Stop
// says, so that a changed stop reason is not overwritten by a stale one.
func stopOf(fr []byte, r *tool.Response) bool {
	s, err := strictjson.Unquote(fr)
	if err != nil {
		return false
	}
	got := stopReason(s)
	return got == r.Stop || (r.Stop == tool.StopToolCalls && len(r.Calls) > 0)
}
