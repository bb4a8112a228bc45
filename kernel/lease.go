// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"
)

// LeaseConfig is the configuration of a [LeasingMeter]. The zero value
// is the default.
type LeaseConfig struct {
	// Hold bounds how long amounts stay leased to this process and unused
	// by it: a lease not drawn on, or not refilled, for Hold is given back
	// to the shared store; a name whose block the store refused is
	// reserved in the store request by request for Hold. If zero or
	// negative, 1 s.
	Hold time.Duration
	// Fraction is the most of a limit's remaining amount one block may
	// take, so that a budget near its end is not stranded in one process.
	// If zero, or outside (0, 1], 1/8.
	Fraction float64
}

// LeasingMeter is a [BatchMeter] that leases blocks of each limit's
// window from a shared meter (SQLite, PostgreSQL, Redis) and reserves and
// settles requests in memory against them, so that most requests cost no
// round trip to the store. It is safe for concurrent use; its leases are
// given back by a goroutine it owns, which [LeasingMeter.Close] stops.
//
// # Blocks
//
// A block is reserved in the shared meter as an ordinary reservation, so
// the blocks leased by every process, plus what was settled, never pass
// the limit. A block is sized for about a quarter of Hold of this
// process's demand on the name (at least the request's amount) and is
// reserved only if it is at most Fraction of the limit's remaining amount:
// a larger one is refused by the store and the next is an eighth as
// large; when even that is refused, the name is reserved in the shared
// meter request by request for Hold. A request is therefore refused only
// when the shared meter refuses it — or when the rest of the limit is
// leased to other processes, which give it back within Hold and a
// quarter of leasing or last using it (or use it themselves).
//
// # Settlement
//
// A settlement of a window this process holds a lease of is made in the
// lease: what a request did not use joins the lease, and what it used
// beyond its reservation is taken from the lease, and from the shared
// meter for what the lease lacks. The unused part of a lease goes back to
// the shared meter after Hold, when its window ends (then it is dropped:
// an ended window is of no use), when its limit changes, and on Close; so
// once every lease is back, the shared meter's totals are what was
// settled, to the rounding of float64 sums. A settlement of a window with no lease here goes to the
// shared meter as it is.
//
// A process that stops without Close leaves its leases reserved in the
// shared meter until their windows end: about a quarter of Hold of its
// demand per name (four requests' worth at first), beside its requests in flight, which the plain
// shared meter strands too.
//
// Windows are those of the shared meter: a lease is of the window the
// shared meter reserved its block in, [Window] of the time.
//
// An error of the shared meter is an error of the call: a request is not
// admitted when its blocks cannot be reserved, and once the shared meter
// fails, every lease ends, so that no request is admitted until it
// answers again (their unused parts are given back then). A store that
// fails while no request needs it is noticed when a lease is given back:
// within about Hold and a quarter, leases admit requests they were
// reserved for, never beyond the limit.
type LeasingMeter struct {
	// fixed at creation
	backing  Meter
	hold     time.Duration
	fraction float64
	done     chan struct{}
	wg       sync.WaitGroup

	// acq serializes the reservations that need the shared meter, so
	// that a lease running out makes one block, not one per request.
	acq sync.Mutex

	mu      sync.Mutex
	leases  map[leaseKey]*lease
	pending []Settlement // returns the shared meter failed to take
	closing bool         // Close was called
	closed  bool         // the leases are back: calls go to the shared meter
}

type leaseKey struct {
	name   string
	period time.Duration
}

// lease is this process's share of one name's window.
type lease struct {
	start  time.Time
	limit  float64 // the limit the block was reserved under
	active bool    // avail may be drawn on
	avail  float64 // leased, not reserved by a request
	// out is what this process put into the window beside avail:
	// requests reserved, over-use settled, less what they gave back. A
	// settlement giving back more than out goes to the shared meter,
	// whose total never goes below zero.
	out float64
	// For sizing the next block: the last block, when it was leased, and
	// what requests took of the lease since.
	block    float64
	acquired time.Time
	taken    float64
	used     time.Time // last drawn on
	perCall  time.Time // until then, reserve in the shared meter per request
}

// NewLeasingMeter returns a meter leasing from backing, which is used
// for nothing else by this process (other processes may share its
// store). Close it to give the leases back. A nil cfg is the default.
func NewLeasingMeter(backing Meter, cfg *LeaseConfig) *LeasingMeter {
	var c LeaseConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Hold <= 0 {
		c.Hold = time.Second
	}
	if !(c.Fraction > 0 && c.Fraction <= 1) {
		c.Fraction = 1.0 / 8
	}
	m := &LeasingMeter{backing: backing, hold: c.Hold, fraction: c.Fraction, done: make(chan struct{}), leases: map[leaseKey]*lease{}}
	m.wg.Go(m.run)
	return m
}

