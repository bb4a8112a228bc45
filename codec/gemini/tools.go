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

// declFields are the declaration members with a field of their own.
var declFields = [...]string{"name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema", "behavior"}

// canonicalKey maps the snake_case spellings of the Python SDK and proto
// JSON to the REST API's camelCase.
func canonicalKey(k string) string {
	switch k {
	case "function_declarations":
		return "functionDeclarations"
	case "parameters_json_schema":
		return "parametersJsonSchema"
	case "response_json_schema":
		return "responseJsonSchema"
	case "function_call":
		return "functionCall"
	case "function_response":
		return "functionResponse"
	case "thought_signature":
		return "thoughtSignature"
	case "finish_reason":
		return "finishReason"
	case "model_version":
		return "modelVersion"
	case "response_id":
		return "responseId"
	}
	return k
}

// get returns the member named key (camelCase) or its snake_case spelling.
func get(obj []byte, key string) []byte {
	var out []byte
	_ = strictjson.Members(obj, func(k, v []byte) error {
		if out == nil && canonicalKey(string(k)) == key {
			out = v
		}
		return nil
	})
	return out
}

// DecodeTools reads Gemini function declarations: one declaration (Single
// is set), a JSON array of declarations or of Tool objects, one Tool
// object ({"functionDeclarations": […]}), or a request body or
// {"tools": […]} holding Tool objects. snake_case spellings are accepted.
//
// "parameters" (Gemini's OpenAPI 3.0 subset) is converted to standard JSON
// Schema: lower-case types, and nullable folded into the type and enum.
// "parametersJsonSchema" is kept as it is. "response" and
// "responseJsonSchema" become the output schema the same way; "behavior"
// is kept in Extensions under [tool.ExtGeminiBehavior] and other members
// under "gemini/" + their name. Tools that are not function declarations
// (googleSearch, codeExecution…) are reported and skipped.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.Gemini, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	out := &codec.Tools{}
	if err := decodeContainer(data, "", out, true); err != nil {
		return nil, err
	}
	seen := make(map[string]int, len(out.Defs))
	for i, d := range out.Defs {
		if j, ok := seen[d.Name]; ok {
			return nil, defErr("", "duplicate function name (declarations %d and %d, counted across the document)", j, i)
		}
		seen[d.Name] = i
	}
	return out, nil
}

func decodeContainer(v []byte, ptr string, out *codec.Tools, top bool) error {
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		return strictjson.Elements(v, func(i int, el []byte) error {
			p := wire.Index(ptr, i)
			if strictjson.KindOf(el) == strictjson.Object && get(el, "name") == nil {
				return decodeTool(el, p, out)
			}
			return decodeDecl(el, p, out)
		})
	case strictjson.Object:
	default:
		return shapeErr(ptr, "want a function declaration, a list of them or a request with tools, got %s", strictjson.KindOf(v))
	}
	if get(v, "name") != nil {
		if top {
			out.Single = true
		}
		return decodeDecl(v, ptr, out)
	}
	if get(v, "functionDeclarations") != nil {
		if top {
			// One Tool object, not a list of them: say so, with the key
			// as spelled, so that it is written back the same way.
			_ = strictjson.Members(v, func(k, _ []byte) error {
				if canonicalKey(string(k)) == "functionDeclarations" && out.Extensions.Get(ExtToolObject) == nil {
					out.Extensions = out.Extensions.Set(ExtToolObject, strictjson.AppendQuote(nil, string(k)))
				}
				return nil
			})
		}
		return decodeTool(v, ptr, out)
	}
	if tools := get(v, "tools"); tools != nil {
		if strictjson.KindOf(tools) != strictjson.Array {
			return shapeErr(wire.Member(ptr, "tools"), "want an array of tools, got %s", strictjson.KindOf(tools))
		}
		return decodeContainer(tools, wire.Member(ptr, "tools"), out, false)
	}
	return shapeErr(ptr, "want a function declaration (\"name\"), a tool (\"functionDeclarations\") or \"tools\"")
}

