// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/toolgate/toolgate/internal/skipnote"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
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
		{"unknown-store", "limits: {store: etcd}", BuildOptions{}, "", "", `limits.store: limits.store "etcd" is not memory, sqlite or redis`},
		{"db-without-sqlite", "limits: {db: x.db}", BuildOptions{}, "", "", "limits.db: limits.db is for limits.store sqlite"},
		{"postgres-dsn-unset", "audit: {store: postgres}", BuildOptions{}, "", "", "audit.dsn_env: TOOLGATE_AUDIT_DSN is not set"},
		{"postgres-own-dsn-env-unset", "audit: {store: postgres, dsn_env: PG_URL}", BuildOptions{}, "", "", "audit.dsn_env: PG_URL is not set"},
		{"postgres-with-db", "audit: {store: postgres, db: x.db}", BuildOptions{}, "", "", "audit.db: audit.db is for audit.store sqlite"},
		{"postgres-with-sqlite-file", "audit: {store: postgres}", BuildOptions{AuditDB: db}, "", "", "audit.store: a SQLite audit file was given"},
		{"dsn-env-with-sqlite", "audit: {dsn_env: PG_URL}", BuildOptions{}, "", "", "audit.dsn_env: audit.dsn_env is for audit.store postgres"},
		{"unknown-audit-store", "audit: {store: mysql}", BuildOptions{}, "", "", `audit.store: audit.store "mysql" is not sqlite or postgres`},
		{"limits-redis-url-unset", "limits: {store: redis}", BuildOptions{}, "", "", "limits.url_env: TOOLGATE_REDIS_URL is not set"},
		{"grants-redis-url-unset", "grants: {store: redis, url_env: MY_REDIS}", BuildOptions{}, "", "", "grants.url_env: MY_REDIS is not set"},
		{"grants-unknown", "grants: {store: etcd}", BuildOptions{}, "", "", `grants.store: grants.store "etcd" is not memory, redis or postgres`},
		{"grants-postgres-dsn-unset", "grants: {store: postgres}", BuildOptions{}, "", "", "grants.dsn_env: TOOLGATE_AUDIT_DSN is not set"},
		{"grants-dsn-env-without-postgres", "grants: {dsn_env: PG}", BuildOptions{}, "", "", "grants.dsn_env: grants.dsn_env is for grants.store postgres"},
		{"url-env-without-redis", "limits: {url_env: R}", BuildOptions{}, "", "", "limits.url_env: limits.url_env is for limits.store redis"},
		{"key-env-unset", "audit: {db: " + db + ", key_env: TG_TEST_UNSET}", BuildOptions{}, "", "", "audit.key_env: TG_TEST_UNSET is not set"},
		{"checkpoint-key-unset", "audit: {db: " + db + ", checkpoint: {ed25519_key_env: TG_TEST_UNSET}}", BuildOptions{}, "", "", "audit.checkpoint.ed25519_key_env: TG_TEST_UNSET is not set"},
		{"checkpoint-key-not-a-key", "audit: {db: " + db + ", checkpoint: {ed25519_key_env: TG_TEST_KEY}}", BuildOptions{Getenv: func(k string) string { return map[string]string{"TG_TEST_KEY": "not a key"}[k] }}, "", "", "does not hold an Ed25519 key"},
		{"checkpoint-every-without-sink", "audit: {db: " + db + ", checkpoint: {every: 1m}}", BuildOptions{}, "", "", "audit.checkpoint.sink: is required"},
		{"checkpoint-every-too-often", "audit: {db: " + db + ", checkpoint: {every: 10ms, sink: x}}", BuildOptions{}, "", "", "audit.checkpoint.every: is under a second"},
		{"checkpoint-bad-public-key", "audit: {db: " + db + ", checkpoint: {ed25519_public_key: abc}}", BuildOptions{}, "", "", "audit.checkpoint.ed25519_public_key: is not an Ed25519 public key"},
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

// TestRedisStores builds limits and grants on Redis, when a server is
// given, and checks that two builds — two replicas — share a limit.
func TestRedisStores(t *testing.T) {
	url := os.Getenv("TOOLGATE_TEST_REDIS_URL")
	if url == "" {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatal("TOOLGATE_TEST_REDIS_URL is not set, and TOOLGATE_REQUIRE_STORES=1")
		}
		skipnote.Skip(t, "Redis", "set TOOLGATE_TEST_REDIS_URL; .ci/run starts one")
	}
	getenv := func(k string) string {
		if k == DefaultRedisURLEnv {
			return url
		}
		return ""
	}
	// A tool name of its own, so that runs do not share a window.
	name := fmt.Sprintf("hello_%d", time.Now().UnixNano())
	yaml := "limits: {store: redis, read: 3, window: 1h}\ngrants: {store: redis}\nsources:\n  - name: " + name +
		"\n    command: {argv: [printf, hi], safety: READ}\n"
	f, err := Parse([]byte(yaml), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var replicas []*Built
	for range 2 {
		b, err := f.Build(context.Background(), &BuildOptions{Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close(context.Background())
		if b.LimitsStore != StoreRedis {
			t.Fatalf("limits store %q", b.LimitsStore)
		}
		replicas = append(replicas, b)
	}
	var got []kernel.Status
	for i := range 5 {
		out, err := replicas[i%2].Kernel.Call(context.Background(), &kernel.Request{Principal: kernel.Principal{ID: "agent"}, Call: tool.Call{Name: name, Arguments: json.RawMessage(`{}`)}})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out.Status)
	}
	want := []kernel.Status{kernel.StatusOK, kernel.StatusOK, kernel.StatusOK, kernel.StatusDenied, kernel.StatusDenied}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("5 calls over two replicas, limit 3 (-want +got):\n%s", diff)
	}
}

