// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openai

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// DecodeChoice reads a Chat Completions tool_choice: "auto", "none",
// "required" or {"type":"function","function":{"name"}}; the legacy
// function_call values ("auto", "none", {"name"}); or a request body
// holding either, whose "parallel_tool_calls": false sets
// [tool.Choice.DisableParallel].
func DecodeChoice(data []byte) (tool.Choice, error) {
	v, err := decodeChoice(data)
	return v, wire.Fail(codec.OpenAI, data, err)
}

// decodeChoice is [DecodeChoice] with its error not yet a *codec.Error.
func decodeChoice(data []byte) (tool.Choice, error) {
	if err := wire.Check(data); err != nil {
		return tool.Choice{}, err
	}
	if wire.IsKind(data, strictjson.Object) && !wire.Has(data, "type") && !wire.Has(data, "name") {
		v, ptr := strictjson.Get(data, "tool_choice"), "/tool_choice"
		if v == nil {
			v, ptr = strictjson.Get(data, "function_call"), "/function_call"
		}
		return wire.RequestChoice(data, v, ptr, choice)
	}
	return choice(data, "")
}

func choice(v []byte, ptr string) (tool.Choice, error) {
	switch strictjson.KindOf(v) {
	case strictjson.String:
		s, err := wire.Str(v, ptr)
		if err != nil {
			return tool.Choice{}, err
		}
		switch s {
		case "auto", "none", "required":
			return tool.Choice{Mode: tool.ChoiceMode(s)}, nil
		}
		return tool.Choice{}, wire.Errf(tool.ErrInvalidChoice, ptr, "unknown mode")
	case strictjson.Object:
		if typ := wire.Tagged(v); typ != "" {
			if typ != "function" {
				return tool.Choice{}, wire.ShapeErr(ptr+"/type", "tool_choice of this type has no canonical form")
			}
			fn := strictjson.Get(v, "function")
			if fn == nil {
				return tool.Choice{}, wire.ShapeErr(ptr, "a function tool_choice without \"function\"")
			}
			v, ptr = fn, ptr+"/function"
		}
		name, err := wire.Str(strictjson.Get(v, "name"), ptr+"/name")
		if err != nil {
			return tool.Choice{}, err
		}
		if name == "" {
			return tool.Choice{}, wire.Errf(tool.ErrInvalidChoice, ptr+"/name", "empty tool name")
		}
		return tool.Choice{Mode: tool.ChoiceTool, Name: name}, nil
	}
	return tool.Choice{}, wire.ShapeErr(ptr, "want a string or an object, got %s", strictjson.KindOf(v))
}

// EncodeChoice writes c as a Chat Completions tool_choice value. The zero
// mode is "auto". [tool.Choice.DisableParallel] is not part of tool_choice
// in this API: the caller writes "parallel_tool_calls": false beside it.
func EncodeChoice(c tool.Choice) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeChoice(c)
	if err != nil {
		return nil, nil, wire.Fail(codec.OpenAI, nil, err)
	}
	return v, ws, nil
}

// encodeChoice is [EncodeChoice] with its error not yet a *codec.Error.
func encodeChoice(c tool.Choice) ([]byte, []tool.Warning, error) {
	ws := parallelWarning(c)
	switch c.Mode {
	case "", tool.ChoiceAuto:
		return []byte(`"auto"`), ws, nil
	case tool.ChoiceNone, tool.ChoiceRequired:
		return strictjson.AppendQuote(nil, string(c.Mode)), ws, nil
	case tool.ChoiceTool:
		if c.Name == "" {
			return nil, nil, wire.Errf(tool.ErrInvalidChoice, "", "mode tool without a name")
		}
		out := append([]byte(nil), `{"type":"function","function":{`...)
		out = wire.AppendStr(out, "name", c.Name)
		return append(out, "}}"...), ws, nil
	}
	return nil, nil, wire.Errf(tool.ErrInvalidChoice, "", "unknown mode")
}

// parallelWarning reports that DisableParallel is not part of tool_choice.
func parallelWarning(c tool.Choice) []tool.Warning {
	if !c.DisableParallel {
		return nil
	}
	return []tool.Warning{{Pointer: "/disable_parallel", Code: "dropped-field",
		Message: "tool_choice has no place for disabling parallel calls: write \"parallel_tool_calls\": false beside it"}}
}