var _ BatchMeter = (*LeasingMeter)(nil)

// Reserve implements [Meter].
func (m *LeasingMeter) Reserve(ctx context.Context, name string, amount, limit float64, period time.Duration) (time.Time, bool, time.Duration, error) {
	starts, refused, reset, err := m.ReserveAll(ctx, []Reservation{{Name: name, Amount: amount, Limit: limit, Period: period}})
	if err != nil {
		return time.Time{}, false, 0, err
	}
	if refused >= 0 {
		return Window(time.Now(), period), false, reset, nil
	}
	return starts[0], true, 0, nil
}

// Settle implements [Meter].
func (m *LeasingMeter) Settle(ctx context.Context, name string, delta float64, period time.Duration, start time.Time) error {
	return m.SettleAll(ctx, []Settlement{{Name: name, Delta: delta, Period: period, Start: start}})
}

// leasable reports whether amount may be taken from a lease: a finite
// amount, not negative. (Zero, a free model's cost, needs a lease, even
// of nothing: it says the total was within the limit lately.) Anything
// else goes to the shared meter as it is.
func leasable(amount float64) bool {
	return amount >= 0 && !math.IsInf(amount, 1)
}

// ReserveAll implements [BatchMeter]: in memory when every reservation
// fits its lease, else with one batch in the shared meter for the blocks
// and per-request reservations it needs.
func (m *LeasingMeter) ReserveAll(ctx context.Context, rs []Reservation) ([]time.Time, int, time.Duration, error) {
	now := time.Now()
	starts := make([]time.Time, len(rs))
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ReserveAll(ctx, m.backing, rs)
	}
	ok := m.takeLocal(rs, starts, now)
	m.mu.Unlock()
	if ok {
		return starts, -1, 0, nil
	}
	return m.reserveShared(ctx, rs)
}

// takeLocal takes every reservation of rs from its lease, or none when
// one does not fit; m.mu is held.
func (m *LeasingMeter) takeLocal(rs []Reservation, starts []time.Time, now time.Time) bool {
	for i, r := range rs {
		l := m.leases[leaseKey{r.Name, r.Period}]
		if l == nil || !l.active || l.avail < r.Amount || l.limit != r.Limit || !leasable(r.Amount) || !l.start.Equal(Window(now, r.Period)) {
			for j := range i {
				l := m.leases[leaseKey{rs[j].Name, rs[j].Period}]
				l.avail += rs[j].Amount
				l.out -= rs[j].Amount
				l.taken -= rs[j].Amount
			}
			return false
		}
		l.avail -= r.Amount
		l.out += r.Amount
		l.taken += r.Amount
		l.used = now
		starts[i] = l.start
	}
	return true
}

// How a reservation of reserveShared is made.
const (
	fromLease = iota // from the lease, in memory
	newBlock         // a block leased from the shared meter, the reservation taken from it
	perCall          // in the shared meter, as it is
)

