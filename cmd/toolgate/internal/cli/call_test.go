// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel/audit"
)

const exampleConfig = "../../../../examples/kernel/toolgate.yaml"

// TestCallAndAudit walks the example a new user follows: each outcome of
// toolgate call, then audit verify on an intact and a hand-edited log.
func TestCallAndAudit(t *testing.T) {
	if _, err := exec.LookPath("printf"); err != nil {
		t.Skip("printf not installed")
	}
	db := filepath.Join(t.TempDir(), "audit.db")
	tests := []struct {
		name   string
		args   []string
		status string
		err    error
		has    string
	}{
		{"allowed-redacted", []string{"--principal", "rita", "weather", `{"city":"Paris"}`}, "ok", nil, "[REDACTED:url-password]"},
		{"denied", []string{"--principal", "rita", "refund", `{"order":"o-1","amount":20}`, "--justification", "customer was charged twice"}, "denied", ErrProblem, "role_required"},
		{"approval-required", []string{"--principal", "will", "refund", `{"order":"o-1","amount":1500}`, "--justification", "customer was charged twice", "--explain"}, "denied", ErrProblem, `"code": "approval_required"`},
		{"invalid-argument", []string{"--principal", "will", "refund", `{"order":"o-1","amount":"lots"}`, "--justification", "customer was charged twice"}, "invalid_arguments", ErrProblem, "at /amount: expected number, got string"},
		{"pii-projected", []string{"--principal", "rita", "customer", `{"id":"c-42"}`}, "ok", nil, `"plan": "pro"`},
		{"summary-mode", []string{"--principal", "rita", "weather", `{"city":"Oslo"}`, "--mode", "summary"}, "ok", nil, "object with 4 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCLI(t, append([]string{"call", "--config", exampleConfig, "--db", db}, tt.args...)...)
			if (tt.err == nil) != (err == nil) || (tt.err != nil && !errors.Is(err, tt.err)) {
				t.Fatalf("err = %v, want %v\n%s", err, tt.err, out)
			}
			var rep struct {
				Status string `json:"status"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, out)
			}
			if rep.Status != tt.status || !strings.Contains(out, tt.has) {
				t.Errorf("status %q (want %q), output lacks %q:\n%s", rep.Status, tt.status, tt.has, out)
			}
			if strings.Contains(out, "hunter2-prod") || strings.Contains(out, "ada@example.com") {
				t.Errorf("secret leaked:\n%s", out)
			}
		})
	}
	if _, _, err := runCLI(t, "call", "--config", exampleConfig); !errors.Is(err, ErrUsage) {
		t.Errorf("missing flags: %v", err)
	}

	out, _, err := runCLI(t, "audit", "verify", "--db", db)
	if err != nil || !strings.Contains(out, "audit log intact") {
		t.Fatalf("verify intact: %v %s", err, out)
	}
	if diff := cmp.Diff(map[string]int{"ok": 3, "denied": 2, "invalid_arguments": 1}, callStatuses(t, "--db", db)); diff != "" {
		t.Errorf("calls in the audit log (-want +got):\n%s", diff)
	}
	out, _, err = runCLI(t, "audit", "list", "--db", db, "--principal", "will", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Seq    int64  `json:"seq"`
		Tool   string `json:"tool"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &recs); err != nil || len(recs) != 2 || recs[0].Seq < 3 || recs[1].Seq != recs[0].Seq+1 || recs[1].Status != "invalid_arguments" {
		t.Errorf("list --principal will: %v %+v", err, recs)
	}
	if got := callStatuses(t, "--db", db, "--tool", "weather"); !cmp.Equal(got, map[string]int{"ok": 2}) {
		t.Errorf("list --tool weather: %v, want 2 calls ok", got)
	}

	// Edit a record by hand.
	st, err := audit.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	// Which call record 2 is depends on which intents met their outcomes
	// in one batch (one record): change its status to one it does not have.
	if _, err := st.DB().Exec(`UPDATE audit SET status = CASE status WHEN 'denied' THEN 'ok' ELSE 'denied' END WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, _, err = runCLI(t, "audit", "verify", "--db", db)
	if !errors.Is(err, ErrProblem) || !strings.Contains(out, "record 2 edited: content does not match its hash") {
		t.Errorf("verify edited: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "audit", "verify", "--db", filepath.Join(t.TempDir(), "missing.db")); !errors.Is(err, ErrUsage) {
		t.Errorf("missing db: %v", err)
	}
}
