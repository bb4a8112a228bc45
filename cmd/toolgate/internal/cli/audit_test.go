// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/internal/skipnote"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

// auditDB runs n calls of the example config into a fresh database.
func auditDB(t *testing.T, n int) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "audit.db")
	for range n {
		if out, _, err := runCLI(t, "call", "--config", exampleConfig, "--db", db, "--principal", "rita", "weather", `{"city":"Paris"}`); err != nil {
			t.Fatalf("call: %v\n%s", err, out)
		}
	}
	return db
}

// callStatuses runs audit list --json with args and counts the calls in
// the log by their final status. A call that ran is an intent and an
// outcome, or one record when both reached the database in one batch (see
// kernel.CallMerger), which depends on timing; a refused call is one
// record. Intents still without an outcome count as "no outcome".
func callStatuses(t *testing.T, args ...string) map[string]int {
	t.Helper()
	out, _, err := runCLI(t, append([]string{"audit", "list", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("audit list: %v\n%s", err, out)
	}
	var recs []kernel.AuditRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("audit list: %v\n%s", err, out)
	}
	counts := map[string]int{}
	open := 0
	for _, r := range recs {
		switch r.Kind {
		case kernel.RecordIntent:
			open++
		case kernel.RecordOutcome:
			open--
			counts[string(r.Status)]++
		case "":
			counts[string(r.Status)]++
		}
	}
	if open != 0 {
		counts["no outcome"] = open
	}
	return counts
}

// TestAuditVerifyMalformed checks that verify names the record of a
// malformed row and exits 1 (a problem found), not 2.
func TestAuditVerifyMalformed(t *testing.T) {
	tests := []struct {
		name, sql, want string
	}{
		{"seq-text", `UPDATE audit SET seq = 'two' WHERE seq = 2`, "record 2 malformed: column seq holds text"},
		{"time-text", `UPDATE audit SET time = 'noon' WHERE seq = 3`, "record 3 malformed: column time holds text"},
		{"hash-length", `UPDATE audit SET hash = x'00' WHERE seq = 1`, "record 1 malformed: column hash is NULL or 1 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := auditDB(t, 3)
			st, err := audit.Open(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.DB().Exec(tt.sql); err != nil {
				t.Fatal(err)
			}
			st.Close()
			out, _, err := runCLI(t, "audit", "verify", "--db", db)
			if !errors.Is(err, ErrProblem) || ExitCode(err) != 1 || !strings.Contains(out, tt.want) {
				t.Errorf("err = %v (exit %d), want exit 1 and %q in:\n%s", err, ExitCode(err), tt.want, out)
			}
		})
	}
}

// TestAuditKeyEnvUnset checks that a config naming an unset key variable
// is refused, by call and by verify, naming the variable.
func TestAuditKeyEnvUnset(t *testing.T) {
	data, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "keyed.yaml")
	keyed := strings.Replace(string(data), "  db: audit.db\n", "  db: "+filepath.Join(dir, "audit.db")+"\n  key_env: TOOLGATE_TEST_UNSET_AUDIT_KEY\n", 1)
	if err := os.WriteFile(cfg, []byte(keyed), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runCLI(t, "call", "--config", cfg, "--principal", "rita", "weather", `{"city":"Paris"}`)
	if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "TOOLGATE_TEST_UNSET_AUDIT_KEY is not set") {
		t.Errorf("call: err = %v, want the unset variable named", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "audit.db")); err == nil {
		t.Errorf("call wrote an unkeyed log")
	}
	_, _, err = runCLI(t, "audit", "verify", "--config", cfg, "--db", auditDB(t, 1))
	if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "TOOLGATE_TEST_UNSET_AUDIT_KEY is not set") {
		t.Errorf("verify: err = %v, want the unset variable named", err)
	}
}

// limitChildEnv, when set, makes TestCallLimitsAcrossProcesses a process
// that runs callsPerChild `toolgate call`s of the config it names and
// prints each status.
const limitChildEnv = "TOOLGATE_CLI_TEST_LIMIT_CONFIG"

const limitConfig = `
audit:
  db: DB
limits:
  read: 10
  window: 1h
sources:
  - name: hello
    command:
      description: Say hello.
      argv: [printf, hello]
      safety: READ
`

