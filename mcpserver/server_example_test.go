// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/mcpserver"
)

func Example() {
	ctx := context.Background()
	type in struct {
		Name string `json:"name"`
	}
	greet, err := kernel.Func("greet", "Say hello", func(_ context.Context, in in) (string, error) {
		return "hello, " + in.Name, nil
	})
	if err != nil {
		panic(err)
	}
	greet.Safety = kernel.SafetyRead
	k, err := kernel.New(nil)
	if err != nil {
		panic(err)
	}
	if err := k.Registry().Add(greet); err != nil {
		panic(err)
	}
	srv, err := mcpserver.New(&mcpserver.Config{Kernel: k})
	if err != nil {
		panic(err)
	}

	// Connect a client in memory; it runs as the local principal.
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output: false hello, Ada
}
