// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	tests := []struct {
		name string
		q    float64
		want time.Duration
	}{
		{name: "p50", q: .5, want: 500 * time.Microsecond},
		{name: "p90", q: .9, want: 900 * time.Microsecond},
		{name: "p99", q: .99, want: 990 * time.Microsecond},
		{name: "max", q: 1, want: 1000 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := h.quantile(tt.q)
			// Buckets keep a value to within 1/64 of itself.
			if diff := got - tt.want; diff < -tt.want/64 || diff > tt.want/64 {
				t.Errorf("quantile(%v) = %v, want %v ± 1.6%%", tt.q, got, tt.want)
			}
		})
	}
	if got := h.max; got != time.Millisecond {
		t.Errorf("max = %v, want 1ms", got)
	}
}

func TestBucketsCoverEveryValue(t *testing.T) {
	for _, v := range []uint64{0, 1, 63, 64, 127, 128, 129, 255, 256, 1000, 1 << 20, 1<<40 + 12345, 1<<63 - 1} {
		i := bucketOf(v)
		if v < lowOf(i) || v > highOf(i) {
			t.Errorf("%d in bucket %d = [%d, %d]", v, i, lowOf(i), highOf(i))
		}
		if w := highOf(i) - lowOf(i); v >= 128 && w > v/64 {
			t.Errorf("bucket of %d is %d wide, over 1/64", v, w)
		}
	}
}

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		name string
		url  string
		want error
	}{
		{name: "ipv4", url: "http://127.0.0.1:8686/v1/chat/completions"},
		{name: "ipv6", url: "http://[::1]:8686/v1/chat/completions"},
		{name: "localhost", url: "http://localhost:8686/"},
		{name: "remote", url: "http://example.com/v1/chat/completions", want: errNotLoopback},
		{name: "private", url: "http://10.0.0.1/", want: errNotLoopback},
		{name: "https", url: "https://127.0.0.1/", want: errBadConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkLoopback(tt.url); !errors.Is(err, tt.want) {
				t.Errorf("checkLoopback(%q) = %v, want %v", tt.url, err, tt.want)
			}
		})
	}
}

// TestRun sends a short run to a server that streams an answer, and
// checks the counts and the figures.
func TestRun(t *testing.T) {
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"stream":true`) {
			http.Error(w, "want a stream", http.StatusBadRequest)
			return
		}
		got.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[]}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(2 * time.Millisecond)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	cfg := config{url: srv.URL, rate: 200, duration: 250 * time.Millisecond, warmup: 50 * time.Millisecond,
		conns: 4, maxInflight: 100, maxRequests: 1000, timeout: 5 * time.Second, stream: true, model: "text", expect: "[DONE]"}
	res, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := struct{ Sent, OK, Errors, Dropped int }{50, 50, 0, 0}
	if diff := cmp.Diff(want, struct{ Sent, OK, Errors, Dropped int }{res.sent, res.ok, res.errors, res.dropped}); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if n := got.Load(); n != 60 {
		t.Errorf("server got %d requests, want 60 (10 warm-up, 50 measured)", n)
	}
	if p50, ttfb := res.latency.quantile(.5), res.ttfb.quantile(.5); p50 < 2*time.Millisecond || ttfb >= p50 {
		t.Errorf("p50 %v, ttfb p50 %v: want p50 ≥ 2ms > ttfb", p50, ttfb)
	}
}

// TestRunCountsErrors checks that a status other than 200 and a missing
// expected string are errors, not successes.
func TestRunCountsErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"no"}}`, http.StatusTooManyRequests)
	}))
	defer srv.Close()
	cfg := config{url: srv.URL, rate: 100, duration: 100 * time.Millisecond, conns: 2, maxInflight: 10,
		maxRequests: 100, timeout: time.Second, model: "text"}
	res, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.ok != 0 || res.errors != 10 || !strings.Contains(res.firstErr, "status 429") {
		t.Errorf("ok %d errors %d first %q, want 0, 10 and a 429", res.ok, res.errors, res.firstErr)
	}
}

func TestConfigBounds(t *testing.T) {
	base := config{url: "http://127.0.0.1:1/", rate: 1000, duration: time.Second, conns: 1, maxInflight: 1, maxRequests: 1000, timeout: time.Second}
	tests := []struct {
		name string
		edit func(*config)
	}{
		{name: "too_many_requests", edit: func(c *config) { c.duration = 2 * time.Second }},
		{name: "zero_rate", edit: func(c *config) { c.rate = 0 }},
		{name: "zero_conns", edit: func(c *config) { c.conns = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			if _, err := run(context.Background(), c); !errors.Is(err, errBadConfig) {
				t.Errorf("run = %v, want errBadConfig", err)
			}
		})
	}
}

// TestChatStream checks the harness's generated stream: n SSE events,
// the last [DONE], every content chunk carrying "harness".
func TestChatStream(t *testing.T) {
	for _, n := range []int{4, 8, 54} {
		s := string(chatStream(n))
		if got := strings.Count(s, "data: "); got != n {
			t.Errorf("chatStream(%d): %d events", n, got)
		}
		if got := strings.Count(s, "harness "); got != n-4 {
			t.Errorf("chatStream(%d): %d content chunks, want %d", n, got, n-4)
		}
		if !strings.HasSuffix(s, "data: [DONE]\n\n") {
			t.Errorf("chatStream(%d) does not end with [DONE]", n)
		}
	}
}

// TestRelay checks that the bare relay forwards the body and path and
// copies the status, content type and answer back, a stream as it comes.
func TestRelay(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprintf(w, "data: %s %s\n\n", r.URL.Path, body)
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer backend.Close()
	srv := httptest.NewServer(newRelay(backend.URL, 4))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	want := "data: /v1/chat/completions {\"x\":1}\n\ndata: [DONE]\n\n"
	if resp.StatusCode != http.StatusTeapot || resp.Header.Get("Content-Type") != "text/event-stream" || string(got) != want {
		t.Errorf("relay answered %d %q %q, want 418 text/event-stream %q", resp.StatusCode, resp.Header.Get("Content-Type"), got, want)
	}
}
