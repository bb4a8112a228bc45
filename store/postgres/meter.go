// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// Meter is a [kernel.BatchMeter] in the store's database: one row per
// name and window. A request's reservations are one call of a function
// on the server, which locks their rows, checks every limit and adds
// every amount, or none; its settlements are another. Replicas racing
// for the last of a budget never together pass it. It is safe for
// concurrent use.
type Meter struct {
	s     *Store
	calls atomic.Int64
}

var _ kernel.BatchMeter = (*Meter)(nil)

// Meter returns the meter on s's database.
func (s *Store) Meter() *Meter { return &Meter{s: s} }

// Reserve implements [kernel.Meter]. The window is the process's clock's;
// replicas' clocks agree to well within a window.
func (m *Meter) Reserve(ctx context.Context, name string, amount, limit float64, period time.Duration) (time.Time, bool, time.Duration, error) {
	starts, refused, reset, err := m.ReserveAll(ctx, []kernel.Reservation{{Name: name, Amount: amount, Limit: limit, Period: period}})
	if err != nil {
		return time.Time{}, false, 0, err
	}
	if refused >= 0 {
		return kernel.Window(time.Now(), period), false, reset, nil
	}
	return starts[0], true, 0, nil
}

// Settle implements [kernel.Meter].
func (m *Meter) Settle(ctx context.Context, name string, delta float64, period time.Duration, start time.Time) error {
	return m.SettleAll(ctx, []kernel.Settlement{{Name: name, Delta: delta, Period: period, Start: start}})
}

// ReserveAll implements [kernel.BatchMeter]: one round trip.
func (m *Meter) ReserveAll(ctx context.Context, rs []kernel.Reservation) ([]time.Time, int, time.Duration, error) {
	if len(rs) == 0 {
		return nil, -1, 0, nil
	}
	now := time.Now()
	starts := make([]time.Time, len(rs))
	ks := make([]string, len(rs))
	amounts, limits := make([]float64, len(rs)), make([]float64, len(rs))
	ends := make([]int64, len(rs))
	for i, r := range rs {
		starts[i] = kernel.Window(now, r.Period)
		ks[i] = kernel.WindowKey(r.Name, starts[i])
		amounts[i], limits[i] = r.Amount, r.Limit
		if r.Period > 0 {
			ends[i] = starts[i].Add(r.Period).UnixNano()
		}
	}
	var refused int
	if err := m.s.pool.QueryRow(ctx, `SELECT toolgate_meter_reserve($1, $2, $3, $4)`, ks, amounts, limits, ends).Scan(&refused); err != nil {
		return nil, -1, 0, fmt.Errorf("postgres: meter: %w", err)
	}
	if refused < -1 || refused >= len(rs) {
		return nil, -1, 0, fmt.Errorf("postgres: meter: the server refused reservation %d of %d", refused, len(rs))
	}
	m.sweep(ctx, now)
	if refused >= 0 {
		var reset time.Duration
		if p := rs[refused].Period; p > 0 {
			reset = starts[refused].Add(p).Sub(now)
		}
		return nil, refused, reset, nil
	}
	return starts, -1, 0, nil
}

// SettleAll implements [kernel.BatchMeter]: one round trip. A window
// that is no longer kept is left alone; a total never goes below zero.
func (m *Meter) SettleAll(ctx context.Context, ss []kernel.Settlement) error {
	if len(ss) == 0 {
		return nil
	}
	ks, deltas := make([]string, len(ss)), make([]float64, len(ss))
	for i, st := range ss {
		ks[i], deltas[i] = kernel.WindowKey(st.Name, st.Start), st.Delta
	}
	if _, err := m.s.pool.Exec(ctx, `SELECT toolgate_meter_settle($1, $2)`, ks, deltas); err != nil {
		return fmt.Errorf("postgres: meter: %w", err)
	}
	return nil
}

// meterGrace is how long a window is kept after it ends, for the
// settlements of the requests that were in flight when it did.
const meterGrace = 10 * time.Minute

// sweep deletes, every sweepEvery reservations, the windows that ended
// more than meterGrace ago. Rows another transaction holds are skipped,
// so the sweep never waits for a request, nor deadlocks with one; it is
// best effort, and a failure is left for the next.
func (m *Meter) sweep(ctx context.Context, now time.Time) {
	if m.calls.Add(1)%sweepEvery != 0 {
		return
	}
	m.s.pool.Exec(context.WithoutCancel(ctx), `DELETE FROM toolgate_meters WHERE k IN
		(SELECT k FROM toolgate_meters WHERE ends > 0 AND ends < $1 FOR UPDATE SKIP LOCKED)`, now.Add(-meterGrace).UnixNano())
}
