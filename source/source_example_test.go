// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/source"
	"github.com/toolgate/toolgate/tool"
)

// ExampleNewCommand serves a local command as a tool: the kernel
// validates the arguments before the command runs.
func ExampleNewCommand() {
	src, err := source.NewCommand(&source.CommandConfig{
		Name:        "echo",
		Description: "Echo a word.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`),
		Safety:      kernel.SafetyRead,
		Argv:        []string{"echo", "{word}"},
	})
	if err != nil {
		panic(err)
	}
	defer src.Close()
	k, err := kernel.New(&kernel.Config{Principals: []kernel.Principal{{ID: "rita", Roles: []string{"reader"}}}})
	if err != nil {
		panic(err)
	}
	for _, c := range src.Capabilities() {
		if err := k.Registry().Add(c); err != nil {
			panic(err)
		}
	}
	ctx := context.Background()
	for _, args := range []string{`{"word":"hello"}`, `{"word":7}`} {
		out, err := k.Call(ctx, &kernel.Request{Principal: kernel.Principal{ID: "rita"}, Call: tool.Call{Name: "echo", Arguments: json.RawMessage(args)}})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s\n", out.Status, out.Result.Text())
	}
	// Output:
	// ok: hello
	// invalid_arguments: invalid arguments: at /word: expected string, got number; fix the arguments and call again
}
