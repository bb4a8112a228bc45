// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package mcpserver serves a kernel's tools over the Model Context Protocol
// with the official Go SDK, over stdio and streamable HTTP.
//
// # Calls
//
// Every tools/call runs through [kernel.Kernel.Call] as the connection's
// principal, so policy, validation, the output firewall and the audit log
// apply to MCP clients exactly as to any other caller. A denial, invalid
// arguments or a failing executor come back as a result with isError set,
// which the model reads and can act on; a call to a tool that is not listed
// is a protocol error, as the specification asks, and is audited too. A
// justification travels as the "_justification" argument, which the listed
// input schema of every tool that changes something declares.
//
// # Identity
//
// Over HTTP the bearer token picks the principal ([Config.Tokens]); a
// request without one runs as [Config.Anonymous], or gets 401 when that is
// nil. Connections without HTTP (stdio, in-memory) run as [Config.Local].
//
// # Safe defaults
//
// [Server.Handler] refuses cross-origin browser requests and Origin headers
// naming another host, keeps the SDK's DNS-rebinding check for loopback
// connections, bounds request bodies (1 MiB), checks every POST body as
// strict JSON before the SDK decodes it, caps sessions in total and per
// principal (closing the least recently used idle one first) and closes
// idle sessions. An address that keeps failing authentication gets 429;
// every 401 carries WWW-Authenticate; refusals are logged at debug and
// counted. [NewHTTPServer] and [LimitListener] bound what a client can
// hold below the handler: the time a request may take to arrive, idle
// keep-alive connections and connections at once. Rate limits are the
// kernel's, per principal.
//
// # Tools
//
// A Server serves whatever its kernel's registry holds; it knows no
// source. Package source turns OpenAPI specs, commands, other MCP servers
// and the demo tracker into capabilities to add to the registry, and
// package config builds both from the YAML file.
//
// # Example
//
//	srv, err := mcpserver.New(&mcpserver.Config{Kernel: k, Anonymous: &kernel.Principal{ID: "anonymous"}})
//	http.Handle("/mcp", srv.Handler())
//	// or, over stdio:
//	err = srv.Run(ctx, &mcp.StdioTransport{})
package mcpserver
