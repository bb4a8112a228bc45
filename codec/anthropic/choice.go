// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// DecodeChoice reads an Anthropic tool_choice ({"type":"auto"|"any"|"tool"|
// "none", "name", "disable_parallel_tool_use"}) or a request body holding
// one. "any" is [tool.ChoiceRequired].
func DecodeChoice(data []byte) (tool.Choice, error) {
	v, err := decodeChoice(data)
	return v, wire.Fail(codec.Anthropic, data, err)
}

// decodeChoice is [DecodeChoice] with its error not yet a *codec.Error.
func decodeChoice(data []byte) (tool.Choice, error) {
	if err := wire.Check(data); err != nil {
		return tool.Choice{}, err
	}
	ptr := ""
	if wire.IsKind(data, strictjson.Object) && !wire.Has(data, "type") {
		data, ptr = strictjson.Get(data, "tool_choice"), "/tool_choice"
		if data == nil {
			return tool.Choice{}, wire.ShapeErr("", "want a tool_choice or a request holding one")
		}
	}
	if err := wire.Kind(data, strictjson.Object, ptr); err != nil {
		return tool.Choice{}, err
	}
	var c tool.Choice
	var typ string
	named := false
	err := strictjson.Members(data, func(k, v []byte) error {
		p := wire.Member(ptr, string(k))
		var err error
		switch string(k) {
		case "type":
			typ, err = wire.Str(v, p)
		case "name":
			c.Name, err = wire.Str(v, p)
			named = true
		case "disable_parallel_tool_use":
			c.DisableParallel, err = wire.Bool(v, p)
		default:
			err = wire.ShapeErr(p, "unknown member of a tool_choice")
		}
		return err
	})
	if err != nil {
		return tool.Choice{}, err
	}
	switch typ {
	case "auto":
		c.Mode = tool.ChoiceAuto
	case "any":
		c.Mode = tool.ChoiceRequired
	case "none":
		c.Mode = tool.ChoiceNone
	case "tool":
		c.Mode = tool.ChoiceTool
		if c.Name == "" {
			return tool.Choice{}, wire.Errf(tool.ErrInvalidChoice, ptr, "type tool without a name")
		}
		return c, nil
	default:
		return tool.Choice{}, wire.Errf(tool.ErrInvalidChoice, ptr+"/type", "unknown type")
	}
	if named {
		return tool.Choice{}, wire.ShapeErr(ptr+"/name", "a name is only allowed with type tool")
	}
	return c, nil
}

// EncodeChoice writes c as an Anthropic tool_choice. The zero mode is auto;
// [tool.ChoiceRequired] is "any". DisableParallel is written as
// "disable_parallel_tool_use": true, except with "none", which has no such
// member.
func EncodeChoice(c tool.Choice) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeChoice(c)
	if err != nil {
		return nil, nil, wire.Fail(codec.Anthropic, nil, err)
	}
	return v, ws, nil
}

// encodeChoice is [EncodeChoice] with its error not yet a *codec.Error.
func encodeChoice(c tool.Choice) ([]byte, []tool.Warning, error) {
	out := []byte(`{"type":`)
	switch c.Mode {
	case "", tool.ChoiceAuto:
		out = append(out, `"auto"`...)
	case tool.ChoiceRequired:
		out = append(out, `"any"`...)
	case tool.ChoiceNone:
		var ws []tool.Warning
		if c.DisableParallel {
			ws = []tool.Warning{{Pointer: "/disable_parallel", Code: "dropped-field",
				Message: "tool_choice none has no disable_parallel_tool_use member; it was left out"}}
		}
		return append(out, `"none"}`...), ws, nil
	case tool.ChoiceTool:
		if c.Name == "" {
			return nil, nil, wire.Errf(tool.ErrInvalidChoice, "", "mode tool without a name")
		}
		out = wire.AppendStr(append(out, `"tool"`...), "name", c.Name)
	default:
		return nil, nil, wire.Errf(tool.ErrInvalidChoice, "", "unknown mode")
	}
	if c.DisableParallel {
		out = append(out, `,"disable_parallel_tool_use":true`...)
	}
	return append(out, '}'), nil, nil
}
