// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/toolgate/toolgate/internal/benchtest"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
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
		Safety:     kernel.SafetyRead,
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
	srv, err := New(&Config{Kernel: k, Metrics: m})
	if err != nil {
		b.Fatal(err)
	}
	return srv, m
}

// benchHandler is srv's handler behind the server's authentication, as
// toolgate serve mounts it, with every request anonymous ("bench").
func benchHandler(b *testing.B, srv *Server) http.Handler {
	a, err := server.NewAuth(&server.AuthConfig{Anonymous: &kernel.Principal{ID: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	return a.Require(srv.Handler(), server.RouteAuth{Accept: server.Bearer, Anonymous: true})
}

// BenchmarkHTTPCall measures tools/call of a no-op READ tool over
// streamable HTTP on loopback with 32 concurrent clients, each with its
// own session. It reports calls per second and the kernel's share of the
// time a call takes from the client's side.
func BenchmarkHTTPCall(b *testing.B) {
	const clients = 32
	serveGC(b)
	srv, m := benchServer(b)
	hs := httptest.NewServer(benchHandler(b, srv))
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
	cpu0 := benchtest.CPUTime()
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
	cpu := benchtest.CPUTime() - cpu0
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

// rawSession opens an MCP session over plain HTTP, as a lean client
// would: initialize, then the initialized notification. It returns the
// session id.
func rawSession(b *testing.B, c *http.Client, url string) string {
	b.Helper()
	resp, err := rawPost(c, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if err != nil {
		b.Fatal(err)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || id == "" || !bytes.Contains(body, []byte(`"protocolVersion"`)) {
		b.Fatalf("initialize: %s %q: %s", resp.Status, id, body)
	}
	resp, err = rawPost(c, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return id
}

func rawPost(c *http.Client, url, session, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	return c.Do(req)
}

// BenchmarkHTTPCallRawClient is BenchmarkHTTPCall with 32 lean clients
// that speak JSON-RPC over HTTP directly instead of through the SDK's
// client, so that the figure is the server's: the SDK client's own JSON
// decoding costs more CPU per call than the whole server does, and client
// and server share the machine's two cores.
func BenchmarkHTTPCallRawClient(b *testing.B) {
	const clients = 32
	serveGC(b)
	srv, m := benchServer(b)
	hs := httptest.NewServer(benchHandler(b, srv))
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: clients * 2}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	ids := make([]string, clients)
	for i := range ids {
		ids[i] = rawSession(b, c, hs.URL)
	}
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"noop","arguments":{"n":1}}}`
	var next atomic.Int64
	m.duration.Reset()
	b.ResetTimer()
	cpu0 := benchtest.CPUTime()
	start := time.Now()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				resp, err := rawPost(c, hs.URL, id, call)
				if err != nil {
					b.Error(err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !bytes.Contains(body, []byte(`"text":"ok"`)) || bytes.Contains(body, []byte(`"isError":true`)) {
					b.Errorf("tools/call: %v: %s", err, body)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := benchtest.CPUTime() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/call")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	var h dto.Metric
	if err := m.duration.WithLabelValues("noop").(prometheus.Histogram).Write(&h); err != nil {
		b.Fatal(err)
	}
	if c := h.GetHistogram().GetSampleCount(); c > 0 {
		// Time inside Kernel.Call against the CPU one call costs: on a
		// saturated machine the former includes waiting for a core.
		kernelNS := h.GetHistogram().GetSampleSum() * 1e9 / float64(c)
		b.ReportMetric(kernelNS, "kernel-ns/call")
		b.ReportMetric(100*kernelNS/(float64(cpu.Nanoseconds())/float64(b.N)), "kernel-%")
	}
}

// serveGC runs the benchmark with the garbage collector settings toolgate
// serve uses (GCPercent, MemoryLimit), restoring the defaults after.
func serveGC(b *testing.B) {
	pct := debug.SetGCPercent(GCPercent)
	limit := debug.SetMemoryLimit(MemoryLimit)
	b.Cleanup(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	})
}
