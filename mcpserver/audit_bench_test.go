// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/internal/benchtest"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/tool"
)

// BenchmarkHTTPCallRawClientSQLite is BenchmarkHTTPCallRawClient (32
// sessions, lean clients) with the audit log in a SQLite file, as
// toolgate serve writes it: every call's records on disk, at audit.sync
// normal.
func BenchmarkHTTPCallRawClientSQLite(b *testing.B) {
	serveGC(b)
	ctx := context.Background()
	store, err := audit.Open(ctx, filepath.Join(b.TempDir(), "audit.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	log, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close(ctx)
	k, err := kernel.New(&kernel.Config{Audit: log, Limits: kernel.RateLimits{Read: -1}})
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
	hs := httptest.NewServer(benchHandler(b, srv))
	defer hs.Close()
	const clients = 32
	tr := &http.Transport{MaxIdleConnsPerHost: clients * 2}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	ids := make([]string, clients)
	for i := range ids {
		ids[i] = rawSession(b, c, hs.URL)
	}
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"noop","arguments":{"n":1}}}`
	var next atomic.Int64
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
}
