// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/kernel/metertest"
	"github.com/toolgate/toolgate/store/sqlite"
)

// tally is a shared meter for tests: a [kernel.MemoryMeter]'s rules,
// with its totals readable, its calls counted and its failures switched
// on and off.
type tally struct {
	mu       sync.Mutex
	totals   map[string]float64
	reserves int // ReserveAll calls
	settles  int // SettleAll calls
	fail     bool
}

var errDown = errors.New("store down")

func newTally() *tally { return &tally{totals: map[string]float64{}} }

func (t *tally) Reserve(ctx context.Context, name string, amount, limit float64, period time.Duration) (time.Time, bool, time.Duration, error) {
	starts, refused, reset, err := t.ReserveAll(ctx, []kernel.Reservation{{Name: name, Amount: amount, Limit: limit, Period: period}})
	if err != nil || refused >= 0 {
		return time.Time{}, false, reset, err
	}
	return starts[0], true, 0, nil
}

func (t *tally) Settle(ctx context.Context, name string, delta float64, period time.Duration, start time.Time) error {
	return t.SettleAll(ctx, []kernel.Settlement{{Name: name, Delta: delta, Period: period, Start: start}})
}

func (t *tally) ReserveAll(_ context.Context, rs []kernel.Reservation) ([]time.Time, int, time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserves++
	if t.fail {
		return nil, -1, 0, errDown
	}
	now := time.Now()
	starts := make([]time.Time, len(rs))
	add := map[string]float64{}
	for i, r := range rs {
		starts[i] = kernel.Window(now, r.Period)
		k := kernel.WindowKey(r.Name, starts[i])
		if t.totals[k]+add[k]+r.Amount > r.Limit {
			var reset time.Duration
			if r.Period > 0 {
				reset = starts[i].Add(r.Period).Sub(now)
			}
			return nil, i, reset, nil
		}
		add[k] += r.Amount
	}
	for k, a := range add {
		t.totals[k] += a
	}
	return starts, -1, 0, nil
}

func (t *tally) SettleAll(_ context.Context, ss []kernel.Settlement) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.settles++
	if t.fail {
		return errDown
	}
	for _, st := range ss {
		k := kernel.WindowKey(st.Name, st.Start)
		t.totals[k] = max(t.totals[k]+st.Delta, 0)
	}
	return nil
}

func (t *tally) total(name string, start time.Time) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.totals[kernel.WindowKey(name, start)]
}

func (t *tally) calls() (reserves, settles int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reserves, t.settles
}

func (t *tally) setFail(fail bool) {
	t.mu.Lock()
	t.fail = fail
	t.mu.Unlock()
}

// The contract every meter keeps, on a leasing meter over SQLite, one
// process; and over two leasing meters on one SQLite file (two
// replicas). metertest's own tests run it over memory.
func TestLeasingMeterContract(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		s := openSQLite(t, filepath.Join(t.TempDir(), "meter.db"))
		m := kernel.NewLeasingMeter(s, nil)
		defer m.Close(context.Background())
		metertest.Run(t, m, m)
	})
	t.Run("sqlite_two_replicas", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "meter.db")
		a := kernel.NewLeasingMeter(openSQLite(t, path), nil)
		defer a.Close(context.Background())
		b := kernel.NewLeasingMeter(openSQLite(t, path), nil)
		defer b.Close(context.Background())
		metertest.Run(t, a, b)
	})
}

