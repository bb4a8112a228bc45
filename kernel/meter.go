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

// Reservation is one amount to reserve: see [Meter.Reserve].
type Reservation struct {
	Name          string
	Amount, Limit float64
	Period        time.Duration
}

// Settlement is one reservation made good: see [Meter.Settle].
type Settlement struct {
	Name   string
	Delta  float64
	Period time.Duration
	Start  time.Time
}

// BatchMeter is a [Meter] that takes several reservations, all or none,
// and several settlements, in one transaction or round trip: what a
// request with a key's tokens per minute and budgets and its principal's
// budget needs of a store that is not in memory.
type BatchMeter interface {
	Meter
	// ReserveAll reserves every amount of rs if each stays within its
	// limit, and none otherwise; refused is the index of the first over
	// its limit (-1 when all were reserved) and reset when its window
	// ends. starts are the windows' starts, for SettleAll.
	ReserveAll(ctx context.Context, rs []Reservation) (starts []time.Time, refused int, reset time.Duration, err error)
	// SettleAll applies every settlement.
	SettleAll(ctx context.Context, ss []Settlement) error
}

// ReserveAll reserves rs on m, in one batch when m is a [BatchMeter],
// else one by one, giving back what it took when one is refused or
// fails.
func ReserveAll(ctx context.Context, m Meter, rs []Reservation) (starts []time.Time, refused int, reset time.Duration, err error) {
	if bm, ok := m.(BatchMeter); ok {
		return bm.ReserveAll(ctx, rs)
	}
	starts = make([]time.Time, len(rs))
	undo := func(n int) {
		for j := range n {
			m.Settle(context.WithoutCancel(ctx), rs[j].Name, -rs[j].Amount, rs[j].Period, starts[j])
		}
	}
	for i, r := range rs {
		start, ok, rst, err := m.Reserve(ctx, r.Name, r.Amount, r.Limit, r.Period)
		if err != nil {
			undo(i)
			return nil, -1, 0, err
		}
		if !ok {
			undo(i)
			return nil, i, rst, nil
		}
		starts[i] = start
	}
	return starts, -1, 0, nil
}

// SettleAll applies ss on m, in one batch when m is a [BatchMeter]; the
// first error is returned after every settlement was tried.
func SettleAll(ctx context.Context, m Meter, ss []Settlement) error {
	if len(ss) == 0 {
		return nil
	}
	if bm, ok := m.(BatchMeter); ok {
		return bm.SettleAll(ctx, ss)
	}
	var first error
	for _, st := range ss {
		if err := m.Settle(ctx, st.Name, st.Delta, st.Period, st.Start); err != nil && first == nil {
			first = err
		}
	}
	return first
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

var _ BatchMeter = (*MemoryMeter)(nil)

// ReserveAll implements [BatchMeter] under one lock.
func (m *MemoryMeter) ReserveAll(_ context.Context, rs []Reservation) ([]time.Time, int, time.Duration, error) {
	now := m.now()
	starts := make([]time.Time, len(rs))
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	for i, r := range rs {
		starts[i] = Window(now, r.Period)
		if m.totals[WindowKey(r.Name, starts[i])].total+r.Amount > r.Limit {
			var reset time.Duration
			if r.Period > 0 {
				reset = starts[i].Add(r.Period).Sub(now)
			}
			return nil, i, reset, nil
		}
	}
	for i, r := range rs {
		k := WindowKey(r.Name, starts[i])
		t := m.totals[k]
		if r.Period > 0 {
			t.ends = starts[i].Add(r.Period)
		}
		t.total += r.Amount
		m.totals[k] = t
	}
	return starts, -1, 0, nil
}

// SettleAll implements [BatchMeter] under one lock.
func (m *MemoryMeter) SettleAll(_ context.Context, ss []Settlement) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, st := range ss {
		k := WindowKey(st.Name, st.Start)
		if t, ok := m.totals[k]; ok {
			t.total = max(t.total+st.Delta, 0)
			m.totals[k] = t
		}
	}
	return nil
}
