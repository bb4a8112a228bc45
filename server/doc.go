// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package server owns the process edge of toolgate serve: the listener
// and its limits, authentication done once, one observation fan-out and
// graceful shutdown. The MCP endpoint, the model gateway and the web
// console are plain [http.Handler]s mounted as [Route]s on one
// [http.ServeMux]; none of them sees or checks a token.
//
// # Authentication
//
// An [Auth] maps credentials to principals: bearer tokens, the x-api-key
// and x-goog-api-key headers that the Anthropic and Google SDKs send, and
// the console's session cookie. Each route says which of them it takes
// ([Credentials]) and whether a request with none runs as the anonymous
// principal. The [Identity] of a request — its principal and the id of
// the key it used, never the key — is in its context: read it with
// [PrincipalFrom] or [IdentityFrom]. A client address that fails
// authentication [AuthFailureBurst] times is slowed on every route, and
// only that address is.
//
// # Shutdown
//
// When the context given to [Server.Run] is done, the server stops
// accepting, lets running requests finish within
// [Config.ShutdownTimeout], then cancels the requests still running with
// the cause [ErrShutdown], so that a stream ends with its API's error
// event rather than a cut connection. [Server.Close] does that at once:
// toolgate serve calls it on a second SIGTERM.
//
//	a, _ := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"s3cret": {ID: "alice"}}})
//	srv, _ := server.New(&server.Config{Addr: "127.0.0.1:8686", Auth: a, Routes: []server.Route{
//		{Pattern: "/hello", Handler: hello, Accept: server.Bearer},
//	}})
//	err := srv.Run(ctx)
package server
