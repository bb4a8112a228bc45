// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcp_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/tool"
)

func ExampleDecodeTools() {
	data := []byte(`{"tools":[{"name":"get_weather","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"v":1}}]}`)
	tools, err := mcp.DecodeTools(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := tools.Defs[0]
	fmt.Println(d.Name, *d.Annotations.ReadOnlyHint, string(d.Extensions[tool.ExtMCPMeta]))
	out, _, _ := mcp.EncodeTools(tools)
	fmt.Println(string(out))
	// Output:
	// get_weather true {"v":1}
	// [{"name":"get_weather","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"v":1}}]
}

func ExampleDecodeResult() {
	r, err := mcp.DecodeResult([]byte(`{"content":[{"type":"text","text":"22°C"}],"structuredContent":{"celsius":22}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Text(), string(r.StructuredContent))
	// Output: 22°C {"celsius":22}
}

func ExampleEncodeCall() {
	out, _, _ := mcp.EncodeCall(&tool.Call{ID: "c1", Name: "get_weather", Arguments: []byte(`{"city":"Oslo"}`)})
	fmt.Println(string(out))
	// Output: {"name":"get_weather","arguments":{"city":"Oslo"}}
}
