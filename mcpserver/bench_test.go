// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build unix

package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// benchServer is a server with one no-op READ tool, rate limits off and
// the audit log in memory. Its metrics' latency histogram is the time
// spent in Kernel.Call.
func benchServer(b *testing.B) (*Server, *Metrics) {
	b.Helper()
	store := kernel.NewMemoryAuditStore()
	audit, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { audit.Close(context.Background()) })
	k, err := kernel.New(&kernel.Config{Audit: audit, Limits: kernel.RateLimits{Read: -1}})
	if err != nil {
		b.Fatal(err)
	}
	if err := k.Registry().Add(kernel.Capability{
		Definition: tool.Definition{Name: "noop", Description: "Do nothing", InputSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		Safety:     kernel.Read,
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			return tool.TextResult("", "ok"), nil
		}),
	}); err != nil {
		b.Fatal(err)
	}
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(&Config{Kernel: k, Anonymous: &kernel.Principal{ID: "bench"}, Metrics: m})
	if err != nil {
		b.Fatal(err)
	}
	return srv, m
}

// BenchmarkHTTPCall measures tools/call of a no-op READ tool over
// streamable HTTP on loopback with 32 concurrent clients, each with its
// own session. It reports calls per second and the kernel's share of the
// time a call takes from the client's side.
func BenchmarkHTTPCall(b *testing.B) {
	const clients = 32
	srv, m := benchServer(b)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: clients * 2}
	defer tr.CloseIdleConnections()
	ctx := context.Background()
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: tr}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	args := map[string]any{"n": 1}
	var next atomic.Int64
	var clientNS atomic.Int64
	m.duration.Reset()
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "noop", Arguments: args})
				clientNS.Add(int64(time.Since(t0)))
				if err != nil || res.IsError {
					b.Error(err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	// CPU time per call (client and server together, both in this
	// process) is what a shared machine distorts least.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/call")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	var h dto.Metric
	if err := m.duration.WithLabelValues("noop").(prometheus.Histogram).Write(&h); err != nil {
		b.Fatal(err)
	}
	if c := h.GetHistogram().GetSampleCount(); c > 0 {
		kernelNS := h.GetHistogram().GetSampleSum() * 1e9
		b.ReportMetric(kernelNS/float64(c), "kernel-ns/call")
		b.ReportMetric(float64(clientNS.Load())/float64(b.N), "client-ns/call")
		b.ReportMetric(100*kernelNS/float64(clientNS.Load()), "kernel-%")
	}
}

// BenchmarkKernelCall is the kernel alone on the same tool, for
// comparison.
func BenchmarkKernelCall(b *testing.B) {
	srv, _ := benchServer(b)
	ctx := context.Background()
	args := []byte(`{"n":1}`)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := srv.k.Call(ctx, &kernel.Request{Principal: kernel.Principal{ID: "bench"}, Call: tool.Call{Name: "noop", Arguments: args}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