// decodeTool reads one Tool object.
func decodeTool(v []byte, ptr string, out *codec.Tools) error {
	if strictjson.KindOf(v) != strictjson.Object {
		return shapeErr(ptr, "want a tool object, got %s", strictjson.KindOf(v))
	}
	return strictjson.Members(v, func(k, val []byte) error {
		p := wire.Member(ptr, string(k))
		if canonicalKey(string(k)) != "functionDeclarations" {
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: p, Code: "gemini-tool-skipped",
				Message: "tool " + string(k) + " is not a function declaration and has no place in a tool definition"})
			return nil
		}
		if strictjson.KindOf(val) != strictjson.Array {
			return shapeErr(p, "want an array of function declarations, got %s", strictjson.KindOf(val))
		}
		return strictjson.Elements(val, func(i int, el []byte) error {
			return decodeDecl(el, wire.Index(p, i), out)
		})
	})
}

func decodeDecl(v []byte, ptr string, out *codec.Tools) error {
	if strictjson.KindOf(v) != strictjson.Object {
		return shapeErr(ptr, "want a function declaration object, got %s", strictjson.KindOf(v))
	}
	var d tool.Definition
	hasName := false
	var params, paramsJS, resp, respJS []byte
	var paramsPtr, respPtr string
	err := strictjson.Members(v, func(k, val []byte) error {
		key := canonicalKey(string(k))
		p := wire.Member(ptr, string(k))
		var err error
		switch key {
		case "name":
			hasName = true
			d.Name, err = wire.Str(val, p)
		case "description":
			d.Description, err = wire.Str(val, p)
			if err == nil && d.Description == "" {
				wire.EmptyDescription(&d)
			}
		case "parameters":
			params, paramsPtr = val, p
		case "parametersJsonSchema":
			paramsJS = val
			if strictjson.KindOf(val) != strictjson.Object {
				return defErr(p, "parametersJsonSchema is %s, not an object", strictjson.KindOf(val))
			}
		case "response":
			resp, respPtr = val, p
		case "responseJsonSchema":
			respJS = val
			if strictjson.KindOf(val) != strictjson.Object {
				return defErr(p, "responseJsonSchema is %s, not an object", strictjson.KindOf(val))
			}
		case "behavior":
			d.Extensions = d.Extensions.Set(tool.ExtGeminiBehavior, wire.Clone(val))
		default:
			d.Extensions = d.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return err
	}
	if !hasName {
		return shapeErr(ptr, "a function declaration needs a \"name\"")
	}
	if d.Name == "" {
		return defErr(wire.Member(ptr, "name"), "empty name")
	}
	if params != nil && paramsJS != nil {
		return defErr(ptr, "both parameters and parametersJsonSchema are set; Gemini accepts one")
	}
	if resp != nil && respJS != nil {
		return defErr(ptr, "both response and responseJsonSchema are set; Gemini accepts one")
	}
	if params != nil {
		if d.InputSchema, err = toJSONSchema(params, paramsPtr, &out.Warnings); err != nil {
			return err
		}
	} else if paramsJS != nil {
		d.InputSchema = wire.Clone(paramsJS)
	}
	if resp != nil {
		if d.OutputSchema, err = toJSONSchema(resp, respPtr, &out.Warnings); err != nil {
			return err
		}
	} else if respJS != nil {
		d.OutputSchema = wire.Clone(respJS)
	}
	out.Defs = append(out.Defs, d)
	return nil
}

// EncodeTools writes t as Gemini function declarations with the schema in
// "parameters" (and the output schema in "response"). One tool is written
// as a bare declaration when t.Single is set; otherwise the result is
// [{"functionDeclarations": […]}], the value of a request's "tools", ready
// to paste.
//
// "parameters" takes only Gemini's OpenAPI subset: the schema is written as
// given, so lower it first with package schema's Gemini target (which
// upper-cases types and removes what Gemini refuses), as the CLI does. To
// send plain JSON Schema instead, use [EncodeToolsJSONSchema].
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t, "parameters", "response")
	if err != nil {
		return nil, nil, wire.Fail(codec.Gemini, nil, err)
	}
	return v, ws, nil
}

