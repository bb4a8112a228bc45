// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gatewaytest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

func ExampleBackend() {
	b := gatewaytest.NewBackend()
	answer := gatewaytest.ChatSSE([]byte(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`))
	b.Push(gatewaytest.Reply{Status: 429, Header: http.Header{"Retry-After": {"1"}}, Body: gatewaytest.ErrorBody("rate_limit_error", "slow down")})
	b.Push(gatewaytest.Reply{Body: answer, Seed: 1})
	b.Push(gatewaytest.Reply{Body: answer, Seed: 1})
	srv := httptest.NewServer(b)
	defer srv.Close()
	for _, req := range []string{`{"model":"m","stream":true}`, `{"model":"m","stream":true}`, `{"model":"m"}`} {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(req))
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("Content-Type") == "text/event-stream" {
			fmt.Println(resp.StatusCode, strings.Count(string(body), "data:"), "events")
		} else {
			fmt.Println(resp.StatusCode, string(body))
		}
	}
	fmt.Println(len(b.Requests()), "requests recorded")
	// Output:
	// 429 {"error":{"message":"slow down","type":"rate_limit_error"}}
	// 200 2 events
	// 200 {"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"hi","role":"assistant"}}],"id":"c1","model":"m","object":"chat.completion"}
	// 3 requests recorded
}
