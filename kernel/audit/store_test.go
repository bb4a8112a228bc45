// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/kernel"
)

// fill opens a fresh database and appends n records through a kernel
// audit log.
func fill(t testing.TB, n int) (*Store, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		rec := kernel.AuditRecord{
			Time: time.Unix(1700000000+int64(i), 0), Principal: []string{"ada", "bob"}[i%2], Tool: []string{"get", "put", "del"}[i%3],
			Status: kernel.StatusOK, Effect: kernel.EffectAllow, Rule: "builtin.read", Code: kernel.CodeAllowed,
			Args: []byte(fmt.Sprintf(`{"i":%d}`, i)), Result: "ok",
		}
		if err := l.Append(ctx, &rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return s, path
}

func verify(t *testing.T, s *Store) []string {
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

// TestTamper edits the database with SQL, as someone with the file would,
// and checks verification names the damaged record.
func TestTamper(t *testing.T) {
	tests := []struct {
		name string
		sql  []string
		want []string
	}{
		{"intact", nil, nil},
		{"edit", []string{`UPDATE audit SET result = 'forged' WHERE seq = 5`}, []string{"5 edited"}},
		{"edit-hash-too", []string{`UPDATE audit SET principal = 'eve', hash = randomblob(32) WHERE seq = 5`}, []string{"5 edited", "5 edited"}},
		{"delete", []string{`DELETE FROM audit WHERE seq = 4`}, []string{"4 deleted"}},
		{"insert", []string{`INSERT INTO audit (` + columns + `) SELECT ` + columns + ` FROM audit WHERE seq = 3`}, []string{"3 inserted"}},
		{"reorder", []string{
			`UPDATE audit SET id = -1 WHERE seq = 6`,
			`UPDATE audit SET id = 6 WHERE seq = 7`,
			`UPDATE audit SET id = 7 WHERE id = -1`,
		}, []string{"6 reordered"}},
		{"truncate", []string{`DELETE FROM audit WHERE seq > 7`}, []string{"8 truncated"}},
		{"seq-text", []string{`UPDATE audit SET seq = 'five' WHERE seq = 5`}, []string{"5 malformed"}},
		{"time-text", []string{`UPDATE audit SET time = 'noon' WHERE seq = 3`}, []string{"3 malformed"}},
		{"is-error-2", []string{`UPDATE audit SET is_error = 2 WHERE seq = 2`}, []string{"2 malformed"}},
		{"hash-short", []string{`UPDATE audit SET hash = x'0102' WHERE seq = 4`}, []string{"4 malformed"}},
		{"prev-text", []string{`UPDATE audit SET prev = 'abc' WHERE seq = 1`}, []string{"1 malformed"}},
		{"null", []string{
			// The table rebuilt without its constraints, as someone
			// with the file may.
			`CREATE TABLE audit2 AS SELECT * FROM audit`,
			`DROP TABLE audit`,
			`ALTER TABLE audit2 RENAME TO audit`,
			`UPDATE audit SET is_error = NULL WHERE seq = 6`,
		}, []string{"6 malformed"}},
		{"head-text", []string{`UPDATE audit_head SET seq = 'ten'`}, []string{"10 malformed"}},
		{"head-hash", []string{`UPDATE audit_head SET hash = x'00'`}, []string{"10 malformed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := fill(t, 10)
			for _, q := range tt.sql {
				if _, err := s.DB().Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if diff := cmp.Diff(tt.want, verify(t, s)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReopenAndList(t *testing.T) {
	ctx := context.Background()
	s, path := fill(t, 9)
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s2})
	if err != nil {
		t.Fatal(err)
	}
	l.Append(ctx, &kernel.AuditRecord{Time: time.Unix(1800000000, 0), Principal: "cy", Tool: "get"})
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if p := verify(t, s2); len(p) != 0 {
		t.Fatalf("reopened chain: %v", p)
	}
	tests := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all", Filter{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"principal", Filter{Principal: "ada"}, []int64{1, 3, 5, 7, 9}},
		{"tool", Filter{Tool: "del"}, []int64{3, 6, 9}},
		{"both", Filter{Principal: "bob", Tool: "get"}, []int64{4}},
		{"since", Filter{Since: time.Unix(1700000007, 0)}, []int64{8, 9, 10}},
		{"limit", Filter{Limit: 2}, []int64{9, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			if err := s2.List(ctx, tt.f, func(r *kernel.AuditRecord) error { got = append(got, r.Seq); return nil }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkAppend measures sustained audit throughput into SQLite through
// the kernel's batched writer; records/s is the figure for BENCHMARKS.md.
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "audit.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s})
	if err != nil {
		b.Fatal(err)
	}
	rec := kernel.AuditRecord{Time: time.Now(), Principal: "rita", Tool: "weather", Status: kernel.StatusOK, Effect: kernel.EffectAllow,
		Rule: "builtin.read", Code: kernel.CodeAllowed, Args: []byte(`{"city":"Paris","units":"c","days":3,"detail":true,"lang":"en"}`), Result: "ok"}
	start, cpu0 := time.Now(), cpuTime()
	for b.Loop() {
		if err := l.Append(ctx, &rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/record")
}

// BenchmarkVerify1M verifies a log of one million records.
func BenchmarkVerify1M(b *testing.B) {
	s, _ := fill(b, 1_000_000)
	ctx := context.Background()
	cpu0 := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-cpu0)/1e9/float64(b.N), "cpu-s/op") }()
	for b.Loop() {
		rep, err := kernel.VerifyChain(ctx, s, nil)
		if err != nil || !rep.OK() || rep.Records != 1_000_000 {
			b.Fatalf("%v %v", err, rep)
		}
	}
}

// cpuTime is the process's CPU time, user and system: on a shared machine
// it says what the work cost when wall time measures the neighbours too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
