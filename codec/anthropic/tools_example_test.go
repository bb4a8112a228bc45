// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/tool"
)

func ExampleDecodeTools() {
	tools, err := anthropic.DecodeTools([]byte(`{"name":"get_weather","description":"Weather for a city.",
		"input_schema":{"type":"object","properties":{"city":{"type":"string"}}},
		"cache_control":{"type":"ephemeral"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d := tools.Defs[0]
	fmt.Println(d.Name, string(d.InputSchema))
	fmt.Println(string(d.Extensions.Get(tool.ExtAnthropicCacheControl)))
	// Output:
	// get_weather {"type":"object","properties":{"city":{"type":"string"}}}
	// {"type":"ephemeral"}
}

func ExampleEncodeTools() {
	tools := &codec.Tools{Defs: []tool.Definition{{
		Name:         "now",
		Description:  "Current time.",
		OutputSchema: json.RawMessage(`{"type":"string"}`),
	}}}
	out, warnings, err := anthropic.EncodeTools(tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// [{"name":"now","description":"Current time.","input_schema":{"type":"object","properties":{}}}]
	// /0: dropped-field: Anthropic Messages cannot carry the output_schema of tool "now"
}

func ExampleDecodeResponse() {
	r, err := anthropic.DecodeResponse([]byte(`{"type":"message","role":"assistant","content":[
		{"type":"thinking","thinking":"Need the weather.","signature":"EqQB"},
		{"type":"text","text":"Checking."},
		{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],
		"stop_reason":"tool_use"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Calls[0]
	fmt.Println(r.Stop, c.ID, c.Name, string(c.Arguments))
	fmt.Println(r.Reasoning)
	fmt.Println(string(c.Extensions.Get(tool.ExtAnthropicThinking)))
	// Output:
	// tool_calls toolu_1 get_weather {"city":"Paris"}
	// Need the weather.
	// [{"type":"thinking","thinking":"Need the weather.","signature":"EqQB"}]
}

func ExampleEncodeResults() {
	out, _, _ := anthropic.EncodeResults([]tool.Result{tool.ErrorResult("toolu_1", "city not found")})
	fmt.Println(string(out))
	// Output:
	// {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"city not found","is_error":true}]}
}

func ExampleEncodeChoice() {
	out, _, _ := anthropic.EncodeChoice(tool.Choice{Mode: tool.ChoiceRequired, DisableParallel: true})
	fmt.Println(string(out))
	// Output:
	// {"type":"any","disable_parallel_tool_use":true}
}
