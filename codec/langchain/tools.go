// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package langchain

import (
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// DecodeTools reads LangChain tool definitions in any of the forms
// LangChain itself produces or accepts:
//
//   - the convert_to_openai_tool shape {"type": "function", "function":
//     {"name", "description", "parameters", "strict"}};
//   - the convert_to_openai_function shape {"name", "description",
//     "parameters"};
//   - a tool dump with "args_schema" or "schema" (a pydantic JSON schema,
//     kept as it is, titles included) and StructuredTool fields:
//     return_direct is kept under [tool.ExtLangChainReturnDirect], others
//     (verbose, tags, metadata, response_format…) under "langchain/" + name;
//   - a dump with "args" (BaseTool.args: the properties only), wrapped in
//     {"type": "object", "properties": …};
//   - a bare pydantic JSON schema whose "title" is the tool name.
//
// One tool sets Single; a JSON array or {"tools": […]} gives a list.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.LangChain, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	out := &codec.Tools{}
	switch strictjson.KindOf(data) {
	case strictjson.Array:
		if err := decodeList(data, "", out); err != nil {
			return nil, err
		}
	case strictjson.Object:
		tools := strictjson.Get(data, "tools")
		if tools != nil && strictjson.Get(data, "name") == nil {
			if strictjson.KindOf(tools) != strictjson.Array {
				return nil, shapeErr("/tools", "want an array of tools, got %s", strictjson.KindOf(tools))
			}
			if err := decodeList(tools, "/tools", out); err != nil {
				return nil, err
			}
			break
		}
		d, err := decodeTool(data, "")
		if err != nil {
			return nil, err
		}
		out.Defs, out.Single = append(out.Defs, d), true
	default:
		return nil, shapeErr("", "want a tool or a list of tools, got %s", strictjson.KindOf(data))
	}
	seen := make(map[string]int, len(out.Defs))
	for i, d := range out.Defs {
		if j, ok := seen[d.Name]; ok {
			return nil, defErr("", "duplicate tool name (tools %d and %d, counted across the document)", j, i)
		}
		seen[d.Name] = i
	}
	return out, nil
}

func decodeList(v []byte, ptr string, out *codec.Tools) error {
	return strictjson.Elements(v, func(i int, el []byte) error {
		d, err := decodeTool(el, wire.Index(ptr, i))
		if err == nil {
			out.Defs = append(out.Defs, d)
		}
		return err
	})
}

func schemaOf(v []byte, ptr string) ([]byte, error) {
	if strictjson.KindOf(v) != strictjson.Object {
		return nil, defErr(ptr, "schema is %s, not an object", strictjson.KindOf(v))
	}
	return wire.Clone(v), nil
}

func decodeTool(v []byte, ptr string) (tool.Definition, error) {
	var d tool.Definition
	if strictjson.KindOf(v) != strictjson.Object {
		return d, shapeErr(ptr, "want a tool object, got %s", strictjson.KindOf(v))
	}
	// The OpenAI-tool wrapper.
	if fn := strictjson.Get(v, "function"); fn != nil && strictjson.Get(v, "name") == nil {
		if t := strictjson.Get(v, "type"); t != nil && string(t) != `"function"` {
			return d, shapeErr(wire.Member(ptr, "type"), "want type \"function\", got %s", t)
		}
		err := strictjson.Members(v, func(k, _ []byte) error {
			switch string(k) {
			case "type", "function":
				return nil
			}
			return shapeErr(wire.Member(ptr, string(k)), "unexpected member beside \"function\"")
		})
		if err != nil {
			return d, err
		}
		return decodeFunction(fn, wire.Member(ptr, "function"), true)
	}
	if strictjson.Get(v, "name") == nil {
		// A bare pydantic JSON schema: the title names the tool.
		title := strictjson.Get(v, "title")
		if title == nil || strictjson.Get(v, "properties") == nil && strictjson.Get(v, "type") == nil {
			return d, shapeErr(ptr, "want a tool with a \"name\", an OpenAI-style tool or a JSON schema with a \"title\"")
		}
		name, err := wire.Str(title, wire.Member(ptr, "title"))
		if err != nil {
			return d, err
		}
		if name == "" {
			return d, defErr(wire.Member(ptr, "title"), "empty title")
		}
		d.Name = name
		if desc := strictjson.Get(v, "description"); desc != nil {
			if d.Description, err = wire.Str(desc, wire.Member(ptr, "description")); err != nil {
				return d, err
			}
		}
		d.InputSchema = wire.Clone(v)
		return d, nil
	}
	return decodeFunction(v, ptr, false)
}

