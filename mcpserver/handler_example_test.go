// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/mcpserver"
	"github.com/toolgate/toolgate/server"
)

// The MCP endpoint behind the server's authentication and listener
// limits, as toolgate serve mounts it: a bearer token names the
// principal, and the handler never sees it.
func ExampleServer_Handler() {
	ctx, stop := context.WithCancel(context.Background())
	k, err := kernel.New(nil)
	if err != nil {
		panic(err)
	}
	srv, err := mcpserver.New(&mcpserver.Config{Kernel: k, MaxSessions: 100, MaxSessionsPerPrincipal: 10})
	if err != nil {
		panic(err)
	}
	auth, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"s3cret": {ID: "alice"}}})
	if err != nil {
		panic(err)
	}
	edge, err := server.New(&server.Config{Addr: "127.0.0.1:0", Auth: auth,
		Routes:     []server.Route{{Pattern: "/mcp", Handler: srv.Handler(), RouteAuth: server.RouteAuth{Accept: server.Bearer}}},
		OnShutdown: []func(context.Context){srv.ShutdownHTTP}})
	if err != nil {
		panic(err)
	}
	addr, err := edge.Listen()
	if err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() { done <- edge.Run(ctx) }()

	hc := &http.Client{Transport: bearer("s3cret")}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr.String() + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("connected:", cs.InitializeResult().ServerInfo.Name)
	cs.Close()
	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// connected: toolgate
	// stopped: <nil>
}

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
