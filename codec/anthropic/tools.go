// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// formatName names the format in warnings.
const formatName = "Anthropic Messages"

// Extensions keys for the optional members of an Anthropic tool that this
// package keeps so that they survive a round trip. [tool.ExtAnthropicCacheControl]
// keeps "cache_control".
const (
	ExtType                = "anthropic/type"
	ExtStrict              = "anthropic/strict"
	ExtInputExamples       = "anthropic/input_examples"
	ExtDeferLoading        = "anthropic/defer_loading"
	ExtAllowedCallers      = "anthropic/allowed_callers"
	ExtEagerInputStreaming = "anthropic/eager_input_streaming"
)

// toolMembers maps the optional members of a tool to their extension keys,
// in the order EncodeTools writes them.
var toolMembers = [...]struct{ name, ext string }{
	{"strict", ExtStrict},
	{"input_examples", ExtInputExamples},
	{"defer_loading", ExtDeferLoading},
	{"allowed_callers", ExtAllowedCallers},
	{"eager_input_streaming", ExtEagerInputStreaming},
	{"cache_control", tool.ExtAnthropicCacheControl},
}

// owned reports the extension keys EncodeTools writes back.
func owned(k string) bool {
	if k == ExtType {
		return true
	}
	for _, m := range toolMembers {
		if m.ext == k {
			return true
		}
	}
	return false
}

// DecodeTools reads Anthropic Messages tool definitions.
//
// It accepts one tool ({"name","description","input_schema"}), which sets
// [codec.Tools.Single]; a JSON array of tools; and an object holding
// "tools", such as a whole request body. "input_schema" is required and
// must be an object, as the API requires. "cache_control" is kept as
// [tool.ExtAnthropicCacheControl], and the other optional members
// ("type":"custom", "strict", "input_examples", "defer_loading",
// "allowed_callers", "eager_input_streaming") under the Ext* keys of this
// package. Server and Anthropic-defined tools (a "type" other than
// "custom", such as web_search_20250305) are skipped with a warning.
// Unknown members are errors, as they are for the API.
//
// The definitions share no memory with data.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.Anthropic, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	d := &decoder{}
	if err := d.Check(data); err != nil {
		return nil, err
	}
	d.Init(bytes.Clone(data))
	return d.Tools("messages", d.tool)
}

// decoder reads the definitions of one checked document.
type decoder struct{ wire.Decoder }

// tool reads one tool object. Pointers are built only for errors: this is
// the hot path of conversion.
func (d *decoder) tool(i int, loc wire.Loc) (int, error) {
	if !wire.IsKind(d.Data[i:], strictjson.Object) {
		return 0, wire.Kind(d.Data[i:], strictjson.Object, loc.String())
	}
	var def tool.Definition
	var typ string
	named, schema := false, false
	var unknown error // reported unless this is a server tool, which has its own members
	end, err := strictjson.WalkObject(d.Data, i, func(k []byte, vs int) (int, error) {
		val, end := d.Value(vs)
		var err error
		switch string(k) {
		case "name":
			if def.Name, err = strictjson.Unquote(val); err != nil || !wire.IsKind(val, strictjson.String) {
				_, err = wire.Str(val, loc.String()+"/name")
			}
			named = true
		case "description":
			if def.Description, err = strictjson.Unquote(val); err != nil || !wire.IsKind(val, strictjson.String) {
				_, err = wire.Str(val, loc.String()+"/description")
			} else if def.Description == "" {
				wire.EmptyDescription(&def)
			}
		case "input_schema":
			if err = wire.SchemaObject(val, loc.String()+"/input_schema"); err == nil {
				def.InputSchema = val
				schema = true
			}
		case "type":
			if typ, err = strictjson.Unquote(val); err != nil || !wire.IsKind(val, strictjson.String) {
				_, err = wire.Str(val, loc.String()+"/type")
			}
			def.Extensions = def.Extensions.Set(ExtType, val)
		default:
			for _, m := range toolMembers {
				if m.name == string(k) {
					def.Extensions = def.Extensions.Set(m.ext, val)
					return end, nil
				}
			}
			if unknown == nil {
				unknown = wire.ShapeErr(wire.Member(loc.String(), string(k)), "unknown member of an Anthropic tool")
			}
		}
		return end, err
	})
	if err != nil {
		return 0, err
	}
	switch {
	case typ != "" && typ != "custom" && !versioned(typ):
		return 0, wire.ShapeErr(loc.String()+"/type", "tool type is neither custom nor an Anthropic-defined tool (name_YYYYMMDD)")
	case typ != "" && typ != "custom":
		d.Warnings = append(d.Warnings, tool.Warning{Pointer: loc.String(), Code: "unsupported-tool",
			Message: "anthropic: skipped a tool of type " + strconv.Quote(typ) + ": only custom tools have a canonical form"})
		return end, nil
	case unknown != nil:
		return 0, unknown
	case !named:
		return 0, defErr(loc.String(), "a tool without a name")
	case !schema:
		return 0, defErr(loc.String(), "tool has no input_schema")
	}
	if c := def.Extensions.Get(tool.ExtAnthropicCacheControl); c != nil && !wire.IsKind(c, strictjson.Object) && !wire.IsKind(c, strictjson.Null) {
		return 0, wire.ShapeErr(loc.String()+"/cache_control", "want an object, got %s", strictjson.KindOf(c))
	}
	d.Defs = append(d.Defs, def)
	d.Locs = append(d.Locs, loc)
	return end, nil
}

