// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/toolgate/toolgate/internal/skipnote"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/store/postgres"
)

// DSNEnv names the server the tests use; .ci/run starts one and sets it.
const DSNEnv = "TOOLGATE_TEST_POSTGRES_DSN"

// testDSN returns a DSN for a schema of its own on the test server,
// dropped when the test ends. Without a server the test is skipped, or
// fails when TOOLGATE_REQUIRE_STORES=1 (as in CI).
func testDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatalf("%s is not set, and TOOLGATE_REQUIRE_STORES=1", DSNEnv)
		}
		skipnote.Skip(t, "PostgreSQL", "set "+DSNEnv+"; .ci/run starts one")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "tg_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			c.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
			c.Close(context.Background())
		}
	})
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		q.Set("application_name", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema + " application_name=" + schema
}

func open(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// write appends n records through an audit log on its own store (its
// own connections, as a replica has), flushing after each.
func write(ctx context.Context, dsn, who string, n int) error {
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s})
	if err != nil {
		return err
	}
	for i := range n {
		rec := kernel.AuditRecord{Time: time.Now(), Principal: who, Tool: "get", Status: kernel.StatusOK, Args: []byte(fmt.Sprintf(`{"i":%d}`, i)), Result: "ok"}
		if err := l.Append(ctx, &rec); err != nil {
			return err
		}
		if err := l.Flush(ctx); err != nil {
			return err
		}
	}
	return l.Close(ctx)
}

