// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package canonical_test

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/canonical"
)

func ExampleDecodeTools() {
	data := []byte(`{"name":"get_weather","input_schema":{"type":"object"},"capability":{"action":"read","domain":"web"}}`)
	tools, err := canonical.DecodeTools(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tools.Defs[0].Behavior.Action, tools.Single)
	out, _, _ := canonical.EncodeTools(tools)
	fmt.Println(string(out))
	_, err = canonical.DecodeTools([]byte(`{"name":"x","Capability":{}}`))
	fmt.Println(err)
	// Output:
	// read true
	// {"name":"get_weather","input_schema":{"type":"object"},"capability":{"action":"read","domain":"web"}}
	// canonical: /Capability: unknown shape: unknown member
}