// reserveShared reserves rs with the shared meter's help: each
// reservation from its lease where it fits, else from a new block, else
// (no block to be had) in the shared meter as it is.
func (m *LeasingMeter) reserveShared(ctx context.Context, rs []Reservation) ([]time.Time, int, time.Duration, error) {
	m.acq.Lock()
	defer m.acq.Unlock()
	now := time.Now()
	starts := make([]time.Time, len(rs))
	mode := make([]int, len(rs))
	block := make([]float64, len(rs))
	var returns []Settlement
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ReserveAll(ctx, m.backing, rs)
	}
	for i, r := range rs {
		if !leasable(r.Amount) {
			mode[i] = perCall
			continue
		}
		l := m.lease(r.Name, r.Period, Window(now, r.Period), now, &returns)
		if l.active && l.limit != r.Limit {
			returns = l.giveBack(r.Name, r.Period, returns)
		}
		switch {
		case now.Before(l.perCall):
			mode[i] = perCall
		case l.active && l.avail >= r.Amount:
			mode[i] = fromLease
			l.avail -= r.Amount
			l.out += r.Amount
			l.taken += r.Amount
			l.used = now
			starts[i] = l.start
		default:
			mode[i] = newBlock
			block[i] = l.want(r.Amount, now, m.hold/4)
		}
	}
	m.mu.Unlock()
	m.giveBack(ctx, returns)
	returns = nil

	// undo gives back what was taken from leases.
	undo := func() {
		var back []Settlement
		m.mu.Lock()
		for i, r := range rs {
			if mode[i] == fromLease {
				back = m.settleLocal(Settlement{Name: r.Name, Delta: -r.Amount, Period: r.Period, Start: starts[i]}, back)
			}
		}
		m.mu.Unlock()
		if len(back) > 0 {
			SettleAll(context.WithoutCancel(ctx), m.backing, back)
		}
	}
	var idx []int
	var shared []Reservation
	for {
		idx, shared = idx[:0], shared[:0]
		for i, r := range rs {
			switch mode[i] {
			case newBlock:
				// Within the limit only if the block is at most fraction
				// of what remains: total + block/fraction <= limit.
				idx = append(idx, i)
				shared = append(shared, Reservation{Name: r.Name, Amount: block[i], Limit: r.Limit - block[i]*(1/m.fraction-1), Period: r.Period})
			case perCall:
				idx = append(idx, i)
				shared = append(shared, r)
			}
		}
		if len(shared) == 0 {
			return starts, -1, 0, nil
		}
		got, refused, reset, err := ReserveAll(ctx, m.backing, shared)
		if err != nil {
			undo()
			if ctx.Err() == nil { // not merely a request given up
				m.failed(nil)
			}
			return nil, -1, 0, err
		}
		if refused < 0 {
			m.mu.Lock()
			for j, i := range idx {
				r := rs[i]
				starts[i] = got[j]
				if !leasable(r.Amount) {
					continue
				}
				l := m.lease(r.Name, r.Period, got[j], now, &returns)
				if !l.start.Equal(got[j]) {
					continue // a window this process no longer leases
				}
				l.out += r.Amount
				if mode[i] == newBlock {
					l.avail += block[i] - r.Amount
					l.active, l.limit = true, r.Limit
					l.block, l.acquired, l.taken, l.used = block[i], now, r.Amount, now
				}
			}
			m.mu.Unlock()
			m.giveBack(ctx, returns)
			return starts, -1, 0, nil
		}
		i := idx[refused]
		if mode[i] == perCall {
			undo()
			return nil, i, reset, nil
		}
		// The block was more than the store would lease: a smaller one,
		// or none for a while, and then this process's lease of the name
		// is given back so that its request may have it.
		r := rs[i]
		m.mu.Lock()
		l := m.lease(r.Name, r.Period, Window(now, r.Period), now, &returns)
		if b := block[i] / 8; b > 0 && b >= 2*r.Amount {
			block[i], l.block = b, b
		} else {
			mode[i] = perCall
			l.perCall, l.block = now.Add(m.hold), r.Amount
			returns = l.giveBack(r.Name, r.Period, returns)
		}
		m.mu.Unlock()
		m.giveBack(ctx, returns)
		returns = nil
	}
}

// lease returns name's lease, made if need be, rolled over to the window
// of start; m.mu is held. The unused part of a lease of a window that has
// ended is dropped, of one that has not (a clock gone back) added to
// returns.
func (m *LeasingMeter) lease(name string, period time.Duration, start, now time.Time, returns *[]Settlement) *lease {
	k := leaseKey{name, period}
	l := m.leases[k]
	if l == nil {
		l = &lease{start: start}
		m.leases[k] = l
		return l
	}
	if !l.start.Equal(start) {
		if !ended(l.start, period, now) {
			*returns = l.giveBack(name, period, *returns)
		}
		*l = lease{start: start, block: l.block}
	}
	return l
}

// ended reports whether the window of period that started at start has
// ended by now.
func ended(start time.Time, period time.Duration, now time.Time) bool {
	return period > 0 && !now.Before(start.Add(period))
}

// giveBack ends l's lease, adding the settlement that gives its unused
// part back to the shared meter to returns.
func (l *lease) giveBack(name string, period time.Duration, returns []Settlement) []Settlement {
	if l.avail > 0 {
		returns = append(returns, Settlement{Name: name, Delta: -l.avail, Period: period, Start: l.start})
	}
	l.avail, l.active = 0, false
	return returns
}

// want is the next block of l for a request of amount: about target of
// the demand seen since the last block, from an eighth to eight times
// that block, at least amount.
func (l *lease) want(amount float64, now time.Time, target time.Duration) float64 {
	if l.block <= 0 || l.acquired.IsZero() {
		return 4 * amount
	}
	el := max(now.Sub(l.acquired).Seconds(), 1e-6)
	w := l.taken / el * target.Seconds()
	w = min(max(w, l.block/8), l.block*8)
	return max(w, amount)
}

