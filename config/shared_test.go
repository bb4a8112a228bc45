// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedState checks the audit, limits and grants keys: which store
// is built, and each setup refused at start-up with the key named.
func TestSharedState(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "audit.db")
	tests := []struct {
		name     string
		yaml     string
		opts     BuildOptions
		store    string
		limitsDB string
		err      string // a config error naming this
	}{
		{"memory-default", "{}", BuildOptions{}, LimitsMemory, "", ""},
		{"sqlite-default-beside-audit", "audit: {db: " + db + "}", BuildOptions{LimitsStore: LimitsSQLite}, LimitsSQLite, db, ""},
		{"sqlite-default-no-file", "{}", BuildOptions{LimitsStore: LimitsSQLite}, LimitsMemory, "", ""},
		{"file-says-memory", "audit: {db: " + db + "}\nlimits: {store: memory}", BuildOptions{LimitsStore: LimitsSQLite}, LimitsMemory, "", ""},
		{"own-file", "limits: {store: sqlite, db: " + filepath.Join(dir, "limits.db") + "}", BuildOptions{}, LimitsSQLite, filepath.Join(dir, "limits.db"), ""},
		{"sqlite-without-file", "limits: {store: sqlite}", BuildOptions{}, "", "", "limits.store: limits.store sqlite needs a file"},
		{"unknown-store", "limits: {store: etcd}", BuildOptions{}, "", "", `limits.store: limits.store "etcd" is not memory or sqlite`},
		{"db-without-sqlite", "limits: {db: x.db}", BuildOptions{}, "", "", "limits.db: limits.db is for limits.store sqlite"},
		{"postgres-dsn-unset", "audit: {store: postgres}", BuildOptions{}, "", "", "audit.dsn_env: TOOLGATE_AUDIT_DSN is not set"},
		{"postgres-own-dsn-env-unset", "audit: {store: postgres, dsn_env: PG_URL}", BuildOptions{}, "", "", "audit.dsn_env: PG_URL is not set"},
		{"postgres-with-db", "audit: {store: postgres, db: x.db}", BuildOptions{}, "", "", "audit.db: audit.db is for audit.store sqlite"},
		{"postgres-with-sqlite-file", "audit: {store: postgres}", BuildOptions{AuditDB: db}, "", "", "audit.store: a SQLite audit file was given"},
		{"dsn-env-with-sqlite", "audit: {dsn_env: PG_URL}", BuildOptions{}, "", "", "audit.dsn_env: audit.dsn_env is for audit.store postgres"},
		{"unknown-audit-store", "audit: {store: mysql}", BuildOptions{}, "", "", `audit.store: audit.store "mysql" is not sqlite or postgres`},
		{"key-env-unset", "audit: {db: " + db + ", key_env: TG_TEST_UNSET}", BuildOptions{}, "", "", "audit.key_env: TG_TEST_UNSET is not set"},
		{"key-env-set", "audit: {db: " + db + ", key_env: TG_TEST_KEY, max_args_bytes: 1000}", BuildOptions{Getenv: func(k string) string {
			if k == "TG_TEST_KEY" {
				return "a key of thirty-two bytes or more!"
			}
			return ""
		}}, LimitsMemory, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.yaml), "t.yaml")
			if err == nil {
				var b *Built
				b, err = f.Build(context.Background(), &tt.opts)
				if err == nil {
					defer b.Close(context.Background())
					if b.LimitsStore != tt.store || b.LimitsDB != tt.limitsDB || (b.Limiter != nil) != (tt.store == LimitsSQLite) {
						t.Errorf("limits store %q %q, want %q %q", b.LimitsStore, b.LimitsDB, tt.store, tt.limitsDB)
					}
				}
			}
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err = %v, want a config error with %q", err, tt.err)
			}
		})
	}
}
