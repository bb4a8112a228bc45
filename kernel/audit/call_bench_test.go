// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/tool"
)

const benchSchema = `{"type":"object","properties":{"city":{"type":"string"},"units":{"enum":["c","f"]},"days":{"type":"integer","minimum":1,"maximum":7},"detail":{"type":"boolean"},"lang":{"type":"string"}},"required":["city"],"additionalProperties":false}`

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCallSQLite is kernel.BenchmarkCall with the audit log written to
// a SQLite file, as `toolgate serve` and `toolgate call` run it: the same
// permitted READ call, one at a time, each call's intent committed before
// its executor runs and its outcome before Call returns, at audit.sync
// normal (the default). One caller gets no group commit: this is the
// worst case, two transactions a call.
func BenchmarkCallSQLite(b *testing.B) { benchCallSQLite(b, kernel.SyncNormal, 1) }

// BenchmarkCallSQLiteFull is BenchmarkCallSQLite at audit.sync full: the
// WAL synced at every commit.
func BenchmarkCallSQLiteFull(b *testing.B) { benchCallSQLite(b, kernel.SyncFull, 1) }

// BenchmarkCallSQLiteParallel is BenchmarkCallSQLite with 32 callers at
// once, as 32 MCP sessions make them: they share commits.
func BenchmarkCallSQLiteParallel(b *testing.B) { benchCallSQLite(b, kernel.SyncNormal, 32) }

// BenchmarkCallSQLiteParallelFull is BenchmarkCallSQLiteParallel at
// audit.sync full.
func BenchmarkCallSQLiteParallelFull(b *testing.B) { benchCallSQLite(b, kernel.SyncFull, 32) }

func benchCallSQLite(b *testing.B, mode kernel.AuditSync, callers int) {
	ctx := context.Background()
	store, err := audit.OpenSync(ctx, filepath.Join(b.TempDir(), "audit.db"), mode)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	reg := kernel.NewRegistry()
	res := tool.TextResult("", "ok")
	if err := reg.Add(kernel.Capability{
		Definition: tool.Definition{Name: "weather", InputSchema: json.RawMessage(benchSchema)},
		Safety:     kernel.SafetyRead,
		Executor:   kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return res, nil }),
	}); err != nil {
		b.Fatal(err)
	}
	log, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	reader := kernel.Principal{ID: "rita", Roles: []string{"reader"}}
	k, err := kernel.New(&kernel.Config{Registry: reg, Principals: []kernel.Principal{reader}, Audit: log, Limits: kernel.RateLimits{Read: -1}})
	if err != nil {
		b.Fatal(err)
	}
	req := kernel.Request{Principal: reader, Call: tool.Call{ID: "c1", Name: "weather", Arguments: json.RawMessage(`{"city":"Paris","units":"c","days":3,"detail":true,"lang":"en"}`)}}
	call := func() {
		out, err := k.Call(ctx, &req)
		if err != nil || out.Status != kernel.StatusOK {
			b.Errorf("%v %s %s", err, out.Status, out.Result.Text())
		}
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	if callers == 1 {
		for b.Loop() {
			call()
		}
	} else {
		b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				call()
			}
		})
	}
	if err := log.Close(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	// Records in the chain a call: two when its intent and outcome are
	// written apart, one when as one record.
	if seq, _, err := store.Head(ctx); err == nil {
		b.ReportMetric(float64(seq)/float64(b.N), "records/op")
	}
}