func openSQLite(t testing.TB, path string) *sqlite.Meter {
	t.Helper()
	m, err := sqlite.OpenMeter(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// Most requests are reserved and settled in memory: blocks grow with the
// demand, so a thousand requests need a handful of round trips.
func TestLeasingMeterFewRoundTrips(t *testing.T) {
	ctx := context.Background()
	back := newTally()
	m := kernel.NewLeasingMeter(back, nil)
	rs := []kernel.Reservation{
		{Name: "key:a/tpm", Amount: 30, Limit: 1e9, Period: time.Minute},
		{Name: "key:a/usd", Amount: 0.002, Limit: 1e6, Period: 24 * time.Hour},
		{Name: "principal:p/tokens", Amount: 30, Limit: 1e12},
	}
	const n = 1000
	for range n {
		starts, refused, _, err := m.ReserveAll(ctx, rs)
		if err != nil || refused != -1 {
			t.Fatalf("refused %d, err %v", refused, err)
		}
		ss := make([]kernel.Settlement, len(rs))
		for i, r := range rs {
			ss[i] = kernel.Settlement{Name: r.Name, Delta: -r.Amount / 3, Period: r.Period, Start: starts[i]}
		}
		if err := m.SettleAll(ctx, ss); err != nil {
			t.Fatal(err)
		}
	}
	reserves, settles := back.calls()
	if reserves > 20 || settles > 5 {
		t.Errorf("%d requests made %d reservations and %d settlements in the shared meter, want a handful", n, reserves, settles)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// 30 tokens reserved, 20 used, a thousand times; the cost likewise.
	now := time.Now()
	if got := back.total("principal:p/tokens", time.Time{}); got != 20*n {
		t.Errorf("tokens after Close: %v, want %v", got, 20*n)
	}
	if got, want := back.total("key:a/usd", kernel.Window(now, 24*time.Hour)), 0.002*2/3*n; got < want*(1-1e-9) || got > want*(1+1e-9) {
		t.Errorf("usd after Close: %v, want %v", got, want)
	}
}

// What the shared meter holds after each step: the leases, the requests
// in flight and what was settled.
func TestLeasingMeterSteps(t *testing.T) {
	type step struct {
		reserve float64 // > 0: reserve this much (limit 1000)
		settle  float64 // else settle the oldest request in flight by this delta
		ok      bool    // the reservation's outcome
		close   bool    // close the meter instead
		idle    bool    // wait for the leases to be given back instead
		shared  float64 // the shared meter's total after the step
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"first_block_is_four_requests", []step{
			{reserve: 10, ok: true, shared: 40},
			{reserve: 10, ok: true, shared: 40},
			{close: true, shared: 20},
		}},
		{"unused_returns_to_the_lease", []step{
			{reserve: 10, ok: true, shared: 40},
			{settle: -10, shared: 40},
			{close: true, shared: 0},
		}},
		{"overuse_taken_from_the_lease", []step{
			{reserve: 10, ok: true, shared: 40},
			{settle: 25, shared: 40},
			{close: true, shared: 35},
		}},
		{"overuse_beyond_the_lease_settled_in_the_store", []step{
			{reserve: 10, ok: true, shared: 40},
			{settle: 45, shared: 55},
			{close: true, shared: 55},
		}},
		{"idle_lease_given_back", []step{
			{reserve: 10, ok: true, shared: 40},
			{idle: true, shared: 10},
			{settle: -4, shared: 6},
			{close: true, shared: 6},
		}},
		{"giving_back_more_than_reserved_stops_at_zero", []step{
			{reserve: 10, ok: true, shared: 40},
			{settle: -1e9, shared: 0},
			{reserve: 1000, ok: true, shared: 1000},
			{close: true, shared: 1000},
		}},
		{"near_the_limit_no_lease", []step{
			{reserve: 400, ok: true, shared: 400},
			{reserve: 400, ok: true, shared: 800},
			{reserve: 300, ok: false, shared: 800},
			{reserve: 200, ok: true, shared: 1000},
			{settle: -400, shared: 600},
			{close: true, shared: 600},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				back := newTally()
				m := kernel.NewLeasingMeter(back, nil)
				defer m.Close(ctx)
				var inflight []time.Time
				for i, s := range tt.steps {
					switch {
					case s.close:
						if err := m.Close(ctx); err != nil {
							t.Fatal(err)
						}
					case s.idle:
						time.Sleep(1500 * time.Millisecond)
						synctest.Wait()
					case s.reserve > 0:
						start, ok, _, err := m.Reserve(ctx, "n", s.reserve, 1000, 0)
						if err != nil || ok != s.ok {
							t.Fatalf("step %d: reserve %v: ok %v, err %v", i, s.reserve, ok, err)
						}
						if ok {
							inflight = append(inflight, start)
						}
					default:
						if err := m.Settle(ctx, "n", s.settle, 0, inflight[0]); err != nil {
							t.Fatal(err)
						}
						inflight = inflight[1:]
					}
					if got := back.total("n", time.Time{}); got != s.shared {
						t.Fatalf("step %d: the shared meter holds %v, want %v", i, got, s.shared)
					}
				}
			})
		})
	}
}

