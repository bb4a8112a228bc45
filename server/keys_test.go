// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// downStore is a key store that cannot be reached.
type downStore struct {
	kernel.KeyStore
	down    atomic.Bool
	lookups atomic.Int64
}

func (d *downStore) KeyByHash(ctx context.Context, h [sha256.Size]byte) (*kernel.Key, error) {
	d.lookups.Add(1)
	if d.down.Load() {
		return nil, errors.New("connection refused")
	}
	return d.KeyStore.KeyByHash(ctx, h)
}

// TestRuntimeKeys: a key made at run time authenticates as its
// principal, with its id and limits in the identity; a revocation is
// seen once the cache's second has passed; an expired key, a wrong key
// and a malformed one are refused alike (each looked up in the store);
// a store that cannot be reached refuses with 503 and does not count as
// a failed authentication.
func TestRuntimeKeys(t *testing.T) {
	ctx := context.Background()
	store := &downStore{KeyStore: kernel.NewMemoryKeyStore()}
	secret, k := kernel.NewKey("team-a")
	k.Models = []string{"gpt*"}
	store.CreateKey(ctx, k)
	expiredSecret, ek := kernel.NewKey("team-a")
	ek.Expires = time.Now().Add(-time.Minute)
	store.CreateKey(ctx, ek)

	now := time.Now()
	a, err := NewAuth(&AuthConfig{Keys: store, Now: func() time.Time { return now },
		Directory: func(id string) kernel.Principal { return kernel.Principal{ID: id, Roles: []string{"reader"}} }})
	if err != nil {
		t.Fatal(err)
	}
	var got Identity
	h := a.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got, _ = IdentityFrom(r.Context()) }), RouteAuth{Accept: Keys})
	send := func(tok string) int {
		req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
		req.RemoteAddr = "192.0.2.5:1"
		req.Header.Set("X-Api-Key", tok)
		rec := httptest.NewRecorder()
		got = Identity{}
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if c := send(secret); c != 200 || got.Principal.ID != "team-a" || got.KeyID != k.ID || got.Key == nil || got.Key.Models[0] != "gpt*" || got.Principal.Roles[0] != "reader" {
		t.Fatalf("a valid key: %d %+v", c, got)
	}
	for _, tok := range []string{expiredSecret, secret + "x", "not-even-a-key"} {
		before := store.lookups.Load()
		if c := send(tok); c != 401 {
			t.Errorf("%.12s…: %d, want 401", tok, c)
		}
		if store.lookups.Load() != before+1 {
			t.Errorf("%.12s…: not looked up in the store", tok)
		}
	}
	store.RevokeKey(ctx, k.ID, now)
	if c := send(secret); c != 200 {
		t.Errorf("revoked, within the cache's second: %d, want 200 (cached)", c)
	}
	now = now.Add(DefaultKeyCacheTTL)
	if c := send(secret); c != 401 {
		t.Errorf("revoked, a second later: %d, want 401", c)
	}
	store.down.Store(true)
	fresh, fk := kernel.NewKey("team-b")
	store.KeyStore.CreateKey(ctx, fk)
	for range AuthFailureBurst + 2 {
		if c := send(fresh); c != http.StatusServiceUnavailable {
			t.Fatalf("store down: %d, want 503", c)
		}
	}
	store.down.Store(false)
	if c := send(fresh); c != 200 {
		t.Errorf("store back: %d, want 200 (a store outage is no failed authentication)", c)
	}
}
