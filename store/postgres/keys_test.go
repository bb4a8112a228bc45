// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/metertest"
	"github.com/toolgate/toolgate/store/postgres"
)

// TestKeys: a key made through one store (one replica) is found through
// another by its secret's hash and by id, never by a wrong secret; a
// revocation is seen by both and keeps its first time; ids and hashes
// are unique; keys list in the order they were made.
func TestKeys(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	a, b := open(t, dsn).Keys(), open(t, dsn).Keys()
	secret, k := kernel.NewKey("team-a")
	k.Models, k.RPM, k.MaxParallel, k.TPM = []string{"gpt*"}, 60, 4, 1000
	k.Budget = kernel.Budget{USD: 2.5, Tokens: 10000, Period: 24 * time.Hour}
	k.Expires = time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	k.Metadata = map[string]string{"team": "a"}
	if err := a.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateKey(ctx, k); !errors.Is(err, kernel.ErrKeyExists) {
		t.Errorf("same key twice: %v, want ErrKeyExists", err)
	}
	got, err := b.KeyByHash(ctx, kernel.HashKey(secret))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(k, got); diff != "" {
		t.Errorf("by hash (-want +got):\n%s", diff)
	}
	if _, err := b.KeyByHash(ctx, kernel.HashKey(secret+"x")); !errors.Is(err, kernel.ErrNoKey) {
		t.Errorf("wrong secret: %v, want ErrNoKey", err)
	}
	if got, err := b.KeyByID(ctx, k.ID); err != nil || got.Principal != "team-a" {
		t.Errorf("by id: %v %v", got, err)
	}
	if _, err := b.KeyByID(ctx, "key_nope"); !errors.Is(err, kernel.ErrNoKey) {
		t.Errorf("unknown id: %v, want ErrNoKey", err)
	}
	first := time.Now().UTC().Truncate(time.Microsecond)
	if err := a.RevokeKey(ctx, k.ID, first); err != nil {
		t.Fatal(err)
	}
	if err := b.RevokeKey(ctx, k.ID, first.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ = b.KeyByHash(ctx, k.Hash)
	if !got.Revoked.Equal(first) || got.Check(time.Now()) == nil {
		t.Errorf("revoked %v (want %v), check %v", got.Revoked, first, got.Check(time.Now()))
	}
	if err := a.RevokeKey(ctx, "key_nope", first); !errors.Is(err, kernel.ErrNoKey) {
		t.Errorf("revoke unknown: %v, want ErrNoKey", err)
	}
	var want []string
	want = append(want, k.ID)
	for i := range 3 {
		_, k2 := kernel.NewKey(fmt.Sprintf("team-%d", i))
		if err := b.CreateKey(ctx, k2); err != nil {
			t.Fatal(err)
		}
		want = append(want, k2.ID)
	}
	all, err := a.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range all {
		ids = append(ids, k.ID)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("keys in the order made (-want +got):\n%s", diff)
	}
}

// TestKeysDamaged: a row whose body is not a key is an error that does
// not echo the row.
func TestKeysDamaged(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	s := open(t, dsn)
	if _, err := s.Pool().Exec(ctx, `INSERT INTO toolgate_keys (id, hash, body) VALUES ('key_x', '\x00'::bytea, '{"metadata": "sekrit"')`); err != nil {
		t.Fatal(err)
	}
	_, err := s.Keys().KeyByID(ctx, "key_x")
	if err == nil || errors.Is(err, kernel.ErrNoKey) || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("damaged row: %v", err)
	}
	if _, err := s.Keys().Keys(ctx); err == nil {
		t.Error("Keys listed a damaged row")
	}
}

