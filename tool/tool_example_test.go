// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/tool"
)

func ExampleInferBehavior() {
	d := tool.Definition{Name: "billing.list_invoices", Description: "Lists a customer's invoices."}
	c := tool.InferBehavior(&d)
	fmt.Println(c.Action, c.Domain, *c.SideEffects)
	// Output: read finance false
}

func ExampleResult_MarshalJSON() {
	r := tool.Result{CallID: "call_1", Content: []tool.Content{&tool.Text{Text: "42 °C"}}}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	// Output: {"call_id":"call_1","content":[{"type":"text","text":"42 °C"}]}
}

func ExampleParseChoice() {
	c, _ := tool.ParseChoice("get_weather")
	fmt.Println(c.Mode, c.Name)
	// Output: tool get_weather
}
