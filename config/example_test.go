// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

func ExampleParse() {
	file := []byte(`
principals:
  - id: rita
    roles: [reader]
sources:
  - name: echo
    command:
      description: Echo a word.
      safety: READ
      input_schema: {type: object, properties: {word: {type: string}}, required: [word]}
      argv: [echo, "{word}"]
`)
	f, err := config.Parse(file, "toolgate.yaml")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	b, err := f.Build(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close(ctx)
	for _, args := range []string{`{"word":"hello"}`, `{"word":7}`} {
		out, err := b.Kernel.Call(ctx, &kernel.Request{Principal: kernel.Principal{ID: "rita"}, Call: tool.Call{Name: "echo", Arguments: json.RawMessage(args)}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", out.Status, out.Result.Text())
	}
	_, err = config.Parse([]byte("policy:\n  rules:\n    - name: r\n      effect: perhaps\n"), "bad.yaml")
	fmt.Println(err)
	// Output:
	// ok: hello
	// invalid_arguments: invalid arguments: at /word: expected string, got number; fix the arguments and call again
	// bad.yaml:4:15: policy.rules[0].effect: rule "r": effect "perhaps" is not allow, deny or require_approval
}