// TestSpend: two replicas add to the same day's row at once and their
// counts add up; other days and keys stay apart; rows of one key given
// twice in one call are summed; since filters by day.
func TestSpend(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	a, b := open(t, dsn).Spend(), open(t, dsn).Spend()
	d1 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	d2 := d1.Add(24 * time.Hour)
	row := func(day time.Time, key string, cost float64) kernel.Spend {
		return kernel.Spend{Day: day, KeyID: key, Principal: "team-a", Model: "gpt", Provider: "openai", Requests: 1, InputTokens: 100,
			CachedTokens: 10, CacheWriteTokens: 3, OutputTokens: 50, ReasoningTokens: 5, CostUSD: cost, Unpriced: 1}
	}
	if err := a.AddSpend(ctx, []kernel.Spend{row(d1, "k1", 0.5), row(d2.Add(time.Hour), "k1", 0.25)}); err != nil {
		t.Fatal(err)
	}
	// Forty writers, half on each replica, each adding to both keys of
	// day 2 in its own order.
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range 40 {
		st := a
		rows := []kernel.Spend{row(d2, "k1", 0.25), row(d2, "k2", 1), row(d2, "k1", 0)}
		if i%2 == 1 {
			st = b
			rows[0], rows[1] = rows[1], rows[0]
		}
		wg.Go(func() { errs[i] = st.AddSpend(ctx, rows) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	got, err := b.Spend(ctx, d2.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	k1 := row(d2, "k1", 0.25+40*0.25)
	k1.Requests, k1.InputTokens, k1.CachedTokens, k1.CacheWriteTokens, k1.OutputTokens, k1.ReasoningTokens, k1.Unpriced = 81, 8100, 810, 243, 4050, 405, 81
	k2 := row(d2, "k2", 40)
	k2.Requests, k2.InputTokens, k2.CachedTokens, k2.CacheWriteTokens, k2.OutputTokens, k2.ReasoningTokens, k2.Unpriced = 40, 4000, 400, 120, 2000, 200, 40
	if diff := cmp.Diff([]kernel.Spend{k1, k2}, got); diff != "" {
		t.Errorf("spend since day 2 (-want +got):\n%s", diff)
	}
	if all, err := a.Spend(ctx, time.Time{}); err != nil || len(all) != 3 {
		t.Errorf("%d rows in all (%v), want 3", len(all), err)
	}
	if err := a.AddSpend(ctx, nil); err != nil {
		t.Errorf("no rows: %v", err)
	}
}

// TestMeter runs the meter contract on two stores of one database, as
// two replicas have.
func TestMeter(t *testing.T) {
	dsn := testDSN(t)
	metertest.Run(t, open(t, dsn).Meter(), open(t, dsn).Meter())
}

// TestMeterBatchRace: fifty requests on three replicas, each reserving a
// key's tokens per minute and its principal's budget at once (in either
// order), race for a budget of 100: exactly 33 of 3 fit, none
// deadlocks, and the other meter of each refused request is untouched.
func TestMeterBatchRace(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	meters := []*postgres.Meter{open(t, dsn).Meter(), open(t, dsn).Meter(), open(t, dsn).Meter()}
	name := fmt.Sprintf("race-%d", time.Now().UnixNano())
	var won atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range 50 {
		rs := []kernel.Reservation{
			{Name: name + "/tpm", Amount: 1, Limit: 1e9, Period: time.Minute},
			{Name: name + "/budget", Amount: 3, Limit: 100, Period: 24 * time.Hour},
		}
		if i%2 == 1 {
			rs[0], rs[1] = rs[1], rs[0]
		}
		wg.Go(func() {
			_, refused, _, err := meters[i%3].ReserveAll(ctx, rs)
			errs[i] = err
			if err == nil && refused < 0 {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := won.Load(); n != 33 {
		t.Errorf("%d of 50 batches won a budget of 100 at 3 each, want 33", n)
	}
	// The tpm meter holds exactly the winners' 1 each: refused batches
	// took nothing.
	if _, refused, _, err := meters[0].ReserveAll(ctx, []kernel.Reservation{{Name: name + "/tpm", Amount: 1e9 - 33, Limit: 1e9, Period: time.Minute}}); err != nil || refused != -1 {
		t.Errorf("tpm after the race: refused %d, err %v; want room for exactly 1e9-33", refused, err)
	}
	if _, refused, _, _ := meters[1].ReserveAll(ctx, []kernel.Reservation{{Name: name + "/tpm", Amount: 1, Limit: 1e9, Period: time.Minute}}); refused != 0 {
		t.Errorf("tpm is full, yet 1 more fitted (refused %d)", refused)
	}
}

// TestStoreDown: with the server gone after start (a proxy in front of
// it, closed), key lookups, reservations, settlements and spend are
// errors, never a missing key or a reservation made: callers fail
// closed.
func TestStoreDown(t *testing.T) {
	dsn := testDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	u.Host = p.addr()
	s := open(t, u.String())
	_, k := kernel.NewKey("team-a")
	if err := s.Keys().CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	p.close()
	if _, err := s.Keys().KeyByHash(ctx, k.Hash); err == nil || errors.Is(err, kernel.ErrNoKey) {
		t.Errorf("key lookup with the server down: %v, want an error other than ErrNoKey", err)
	}
	if starts, refused, _, err := s.Meter().ReserveAll(ctx, []kernel.Reservation{{Name: "down", Amount: 1, Limit: 10}}); err == nil {
		t.Errorf("reserve with the server down: starts %v, refused %d, no error", starts, refused)
	}
	if err := s.Meter().SettleAll(ctx, []kernel.Settlement{{Name: "down", Delta: -1}}); err == nil {
		t.Error("settle with the server down: no error")
	}
	if err := s.Spend().AddSpend(ctx, []kernel.Spend{{KeyID: "k", Requests: 1}}); err == nil {
		t.Error("spend with the server down: no error")
	}
}

// proxy forwards TCP connections to a server until closed, when it
// drops them all: the server, as its clients see it, goes down.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	t.Cleanup(p.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
