// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// formatName names the format in warnings.
const formatName = "OpenAI Responses"

// DecodeTools reads OpenAI Responses tool definitions: flat function tools
// ({"type":"function","name","description","parameters","strict"}).
//
// It accepts one tool, which sets [codec.Tools.Single]; a JSON array of
// tools; and an object holding "tools", such as a whole request body.
// Built-in tools (web_search, file_search, mcp, custom…) are skipped with a
// warning. "strict" is kept as [tool.ExtOpenAIStrict] when present; an
// absent "strict" (strict mode where the schema allows it) is recorded as
// [ExtStrictOmitted], so that EncodeTools leaves it out too. "output_schema"
// is the definition's output schema; "defer_loading" and
// "allowed_callers" are kept as [ExtDeferLoading] and [ExtAllowedCallers].
// Other unknown members of a function tool are errors, as they are for
// the API.
//
// The definitions share no memory with data.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.OpenAIResponses, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	d := &decoder{}
	if err := d.Check(data); err != nil {
		return nil, err
	}
	d.Init(bytes.Clone(data))
	return d.Tools("input", d.tool)
}

// decoder reads the definitions of one checked document.
type decoder struct{ wire.Decoder }

// tool reads one tool. Pointers are built only for errors.
func (d *decoder) tool(i int, loc wire.Loc) (int, error) {
	if !wire.IsKind(d.Data[i:], strictjson.Object) {
		return 0, wire.Kind(d.Data[i:], strictjson.Object, loc.String())
	}
	var def tool.Definition
	var typ string
	named := false
	var unknown error // reported unless this is a built-in tool with its own members
	end, err := strictjson.WalkObject(d.Data, i, func(k []byte, vs int) (int, error) {
		val, end := d.Value(vs)
		var err error
		switch string(k) {
		case "type":
			if typ, err = strictjson.Unquote(val); err != nil || !wire.IsKind(val, strictjson.String) {
				_, err = wire.Str(val, loc.String()+"/type")
			}
		case "name":
			if def.Name, err = strictjson.Unquote(val); err != nil || !wire.IsKind(val, strictjson.String) {
				_, err = wire.Str(val, loc.String()+"/name")
			}
			named = true
		case "description":
			switch strictjson.KindOf(val) {
			case strictjson.String:
				def.Description, err = strictjson.Unquote(val)
				if err == nil && def.Description == "" {
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
		case "output_schema":
			switch strictjson.KindOf(val) {
			case strictjson.Object:
				def.OutputSchema = val
			case strictjson.Null:
			default:
				err = wire.SchemaObject(val, loc.String()+"/output_schema")
			}
		case "defer_loading":
			if _, err = wire.Bool(val, loc.String()+"/defer_loading"); err == nil {
				def.Extensions = def.Extensions.Set(ExtDeferLoading, val)
			}
		case "allowed_callers":
			if err = wire.Kind(val, strictjson.Array, loc.String()+"/allowed_callers"); err == nil {
				def.Extensions = def.Extensions.Set(ExtAllowedCallers, val)
			}
		default:
			if unknown == nil {
				unknown = wire.ShapeErr(wire.Member(loc.String(), string(k)), "unknown member of a Responses function tool")
			}
		}
		return end, err
	})
	if err != nil {
		return 0, err
	}
	switch {
	case typ == "":
		return 0, wire.ShapeErr(loc.String(), "a tool without \"type\"")
	case typ != "function" && !builtin(typ):
		return 0, wire.ShapeErr(loc.String()+"/type", "tool type is not a Responses tool")
	case typ != "function":
		d.Warnings = append(d.Warnings, tool.Warning{Pointer: loc.String(), Code: "unsupported-tool",
			Message: "responses: skipped a tool of type " + strconv.Quote(typ) + ": only function tools have a canonical form"})
		return end, nil
	case unknown != nil:
		return 0, unknown
	case !named:
		return 0, defErr(loc.String(), "a function tool without a name")
	}
	if def.Extensions.Get(tool.ExtOpenAIStrict) == nil {
		// Left out, "strict" means strict mode where the schema allows
		// it: a round trip must leave it out again, not write false.
		def.Extensions = def.Extensions.Set(ExtStrictOmitted, json.RawMessage("true"))
	}
	d.Defs = append(d.Defs, def)
	d.Locs = append(d.Locs, loc)
	return end, nil
}

// builtin reports whether typ is one of the Responses API's other tool
// types, which are skipped with a warning rather than refused.
func builtin(typ string) bool {
	switch typ {
	case "file_search", "computer_use_preview", "computer_use", "mcp", "code_interpreter",
		"image_generation", "local_shell", "shell", "apply_patch", "custom":
		return true
	}
	return strings.HasPrefix(typ, "web_search")
}

// The extension keys of the Responses function tool members that have no
// canonical field, written back by [EncodeTools] and reported as dropped
// by the encoders of formats without them.
const (
	// ExtDeferLoading holds "defer_loading": the tool is loaded only when
	// tool search finds it.
	ExtDeferLoading = "openai-responses/defer_loading"
	// ExtStrictOmitted (value true) marks a function tool read without
	// "strict", which [EncodeTools] then leaves out too. It is a
	// spelling extension ([tool.SpellingPrefix]): other formats drop it
	// silently.
	ExtStrictOmitted = tool.SpellingPrefix + "openai-responses/strict_omitted"
	// ExtAllowedCallers holds "allowed_callers", the array naming who may
	// call the tool (the model, or code a hosted tool runs).
	ExtAllowedCallers = "openai-responses/allowed_callers"
)

// owned reports the extension keys EncodeTools writes back.
func owned(k string) bool {
	return k == tool.ExtOpenAIStrict || k == ExtDeferLoading || k == ExtAllowedCallers
}

// EncodeTools writes t as OpenAI Responses function tools: one tool when
// t.Single holds one definition, a JSON array otherwise. Keys are written
// in a fixed order and schemas as the bytes given, so output is
// byte-stable. "parameters" and "strict" are always written, as the API
// requires: a missing schema is null and a missing strict flag false
// (Responses would otherwise default to strict mode, which the schema was
// not lowered for), unless the definition was read from a Responses tool
// that left "strict" out ([ExtStrictOmitted]): that is left out again. Fields the format cannot carry are reported as
// warnings with the pointer of the tool in the output.
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t)
	if err != nil {
		return nil, nil, wire.Fail(codec.OpenAIResponses, nil, err)
	}
	return v, ws, nil
}

