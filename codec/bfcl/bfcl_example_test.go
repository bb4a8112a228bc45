// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/bfcl"
)

func ExampleDecodeTools() {
	line := []byte(`{"id":"simple_0","question":[],"function":[{"name":"geometry.area","description":"Area of a shape.","parameters":{"type":"dict","properties":{"base":{"type":"float"},"unit":{"type":"String","optional":true}},"required":["base","unit"]}}]}`)
	tools, err := bfcl.DecodeTools(line)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(tools.Defs[0].InputSchema))
	for _, w := range tools.Warnings {
		fmt.Println(w.Pointer, w.Code)
	}
	// Output:
	// {"type":"object","properties":{"base":{"type":"number"},"unit":{"type":"string"}},"required":["base"]}
	// /function/0/parameters/type bfcl-type-mapped
	// /function/0/parameters/properties/base/type bfcl-type-mapped
	// /function/0/parameters/properties/unit/type bfcl-type-mapped
	// /function/0/parameters/properties/unit/optional bfcl-optional
}
