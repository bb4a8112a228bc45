// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// TestGrantFailuresInOrder gives each token one or more defects and checks
// that verification reports the first in the documented order:
// revocation, expiry, signature, principal, capability, arguments.
func TestGrantFailuresInOrder(t *testing.T) {
	type env struct {
		gs, other *Grants
		ctx       context.Context
		t         *testing.T
	}
	args := []byte(`{"id":1}`)
	fresh := func(e env) string { return e.gs.Issue("ada", "get", args) }
	forged := func(e env) string { return e.other.Issue("ada", "get", args) }
	revoked := func(e env) string {
		tok := fresh(e)
		if err := e.gs.Revoke(e.ctx, tok); err != nil {
			e.t.Fatal(err)
		}
		return tok
	}
	tests := []struct {
		name      string
		token     func(env) string
		wait      time.Duration
		principal string
		tool      string
		args      string
		want      error
	}{
		{"valid", fresh, 0, "ada", "get", `{"id":1}`, nil},
		{"malformed", func(env) string { return "not-a-token" }, 0, "ada", "get", `{"id":1}`, ErrMalformedGrant},
		{"revoked", revoked, 0, "ada", "get", `{"id":1}`, ErrRevoked},
		{"revoked-beats-expired", revoked, 2 * time.Minute, "ada", "get", `{"id":1}`, ErrRevoked},
		{"expired", fresh, 2 * time.Minute, "ada", "get", `{"id":1}`, ErrExpired},
		{"expired-beats-forged", forged, 2 * time.Minute, "ada", "get", `{"id":1}`, ErrExpired},
		{"forged", forged, 0, "ada", "get", `{"id":1}`, ErrSignature},
		{"forged-beats-principal", forged, 0, "eve", "get", `{"id":1}`, ErrSignature},
		{"tampered-payload", func(e env) string { return tamper(fresh(e)) }, 0, "ada", "get", `{"id":1}`, ErrSignature},
		{"wrong-principal", fresh, 0, "eve", "get", `{"id":1}`, ErrWrongPrincipal},
		{"principal-beats-capability", fresh, 0, "eve", "delete", `{"id":1}`, ErrWrongPrincipal},
		{"wrong-capability", fresh, 0, "ada", "delete", `{"id":1}`, ErrWrongCapability},
		{"capability-beats-arguments", fresh, 0, "ada", "delete", `{"id":2}`, ErrWrongCapability},
		{"swapped-arguments", fresh, 0, "ada", "get", `{"id":2}`, ErrWrongArguments},
		{"reformatted-arguments", fresh, 0, "ada", "get", `{"id": 1}`, ErrWrongArguments},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gs, err := NewGrants(&GrantConfig{Key: testKey, TTL: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				other, _ := NewGrants(&GrantConfig{Key: []byte(strings.Repeat("k", 32)), TTL: time.Minute})
				e := env{gs: gs, other: other, ctx: context.Background(), t: t}
				tok := tt.token(e)
				time.Sleep(tt.wait)
				_, err = gs.Verify(e.ctx, tok, tt.principal, tt.tool, []byte(tt.args))
				if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
					t.Errorf("Verify = %v, want %v", err, tt.want)
				}
				if err != nil && !errors.Is(err, ErrGrant) {
					t.Errorf("%v does not match ErrGrant", err)
				}
			})
		})
	}
}

// tamper flips the principal inside the payload and re-encodes it,
// keeping the original signature.
func tamper(tok string) string {
	payload, sig, _ := strings.Cut(tok, ".")
	raw, err := b64.DecodeString(payload)
	if err != nil {
		panic(err)
	}
	g, ok := decodeGrant(raw)
	if !ok {
		panic("bad token")
	}
	g.Principal = "eve"
	return b64.EncodeToString(g.encode(nil)) + "." + sig
}

func TestGrantReplay(t *testing.T) {
	ctx := context.Background()
	gs, err := NewGrants(&GrantConfig{Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	tok := gs.Issue("ada", "pay", []byte(`{}`))
	if _, err := gs.Redeem(ctx, tok, "ada", "pay", []byte(`{}`)); err != nil {
		t.Fatalf("first redeem: %v", err)
	}
	if _, err := gs.Redeem(ctx, tok, "ada", "pay", []byte(`{}`)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("second redeem: %v, want ErrReplayed", err)
	}
}

// TestGrantSharedKey verifies a token on a second replica with the same
// key, taken from the environment.
func TestGrantSharedKey(t *testing.T) {
	t.Setenv(GrantKeyEnv, string(testKey))
	a, err := NewGrants(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewGrants(&GrantConfig{Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	tok := a.Issue("ada", "get", []byte(`{}`))
	if _, err := b.Verify(context.Background(), tok, "ada", "get", []byte(`{}`)); err != nil {
		t.Fatalf("replica b: %v", err)
	}
	if _, err := NewGrants(&GrantConfig{Key: []byte("short")}); err == nil {
		t.Fatal("short key accepted")
	}
}

// TestLimiterSlidingWindow checks the window slides: calls leave it one by
// one as time passes, not all at once at a boundary.
func TestLimiterSlidingWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l := NewMemoryLimiter()
		allow := func() bool {
			ok, _, err := l.Allow(ctx, "ada", "get", 3, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		for i := 0; i < 3; i++ {
			if !allow() {
				t.Fatalf("call %d refused", i)
			}
			time.Sleep(10 * time.Second)
		}
		// t=30s: three calls at 0, 10, 20.
		if allow() {
			t.Fatal("fourth call inside the window allowed")
		}
		ok, retry, _ := l.Allow(ctx, "ada", "get", 3, time.Minute)
		if ok || retry != 30*time.Second {
			t.Fatalf("retry = %v, want 30s", retry)
		}
		if ok, _, _ := l.Allow(ctx, "bob", "get", 3, time.Minute); !ok {
			t.Fatal("another principal shares the window")
		}
		time.Sleep(30 * time.Second) // t=60s: the call at 0 left.
		if !allow() {
			t.Fatal("call refused after the oldest left the window")
		}
		if allow() {
			t.Fatal("second call allowed though only one left")
		}
		if ok, _, _ := l.Allow(ctx, "ada", "get", -1, time.Minute); !ok {
			t.Fatal("negative limit is unlimited")
		}
	})
}

// TestGrantIDsUnique pins that ids stay unique when goroutines issue
// concurrently, each drawing from its own reserved block of the counter.
func TestGrantIDsUnique(t *testing.T) {
	g, err := NewGrants(&GrantConfig{Key: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 1000
	ids := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				got, err := g.Verify(context.Background(), g.Issue("ada", "get", []byte(`{}`)), "ada", "get", []byte(`{}`))
				if err != nil {
					t.Error(err)
					return
				}
				ids[w] = append(ids[w], got.ID)
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool, workers*each)
	for _, list := range ids {
		for _, id := range list {
			if seen[id] {
				t.Fatalf("id %s issued twice", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != workers*each {
		t.Errorf("%d distinct ids, want %d", len(seen), workers*each)
	}
}
