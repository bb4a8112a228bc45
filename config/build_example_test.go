// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// ExampleFile_BuildServing builds in Go all of what `toolgate serve`
// builds from a file — the demo's tools over MCP, the model gateway in
// front of a backend (here a fake one), the web console — and serves it:
// an MCP client lists the tools, a client with a token gets an answer
// from the model, and one without a token is refused, since the
// anonymous principal reaches only the tools. Cancelling the context
// shuts it down.
func ExampleFile_BuildServing() {
	backend := gatewaytest.NewBackend()
	backend.Push(gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"choices":[{"index":0,"delta":{"content":"hello"},"finish_reason":"stop"}]}`))})
	bs := httptest.NewServer(backend)
	defer bs.Close()

	f := &config.File{
		Server:     config.Server{Addr: "127.0.0.1:0", UI: true},
		Principals: []config.Principal{{ID: "anonymous", Roles: []string{"reader"}}, {ID: "ops", Roles: []string{"reader", "admin"}}},
		Auth:       config.Auth{Anonymous: "anonymous", Tokens: []config.Token{{Principal: "ops", Token: "ops-secret"}}},
		Limits:     config.Limits{Read: 60, Write: 10, Destructive: 2, Window: time.Minute},
		Sources:    []config.Source{{Name: "tasks", Demo: &config.Demo{}}},
		Providers: []config.Provider{{Name: "local", ModelName: "m", ProviderBackend: "openai_compat",
			APIConfig: config.APIConfig{BaseURL: bs.URL + "/v1"}}},
	}
	ctx, stop := context.WithCancel(context.Background())
	s, err := f.BuildServing(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	addr, err := s.Server.Listen()
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	base := "http://" + addr.String()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("tool:", t.Name)
	}
	cs.Close()

	chat := func(token string) {
		req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(`{"model":"local","messages":[{"role":"user","content":"hi"}]}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println("chat:", resp.StatusCode, strings.Contains(string(b), `"content":"hello"`))
	}
	chat("ops-secret")
	chat("")
	resp, err := http.Get(base + "/ui/")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("console:", resp.StatusCode)
	fmt.Println(s.Notices[0].Text)

	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// tool: createTask
	// tool: deleteTask
	// tool: getTask
	// tool: listTasks
	// tool: updateTask
	// chat: 200 true
	// chat: 401 false
	// console: 200
	// calls are not recorded: the config has no audit section (add audit.db)
	// stopped: <nil>
}
