// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package jsonschema_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/jsonschema"
)

func ExampleDecodeTools() {
	data := []byte(`{"title":"delete_invoice","description":"Delete an invoice.","type":"object","properties":{"id":{"type":"string"}},"x-capabilities":{"action":"delete","side_effects":true}}`)
	tools, err := jsonschema.DecodeTools(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := tools.Defs[0]
	fmt.Println(d.Name, d.Behavior.Action, *d.Behavior.SideEffects)
	fmt.Println(string(d.InputSchema))
	// Output:
	// delete_invoice delete true
	// {"type":"object","properties":{"id":{"type":"string"}}}
}