// encodeTools is [EncodeTools] with its error not yet a *codec.Error.
func encodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	return wire.EncodeTools(t, wire.ToolWriter{
		Format: formatName, Owned: owned, Size: 80, OutputSchema: true,
		Check: wire.CheckStrict,
		Write: func(out []byte, def *tool.Definition) []byte {
			out = append(out, `{"type":"function"`...)
			out = wire.AppendStr(out, "name", def.Name)
			if def.HasDescription() {
				out = wire.AppendStr(out, "description", def.Description)
			}
			if len(def.InputSchema) > 0 {
				out = wire.AppendRaw(out, "parameters", def.InputSchema)
			} else {
				out = wire.AppendRaw(out, "parameters", []byte("null"))
			}
			if s := def.Extensions.Get(tool.ExtOpenAIStrict); s != nil {
				out = wire.AppendRaw(out, "strict", s)
			} else if def.Extensions.Get(ExtStrictOmitted) == nil {
				out = wire.AppendRaw(out, "strict", []byte("false"))
			}
			if len(def.OutputSchema) > 0 {
				out = wire.AppendRaw(out, "output_schema", def.OutputSchema)
			}
			if v := def.Extensions.Get(ExtDeferLoading); v != nil {
				out = wire.AppendRaw(out, "defer_loading", v)
			}
			if v := def.Extensions.Get(ExtAllowedCallers); v != nil {
				out = wire.AppendRaw(out, "allowed_callers", v)
			}
			return append(out, '}')
		},
	})
}
