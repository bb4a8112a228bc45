// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/tool"
)

// discardStore is an AuditStore that keeps only the head, so that the
// benchmark measures the pipeline and the chain, not a growing slice.
type discardStore struct{ MemoryAuditStore }

func (d *discardStore) Append(_ context.Context, recs []AuditRecord) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := len(recs); n > 0 {
		d.headSeq, d.head = recs[n-1].Seq, recs[n-1].Hash
	}
	return nil
}

// newBenchKernel returns a kernel with one READ tool with a 5-property
// schema and a no-op executor, rate limits off, and a batched audit log
// over store.
func newBenchKernel(b *testing.B, store AuditStore, timeout time.Duration) (*Kernel, *AuditLog) {
	reg := NewRegistry()
	res := tool.TextResult("", "ok")
	if err := reg.Add(Capability{
		Definition: tool.Definition{Name: "weather", InputSchema: json.RawMessage(weatherSchema)},
		Safety:     SafetyRead,
		Executor:   ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return res, nil }),
	}); err != nil {
		b.Fatal(err)
	}
	audit, err := NewAuditLog(context.Background(), &AuditConfig{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	k, err := New(&Config{Registry: reg, Principals: []Principal{*reader}, Audit: audit, Limits: RateLimits{Read: -1}, Timeout: timeout})
	if err != nil {
		b.Fatal(err)
	}
	return k, audit
}

// cpuTime is the CPU time the process has used, user and system. The
// benchmarks report it per call beside wall time because the machine they
// run on is shared: wall time there measures the neighbours too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchArgs = json.RawMessage(`{"city":"Paris","units":"c","days":3,"detail":true,"lang":"en"}`)

// BenchmarkCall is a permitted READ call through decoding, policy, the
// grant, validation, a no-op executor, the firewall and the batched audit
// log.
func BenchmarkCall(b *testing.B) { benchCall(b, 0) }

// BenchmarkCallNoTimeout is BenchmarkCall without the per-call timeout,
// to show what the timer costs.
func BenchmarkCallNoTimeout(b *testing.B) { benchCall(b, -1) }

func benchCall(b *testing.B, timeout time.Duration) {
	k, audit := newBenchKernel(b, &discardStore{}, timeout)
	ctx := context.Background()
	req := Request{Principal: *reader, Call: tool.Call{ID: "c1", Name: "weather", Arguments: benchArgs}}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		out, err := k.Call(ctx, &req)
		if err != nil || out.Status != StatusOK {
			b.Fatalf("%v %s %s", err, out.Status, out.Result.Text())
		}
	}
	if err := audit.Close(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCallParallel is BenchmarkCall from GOMAXPROCS goroutines.
func BenchmarkCallParallel(b *testing.B) {
	k, audit := newBenchKernel(b, &discardStore{}, 0)
	ctx := context.Background()
	b.ReportAllocs()
	cpu0, wall0 := cpuTime(), time.Now()
	b.RunParallel(func(pb *testing.PB) {
		req := Request{Principal: *reader, Call: tool.Call{ID: "c1", Name: "weather", Arguments: benchArgs}}
		for pb.Next() {
			out, err := k.Call(ctx, &req)
			if err != nil || out.Status != StatusOK {
				b.Fatalf("%v %s", err, out.Status)
			}
		}
	})
	if err := audit.Close(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/time.Since(wall0).Seconds(), "calls/s")
}

// BenchmarkAuditAppend measures the audit log alone: queue, chain hash
// and batched store writes, flushed at the end.
func BenchmarkAuditAppend(b *testing.B) {
	ctx := context.Background()
	audit, err := NewAuditLog(ctx, &AuditConfig{Store: &discardStore{}})
	if err != nil {
		b.Fatal(err)
	}
	rec := AuditRecord{Principal: "rita", Tool: "weather", Status: StatusOK, Args: benchArgs, Result: "ok", Effect: EffectAllow, Rule: "builtin.read", Code: CodeAllowed}
	b.ReportAllocs()
	for b.Loop() {
		if err := audit.Append(ctx, &rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := audit.Close(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGrantIssueParallel is the kernel's in-process grant issue and
// check from GOMAXPROCS goroutines, to show contention on the issuer's
// shared state.
func BenchmarkGrantIssueParallel(b *testing.B) {
	g, err := NewGrants(&GrantConfig{Key: make([]byte, 32)})
	if err != nil {
		b.Fatal(err)
	}
	sum := sha256.Sum256(benchArgs)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var buf [256]byte
			payload, mac := g.issueRaw(buf[:0], "rita", "weather", &sum, time.Now())
			if err := g.checkRaw(payload, &mac, "rita", "weather", &sum); err != nil {
				b.Fatal(err)
			}
		}
	})
}
