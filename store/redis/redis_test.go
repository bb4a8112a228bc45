// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redis_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/skipnote"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/metertest"
	"github.com/toolgate/toolgate/store/redis"
)

// URLEnv names the server the tests use; .ci/run starts one and sets it.
const URLEnv = "TOOLGATE_TEST_REDIS_URL"

// open connects a client of its own, as a replica has; without a server
// the test is skipped, or fails when TOOLGATE_REQUIRE_STORES=1.
func open(t *testing.T) *redis.Client {
	t.Helper()
	url := os.Getenv(URLEnv)
	if url == "" {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatalf("%s is not set, and TOOLGATE_REQUIRE_STORES=1", URLEnv)
		}
		skipnote.Skip(t, "Redis", "set "+URLEnv+"; .ci/run starts one")
	}
	c, err := redis.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// unique names keys no other run of the tests uses.
func unique(name string) string { return fmt.Sprintf("%s-%d", name, time.Now().UnixNano()) }

// TestLimiterReplicas makes calls from three clients at once against one
// limit: exactly the limit is allowed, wherever the calls land.
func TestLimiterReplicas(t *testing.T) {
	ctx := context.Background()
	replicas := []*redis.Limiter{open(t).Limiter(), open(t).Limiter(), open(t).Limiter()}
	principal := unique("agent")
	const limit, workers, each = 25, 9, 10
	var allowed atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			for range each {
				ok, _, err := replicas[i%len(replicas)].Allow(ctx, principal, "refund", limit, time.Hour)
				if err != nil {
					errs[i] = err
					return
				}
				if ok {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := allowed.Load(); n != limit {
		t.Errorf("%d calls from %d replicas, limit %d: %d allowed", workers*each, len(replicas), limit, n)
	}
	ok, retry, err := replicas[0].Allow(ctx, principal, "refund", limit, time.Hour)
	if ok || err != nil || retry <= 0 || retry > time.Hour {
		t.Errorf("next call: ok %v retry %s err %v; want refused with a retry within the hour", ok, retry, err)
	}
}

func TestLimiterWindow(t *testing.T) {
	ctx := context.Background()
	l := open(t).Limiter()
	a, b := unique("a"), unique("b")
	const window = 150 * time.Millisecond
	tests := []struct {
		name      string
		principal string
		limit     int
		sleep     time.Duration
		want      bool
	}{
		{"first", a, 2, 0, true},
		{"second", a, 2, 0, true},
		{"third-refused", a, 2, 0, false},
		{"other-principal", b, 2, 0, true},
		{"zero-limit", b, 0, 0, false},
		{"no-limit", a, -1, 0, true},
		{"after-window", a, 2, window + 20*time.Millisecond, true},
	}
	for _, tt := range tests {
		time.Sleep(tt.sleep)
		ok, _, err := l.Allow(ctx, tt.principal, "t", tt.limit, window)
		if err != nil || ok != tt.want {
			t.Errorf("%s: ok %v, err %v; want %v", tt.name, ok, err, tt.want)
		}
	}
}

// TestGrantsReplicas redeems and revokes grants through two issuers
// sharing a key and Redis, as two replicas: a grant used on one is a
// replay on the other, and a revocation on one holds on the other.
func TestGrantsReplicas(t *testing.T) {
	ctx := context.Background()
	key := []byte("a grant key of thirty-two bytes!")
	g1, err := kernel.NewGrants(&kernel.GrantConfig{Key: key, Revocations: open(t).Revocations()})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := kernel.NewGrants(&kernel.GrantConfig{Key: key, Revocations: open(t).Revocations()})
	if err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"order":"o-1"}`)
	tok := g1.Issue("will", "refund", args)
	if _, err := g1.Redeem(ctx, tok, "will", "refund", args); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if _, err := g2.Redeem(ctx, tok, "will", "refund", args); !errors.Is(err, kernel.ErrReplayed) {
		t.Errorf("second use on the other replica: %v, want ErrReplayed", err)
	}
	tok2 := g2.Issue("will", "refund", args)
	if err := g1.Revoke(ctx, tok2); err != nil {
		t.Fatal(err)
	}
	if _, err := g2.Verify(ctx, tok2, "will", "refund", args); !errors.Is(err, kernel.ErrRevoked) {
		t.Errorf("revoked on the other replica: %v, want ErrRevoked", err)
	}
	// Many replicas redeeming one token at once: exactly one succeeds.
	tok3 := g1.Issue("will", "refund", args)
	var firsts atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			g := g1
			if i%2 == 1 {
				g = g2
			}
			if _, err := g.Redeem(ctx, tok3, "will", "refund", args); err == nil {
				firsts.Add(1)
			}
		})
	}
	wg.Wait()
	if n := firsts.Load(); n != 1 {
		t.Errorf("%d of 8 concurrent redemptions succeeded, want 1", n)
	}
}

func TestOpenRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	// A port nothing listens on: Open fails, and the error does not
	// carry the URL's password.
	_, err := redis.Open(ctx, "redis://:sekrit-password@127.0.0.1:1/0")
	if err == nil {
		t.Fatal("Open succeeded against a closed port")
	}
	if strings.Contains(err.Error(), "sekrit") {
		t.Errorf("error leaks the password: %v", err)
	}
	if _, err := redis.Open(ctx, "not a url sekrit-password"); err == nil || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("bad URL: %v", err)
	}
}

// BenchmarkAllow is the cost of one rate-limit decision: one script
// call, a round trip to the server.
func BenchmarkAllow(b *testing.B) {
	url := os.Getenv(URLEnv)
	if url == "" {
		b.Skipf("%s is not set", URLEnv)
	}
	c, err := redis.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	l := c.Limiter()
	principal := unique("bench")
	for b.Loop() {
		if ok, _, err := l.Allow(context.Background(), principal, "weather", 1<<30, time.Minute); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// TestMeter runs the meter contract on two clients of one server, as two
// replicas have.
func TestMeter(t *testing.T) {
	metertest.Run(t, open(t).Meter(), open(t).Meter())
}