// giveBack settles returns in the shared meter, keeping those it fails
// to take for the next round.
func (m *LeasingMeter) giveBack(ctx context.Context, returns []Settlement) {
	if len(returns) == 0 {
		return
	}
	if err := SettleAll(context.WithoutCancel(ctx), m.backing, returns); err != nil {
		m.failed(returns)
	}
}

// failed ends every lease after the shared meter failed, so that no
// request is admitted until it answers again, and keeps returns and the
// leases' unused parts to give back then.
func (m *LeasingMeter) failed(returns []Settlement) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending = append(m.pending, returns...)
	for k, l := range m.leases {
		if l.active && !ended(l.start, k.period, now) {
			m.pending = l.giveBack(k.name, k.period, m.pending)
		}
	}
}

// SettleAll implements [BatchMeter]: in the lease of each window this
// process leases, else in the shared meter.
func (m *LeasingMeter) SettleAll(ctx context.Context, ss []Settlement) error {
	var shared []Settlement
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return SettleAll(ctx, m.backing, ss)
	}
	for _, st := range ss {
		shared = m.settleLocal(st, shared)
	}
	m.mu.Unlock()
	if len(shared) == 0 {
		return nil
	}
	return SettleAll(ctx, m.backing, shared)
}

// settleLocal makes st in its window's lease, adding what the shared
// meter must take to shared; m.mu is held.
func (m *LeasingMeter) settleLocal(st Settlement, shared []Settlement) []Settlement {
	l := m.leases[leaseKey{st.Name, st.Period}]
	d := st.Delta
	if l == nil || !l.start.Equal(st.Start) || math.IsNaN(d) || math.IsInf(d, 0) {
		return append(shared, st)
	}
	switch {
	case !l.active:
		l.out = max(l.out+d, 0)
		return append(shared, st)
	case d >= 0:
		take := min(l.avail, d)
		l.avail -= take
		l.out += d
		if d > take {
			st.Delta = d - take
			shared = append(shared, st)
		}
	case -d <= l.out:
		l.out += d
		l.avail -= d
	default:
		// More given back than this process put in: the shared total
		// is clamped at zero, so the lease goes back first.
		shared = l.giveBack(st.Name, st.Period, shared)
		l.out = 0
		shared = append(shared, st)
	}
	return shared
}

// run gives back leases unused for hold, four times per hold, until
// Close.
func (m *LeasingMeter) run() {
	t := time.NewTicker(max(m.hold/4, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-m.done:
			return
		case now := <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*m.hold)
			m.giveBack(ctx, m.collect(now, false))
			cancel()
		}
	}
}

// collect ends the leases unused or unrefilled for hold (every lease
// when all), drops the state of windows that ended, and returns the
// settlements that give the leases and earlier failed returns back.
func (m *LeasingMeter) collect(now time.Time, all bool) []Settlement {
	m.mu.Lock()
	defer m.mu.Unlock()
	returns := m.pending
	m.pending = nil
	for k, l := range m.leases {
		if ended(l.start, k.period, now) {
			delete(m.leases, k) // nothing to give back to an ended window
			continue
		}
		if l.active && (all || now.Sub(l.used) >= m.hold || now.Sub(l.acquired) >= m.hold) {
			returns = l.giveBack(k.name, k.period, returns)
		}
		if !l.active && now.Sub(l.used) >= 64*m.hold && now.After(l.perCall) {
			// Long unused: only out is lost, and without it a settlement
			// giving back goes to the shared meter, which is right too.
			delete(m.leases, k)
		}
	}
	return returns
}

// Close gives every lease back to the shared meter and stops leasing:
// later calls go to the shared meter as they are. It does not close the
// shared meter.
func (m *LeasingMeter) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return nil
	}
	m.closing = true
	m.mu.Unlock()
	close(m.done)
	m.wg.Wait()
	m.acq.Lock() // no block is being leased
	defer m.acq.Unlock()
	returns := m.collect(time.Now(), true)
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	if len(returns) == 0 {
		return nil
	}
	if err := SettleAll(ctx, m.backing, returns); err != nil {
		return errors.Join(errLeaseReturn, err)
	}
	return nil
}

var errLeaseReturn = errors.New("kernel: leases not given back; they stay reserved until their windows end")
