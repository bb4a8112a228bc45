// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openai

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// formatName names the format in warnings.
const formatName = "OpenAI Chat Completions"

// DecodeTools reads OpenAI Chat Completions tool definitions.
//
// It accepts one tool ({"type":"function","function":{…}}), which sets
// [codec.Tools.Single]; a JSON array of tools; an object holding "tools",
// such as a whole request body; and the legacy shapes: a bare function
// object ({"name","description","parameters"}) and a request's "functions"
// array. Tools of other types ("custom" grammar tools) are skipped with a
// warning. Unknown members of a tool are errors, as they are for the API.
//
// The definitions share no memory with data.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.OpenAI, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	d := decoders.Get().(*decoder)
	defer func() {
		d.Reset()
		decoders.Put(d)
	}()
	if err := d.Check(data); err != nil {
		return nil, err
	}
	d.Init(data) // the caller's bytes: Own copies what the definitions keep

	out := &codec.Tools{}
	i := strictjson.SkipSpace(data, 0)
	switch strictjson.KindOf(data) {
	case strictjson.Array:
		if _, err := d.List(i, "", d.tool); err != nil {
			return nil, err
		}
	case strictjson.Object:
		found := false
		_, err := strictjson.WalkObject(data, i, func(k []byte, vs int) (int, error) {
			switch string(k) {
			case "tools":
				found = true
				return d.List(vs, "/tools", d.tool)
			case "functions":
				found = true
				if err := wire.Kind(data[vs:], strictjson.Array, "/functions"); err != nil {
					return 0, err
				}
				return strictjson.WalkArray(data, vs, func(n, es int) (int, error) {
					return d.function(es, wire.Loc{Base: "/functions", I: n})
				})
			case "model", "messages":
				found = true // a request without tools
			}
			return -1, nil
		})
		if err != nil {
			return nil, err
		}
		if !found {
			if _, err := d.tool(i, wire.Loc{I: -1}); err != nil {
				return nil, err
			}
			out.Single = len(d.Defs) == 1 // not when the tool was skipped
		}
	default:
		return nil, wire.ShapeErr("", "want a tool, an array of tools or an object holding \"tools\", got %s", strictjson.KindOf(data))
	}
	d.Strings()
	if err := wire.Names(d.Defs, func(i int) string { return d.Locs[i].String() }); err != nil {
		return nil, err
	}
	d.Own()
	out.Defs, out.Warnings = d.Defs, d.Warnings
	if out.Defs == nil {
		out.Defs = []tool.Definition{}
	}
	return out, nil
}

// decoder reads the definitions of one checked document.
type decoder struct{ wire.Decoder }