// A lease of a window that has ended is dropped; a settlement of that
// window goes to the shared meter.
func TestLeasingMeterWindowEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		back := newTally()
		m := kernel.NewLeasingMeter(back, &kernel.LeaseConfig{Hold: time.Hour})
		defer m.Close(ctx)
		first, ok, _, err := m.Reserve(ctx, "tpm", 10, 100, time.Minute)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if got := back.total("tpm", first); got != 10 {
			t.Fatalf("first window: %v in the shared meter (a block of 40 is over 1/8 of 100), want 10", got)
		}
		time.Sleep(time.Minute)
		second, ok, _, err := m.Reserve(ctx, "tpm", 10, 1000, time.Minute)
		if err != nil || !ok || !second.Equal(first.Add(time.Minute)) {
			t.Fatalf("second window: %v %v %v", second, ok, err)
		}
		if got := back.total("tpm", second); got != 40 {
			t.Fatalf("second window: %v, want a block of 40", got)
		}
		if err := m.Settle(ctx, "tpm", -6, time.Minute, first); err != nil {
			t.Fatal(err)
		}
		if got := back.total("tpm", first); got != 4 {
			t.Errorf("the first window after its request settled: %v, want 4", got)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if got := back.total("tpm", second); got != 40 {
			t.Errorf("an ended window's lease is dropped, not given back: %v, want 40", got)
		}
	})
}

// A request whose limit changed (a key's budget edited) is not admitted
// on a lease made under the old one.
func TestLeasingMeterLimitChanges(t *testing.T) {
	ctx := context.Background()
	back := newTally()
	m := kernel.NewLeasingMeter(back, nil)
	defer m.Close(ctx)
	if _, ok, _, err := m.Reserve(ctx, "n", 10, 1000, 0); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, ok, _, err := m.Reserve(ctx, "n", 10, 15, 0); err != nil || ok {
		t.Fatalf("10 more under a limit cut to 15: ok %v, err %v; want a refusal (10 are in flight)", ok, err)
	}
	if got := back.total("n", time.Time{}); got != 10 {
		t.Errorf("after the limit was cut the lease is given back: %v, want 10", got)
	}
}

// With the shared meter down, a request that needs it fails and is not
// admitted; what it took from its leases goes back to them, and no
// lease admits another request until the shared meter answers.
func TestLeasingMeterFailsClosed(t *testing.T) {
	ctx := context.Background()
	back := newTally()
	m := kernel.NewLeasingMeter(back, nil)
	a := kernel.Reservation{Name: "a", Amount: 1, Limit: 1e6}
	b := kernel.Reservation{Name: "b", Amount: 1, Limit: 1e6}
	if _, refused, _, err := m.ReserveAll(ctx, []kernel.Reservation{a}); err != nil || refused != -1 {
		t.Fatal(refused, err)
	}
	back.setFail(true)
	starts, refused, _, err := m.ReserveAll(ctx, []kernel.Reservation{a, b})
	if !errors.Is(err, errDown) || starts != nil || refused != -1 {
		t.Fatalf("with the store down: starts %v, refused %d, err %v; want the store's error", starts, refused, err)
	}
	if _, _, _, err := m.ReserveAll(ctx, []kernel.Reservation{a}); !errors.Is(err, errDown) {
		t.Fatalf("a alone, which its lease has room for, once the store failed: %v; want the store's error", err)
	}
	back.setFail(false)
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := back.total("a", time.Time{}); got != 1 {
		t.Errorf("a after Close: %v, want the one request admitted", got)
	}
	if got := back.total("b", time.Time{}); got != 0 {
		t.Errorf("b after Close: %v, want nothing", got)
	}
	if _, _, _, err := m.Reserve(ctx, "a", 1, 1e6, 0); err != nil {
		t.Fatal(err)
	}
	if got := back.total("a", time.Time{}); got != 2 {
		t.Errorf("after Close a reservation goes to the shared meter: %v, want 2", got)
	}
}

// A lease that cannot be given back is tried again, and stays reserved
// meanwhile: the shared meter is never left short.
func TestLeasingMeterReturnFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		back := newTally()
		m := kernel.NewLeasingMeter(back, nil)
		if _, ok, _, err := m.Reserve(ctx, "n", 1, 1000, 0); err != nil || !ok {
			t.Fatal(ok, err)
		}
		back.setFail(true)
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		if got := back.total("n", time.Time{}); got != 4 {
			t.Fatalf("with the store down: %v, want the lease of 4 still reserved", got)
		}
		if err := m.Close(ctx); !errors.Is(err, errDown) {
			t.Fatalf("Close with the store down: %v", err)
		}
		back.setFail(false)
		if got := back.total("n", time.Time{}); got != 4 {
			t.Fatalf("%v, want 4", got)
		}
	})
}

