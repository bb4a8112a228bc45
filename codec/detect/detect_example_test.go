// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/detect"
)

func ExampleDetect() {
	r := detect.Detect([]byte(`{"tools":[{"name":"get_weather","inputSchema":{"type":"object"}}]}`))
	fmt.Printf("%s %.2f ambiguous=%v\n", r.Format, r.Confidence, r.Ambiguous)
	fmt.Println(r.Evidence[0])

	r = detect.Detect([]byte(`{"name":"get_weather","parameters":{"type":"object"}}`))
	fmt.Printf("%s ambiguous=%v\n", r.Format, r.Ambiguous)
	// Output:
	// mcp 1.00 ambiguous=false
	// /tools/0/inputSchema: inputSchema (mcp)
	// openai ambiguous=true
}

func ExampleDecode() {
	tools, err := detect.Decode(codec.Gemini, []byte(`{"name":"a","parameters":{"type":"OBJECT"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _, _ := detect.Encode(codec.MCP, tools)
	fmt.Println(string(out))
	// Output: {"name":"a","inputSchema":{"type":"object"}}
}

func ExampleDecodeAny() {
	// Valid OpenAI (legacy), LangChain, Gemini and BFCL alike, and read the
	// same by all four: the choice does not matter.
	tools, r, err := detect.DecodeAny([]byte(`{"name":"get_time","description":"Current time.","parameters":{"type":"object","properties":{}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tools.Defs[0].Name, r.Format, r.Ambiguous)
	// Output: get_time openai true
}