// decoders recycles decoders with their buffers: where the containers of
// a document end, and the text of its names and descriptions.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// typedTool reports whether the object at i starts with "type" or
// "function", as a typed tool does; a bare function starts otherwise.
func (d *decoder) typedTool(i int) bool {
	i = strictjson.SkipSpace(d.Data, i+1)
	if i >= len(d.Data) || d.Data[i] != '"' {
		return false
	}
	raw := d.Data[i:strictjson.SkipString(d.Data, i)]
	switch string(raw) {
	case `"type"`, `"function"`:
		return true
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	s, _ := strictjson.Unquote(raw)
	return s == "type" || s == "function"
}

// tool reads one element of a tools list: a typed tool or a bare function.
func (d *decoder) tool(i int, loc wire.Loc) (int, error) {
	ptr := loc.String
	if !wire.IsKind(d.Data[i:], strictjson.Object) {
		return 0, wire.Kind(d.Data[i:], strictjson.Object, ptr())
	}
	if !d.typedTool(i) {
		return d.function(i, loc) // a bare (legacy) function
	}
	var typ string
	seenFn := false
	end, err := strictjson.WalkObject(d.Data, i, func(k []byte, vs int) (int, error) {
		switch string(k) {
		case "type":
			v, end := d.Value(vs)
			if string(v) == `"function"` { // nearly always: no need to copy it
				typ = "function"
				return end, nil
			}
			var err error
			if typ, err = strictjson.Unquote(v); err != nil || !wire.IsKind(v, strictjson.String) {
				_, err = wire.Str(v, ptr()+"/type")
			}
			return end, err
		}
		if typ != "" && typ != "function" {
			return -1, nil // another tool type's own members
		}
		switch string(k) {
		case "function":
			seenFn = true
			return d.function(vs, wire.Loc{Base: loc.Base, I: loc.I, Path: "/function"})
		case "name", "description", "parameters", "strict":
			return 0, wire.ShapeErr(ptr(), "a tool mixes \"function\" with its members")
		}
		return 0, wire.ShapeErr(wire.Member(ptr(), string(k)), "unknown member of an OpenAI tool")
	})
	if err != nil {
		return 0, err
	}
	switch {
	case typ != "" && typ != "function":
		if seenFn { // "function" came before "type"
			d.DropDef()
		}
		// Chat Completions nests a tool's body under its type's name
		// ({"type":"custom","custom":{…}}); anything else is another
		// format's tool, not one to skip.
		if strictjson.Get(d.Data[i:end], typ) == nil {
			return 0, wire.ShapeErr(ptr()+"/type", "a tool without the member its type names")
		}
		d.Warnings = append(d.Warnings, tool.Warning{Pointer: ptr(), Code: "unsupported-tool",
			Message: "openai: skipped a tool of type " + strconv.Quote(typ) + ": only function tools have a canonical form"})
	case !seenFn:
		return 0, wire.ShapeErr(ptr(), "a function tool without \"function\"")
	}
	return end, nil
}

// function reads a function object: name, description, parameters, strict.
// Pointers are built only for errors: this is the hot path of conversion.
func (d *decoder) function(i int, loc wire.Loc) (int, error) {
	if !wire.IsKind(d.Data[i:], strictjson.Object) {
		return 0, wire.Kind(d.Data[i:], strictjson.Object, loc.String())
	}
	var def tool.Definition
	var text wire.DefText // the name and description, made strings at the end
	named := false
	end, err := strictjson.WalkObject(d.Data, i, func(k []byte, vs int) (int, error) {
		val, end := d.Value(vs)
		var err error
		switch string(k) {
		case "name":
			if !wire.IsKind(val, strictjson.String) {
				_, err = wire.Str(val, loc.String()+"/name")
			} else if text.Name, err = d.Text(val); err != nil {
				_, err = wire.Str(val, loc.String()+"/name")
			}
			named = true
		case "description":
			switch strictjson.KindOf(val) {
			case strictjson.String:
				text.Description, err = d.Text(val)
				if string(val) == `""` {
					wire.EmptyDescription(&def)
				}
			case strictjson.Null:
			default:
				_, err = wire.Str(val, loc.String()+"/description")
			}
		case "parameters":
			switch strictjson.KindOf(val) {
			case strictjson.Object:
				def.InputSchema = val
			case strictjson.Null:
			default:
				err = wire.SchemaObject(val, loc.String()+"/parameters")
			}
		case "strict":
			if !wire.IsKind(val, strictjson.Null) {
				_, err = wire.Bool(val, loc.String()+"/strict")
			}
			def.Extensions = def.Extensions.Set(tool.ExtOpenAIStrict, val)
		default:
			err = wire.ShapeErr(wire.Member(loc.String(), string(k)), "unknown member of an OpenAI function")
		}
		return end, err
	})
	if err != nil {
		return 0, err
	}
	if !named {
		return 0, defErr(loc.String(), "a function without a name")
	}
	namePath := "/name"
	if loc.Path != "" {
		namePath = "/function/name"
	}
	d.AddDef(def, wire.Loc{Base: loc.Base, I: loc.I, Path: namePath}, text)
	return end, nil
}

// owned reports the extension keys EncodeTools writes back.
func owned(k string) bool { return k == tool.ExtOpenAIStrict }

// EncodeTools writes t as OpenAI Chat Completions tools: one tool when
// t.Single holds one definition, a JSON array otherwise. Keys are written
// in a fixed order and schemas as the bytes given, so output is
// byte-stable. Fields the format cannot carry (title, output schema,
// annotations, other providers' extensions…) are reported as warnings
// with the pointer of the tool in the output.
//
// Schemas are written as they are: lower them first (package schema) for
// strict mode.
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t)
	if err != nil {
		return nil, nil, wire.Fail(codec.OpenAI, nil, err)
	}
	return v, ws, nil
}

// encodeTools is [EncodeTools] with its error not yet a *codec.Error.
func encodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	return wire.EncodeTools(t, wire.ToolWriter{
		Format: formatName, Owned: owned, Size: 64,
		Check: wire.CheckStrict,
		Write: func(out []byte, def *tool.Definition) []byte {
			out = append(out, `{"type":"function","function":{`...)
			out = wire.AppendStr(out, "name", def.Name)
			if def.HasDescription() {
				out = wire.AppendStr(out, "description", def.Description)
			}
			if len(def.InputSchema) > 0 {
				out = wire.AppendRaw(out, "parameters", def.InputSchema)
			}
			if s := def.Extensions.Get(tool.ExtOpenAIStrict); s != nil {
				out = wire.AppendRaw(out, "strict", s)
			}
			return append(out, "}}"...)
		},
	})
}
