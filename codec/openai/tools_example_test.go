// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openai_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/tool"
)

func ExampleDecodeTools() {
	tools, err := openai.DecodeTools([]byte(`{"type":"function","function":{
		"name":"get_weather","description":"Weather for a city.",
		"parameters":{"type":"object","properties":{"city":{"type":"string"}}},
		"strict":true}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d := tools.Defs[0]
	fmt.Println(d.Name, tools.Single)
	fmt.Println(string(d.InputSchema))
	fmt.Println(string(d.Extensions.Get(tool.ExtOpenAIStrict)))
	// Output:
	// get_weather true
	// {"type":"object","properties":{"city":{"type":"string"}}}
	// true
}

func ExampleEncodeTools() {
	tools, _ := openai.DecodeTools([]byte(`[{"name":"now","description":"Current <time>."}]`))
	tools.Defs[0].Title = "Clock"
	out, warnings, err := openai.EncodeTools(tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// [{"type":"function","function":{"name":"now","description":"Current <time>."}}]
	// /0: dropped-field: OpenAI Chat Completions cannot carry the title of tool "now"
}

func ExampleDecodeResponse() {
	r, err := openai.DecodeResponse([]byte(`{"choices":[{"message":{"role":"assistant",
		"content":"Checking.","tool_calls":[{"id":"call_1","type":"function",
		"function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
		"finish_reason":"stop"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Calls[0]
	fmt.Println(r.Stop, c.ID, c.Name, string(c.Arguments))

	_, err = openai.DecodeResponse([]byte(`{"choices":[{"message":{"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"f","arguments":"[1]"}}]}}]}`))
	fmt.Println(err)
	// Output:
	// tool_calls call_1 get_weather {"city":"Paris"}
	// openai: /choices/0/message/tool_calls/0/function/arguments: tool call arguments are not a JSON object: got a JSON array
}

func ExampleEncodeResults() {
	out, _, _ := openai.EncodeResults([]tool.Result{tool.TextResult("call_1", "18°C, cloudy")})
	fmt.Println(string(out))
	// Output:
	// [{"role":"tool","tool_call_id":"call_1","content":"18°C, cloudy"}]
}

func ExampleDecodeChoice() {
	c, _ := openai.DecodeChoice([]byte(`{"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false}`))
	fmt.Printf("%+v\n", c)
	// Output:
	// {Mode:tool Name:get_weather DisableParallel:true}
}
