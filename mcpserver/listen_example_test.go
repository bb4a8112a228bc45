// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/mcpserver"
)

// An HTTP server for the MCP endpoint with the listener limits toolgate
// serve uses: a connection cap, a read timeout and an idle timeout.
func ExampleNewHTTPServer() {
	k, err := kernel.New(nil)
	if err != nil {
		panic(err)
	}
	anon := kernel.Principal{ID: "anonymous"}
	srv, err := mcpserver.New(&mcpserver.Config{Kernel: k, Anonymous: &anon, MaxSessions: 100, MaxSessionsPerPrincipal: 10})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	hs := mcpserver.NewHTTPServer(srv.Mux("/mcp", nil, nil), &mcpserver.HTTPLimits{
		ReadTimeout:       30 * time.Second,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	})
	go hs.Serve(mcpserver.LimitListener(ln, 1024))
	defer hs.Close()

	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(resp.StatusCode, " ", string(b))
	// Output: 200 ok
}