// Several processes (leasing meters on one SQLite file) and fifty
// concurrent requests each race for one budget: what they admit never
// passes the limit, what they used beyond their reservations is all the
// budget is overshot by, and once they close the file holds exactly what
// was settled.
func TestLeasingMeterReplicasRace(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "meter.db")
	const replicas, each = 3, 50
	tests := []struct {
		name           string
		limit          float64
		fraction       float64 // of the leasing meters' config
		amount, used   float64
		wantAdmitted   int // at least
		settleInFlight bool
	}{
		// Nothing settled until all are admitted: 1000/30 = 33, almost
		// all reserved in the file one by one (1/8 of 1000 is 125).
		{name: "held", limit: 1000, amount: 30, used: 30, wantAdmitted: 30},
		// Each gives back a third as it goes: more fit.
		{name: "underused", limit: 1000, amount: 30, used: 20, settleInFlight: true, wantAdmitted: 33},
		// Each uses a third more: the overshoot is at most the overuse.
		{name: "overused", limit: 1000, amount: 30, used: 40, settleInFlight: true, wantAdmitted: 20},
		// A budget of a hundred requests: most leased in blocks.
		{name: "held_leased", limit: 3000, amount: 30, used: 30, wantAdmitted: 90},
		{name: "overused_leased", limit: 3000, amount: 30, used: 40, settleInFlight: true, wantAdmitted: 60},
		// Blocks of up to all that remains: a replica may lease what
		// another then lacks, but never more than the limit.
		{name: "held_greedy", limit: 3000, fraction: 1, amount: 30, used: 30, wantAdmitted: 50},
		{name: "underused_greedy", limit: 3000, fraction: 1, amount: 30, used: 10, settleInFlight: true, wantAdmitted: 90},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("race-%s-%d", tt.name, time.Now().UnixNano())
			period := 24 * time.Hour
			var ms []*kernel.LeasingMeter
			for range replicas {
				ms = append(ms, kernel.NewLeasingMeter(openSQLite(t, path), &kernel.LeaseConfig{Fraction: tt.fraction}))
			}
			var admitted atomic.Int64
			var mu sync.Mutex
			var starts []time.Time
			var wg sync.WaitGroup
			for _, m := range ms {
				for range each {
					wg.Go(func() {
						start, ok, _, err := m.Reserve(ctx, name, tt.amount, tt.limit, period)
						if err != nil {
							t.Error(err)
							return
						}
						if !ok {
							return
						}
						admitted.Add(1)
						if tt.settleInFlight {
							if err := m.Settle(ctx, name, tt.used-tt.amount, period, start); err != nil {
								t.Error(err)
							}
							return
						}
						mu.Lock()
						starts = append(starts, start)
						mu.Unlock()
					})
				}
			}
			wg.Wait()
			n := int(admitted.Load())
			if !tt.settleInFlight && float64(n)*tt.amount > tt.limit {
				t.Errorf("%d of %d admitted at %v each while none settled: over the limit of %v", n, replicas*each, tt.amount, tt.limit)
			}
			t.Logf("%d of %d admitted", n, replicas*each)
			if n < tt.wantAdmitted {
				t.Errorf("only %d admitted, want at least %d", n, tt.wantAdmitted)
			}
			// Held requests settle on any replica, not only their own.
			for i, start := range starts {
				if err := ms[i%replicas].Settle(ctx, name, tt.used-tt.amount, period, start); err != nil {
					t.Fatal(err)
				}
			}
			for _, m := range ms {
				if err := m.Close(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// What the file holds: the sums of leases taken and given
			// back in float64 may differ from n×used in the last bits.
			got := fileTotal(t, path, name, period)
			if want := float64(n) * tt.used; math.Abs(got-want) > 1e-9*want {
				t.Errorf("the file holds %v after Close, want %v (%d requests of %v)", got, want, n, tt.used)
			}
			if over := got - tt.limit; tt.used > tt.amount && over > float64(n)*(tt.used-tt.amount) {
				t.Errorf("overshot the limit by %v, more than the requests' overuse %v", over, float64(n)*(tt.used-tt.amount))
			}
		})
	}
}

