// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/tool"
)

func ExampleDecodeTools() {
	tools, err := responses.DecodeTools([]byte(`{"type":"function","name":"get_weather",
		"parameters":{"type":"object","properties":{"city":{"type":"string"}}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d := tools.Defs[0]
	fmt.Println(d.Name, "strict:", d.Extensions.Get(tool.ExtOpenAIStrict) != nil)
	out, _, _ := responses.EncodeTools(tools)
	fmt.Println(string(out))
	// Output:
	// get_weather strict: false
	// {"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}
}

func ExampleDecodeResponse() {
	r, err := responses.DecodeResponse([]byte(`{"object":"response","status":"completed","output":[
		{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Need the weather."}]},
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Calls[0]
	fmt.Println(r.Stop, c.ID, string(c.Extensions.Get(tool.ExtResponsesItemID)), c.Name, string(c.Arguments))
	fmt.Println(r.Reasoning)
	fmt.Println(string(c.Extensions.Get(responses.ExtReasoning)))
	// Output:
	// tool_calls call_1 "fc_1" get_weather {"city":"Paris"}
	// Need the weather.
	// [{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Need the weather."}]}]
}

func ExampleEncodeResults() {
	out, _, _ := responses.EncodeResults([]tool.Result{tool.TextResult("call_1", "18°C")})
	fmt.Println(string(out))
	// Output:
	// [{"type":"function_call_output","call_id":"call_1","output":"18°C"}]
}
