// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// A handler behind the edge reads who is calling from its context and
// never sees a token; a request without one is refused in the route's
// shape, and cancelling Run's context shuts the server down.
func ExampleNew() {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := server.PrincipalFrom(r.Context())
		fmt.Fprintf(w, "hello, %s", p.ID)
	})
	auth, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"s3cret": {ID: "alice"}}})
	if err != nil {
		panic(err)
	}
	srv, err := server.New(&server.Config{Addr: "127.0.0.1:0", Auth: auth, Routes: []server.Route{
		{Pattern: "GET /hello", Handler: hello, RouteAuth: server.RouteAuth{Accept: server.Keys}},
	}})
	if err != nil {
		panic(err)
	}
	addr, err := srv.Listen()
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- srv.Run(ctx) }()

	for _, key := range []string{"s3cret", ""} {
		req, _ := http.NewRequest("GET", "http://"+addr.String()+"/hello", nil)
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %s", resp.StatusCode, b)
	}
	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// 200 hello, alice401 authentication required: send a bearer token, x-api-key, x-goog-api-key
	// stopped: <nil>
}