// fileTotal reads the total of name's window of period from the meters
// table of the SQLite file at path.
func fileTotal(t *testing.T, path, name string, period time.Duration) float64 {
	t.Helper()
	db, err := audit.OpenDB(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var total float64
	k := kernel.WindowKey(name, kernel.Window(time.Now(), period))
	if err := db.QueryRow(`SELECT total FROM meters WHERE k = ?`, k).Scan(&total); err != nil {
		t.Fatalf("the meter %s: %v", k, err)
	}
	return total
}

// What another process holds leased is refused here for at most Hold:
// then the idle lease is given back and the request fits.
func TestLeasingMeterHeldElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		back := newTally()
		a := kernel.NewLeasingMeter(back, nil)
		defer a.Close(ctx)
		b := kernel.NewLeasingMeter(back, nil)
		defer b.Close(ctx)
		if _, ok, _, err := a.Reserve(ctx, "n", 10, 1000, 0); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if _, ok, _, err := b.Reserve(ctx, "n", 980, 1000, 0); err != nil || ok {
			t.Fatalf("980 while a holds a lease of 40: ok %v, err %v; want a refusal", ok, err)
		}
		time.Sleep(time.Second + 250*time.Millisecond)
		synctest.Wait()
		if _, ok, _, err := b.Reserve(ctx, "n", 980, 1000, 0); err != nil || !ok {
			t.Fatalf("980 once a's lease went back: ok %v, err %v", ok, err)
		}
	})
}

// A reservation of nothing (a free model's cost) is leased too: it costs
// the shared meter one call per Hold, and is refused when the total is
// over the limit. Negative amounts go to the shared meter as they are.
func TestLeasingMeterOddAmounts(t *testing.T) {
	ctx := context.Background()
	back := newTally()
	m := kernel.NewLeasingMeter(back, nil)
	defer m.Close(ctx)
	for range 100 {
		if _, ok, _, err := m.Reserve(ctx, "free", 0, 10, 0); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	if reserves, _ := back.calls(); reserves != 1 {
		t.Errorf("100 reservations of nothing: %d calls to the shared meter, want 1", reserves)
	}
	if err := back.Settle(ctx, "over", 20, 0, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _, err := m.Reserve(ctx, "over", 0, 10, 0); err != nil || ok {
		t.Errorf("nothing more of a total over its limit: ok %v, err %v; want a refusal", ok, err)
	}
	if _, ok, _, err := m.Reserve(ctx, "neg", -5, 10, 0); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got := back.total("neg", time.Time{}); got != -5 {
		t.Errorf("a negative reservation in the shared meter: %v, want -5 as the shared meter keeps it", got)
	}
}

// BenchmarkLeasingMeter is a request's four reservations and settlements
// on the kernel's memory meter, and on a leasing meter over it: what the
// leasing costs beside a meter in memory.
func BenchmarkLeasingMeter(b *testing.B) {
	rs := []kernel.Reservation{
		{Name: "key:k/tpm", Amount: 36, Limit: 1 << 40, Period: time.Minute},
		{Name: "key:k/usd", Amount: 0.00005, Limit: 1e12, Period: 24 * time.Hour},
		{Name: "principal:p/tokens", Amount: 36, Limit: 1 << 50, Period: 30 * 24 * time.Hour},
		{Name: "key:k/tokens", Amount: 36, Limit: 1 << 50},
	}
	run := func(b *testing.B, m kernel.Meter) {
		ctx := context.Background()
		ss := make([]kernel.Settlement, len(rs))
		b.ReportAllocs()
		for b.Loop() {
			starts, refused, _, err := kernel.ReserveAll(ctx, m, rs)
			if err != nil || refused >= 0 {
				b.Fatal(refused, err)
			}
			for i, r := range rs {
				ss[i] = kernel.Settlement{Name: r.Name, Delta: -r.Amount / 3, Period: r.Period, Start: starts[i]}
			}
			if err := kernel.SettleAll(ctx, m, ss); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("memory", func(b *testing.B) { run(b, kernel.NewMemoryMeter()) })
	b.Run("leased", func(b *testing.B) {
		m := kernel.NewLeasingMeter(kernel.NewMemoryMeter(), nil)
		defer m.Close(context.Background())
		run(b, m)
	})
}
