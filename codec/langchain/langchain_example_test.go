// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package langchain_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/langchain"
)

func ExampleDecodeTools() {
	dump := []byte(`{"name":"search","description":"Look things up.","args_schema":{"properties":{"query":{"title":"Query","type":"string"}},"required":["query"],"title":"search","type":"object"},"return_direct":true}`)
	tools, err := langchain.DecodeTools(dump)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, warnings, _ := langchain.EncodeTools(tools)
	fmt.Println(string(out))
	for _, w := range warnings {
		fmt.Println(w.Pointer, w.Code)
	}
	// Output:
	// {"type":"function","function":{"name":"search","description":"Look things up.","parameters":{"properties":{"query":{"title":"Query","type":"string"}},"required":["query"],"title":"search","type":"object"}}}
	// /extensions/langchain~1return_direct langchain-dropped
}

func ExampleDecodeResponse() {
	msg := []byte(`{"type":"ai","content":"","tool_calls":[{"name":"multiply","args":{"a":3,"b":12},"id":"call_1","type":"tool_call"}]}`)
	r, err := langchain.DecodeResponse(msg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Stop, r.Calls[0].ID, r.Calls[0].Name, string(r.Calls[0].Arguments))
	// Output: tool_calls call_1 multiply {"a":3,"b":12}
}
