// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// coldBytes is more memory than the machine's caches hold: writing it
// between two requests leaves the next one to find its code and data in
// memory, as a request does at a few hundred a second, when the load
// generator, the backend and the kernel run between requests.
const coldBytes = 64 << 20

// evict writes a line of every 64 bytes of buf.
func evict(buf []byte) {
	for i := 0; i < len(buf); i += 64 {
		buf[i]++
	}
}

// chunkedWhole answers with a whole Chat body and no Content-Length, as a
// backend that writes its answer chunked does.
type chunkedWhole struct{ body []byte }

func (b chunkedWhole) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		ContentLength: -1, Body: io.NopCloser(bytes.NewReader(b.body)), Request: r}, nil
}

// BenchmarkGatewayCold serves the load harness's non-streaming request
// (a Chat client before a Chat backend that answers whole) with the
// caches warm, as at saturation, and cold, as at 200 requests/s, where
// toolgate's CPU per request is five times its saturated figure and the
// relay's four. The cold figure is the time of the request alone: the
// eviction between requests is not timed.
func BenchmarkGatewayCold(b *testing.B) {
	whole := []byte(`{"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"harness 0 harness 1 harness 2 harness 3 ","role":"assistant"}}],"created":1700000000,"id":"chatcmpl-harness","model":"gen","object":"chat.completion","usage":{"completion_tokens":4,"prompt_tokens":10,"total_tokens":14}}`)
	body := `{"model":"m","messages":[{"role":"user","content":"Say hello."}],"max_tokens":64,"stream":false}`
	backends := []struct {
		name string
		rt   http.RoundTripper
	}{
		{"length", wholeBackend{whole}},
		{"chunked", chunkedWhole{whole}},
	}
	// toolgate serve's collector setting (mcpserver.TuneGC).
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	var buf []byte
	for _, be := range backends {
		for _, cold := range []bool{false, true} {
			b.Run(fmt.Sprintf("backend=%s/cold=%v", be.name, cold), func(b *testing.B) {
				if cold && buf == nil {
					// Outside the heap, so that the collector keeps to
					// the handler's garbage as a server's does.
					var err error
					if buf, err = syscall.Mmap(-1, 0, coldBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE); err != nil {
						b.Fatal(err)
					}
				}
				p := Provider{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true}
				h := newBenchHandler(b, p, be.rt, true)
				b.ReportAllocs()
				var w gatewaytest.Sink
				for b.Loop() {
					if cold {
						b.StopTimer()
						evict(buf)
						b.StartTimer()
					}
					w.Reset()
					h.ServeHTTP(&w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
					if w.Code != 200 || w.Bytes == 0 {
						b.Fatalf("status %d, %d bytes", w.Code, w.Bytes)
					}
				}
			})
		}
	}
}