// versioned reports whether typ names an Anthropic-defined or server tool,
// which carry a date version: web_search_20250305, bash_20250124…
func versioned(typ string) bool {
	i := strings.LastIndexByte(typ, '_')
	if i <= 0 || len(typ)-i-1 != 8 {
		return false
	}
	for _, c := range typ[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// emptySchema is written for a definition without an input schema: the API
// requires one.
const emptySchema = `{"type":"object","properties":{}}`

// EncodeTools writes t as Anthropic Messages tools: one tool when t.Single
// holds one definition, a JSON array otherwise. Keys are written in a
// fixed order ("type" when kept, name, description, input_schema, then the
// kept optional members, cache_control last) and schemas as the bytes
// given, so output is byte-stable. A definition without a schema gets
// {"type":"object","properties":{}}. Fields the format cannot carry
// (title, output schema, annotations, other providers' extensions such as
// OpenAI's strict flag…) are reported as warnings with the pointer of the
// tool in the output.
//
// Schemas are written as they are: lower them first (package schema).
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t)
	if err != nil {
		return nil, nil, wire.Fail(codec.Anthropic, nil, err)
	}
	return v, ws, nil
}

// encodeTools is [EncodeTools] with its error not yet a *codec.Error.
func encodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	return wire.EncodeTools(t, wire.ToolWriter{
		Format: formatName, Owned: owned, Size: 64,
		Check: func(def *tool.Definition) (where, problem string) {
			if len(def.Extensions) == 0 {
				return "", ""
			}
			for k, v := range def.Extensions {
				if owned(k) && strictjson.Check(v, nil) != nil {
					return "/extensions/" + strictjson.EscapePointer(k), "not a JSON value"
				}
			}
			return "", ""
		},
		Write: func(out []byte, def *tool.Definition) []byte {
			out = append(out, '{')
			if v := def.Extensions.Get(ExtType); v != nil {
				out = wire.AppendRaw(out, "type", v)
			}
			out = wire.AppendStr(out, "name", def.Name)
			if def.HasDescription() {
				out = wire.AppendStr(out, "description", def.Description)
			}
			if len(def.InputSchema) > 0 {
				out = wire.AppendRaw(out, "input_schema", def.InputSchema)
			} else {
				out = wire.AppendRaw(out, "input_schema", []byte(emptySchema))
			}
			if len(def.Extensions) > 0 {
				for _, m := range toolMembers {
					if v := def.Extensions.Get(m.ext); v != nil {
						out = wire.AppendRaw(out, m.name, v)
					}
				}
			}
			return append(out, '}')
		},
	})
}