// TestCallLimitsAcrossProcesses runs `toolgate call` in several
// processes against a read limit of 10: exactly 10 calls are allowed,
// whichever process makes them, and the audit log stays one chain.
func TestCallLimitsAcrossProcesses(t *testing.T) {
	const callsPerChild = 3
	if cfg := os.Getenv(limitChildEnv); cfg != "" {
		for range callsPerChild {
			out, _, err := runCLI(t, "call", "--config", cfg, "--principal", "agent", "hello")
			if err != nil && !errors.Is(err, ErrProblem) {
				t.Fatalf("call: %v\n%s", err, out)
			}
			var rep struct {
				Status string `json:"status"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			fmt.Printf("status=%s\n", rep.Status)
		}
		return
	}
	if _, err := exec.LookPath("printf"); err != nil {
		t.Skip("printf not installed")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "audit.db")
	cfg := filepath.Join(dir, "toolgate.yaml")
	if err := os.WriteFile(cfg, []byte(strings.Replace(limitConfig, "DB", db, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	const procs = 4
	var wg sync.WaitGroup
	outs := make([]string, procs)
	errs := make([]error, procs)
	for i := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCallLimitsAcrossProcesses$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), limitChildEnv+"="+cfg)
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		})
	}
	wg.Wait()
	counts := map[string]int{}
	for i := range procs {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
		for _, line := range strings.Split(outs[i], "\n") {
			if s, ok := strings.CutPrefix(line, "status="); ok {
				counts[s]++
			}
		}
	}
	if diff := cmp.Diff(map[string]int{"ok": 10, "denied": procs*callsPerChild - 10}, counts); diff != "" {
		t.Errorf("statuses of %d calls, limit 10 (-want +got):\n%s", procs*callsPerChild, diff)
	}
	if out, _, err := runCLI(t, "audit", "verify", "--db", db); err != nil || !strings.Contains(out, "intact") {
		t.Errorf("verify: %v\n%s", err, out)
	}
	// Every call is in the log once, with the status its caller saw.
	if diff := cmp.Diff(counts, callStatuses(t, "--db", db)); diff != "" {
		t.Errorf("calls in the audit log (-want +got):\n%s", diff)
	}
}

// TestAuditCheckpoint deletes the last records and rewrites the head to
// match, which verify alone cannot see, and checks that verify against a
// checkpoint names the truncation.
func TestAuditCheckpoint(t *testing.T) {
	db := auditDB(t, 5)
	cp := filepath.Join(t.TempDir(), "cp.json")
	if out, stderr, err := runCLI(t, "audit", "checkpoint", "--db", db, "-o", cp); err != nil || !strings.Contains(stderr, "unsigned") {
		t.Fatalf("checkpoint: %v\n%s%s", err, out, stderr)
	}
	if out, _, err := runCLI(t, "audit", "verify", "--db", db, "--checkpoint", cp); err != nil {
		t.Fatalf("verify intact: %v\n%s", err, out)
	}
	st, err := audit.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DELETE FROM audit WHERE seq > 3`,
		`UPDATE audit_head SET seq = 3, hash = (SELECT hash FROM audit WHERE seq = 3)`,
	} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if out, _, err := runCLI(t, "audit", "verify", "--db", db); err != nil {
		t.Fatalf("without the checkpoint the truncation is invisible, yet: %v\n%s", err, out)
	}
	out, _, err := runCLI(t, "audit", "verify", "--db", db, "--checkpoint", cp)
	if ExitCode(err) != 1 || !strings.Contains(out, "record 4 truncated: the log ends at record 3, but the checkpoint of") {
		t.Errorf("verify --checkpoint: %v\n%s", err, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"version":9}`), 0o644)
	if _, _, err := runCLI(t, "audit", "verify", "--db", db, "--checkpoint", bad); ExitCode(err) != 2 {
		t.Errorf("malformed checkpoint: %v, want exit 2", err)
	}
}

// postgresDSN returns a DSN on the test server with a schema of its own,
// or skips (fails with TOOLGATE_REQUIRE_STORES=1) without one.
func postgresDSN(t *testing.T) string {
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
	schema := fmt.Sprintf("tg_cli_%d", time.Now().UnixNano())
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

// TestAuditPostgres runs calls into a PostgreSQL audit log, then list,
// verify and checkpoint against it through the config, and a truncation
// with the head rewritten, found only against the checkpoint.
func TestAuditPostgres(t *testing.T) {
	dsn := postgresDSN(t)
	t.Setenv("TOOLGATE_TEST_AUDIT_DSN", dsn)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "pg.yaml")
	yaml := strings.Replace(limitConfig, "  db: DB\n", "  store: postgres\n  dsn_env: TOOLGATE_TEST_AUDIT_DSN\n", 1)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if out, _, err := runCLI(t, "call", "--config", cfg, "--principal", "agent", "hello"); err != nil {
			t.Fatalf("call: %v\n%s", err, out)
		}
	}
	if out, _, err := runCLI(t, "audit", "list", "--config", cfg); err != nil || strings.Count(out, "\tagent\thello\tok") != 4 {
		t.Errorf("list: %v\n%s", err, out)
	}
	cp := filepath.Join(dir, "cp.json")
	if _, _, err := runCLI(t, "audit", "checkpoint", "--config", cfg, "-o", cp); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCLI(t, "audit", "verify", "--config", cfg, "--checkpoint", cp); err != nil || !strings.Contains(out, "intact") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	if got := callStatuses(t, "--config", cfg); !cmp.Equal(got, map[string]int{"ok": 4}) {
		t.Errorf("calls in the audit log: %v, want 4 ok", got)
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range []string{
		`DELETE FROM toolgate_audit WHERE seq > 2`,
		`UPDATE toolgate_audit_head SET seq = 2, hash = (SELECT hash FROM toolgate_audit WHERE seq = 2)`,
	} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if out, _, err := runCLI(t, "audit", "verify", "--config", cfg); err != nil {
		t.Errorf("plain verify cannot see the truncation, yet: %v\n%s", err, out)
	}
	out, _, err := runCLI(t, "audit", "verify", "--config", cfg, "--checkpoint", cp)
	if ExitCode(err) != 1 || !strings.Contains(out, "record 3 truncated") {
		t.Errorf("verify --checkpoint: %v\n%s", err, out)
	}
}

// TestAuditListKind: audit list --kind keeps only the records of one kind
// (call being a call in one record), before --limit counts them; an
// unknown kind is a usage error naming the kinds.
func TestAuditListKind(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "audit.db")
	st, err := audit.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	log, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, k := range []kernel.RecordKind{"", kernel.RecordModel, kernel.RecordIntent, kernel.RecordOutcome, kernel.RecordProposal, kernel.RecordModel, ""} {
		rec := kernel.AuditRecord{Time: t0.Add(time.Duration(i) * time.Second), Kind: k, Principal: "ada", Tool: fmt.Sprintf("t%d", i), CallID: fmt.Sprintf("c%d", i), Status: kernel.StatusOK}
		if err := log.Append(ctx, &rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st.Close()
	tools := func(out string) []string {
		var ts []string
		for line := range strings.Lines(out) {
			if f := strings.Split(line, "\t"); len(f) > 3 {
				ts = append(ts, f[3])
			}
		}
		return ts
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"model", []string{"--kind", "model"}, []string{"t1", "t5"}},
		{"call", []string{"--kind", "call"}, []string{"t0", "t6"}},
		{"intent", []string{"--kind", "intent"}, []string{"t2"}},
		{"outcome", []string{"--kind", "outcome"}, []string{"t3"}},
		{"proposal", []string{"--kind", "proposal"}, []string{"t4"}},
		{"model_limit", []string{"--kind", "model", "--limit", "1"}, []string{"t5"}},
		{"every_kind", nil, []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCLI(t, append([]string{"audit", "list", "--db", db}, tt.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tools(out)); diff != "" {
				t.Errorf("tools listed (-want +got):\n%s\n%s", diff, out)
			}
		})
	}
	if _, stderr, err := runCLI(t, "audit", "list", "--db", db, "--kind", "grant"); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error()+stderr, "model, proposal, intent, outcome, call") {
		t.Errorf("an unknown kind: %v %s", err, stderr)
	}
	if out, stderr, _ := runCLI(t, "audit", "list", "--help"); !strings.Contains(out+stderr, "--kind") {
		t.Errorf("--help does not describe --kind:\n%s%s", out, stderr)
	}
}
