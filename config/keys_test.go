// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolgate/toolgate/internal/skipnote"
	"github.com/toolgate/toolgate/kernel"
)

// TestKeysPostgresChecked: the keys section's mistakes are errors naming
// the line, found when the file is parsed or, for an unset variable,
// when it is built or the CLI opens the store.
func TestKeysPostgresChecked(t *testing.T) {
	tests := []struct {
		name, yaml, want string
		build            bool
	}{
		{name: "unknown_store", yaml: "keys:\n  store: mysql\n", want: `t.yaml:2:10: keys.store: "mysql" is not sqlite, postgres or none`},
		{name: "db_with_postgres", yaml: "keys:\n  store: postgres\n  db: keys.db\n", want: "t.yaml:3:7: keys.db: keys.db is for keys.store sqlite"},
		{name: "dsn_env_with_sqlite", yaml: "keys:\n  dsn_env: KEYS_DSN\n", want: "t.yaml:2:12: keys.dsn_env: keys.dsn_env is for keys.store postgres"},
		{name: "audit_dsn_unset", yaml: "keys:\n  store: postgres\n", build: true, want: "t.yaml:2:10: keys.store: TOOLGATE_AUDIT_DSN is not set"},
		{name: "own_dsn_unset", yaml: "keys:\n  store: postgres\n  dsn_env: KEYS_DSN\n", build: true, want: "t.yaml:3:12: keys.dsn_env: KEYS_DSN is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.yaml), "t.yaml")
			if !tt.build {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("Parse: %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := f.Build(context.Background(), nil)
			if err == nil {
				b.Close(context.Background())
			}
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Build: %v, want %q", err, tt.want)
			}
			if _, err := f.OpenKeys(context.Background(), "", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenKeys: %v, want %q", err, tt.want)
			}
			if _, err := f.OpenSpend(context.Background(), "", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenSpend: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestKeysPostgres builds a gateway's config with keys.store postgres
// (its own dsn_env) and limits in memory: a key made through the build
// is found through the store the CLI opens, spend written by one is read
// by the other, and keys' tokens and budgets are metered in the
// database.
func TestKeysPostgres(t *testing.T) {
	dsn := keysTestDSN(t)
	ctx := context.Background()
	getenv := func(k string) string {
		if k == "KEYS_DSN" {
			return dsn
		}
		return ""
	}
	f, err := Parse([]byte(`keys: {store: postgres, dsn_env: KEYS_DSN}
providers:
  - {name: local, model_name: m, provider_backend: openai_compat, api_config: {base_url: "http://127.0.0.1:1/v1"}}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Build(ctx, &BuildOptions{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	if b.Keys == nil || b.Spend == nil || b.meter == nil || b.Auth.Keys == nil {
		t.Fatalf("keys %v, spend %v, meter %v, auth's keys %v", b.Keys, b.Spend, b.meter, b.Auth.Keys)
	}
	_, k := kernel.NewKey("team-a")
	if err := b.Keys.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	cli, err := f.OpenKeys(ctx, "", getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if got, err := cli.KeyByHash(ctx, k.Hash); err != nil || got.ID != k.ID {
		t.Errorf("the CLI's store: %v %v", got, err)
	}
	day := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	if err := b.Spend.AddSpend(ctx, []kernel.Spend{{Day: day, KeyID: k.ID, Principal: "team-a", Model: "m", Provider: "local", Requests: 2, CostUSD: 0.5}}); err != nil {
		t.Fatal(err)
	}
	sp, err := f.OpenSpend(ctx, "", getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	if rows, err := sp.Spend(ctx, day); err != nil || len(rows) != 1 || rows[0].Requests != 2 {
		t.Errorf("the CLI's spend: %v %v", rows, err)
	}
	if _, refused, _, err := kernel.ReserveAll(ctx, b.meter, []kernel.Reservation{{Name: "key:" + k.ID + "/tpm", Amount: 10, Limit: 1000, Period: time.Minute}}); err != nil || refused != -1 {
		t.Fatalf("reserve: refused %d, err %v", refused, err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM toolgate_meters WHERE k LIKE $1`, "key:"+k.ID+"/tpm@%").Scan(&n); err != nil || n != 1 {
		t.Errorf("the key's tpm window in the database: %d rows, %v; want 1", n, err)
	}
}

// keysTestDSN is TOOLGATE_TEST_POSTGRES_DSN with a schema of its own,
// dropped when the test ends; without a server the test is skipped, or
// fails when TOOLGATE_REQUIRE_STORES=1.
func keysTestDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("TOOLGATE_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatal("TOOLGATE_TEST_POSTGRES_DSN is not set, and TOOLGATE_REQUIRE_STORES=1")
		}
		skipnote.Skip(t, "PostgreSQL", "set TOOLGATE_TEST_POSTGRES_DSN; .ci/run starts one")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("tg_keys_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), dsn); err == nil {
			c.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("TOOLGATE_TEST_POSTGRES_DSN must be a postgres:// URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
