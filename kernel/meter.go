// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// Meter counts amounts (tokens, dollars) against a limit per fixed
// window: a window of period starts at each multiple of period since the
// Unix epoch; period zero is one window for ever. Implementations are
// safe for concurrent use, and shared by every process of a deployment
// when the store is (SQLite, Redis), so that replicas draw on one
// budget.
type Meter interface {
	// Reserve adds amount to name's total in the current window if the
	// total stays within limit, and reports whether it did and the
	// window's start; when it did not, reset says when the window ends
	// (zero for ever).
	Reserve(ctx context.Context, name string, amount, limit float64, period time.Duration) (start time.Time, ok bool, reset time.Duration, err error)
	// Settle adds delta, which may be negative, to name's total in the
	// window that started at start (as Reserve returned it): a
	// reservation made good with what was actually used. The total never
	// goes below zero.
	Settle(ctx context.Context, name string, delta float64, period time.Duration, start time.Time) error
}

// Window returns the start of the window of period that holds t: the
// zero time for period zero.
func Window(t time.Time, period time.Duration) time.Time {
	if period <= 0 {
		return time.Time{}
	}
	return time.Unix(0, t.UnixNano()-t.UnixNano()%int64(period)).UTC()
}

// WindowKey names a window of name: name and the window's start.
func WindowKey(name string, start time.Time) string {
	if start.IsZero() {
		return name + "@ever"
	}
	return name + "@" + strconv.FormatInt(start.Unix(), 10)
}

// MemoryMeter is a [Meter] in memory: one process's counts. Windows that
// have ended are dropped as new ones are used.
type MemoryMeter struct {
	mu     sync.Mutex
	now    func() time.Time
	totals map[string]meterTotal
}

type meterTotal struct {
	total float64
	ends  time.Time // zero: never
}

// NewMemoryMeter returns an empty meter.
func NewMemoryMeter() *MemoryMeter {
	return &MemoryMeter{now: time.Now, totals: map[string]meterTotal{}}
}

// Reserve implements [Meter].
func (m *MemoryMeter) Reserve(_ context.Context, name string, amount, limit float64, period time.Duration) (time.Time, bool, time.Duration, error) {
	now := m.now()
	start := Window(now, period)
	k := WindowKey(name, start)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	t := m.totals[k]
	var reset time.Duration
	if period > 0 {
		t.ends = start.Add(period)
		reset = t.ends.Sub(now)
	}
	if t.total+amount > limit {
		return start, false, reset, nil
	}
	t.total += amount
	m.totals[k] = t
	return start, true, 0, nil
}

// Settle implements [Meter].
func (m *MemoryMeter) Settle(_ context.Context, name string, delta float64, period time.Duration, start time.Time) error {
	k := WindowKey(name, start)
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.totals[k]
	if !ok {
		return nil // the window has ended: nothing to correct
	}
	t.total = max(t.total+delta, 0)
	m.totals[k] = t
	return nil
}

// sweep drops windows that have ended once there are many; m.mu is held.
func (m *MemoryMeter) sweep(now time.Time) {
	if len(m.totals) < 4096 {
		return
	}
	for k, t := range m.totals {
		if !t.ends.IsZero() && now.After(t.ends) {
			delete(m.totals, k)
		}
	}
}
