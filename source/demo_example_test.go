// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source_test

import (
	"context"
	"fmt"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/source"
	"github.com/toolgate/toolgate/tool"
)

// ExampleNewDemo registers the demo tracker's tools and reads a task
// through the kernel, as an anonymous reader would.
func ExampleNewDemo() {
	ctx := context.Background()
	src, err := source.NewDemo(ctx)
	if err != nil {
		panic(err)
	}
	k, err := kernel.New(nil)
	if err != nil {
		panic(err)
	}
	for _, c := range src.Capabilities() {
		if err := k.Registry().Add(c); err != nil {
			panic(err)
		}
		fmt.Println(c.Definition.Name, c.Safety)
	}
	out, err := k.Call(ctx, &kernel.Request{
		Principal: kernel.Principal{ID: "anonymous", Roles: []string{"reader"}},
		Call:      tool.Call{Name: "getTask", Arguments: []byte(`{"taskId":2}`)},
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(out.Status, " ", out.Result.Text())
	// Output:
	// listTasks READ
	// createTask WRITE
	// getTask READ
	// updateTask WRITE
	// deleteTask DESTRUCTIVE
	// ok {"id":2,"title":"Rotate the staging API keys","status":"todo"}
}
