// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// An Anthropic Messages client in front of an OpenAI-compatible backend:
// the backend's tool call, sent with index 1 and finish_reason "stop",
// reaches the client as a tool_use block with stop_reason "tool_use".
func ExampleNew() {
	backend := gatewaytest.NewBackend()
	backend.Push(gatewaytest.Reply{Body: gatewaytest.ChatSSE(
		[]byte(`{"id":"c1","model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}]}`),
		[]byte(`{"id":"c1","model":"qwen","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))})
	srv := httptest.NewServer(backend)
	defer srv.Close()

	h, err := gateway.New(&gateway.Config{
		Providers: []gateway.Provider{{Name: "local", API: gateway.APIChat, BaseURL: srv.URL + "/v1", Model: "Qwen/Qwen3-14B", Compat: true}},
		Models:    map[string]string{"qwen3": "local"},
	})
	if err != nil {
		panic(err)
	}
	gw := httptest.NewServer(h)
	defer gw.Close()

	resp, err := http.Post(gw.URL+"/v1/messages", "application/json", strings.NewReader(
		`{"model":"qwen3","max_tokens":256,"messages":[{"role":"user","content":"Weather in Paris?"}]}`))
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))
	// Output:
	// {"id":"c1","type":"message","role":"assistant","model":"qwen3","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}
}
