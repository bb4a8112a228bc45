// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// DecodeChoice reads Gemini's tool choice: a request's "toolConfig", a
// toolConfig object ({"functionCallingConfig": {…}}) or a
// functionCallingConfig object ({"mode", "allowedFunctionNames"}), in
// camelCase or snake_case. AUTO (and MODE_UNSPECIFIED) is auto, NONE is
// none, ANY is required, and ANY with one allowed function name is that
// tool. ANY with several names and VALIDATED have no canonical form and
// are errors wrapping [tool.ErrInvalidChoice].
func DecodeChoice(data []byte) (tool.Choice, error) {
	v, err := decodeChoice(data)
	return v, wire.Fail(codec.Gemini, data, err)
}

// decodeChoice is [DecodeChoice] with its error not yet a *codec.Error.
func decodeChoice(data []byte) (tool.Choice, error) {
	if err := wire.Check(data); err != nil {
		return tool.Choice{}, err
	}
	v, ptr := data, ""
	if err := wire.Kind(v, strictjson.Object, ptr); err != nil {
		return tool.Choice{}, err
	}
	for _, k := range []string{"toolConfig", "tool_config"} {
		if tc := strictjson.Get(v, k); tc != nil {
			v, ptr = tc, wire.Member(ptr, k)
			if err := wire.Kind(v, strictjson.Object, ptr); err != nil {
				return tool.Choice{}, err
			}
			break
		}
	}
	found := ptr != ""
	for _, k := range []string{"functionCallingConfig", "function_calling_config"} {
		if fc := strictjson.Get(v, k); fc != nil {
			v, ptr, found = fc, wire.Member(ptr, k), true
			break
		}
	}
	if !found && !wire.Has(v, "mode") && !wire.Has(v, "allowedFunctionNames") && !wire.Has(v, "allowed_function_names") && wire.Has(v, "contents") {
		return tool.Choice{}, wire.ShapeErr(ptr, "a request without toolConfig holds no tool choice")
	}
	if err := wire.OnlyKeys(v, ptr, "mode", "allowedFunctionNames", "allowed_function_names"); err != nil {
		return tool.Choice{}, err
	}
	mode := "AUTO"
	if m := strictjson.Get(v, "mode"); m != nil {
		var err error
		if mode, err = wire.Str(m, wire.Member(ptr, "mode")); err != nil {
			return tool.Choice{}, err
		}
	}
	var names []string
	for _, k := range []string{"allowedFunctionNames", "allowed_function_names"} {
		a := strictjson.Get(v, k)
		if a == nil {
			continue
		}
		p := wire.Member(ptr, k)
		if err := wire.Kind(a, strictjson.Array, p); err != nil {
			return tool.Choice{}, err
		}
		err := strictjson.Elements(a, func(i int, el []byte) error {
			n, err := wire.Str(el, wire.Index(p, i))
			names = append(names, n)
			return err
		})
		if err != nil {
			return tool.Choice{}, err
		}
	}
	switch mode {
	case "AUTO", "MODE_UNSPECIFIED":
		return tool.Choice{Mode: tool.ChoiceAuto}, nil
	case "NONE":
		return tool.Choice{Mode: tool.ChoiceNone}, nil
	case "ANY":
		switch len(names) {
		case 0:
			return tool.Choice{Mode: tool.ChoiceRequired}, nil
		case 1:
			if names[0] == "" {
				return tool.Choice{}, wire.Errf(tool.ErrInvalidChoice, ptr, "empty function name")
			}
			return tool.Choice{Mode: tool.ChoiceTool, Name: names[0]}, nil
		}
		return tool.Choice{}, wire.Errf(tool.ErrInvalidChoice, ptr, "several allowed function names have no canonical form")
	}
	return tool.Choice{}, wire.Errf(tool.ErrInvalidChoice, wire.Member(ptr, "mode"), "mode has no canonical form")
}

// EncodeChoice writes c as a Gemini toolConfig object, the value of a
// request's "toolConfig": {"functionCallingConfig": {"mode": …}}, with
// [tool.ChoiceTool] as mode ANY and the one allowed function name.
// Gemini has no switch for parallel calls, so DisableParallel is left out
// with a warning.
func EncodeChoice(c tool.Choice) ([]byte, []tool.Warning, error) {
	var ws []tool.Warning
	if c.DisableParallel {
		ws = append(ws, tool.Warning{Pointer: "/disable_parallel", Code: "gemini-dropped",
			Message: "Gemini has no switch for parallel function calls; it was left out"})
	}
	out := []byte(`{"functionCallingConfig":{"mode":`)
	switch c.Mode {
	case "", tool.ChoiceAuto:
		out = append(out, `"AUTO"`...)
	case tool.ChoiceNone:
		out = append(out, `"NONE"`...)
	case tool.ChoiceRequired:
		out = append(out, `"ANY"`...)
	case tool.ChoiceTool:
		if c.Name == "" {
			return nil, nil, wire.Fail(codec.Gemini, nil, wire.Errf(tool.ErrInvalidChoice, "/name", "mode tool without a name"))
		}
		out = append(out, `"ANY","allowedFunctionNames":[`...)
		out = append(strictjson.AppendQuote(out, c.Name), ']')
	default:
		return nil, nil, wire.Fail(codec.Gemini, nil, wire.Errf(tool.ErrInvalidChoice, "/mode", "unknown mode"))
	}
	return append(out, "}}"...), ws, nil
}
