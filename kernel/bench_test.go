// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"testing"

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

// NewBenchKernel returns a kernel with one READ tool with a 5-property
// schema and a no-op executor, rate limits off, and a batched audit log
// over store.
func newBenchKernel(b *testing.B, store AuditStore) (*Kernel, *AuditLog) {
	reg := NewRegistry()
	res := tool.TextResult("", "ok")
	if err := reg.Add(Capability{
		Definition: tool.Definition{Name: "weather", InputSchema: json.RawMessage(weatherSchema)},
		Safety:     Read,
		Executor:   ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return res, nil }),
	}); err != nil {
		b.Fatal(err)
	}
	audit, err := NewAuditLog(context.Background(), &AuditConfig{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	k, err := New(&Config{Registry: reg, Principals: []Principal{*reader}, Audit: audit, Limits: RateLimits{Read: -1}})
	if err != nil {
		b.Fatal(err)
	}
	return k, audit
}

var benchArgs = json.RawMessage(`{"city":"Paris","units":"c","days":3,"detail":true,"lang":"en"}`)

// BenchmarkCall is a permitted READ call through decoding, policy, the
// grant, validation, a no-op executor, the firewall and the batched audit
// log.
func BenchmarkCall(b *testing.B) {
	k, audit := newBenchKernel(b, &discardStore{})
	ctx := context.Background()
	req := Request{Principal: *reader, Call: tool.Call{ID: "c1", Name: "weather", Arguments: benchArgs}}
	b.ReportAllocs()
	for b.Loop() {
		out, err := k.Call(ctx, &req)
		if err != nil || out.Status != StatusOK {
			b.Fatalf("%v %s %s", err, out.Status, out.Result.Text())
		}
	}
	if err := audit.Close(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCallParallel is BenchmarkCall from GOMAXPROCS goroutines.
func BenchmarkCallParallel(b *testing.B) {
	k, audit := newBenchKernel(b, &discardStore{})
	ctx := context.Background()
	b.ReportAllocs()
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
}

// BenchmarkAuditAppend measures the audit log alone: queue, chain hash
// and batched store writes, flushed at the end.
func BenchmarkAuditAppend(b *testing.B) {
	ctx := context.Background()
	audit, err := NewAuditLog(ctx, &AuditConfig{Store: &discardStore{}})
	if err != nil {
		b.Fatal(err)
	}
	rec := AuditRecord{Principal: "rita", Tool: "weather", Status: StatusOK, Args: benchArgs, Result: "ok", Effect: Allow, Rule: "builtin.read", Code: CodeAllowed}
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
