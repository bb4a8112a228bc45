// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
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
// permitted READ call, and every record on disk before the timer stops
// (the log is closed, so its last batch is flushed, inside the loop's
// accounting). It answers whether the kernel's per-call figure includes
// the audit database: BenchmarkCall does not, this one does.
func BenchmarkCallSQLite(b *testing.B) {
	ctx := context.Background()
	store, err := audit.Open(ctx, filepath.Join(b.TempDir(), "audit.db"))
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
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		out, err := k.Call(ctx, &req)
		if err != nil || out.Status != kernel.StatusOK {
			b.Fatalf("%v %s %s", err, out.Status, out.Result.Text())
		}
	}
	if err := log.Close(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
