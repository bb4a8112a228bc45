// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/mcpserver"
)

// ExampleFile_Build builds in Go what `toolgate serve` builds from a file
// with the demo source, serves it over streamable HTTP and lists its tools
// as an MCP client sees them.
func ExampleFile_Build() {
	f := &config.File{
		Principals: []config.Principal{{ID: "anonymous", Roles: []string{"reader", "writer"}}},
		Auth:       config.Auth{Anonymous: "anonymous"},
		Policy:     config.Policy{MinJustification: 15},
		Limits:     config.Limits{Read: 60, Write: 10, Destructive: 2, Window: time.Minute},
		Sources:    []config.Source{{Name: "tasks", Demo: &config.Demo{}}},
	}
	ctx := context.Background()
	b, err := f.Build(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close(ctx)
	srv, err := mcpserver.New(b.MCP)
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(t.Name, t.Annotations.ReadOnlyHint)
	}
	// Output:
	// createTask false
	// deleteTask false
	// getTask true
	// listTasks true
	// updateTask false
}