func problems(t *testing.T, s kernel.AuditStore) []string {
	t.Helper()
	rep, err := kernel.VerifyChain(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range rep.Problems {
		out = append(out, fmt.Sprintf("%d %s", p.Seq, p.Kind))
	}
	return out
}

// TestReplicas runs several writers, each with its own connections, on
// one database: one chain 1..N, verified intact.
func TestReplicas(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	const writers, each = 4, 50
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() { errs[i] = write(ctx, dsn, fmt.Sprintf("replica-%d", i), each) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	s := open(t, dsn)
	var got, want []int64
	if err := s.Scan(ctx, func(r *kernel.AuditRecord) error { got = append(got, r.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= writers*each; i++ {
		want = append(want, i)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sequence (-want +got):\n%s", diff)
	}
	if p := problems(t, s); len(p) != 0 {
		t.Errorf("verify: %v", p)
	}
	var n int
	if err := s.List(ctx, audit.Filter{Principal: "replica-2", Limit: 5}, func(*kernel.AuditRecord) error { n++; return nil }); err != nil || n != 5 {
		t.Errorf("list: %d records, %v", n, err)
	}
}

func TestTamper(t *testing.T) {
	tests := []struct {
		name string
		sql  []string
		want []string
	}{
		{"intact", nil, nil},
		{"edit", []string{`UPDATE toolgate_audit SET result = 'forged' WHERE seq = 5`}, []string{"5 edited"}},
		{"delete", []string{`DELETE FROM toolgate_audit WHERE seq = 4`}, []string{"4 deleted"}},
		{"truncate", []string{`DELETE FROM toolgate_audit WHERE seq > 7`}, []string{"8 truncated"}},
		{"hash-short", []string{`UPDATE toolgate_audit SET hash = '\x01'::bytea WHERE seq = 3`}, []string{"3 malformed"}},
		{"null", []string{`ALTER TABLE toolgate_audit ALTER COLUMN time DROP NOT NULL`, `UPDATE toolgate_audit SET time = NULL WHERE seq = 6`}, []string{"6 malformed"}},
		{"head-null", []string{`ALTER TABLE toolgate_audit_head ALTER COLUMN hash DROP NOT NULL`, `UPDATE toolgate_audit_head SET hash = NULL`}, []string{"10 malformed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn := testDSN(t)
			if err := write(context.Background(), dsn, "ada", 10); err != nil {
				t.Fatal(err)
			}
			s := open(t, dsn)
			for _, q := range tt.sql {
				if _, err := s.Pool().Exec(context.Background(), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if diff := cmp.Diff(tt.want, problems(t, s)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReopen checks that migrations apply once, a reopened store
// continues the chain, and Append refuses records from a stale head.
func TestReopen(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	if err := write(ctx, dsn, "ada", 3); err != nil {
		t.Fatal(err)
	}
	if err := write(ctx, dsn, "bob", 2); err != nil {
		t.Fatal(err)
	}
	s := open(t, dsn)
	if seq, _, err := s.Head(ctx); err != nil || seq != 5 {
		t.Fatalf("head %d, %v; want 5", seq, err)
	}
	if p := problems(t, s); len(p) != 0 {
		t.Fatalf("verify: %v", p)
	}
	err := s.Append(ctx, []kernel.AuditRecord{{Seq: 3, Principal: "eve"}})
	if !errors.Is(err, audit.ErrStaleHead) {
		t.Errorf("stale append: %v, want ErrStaleHead", err)
	}
}

// BenchmarkAppend is the audit log's cost per record on PostgreSQL:
// batched (the writer takes what queued while the last batch was
// written) and unbatched (a flush after each record, one transaction
// per call, as a replica under light load pays).
func BenchmarkAppend(b *testing.B) {
	for _, flush := range []bool{false, true} {
		b.Run(map[bool]string{false: "batched", true: "per-call"}[flush], func(b *testing.B) {
			dsn := benchDSN(b)
			ctx := context.Background()
			s, err := postgres.Open(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s})
			if err != nil {
				b.Fatal(err)
			}
			rec := kernel.AuditRecord{Time: time.Now(), Principal: "rita", Tool: "weather", Status: kernel.StatusOK, Args: []byte(`{"city":"Paris"}`), Result: "ok"}
			start := time.Now()
			for b.Loop() {
				if err := l.Append(ctx, &rec); err != nil {
					b.Fatal(err)
				}
				if flush {
					if err := l.Flush(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := l.Close(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
		})
	}
}

// benchDSN is testDSN for benchmarks.
func benchDSN(b *testing.B) string {
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		b.Skipf("%s is not set", DSNEnv)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("tg_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), dsn); err == nil {
			c.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestGrantsReplicas redeems and revokes grants through two issuers on
// two stores of one database, as two replicas.
func TestGrantsReplicas(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	key := []byte("a grant key of thirty-two bytes!")
	g1, err := kernel.NewGrants(&kernel.GrantConfig{Key: key, Revocations: open(t, dsn).Revocations()})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := kernel.NewGrants(&kernel.GrantConfig{Key: key, Revocations: open(t, dsn).Revocations()})
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
	tok3 := g1.Issue("will", "refund", args)
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts := 0
	for i := range 8 {
		wg.Go(func() {
			g := g1
			if i%2 == 1 {
				g = g2
			}
			if _, err := g.Redeem(ctx, tok3, "will", "refund", args); err == nil {
				mu.Lock()
				firsts++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firsts != 1 {
		t.Errorf("%d of 8 concurrent redemptions succeeded, want 1", firsts)
	}
}

// TestOutage makes the database refuse the log's writes mid-run (its
// connections killed, the table renamed away), then puts it back: the
// log fails while the writes fail, keeps what it acknowledged, and
// continues the chain after.
func TestOutage(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	s := open(t, dsn)
	admin := open(t, dsn)
	exec := func(q string) {
		t.Helper()
		if _, err := admin.Pool().Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(p string) *kernel.AuditRecord {
		return &kernel.AuditRecord{Time: time.Now(), Principal: p, Tool: "get", Status: kernel.StatusOK}
	}
	for _, p := range []string{"a", "b", "c"} {
		if err := l.Append(ctx, rec(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// This test's connections only (its schema is their application
	// name): other packages' tests may share the server.
	exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = current_setting('application_name') AND pid <> pg_backend_pid()`)
	exec(`ALTER TABLE toolgate_audit RENAME TO toolgate_audit_away`)
	if err := l.Append(ctx, rec("acknowledged")); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(ctx); err == nil || l.Err() == nil {
		t.Fatalf("flush with the table gone: %v; want an error, and the log failed", err)
	}
	if err := l.Append(ctx, rec("refused")); err == nil {
		t.Error("append while the store fails was accepted")
	}
	exec(`ALTER TABLE toolgate_audit_away RENAME TO toolgate_audit`)
	deadline := time.Now().Add(10 * time.Second)
	for l.Err() != nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := l.Err(); err != nil {
		t.Fatalf("the log did not recover: %v", err)
	}
	if err := l.Append(ctx, rec("after")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.Scan(ctx, func(r *kernel.AuditRecord) error {
		got = append(got, fmt.Sprintf("%d %s", r.Seq, r.Principal))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"1 a", "2 b", "3 c", "4 acknowledged", "5 after"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if p := problems(t, s); len(p) != 0 {
		t.Errorf("verify: %v", p)
	}
}
