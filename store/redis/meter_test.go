// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redis_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/store/redis"
)

// TestMeterBatchRace: fifty requests on three replicas, each reserving a
// key's tokens per minute and its principal's budget in one script (in
// either order), race for a budget of 100: exactly 33 of 3 fit, and a
// refused request took nothing from its other meter.
func TestMeterBatchRace(t *testing.T) {
	ctx := context.Background()
	meters := []*redis.Meter{open(t).Meter(), open(t).Meter(), open(t).Meter()}
	name := unique("race")
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
	if _, refused, _, err := meters[0].ReserveAll(ctx, []kernel.Reservation{{Name: name + "/tpm", Amount: 1e9 - 33, Limit: 1e9, Period: time.Minute}}); err != nil || refused != -1 {
		t.Errorf("tpm after the race: refused %d, err %v; want room for exactly 1e9-33", refused, err)
	}
	if _, refused, reset, _ := meters[1].ReserveAll(ctx, []kernel.Reservation{{Name: name + "/tpm", Amount: 1, Limit: 1e9, Period: time.Minute}}); refused != 0 || reset <= 0 || reset > time.Minute {
		t.Errorf("tpm is full: refused %d, reset %v; want 0 and the window's end", refused, reset)
	}
}

// TestMeterDown: with the server gone after start (a proxy in front of
// it, closed), reservations and settlements are errors, never a
// reservation made: the gateway fails closed.
func TestMeterDown(t *testing.T) {
	raw := os.Getenv(URLEnv)
	open(t) // skips without a server
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := redis.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := c.Meter()
	rs := []kernel.Reservation{{Name: unique("down"), Amount: 1, Limit: 10, Period: time.Minute}}
	if _, refused, _, err := m.ReserveAll(ctx, rs); err != nil || refused != -1 {
		t.Fatalf("before: refused %d, err %v", refused, err)
	}
	p.close()
	if starts, refused, _, err := m.ReserveAll(ctx, rs); err == nil {
		t.Errorf("reserve with the server down: starts %v, refused %d, no error", starts, refused)
	}
	if err := m.SettleAll(ctx, []kernel.Settlement{{Name: rs[0].Name, Delta: -1}}); err == nil {
		t.Error("settle with the server down: no error")
	}
}

// BenchmarkReserveAll is a request's meters on Redis: four reservations
// in one script, then four settlements in another.
func BenchmarkReserveAll(b *testing.B) {
	url := os.Getenv(URLEnv)
	if url == "" {
		b.Skipf("%s is not set", URLEnv)
	}
	c, err := redis.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	m := c.Meter()
	name := unique("bench")
	rs := []kernel.Reservation{{Name: name + "/tpm", Amount: 10, Limit: 1e15, Period: time.Minute}, {Name: name + "/usd", Amount: 0.01, Limit: 1e15, Period: 24 * time.Hour},
		{Name: name + "/tokens", Amount: 10, Limit: 1e15}, {Name: name + "/p", Amount: 10, Limit: 1e15, Period: 30 * 24 * time.Hour}}
	ss := make([]kernel.Settlement, len(rs))
	for b.Loop() {
		starts, refused, _, err := m.ReserveAll(context.Background(), rs)
		if err != nil || refused != -1 {
			b.Fatal(refused, err)
		}
		for i := range rs {
			ss[i] = kernel.Settlement{Name: rs[i].Name, Delta: -1, Period: rs[i].Period, Start: starts[i]}
		}
		if err := m.SettleAll(context.Background(), ss); err != nil {
			b.Fatal(err)
		}
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

func (p *proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
