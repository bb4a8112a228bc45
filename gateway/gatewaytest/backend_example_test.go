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
	b.Push(gatewaytest.Reply{Status: 429, Header: http.Header{"Retry-After": {"1"}}, Body: gatewaytest.ErrorBody("rate_limit_error", "slow down")})
	b.Push(gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`)), Seed: 1})
	srv := httptest.NewServer(b)
	defer srv.Close()
	for range 2 {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, strings.Count(string(body), "data:"), "events")
	}
	fmt.Println(len(b.Requests()), "requests recorded")
	// Output:
	// 429 0 events
	// 200 2 events
	// 2 requests recorded
}