// decodeFunction reads {"name", "description", "parameters" | "args_schema"
// | "schema" | "args", …}. wrapped is true inside the OpenAI-tool shape,
// where only OpenAI's fields are allowed.
func decodeFunction(v []byte, ptr string, wrapped bool) (tool.Definition, error) {
	var d tool.Definition
	if strictjson.KindOf(v) != strictjson.Object {
		return d, shapeErr(ptr, "want a function object, got %s", strictjson.KindOf(v))
	}
	schemas := 0
	err := strictjson.Members(v, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var err error
		switch key {
		case "name":
			d.Name, err = wire.Str(val, p)
		case "description":
			if string(val) != "null" {
				d.Description, err = wire.Str(val, p)
			}
		case "parameters", "args_schema", "schema":
			if wrapped && key != "parameters" {
				return shapeErr(p, "unexpected member in an OpenAI-style function")
			}
			schemas++
			d.InputSchema, err = schemaOf(val, p)
		case "args":
			if wrapped {
				return shapeErr(p, "unexpected member in an OpenAI-style function")
			}
			if strictjson.KindOf(val) != strictjson.Object {
				return defErr(p, "args is %s, not an object of properties", strictjson.KindOf(val))
			}
			schemas++
			s := append([]byte(`{"type":"object","properties":`), val...)
			d.InputSchema = append(s, '}')
		case "strict":
			d.Extensions = d.Extensions.Set(tool.ExtOpenAIStrict, wire.Clone(val))
		case "return_direct":
			if wrapped {
				return shapeErr(p, "unexpected member in an OpenAI-style function")
			}
			d.Extensions = d.Extensions.Set(tool.ExtLangChainReturnDirect, wire.Clone(val))
		default:
			if wrapped {
				return shapeErr(p, "unexpected member in an OpenAI-style function")
			}
			d.Extensions = d.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return d, err
	}
	if schemas > 1 {
		return d, defErr(ptr, "more than one of parameters, args_schema, schema and args")
	}
	if d.Name == "" {
		return d, defErr(wire.Member(ptr, "name"), "empty name")
	}
	return d, nil
}

// EncodeTools writes t in the convert_to_openai_tool shape, which
// bind_tools accepts: one tool when t.Single is set, otherwise a JSON
// array. A nil input schema is written as an empty object schema.
// StructuredTool fields (return_direct…) have no place in that shape and
// are reported, as are title, output schema, annotations, capability,
// security and version.
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t)
	if err != nil {
		return nil, nil, wire.Fail(codec.LangChain, nil, err)
	}
	return v, ws, nil
}

// encodeTools is [EncodeTools] with its error not yet a *codec.Error.
func encodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	warns := wire.DroppedExtensions(nil, t.Extensions, "", "LangChain")
	if t.Single && len(t.Defs) == 1 {
		out, err := appendTool(nil, &t.Defs[0], "", &warns)
		return out, warns, err
	}
	out := []byte{'['}
	for i := range t.Defs {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendTool(out, &t.Defs[i], wire.Index("", i), &warns); err != nil {
			return nil, nil, err
		}
	}
	return append(out, ']'), warns, nil
}

func appendTool(dst []byte, d *tool.Definition, ptr string, warns *[]tool.Warning) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	dst = append(dst, `{"type":"function","function":{`...)
	first := true
	dst = wire.AppendString(dst, &first, "name", d.Name)
	if d.Description != "" {
		dst = wire.AppendString(dst, &first, "description", d.Description)
	}
	if len(d.InputSchema) > 0 {
		dst = wire.AppendMember(dst, &first, "parameters", d.InputSchema)
	} else {
		dst = wire.AppendMember(dst, &first, "parameters", []byte(`{"type":"object","properties":{}}`))
	}
	if s := d.Extensions.Get(tool.ExtOpenAIStrict); s != nil {
		if string(s) != "true" && string(s) != "false" {
			return nil, defErr(ptr, "extension %q is not a boolean", tool.ExtOpenAIStrict)
		}
		dst = wire.AppendMember(dst, &first, "strict", s)
	}
	for _, k := range wire.SortedKeys(d.Extensions) {
		if k == tool.ExtOpenAIStrict {
			continue
		}
		*warns = append(*warns, dropped(ptr+"/extensions/"+strictjson.EscapePointer(k), "extension "+k))
	}
	for _, f := range []struct {
		set  bool
		name string
	}{{d.Title != "", "title"}, {len(d.OutputSchema) > 0, "output_schema"}, {d.Annotations != nil, "annotations"},
		{d.Behavior != nil && !d.Behavior.Inferred, "capability"}, {d.Security != nil, "security"}, {d.Version != "", "version"}} {
		if f.set {
			*warns = append(*warns, dropped(ptr+"/"+f.name, "the "+strings.ReplaceAll(f.name, "_", " ")))
		}
	}
	return append(dst, "}}"...), nil
}
