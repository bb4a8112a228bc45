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
// Over HTTP the caller is whoever package server authenticated: mount
// [Server.Handler] behind [server.Auth.Require] (server.New does), which
// puts the principal in the request's context; a request without one
// gets 401. Connections without HTTP (stdio, in-memory) run as
// [Config.Local].
//
// # Safe defaults
//
// [Server.Handler] refuses cross-origin browser requests and Origin headers
// naming another host, keeps the SDK's DNS-rebinding check for loopback
// connections, bounds request bodies (1 MiB), checks every POST body as
// strict JSON before the SDK decodes it, caps sessions in total and per
// principal (closing the least recently used idle one first) and closes
// idle sessions. Package server bounds what a client can hold below the
// handler (the time a request may take to arrive, idle keep-alive
// connections, connections at once) and slows addresses that keep
// failing authentication. Rate limits are the kernel's, per principal.
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
//	srv, err := mcpserver.New(&mcpserver.Config{Kernel: k})
//	edge, err := server.New(&server.Config{Auth: auth, Routes: []server.Route{
//		{Pattern: "/mcp", Handler: srv.Handler(), RouteAuth: server.RouteAuth{Accept: server.Bearer}},
//	}})
//	// or, over stdio:
//	err = srv.Run(ctx, &mcp.StdioTransport{})
package mcpserver