// TestPostgresGrants builds two replicas with grants.store postgres, when
// a server is given: a grant redeemed on one is a replay on the other.
func TestPostgresGrants(t *testing.T) {
	dsn := os.Getenv("TOOLGATE_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatal("TOOLGATE_TEST_POSTGRES_DSN is not set, and TOOLGATE_REQUIRE_STORES=1")
		}
		skipnote.Skip(t, "PostgreSQL", "set TOOLGATE_TEST_POSTGRES_DSN; .ci/run starts one")
	}
	getenv := func(k string) string {
		switch k {
		case "PG":
			return dsn
		case kernel.GrantKeyEnv:
			return "a grant key shared by replicas!!"
		}
		return ""
	}
	f, err := Parse([]byte("grants: {store: postgres, dsn_env: PG}"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var replicas []*Built
	for range 2 {
		b, err := f.Build(context.Background(), &BuildOptions{Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close(context.Background())
		replicas = append(replicas, b)
	}
	ctx := context.Background()
	args := []byte(`{"order":"o-1"}`)
	tok := replicas[0].Kernel.Grants().Issue("will", "refund", args)
	if _, err := replicas[0].Kernel.Grants().Redeem(ctx, tok, "will", "refund", args); err != nil {
		t.Fatal(err)
	}
	if _, err := replicas[1].Kernel.Grants().Redeem(ctx, tok, "will", "refund", args); !errors.Is(err, kernel.ErrReplayed) {
		t.Errorf("redeemed again on the other replica: %v, want ErrReplayed", err)
	}
}

// TestReplicasShareState builds three replicas of one file — audit on
// PostgreSQL, limits and grants on Redis — and runs calls on all of them
// at once: exactly the limit is allowed, every call is in one chain that
// verifies, and a grant redeemed on one replica is a replay on another.
func TestReplicasShareState(t *testing.T) {
	pgURL, redisURL := os.Getenv("TOOLGATE_TEST_POSTGRES_DSN"), os.Getenv("TOOLGATE_TEST_REDIS_URL")
	if pgURL == "" || redisURL == "" {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatal("TOOLGATE_TEST_POSTGRES_DSN or TOOLGATE_TEST_REDIS_URL is not set, and TOOLGATE_REQUIRE_STORES=1")
		}
		if pgURL == "" {
			skipnote.Skip(t, "PostgreSQL", "set TOOLGATE_TEST_POSTGRES_DSN; .ci/run starts one")
		}
		skipnote.Skip(t, "Redis", "set TOOLGATE_TEST_REDIS_URL; .ci/run starts one")
	}
	ctx := context.Background()
	// A schema of its own for the audit tables.
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("tg_replicas_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	defer conn.Close(context.Background())
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	env := map[string]string{
		DefaultAuditDSNEnv: u.String(), DefaultRedisURLEnv: redisURL,
		"AUDIT_KEY": "an audit key of thirty-two bytes", kernel.GrantKeyEnv: "a grant key shared by replicas!!",
	}
	name := fmt.Sprintf("hello_%d", time.Now().UnixNano())
	const limit = 100
	yaml := fmt.Sprintf(`
audit: {store: postgres, key_env: AUDIT_KEY}
limits: {store: redis, read: %d, window: 1h}
grants: {store: redis}
sources:
  - name: %s
    command: {argv: [printf, hi], safety: READ}
`, limit, name)
	f, err := Parse([]byte(yaml), "replicas.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const replicas, workers, each = 3, 4, 25
	var built []*Built
	for range replicas {
		b, err := f.Build(ctx, &BuildOptions{Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close(context.Background())
		built = append(built, b)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[kernel.Status]int{}
	errs := make([]error, replicas*workers)
	for i := range replicas * workers {
		wg.Go(func() {
			k := built[i%replicas].Kernel
			for range each {
				out, err := k.Call(ctx, &kernel.Request{Principal: kernel.Principal{ID: "agent"}, Call: tool.Call{Name: name, Arguments: json.RawMessage(`{}`)}})
				if err != nil {
					errs[i] = err
					return
				}
				mu.Lock()
				counts[out.Status]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	total := replicas * workers * each
	if diff := cmp.Diff(map[kernel.Status]int{kernel.StatusOK: limit, kernel.StatusDenied: total - limit}, counts); diff != "" {
		t.Errorf("%d calls on %d replicas, limit %d (-want +got):\n%s", total, replicas, limit, diff)
	}
	for _, b := range built {
		if err := b.Audit.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := kernel.VerifyChain(ctx, built[0].Postgres, []byte(env["AUDIT_KEY"]))
	// A call that ran is an intent and an outcome; a denied one a record.
	if err != nil || !rep.OK() || rep.Records != int64(total+limit) || rep.UnknownCount != 0 {
		t.Errorf("one chain of %d records: %v\n%v", total+limit, err, rep)
	}
	args := []byte(`{"order":"o-1"}`)
	tok := built[0].Kernel.Grants().Issue("will", "refund", args)
	if _, err := built[1].Kernel.Grants().Redeem(ctx, tok, "will", "refund", args); err != nil {
		t.Fatalf("redeem on replica 2: %v", err)
	}
	if _, err := built[2].Kernel.Grants().Redeem(ctx, tok, "will", "refund", args); !errors.Is(err, kernel.ErrReplayed) {
		t.Errorf("replayed on replica 3: %v, want ErrReplayed", err)
	}
}
