// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// memBackend answers every request from memory with body, so that a
// benchmark measures the gateway and nothing of a network or a server.
type memBackend struct{ body []byte }

func (m memBackend) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(m.body)), Request: r}, nil
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// chunks is a Chat Completions stream of n text chunks of one token each.
func chunks(n int) []byte {
	lines := make([][]byte, 0, n+2)
	for i := range n {
		lines = append(lines, []byte(fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" tok%d"},"finish_reason":null}]}`, i)))
	}
	lines = append(lines, []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5}}`))
	return gatewaytest.ChatSSE(lines...)
}

func benchGateway(b *testing.B, n int, stream bool) {
	h, err := gateway.New(&gateway.Config{
		Providers: []gateway.Provider{{Name: "p", API: gateway.APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true}},
		Models:    map[string]string{"m": "p"},
		Clients:   map[string]*http.Client{"p": {Transport: memBackend{chunks(n)}}},
	})
	if err != nil {
		b.Fatal(err)
	}
	body := fmt.Sprintf(`{"model":"m","stream":%v,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hi."}],"max_tokens":64,"temperature":0.2}`, stream)
	b.ReportAllocs()
	cpu0 := cpuNow()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
}

// BenchmarkGatewayChat is one Chat Completions request through the whole
// gateway to a Chat backend answering from memory: decode, route, write
// the backend request, read its stream, answer. With one chunk it is the
// gateway's cost per request; the difference between 1 and 256 chunks,
// divided by 255, is its cost per streamed chunk.
func BenchmarkGatewayChat(b *testing.B) {
	for _, n := range []int{1, 256} {
		for _, stream := range []bool{false, true} {
			b.Run(fmt.Sprintf("chunks=%d/stream=%v", n, stream), func(b *testing.B) { benchGateway(b, n, stream) })
		}
	}
}
