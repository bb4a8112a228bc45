// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/store/sqlite"
)

// TestKeyStores runs one contract against the memory store and the
// SQLite one, the latter also across two handles on one file (two
// processes): a key made by one is found by the other by its secret's
// hash and by id, never by a wrong secret; a revocation is seen by both
// and keeps its first time; ids and hashes are unique.
func TestKeyStores(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keys.db")
	a, err := sqlite.OpenKeys(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.OpenKeys(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mem := kernel.NewMemoryKeyStore()
	for _, tt := range []struct {
		name        string
		write, read kernel.KeyStore
	}{{"memory", mem, mem}, {"sqlite", a, b}} {
		t.Run(tt.name, func(t *testing.T) {
			secret, k := kernel.NewKey("team-a")
			if !strings.HasPrefix(secret, kernel.KeyPrefix) || len(secret) != len(kernel.KeyPrefix)+43 {
				t.Fatalf("secret %q", secret)
			}
			k.Models, k.RPM, k.MaxParallel = []string{"gpt*"}, 60, 4
			k.Expires = time.Now().Add(time.Hour).UTC().Truncate(time.Second)
			k.Metadata = map[string]string{"team": "a"}
			if err := tt.write.CreateKey(ctx, k); err != nil {
				t.Fatal(err)
			}
			if err := tt.write.CreateKey(ctx, k); !errors.Is(err, kernel.ErrKeyExists) {
				t.Errorf("same key twice: %v", err)
			}
			got, err := tt.read.KeyByHash(ctx, kernel.HashKey(secret))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(k, got); diff != "" {
				t.Errorf("by hash (-want +got):\n%s", diff)
			}
			if _, err := tt.read.KeyByHash(ctx, kernel.HashKey(secret+"x")); !errors.Is(err, kernel.ErrNoKey) {
				t.Errorf("wrong secret: %v", err)
			}
			if got, err := tt.read.KeyByID(ctx, k.ID); err != nil || got.Principal != "team-a" {
				t.Errorf("by id: %v %v", got, err)
			}
			first := time.Now().UTC().Truncate(time.Millisecond)
			if err := tt.write.RevokeKey(ctx, k.ID, first); err != nil {
				t.Fatal(err)
			}
			if err := tt.write.RevokeKey(ctx, k.ID, first.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			got, _ = tt.read.KeyByHash(ctx, k.Hash)
			if !got.Revoked.Equal(first) || got.Check(time.Now()) == nil {
				t.Errorf("revoked %v (want %v), check %v", got.Revoked, first, got.Check(time.Now()))
			}
			if err := tt.write.RevokeKey(ctx, "key_nope", first); !errors.Is(err, kernel.ErrNoKey) {
				t.Errorf("revoke unknown: %v", err)
			}
			_, k2 := kernel.NewKey("team-b")
			tt.write.CreateKey(ctx, k2)
			all, err := tt.read.Keys(ctx)
			if err != nil || len(all) != 2 || all[0].ID != k.ID || all[1].ID != k2.ID {
				t.Errorf("keys: %v %v", all, err)
			}
		})
	}
}