// EncodeToolsJSONSchema is [EncodeTools] writing the schemas as
// "parametersJsonSchema" and "responseJsonSchema", which take standard JSON
// Schema and need no lowering beyond Gemini's size limits.
func EncodeToolsJSONSchema(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t, "parametersJsonSchema", "responseJsonSchema")
	if err != nil {
		return nil, nil, wire.Fail(codec.Gemini, nil, err)
	}
	return v, ws, nil
}

// ExtToolObject is the [codec.Tools.Extensions] key saying that the
// declarations came in one Tool object ({"functionDeclarations": […]})
// rather than a list; its value is the key as spelled, which
// [EncodeTools] writes back.
const ExtToolObject = "gemini/tool_object"

func encodeTools(t *codec.Tools, paramsKey, respKey string) ([]byte, []tool.Warning, error) {
	warns := wire.DroppedExtensions(nil, t.Extensions, "", "Gemini", ExtToolObject)
	if t.Single && len(t.Defs) == 1 {
		out, err := appendDecl(nil, &t.Defs[0], "", paramsKey, respKey, &warns)
		return out, warns, err
	}
	key, object := "functionDeclarations", false
	if v := t.Extensions.Get(ExtToolObject); wire.IsKind(v, strictjson.String) {
		if k, err := strictjson.Unquote(v); err == nil && canonicalKey(k) == "functionDeclarations" {
			key, object = k, true
		}
	}
	out := []byte(`[{`)
	base := "/0/" + key
	if object {
		out, base = []byte(`{`), "/"+key
	}
	out = append(strictjson.AppendQuote(out, key), ":["...)
	for i := range t.Defs {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendDecl(out, &t.Defs[i], wire.Index(base, i), paramsKey, respKey, &warns); err != nil {
			return nil, nil, err
		}
	}
	if object {
		return append(out, "]}"...), warns, nil
	}
	return append(out, "]}]"...), warns, nil
}

func appendDecl(dst []byte, d *tool.Definition, ptr, paramsKey, respKey string, warns *[]tool.Warning) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	first := true
	dst = append(dst, '{')
	dst = wire.AppendString(dst, &first, "name", d.Name)
	if d.HasDescription() {
		dst = wire.AppendString(dst, &first, "description", d.Description)
	}
	if b := d.Extensions.Get(tool.ExtGeminiBehavior); b != nil {
		if !wire.ValidRaw(b) {
			return nil, defErr(ptr, "extension %q is not valid JSON", tool.ExtGeminiBehavior)
		}
		dst = wire.AppendMember(dst, &first, "behavior", b)
	}
	if len(d.InputSchema) > 0 {
		dst = wire.AppendMember(dst, &first, paramsKey, d.InputSchema)
	}
	if len(d.OutputSchema) > 0 {
		dst = wire.AppendMember(dst, &first, respKey, d.OutputSchema)
	}
	for _, k := range wire.SortedKeys(d.Extensions) {
		p := ptr + "/extensions/" + strictjson.EscapePointer(k)
		name := strings.TrimPrefix(k, extPrefix)
		switch {
		case k == tool.ExtGeminiBehavior, tool.IsSpelling(k):
			continue // written as a member, or how the input was written
		case !isOwnExt(k), isDeclField(name), k == tool.ExtGeminiThoughtSignature:
			*warns = append(*warns, dropped(p, "extension "+k))
			continue
		}
		if !wire.ValidRaw(d.Extensions[k]) {
			return nil, defErr(p, "extension %q is not valid JSON", k)
		}
		dst = wire.AppendMember(dst, &first, name, d.Extensions[k])
	}
	if d.Title != "" {
		*warns = append(*warns, dropped(ptr+"/title", "the title"))
	}
	if d.Annotations != nil {
		*warns = append(*warns, dropped(ptr+"/annotations", "the annotations"))
	}
	if d.Behavior != nil && !d.Behavior.Inferred { // an inferred one is recomputed, nothing is lost
		*warns = append(*warns, dropped(ptr+"/capability", "the capability"))
	}
	if d.Security != nil {
		*warns = append(*warns, dropped(ptr+"/security", "the security block"))
	}
	if d.Version != "" {
		*warns = append(*warns, dropped(ptr+"/version", "the version"))
	}
	return append(dst, '}'), nil
}

func isDeclField(k string) bool {
	for _, f := range declFields {
		if f == k {
			return true
		}
	}
	return false
}
