// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/gemini"
	"github.com/toolgate/toolgate/tool"
)

func ExampleDecodeTools() {
	data := []byte(`{"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","properties":{"unit":{"type":"STRING","nullable":true}}}}]}]}`)
	tools, err := gemini.DecodeTools(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(tools.Defs[0].InputSchema))
	out, _, _ := gemini.EncodeToolsJSONSchema(tools)
	fmt.Println(string(out))
	// Output:
	// {"type":"object","properties":{"unit":{"type":["string","null"]}}}
	// [{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"type":"object","properties":{"unit":{"type":["string","null"]}}}}]}]
}

func ExampleDecodeResponse() {
	data := []byte(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CiQB"}]},"finishReason":"STOP"}]}`)
	r, err := gemini.DecodeResponse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Calls[0]
	fmt.Println(r.Stop, c.Name, string(c.Arguments), string(c.Extensions[tool.ExtGeminiThoughtSignature]))
	// Output: tool_calls get_weather {"city":"Paris"} "CiQB"
}

func ExampleEncodeResults() {
	out, _, _ := gemini.EncodeResults([]tool.Result{{Name: "get_weather", Content: []tool.Content{&tool.Text{Text: "22°C"}}}})
	fmt.Println(string(out))
	// Output: {"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"22°C"}}}]}
}
