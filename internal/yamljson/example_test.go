// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package yamljson_test

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/yamljson"
)

func ExampleConvert() {
	js, err := yamljson.Convert([]byte("type: integer\nmaximum: 0x1F\nexamples: [9007199254740993]\n"), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(js))
	_, err = yamljson.Convert([]byte("type: integer\ntype: string\n"), nil)
	fmt.Println(err)
	// Output:
	// {"type":"integer","maximum":31,"examples":[9007199254740993]}
	// line 2:1: yaml: duplicate key "type"
}
