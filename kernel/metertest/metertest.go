// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package metertest is the contract every [kernel.Meter] keeps, as a
// test to run against each store: memory, SQLite, Redis.
//
//	func TestMeter(t *testing.T) { metertest.Run(t, sqliteMeterA, sqliteMeterB) }
package metertest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// Run checks a and b, two handles on one store (two replicas; pass the
// same meter twice for a store of one process), under a name no other
// test uses:
//   - 50 reservations racing for a limit of 100, 3 each, from both
//     handles: exactly 33 succeed, whichever handle made them;
//   - a settlement gives back what was not used, and the next
//     reservation fits; the total never goes below zero;
//   - a refusal says when the window ends;
//   - windows of different names and periods are apart.
func Run(t *testing.T, a, b kernel.Meter) {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("metertest-%d", time.Now().UnixNano())
	const limit, each = 100, 3
	var won atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for i := range 50 {
		m := a
		if i%2 == 1 {
			m = b
		}
		wg.Go(func() {
			_, ok, _, err := m.Reserve(ctx, name, each, limit, time.Hour)
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			if ok {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("reserve: %v", errs[0])
	}
	if n := won.Load(); n != limit/each {
		t.Fatalf("%d of 50 racing reservations of %d succeeded under a limit of %d, want %d", n, each, limit, limit/each)
	}
	start, ok, reset, err := a.Reserve(ctx, name, each, limit, time.Hour)
	if err != nil || ok || reset <= 0 || reset > time.Hour {
		t.Errorf("over the limit: ok %v, reset %v, err %v; want a refusal with the window's end", ok, reset, err)
	}
	// 33*3 = 99 reserved; give back 10 of one reservation's estimate.
	if err := b.Settle(ctx, name, -10, time.Hour, start); err != nil {
		t.Fatal(err)
	}
	if _, ok, _, err := a.Reserve(ctx, name, 11, limit, time.Hour); err != nil || !ok {
		t.Errorf("after giving back 10: %v %v, want room for 11 (89 + 11 = 100)", ok, err)
	}
	if _, ok, _, _ := b.Reserve(ctx, name, 0.5, limit, time.Hour); ok {
		t.Error("0.5 more fitted over 100")
	}
	// Another period is another window; another name another total.
	if _, ok, _, err := a.Reserve(ctx, name, limit, limit, 0); err != nil || !ok {
		t.Errorf("the for-ever window of the same name: %v %v", ok, err)
	}
	if _, ok, _, err := b.Reserve(ctx, name+"-other", limit, limit, time.Hour); err != nil || !ok {
		t.Errorf("another name: %v %v", ok, err)
	}
	forever := kernel.Window(time.Now(), 0)
	if err := a.Settle(ctx, name, -1e9, 0, forever); err != nil {
		t.Fatal(err)
	}
	if _, ok, _, err := b.Reserve(ctx, name, limit, limit, 0); err != nil || !ok {
		t.Errorf("after settling far below zero, the total is zero: %v %v", ok, err)
	}

	// All or none, through kernel.ReserveAll (a batch where the meter
	// takes one): the second reservation does not fit, so neither is
	// taken; then both fit, and SettleAll gives both back.
	batch := name + "-batch"
	rs := []kernel.Reservation{{Name: batch + "/a", Amount: 5, Limit: 10, Period: time.Hour}, {Name: batch + "/b", Amount: 20, Limit: 10, Period: time.Hour}}
	if _, refused, reset, err := kernel.ReserveAll(ctx, a, rs); err != nil || refused != 1 || reset <= 0 {
		t.Errorf("a batch over its second limit: refused %d, reset %v, err %v", refused, reset, err)
	}
	rs[1].Amount = 10
	starts, refused, _, err := kernel.ReserveAll(ctx, b, rs)
	if err != nil || refused != -1 || len(starts) != 2 {
		t.Fatalf("a batch that fits: refused %d, err %v (was the refused batch's first reservation kept?)", refused, err)
	}
	if err := kernel.SettleAll(ctx, a, []kernel.Settlement{{Name: rs[0].Name, Delta: -5, Period: time.Hour, Start: starts[0]}, {Name: rs[1].Name, Delta: -10, Period: time.Hour, Start: starts[1]}}); err != nil {
		t.Fatal(err)
	}
	if _, refused, _, err := kernel.ReserveAll(ctx, b, []kernel.Reservation{{Name: rs[0].Name, Amount: 10, Limit: 10, Period: time.Hour}, {Name: rs[1].Name, Amount: 10, Limit: 10, Period: time.Hour}}); err != nil || refused != -1 {
		t.Errorf("after SettleAll gave both back: refused %d, err %v", refused, err)
	}
}
