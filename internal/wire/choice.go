// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// RequestChoice reads the choice of the request body data of an OpenAI
// API: v, found at ptr, is its tool_choice (nil when absent), read with
// choice; "parallel_tool_calls": false sets [tool.Choice.DisableParallel].
// A request with neither is not a choice.
func RequestChoice(data, v []byte, ptr string, choice func(v []byte, ptr string) (tool.Choice, error)) (tool.Choice, error) {
	par := strictjson.Get(data, "parallel_tool_calls")
	if v == nil && par == nil {
		return tool.Choice{}, ShapeErr("", "want a tool_choice or a request holding one")
	}
	c := tool.Choice{Mode: tool.ChoiceAuto}
	if v != nil {
		var err error
		if c, err = choice(v, ptr); err != nil {
			return c, err
		}
	}
	if par != nil && !IsKind(par, strictjson.Null) {
		p, err := Bool(par, "/parallel_tool_calls")
		if err != nil {
			return c, err
		}
		c.DisableParallel = !p
	}
	return c, nil
}
