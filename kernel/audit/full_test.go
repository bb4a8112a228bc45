// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// TestDatabaseFull fills the audit database for real: SQLite's
// max_page_count makes every write past it fail with SQLITE_FULL, as a
// full disk does, without needing a small filesystem. A tool that runs
// while the database fills gets the error saying it ran but could not be
// recorded; from then on no tool runs; once there is room again the
// queued outcome is written and calls run again, and verify finds the
// chain intact with no outcome unknown.
func TestDatabaseFull(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	setMax := func(pages string) {
		t.Helper()
		if _, err := s.DB().Exec(`PRAGMA max_page_count = ` + pages); err != nil {
			t.Fatal(err)
		}
	}
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	var fill atomic.Bool
	big := strings.Repeat("a result that needs new pages ", 2000)
	reg := kernel.NewRegistry()
	if err := reg.Add(kernel.Capability{
		Definition: tool.Definition{Name: "work"},
		Safety:     kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			runs.Add(1)
			if fill.Load() {
				// The disk fills while the tool runs: no page more.
				var pages string
				if err := s.DB().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
					return tool.Result{}, err
				}
				setMax(pages)
			}
			return tool.TextResult("", big), nil
		}),
	}); err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{Registry: reg, Audit: l, Limits: kernel.RateLimits{Read: -1}})
	if err != nil {
		t.Fatal(err)
	}
	call := func() (kernel.Outcome, error) {
		return k.Call(ctx, &kernel.Request{Principal: kernel.Principal{ID: "ada"}, Call: tool.Call{ID: "c", Name: "work", Arguments: json.RawMessage(`{}`)}})
	}
	if out, err := call(); err != nil || out.Status != kernel.StatusOK {
		t.Fatalf("first call: %s %v", out.Status, err)
	}
	fill.Store(true)
	out, err := call()
	if !errors.Is(err, kernel.ErrOutcomeNotRecorded) || out.Status != kernel.StatusAuditError || !strings.Contains(out.Result.Text(), "the tool ran") {
		t.Fatalf("call that filled the disk: %s %v %q", out.Status, err, out.Result.Text())
	}
	if !strings.Contains(err.Error(), "full") {
		t.Errorf("error %q does not say the database is full", err)
	}
	fill.Store(false)
	for i := range 20 {
		out, err := call()
		if !errors.Is(err, kernel.ErrAuditUnavailable) || out.Status != kernel.StatusAuditError {
			t.Fatalf("call %d on the full disk: %s %v", i, out.Status, err)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("%d tool runs, want 2: none once the disk was full", n)
	}
	if l.Err() == nil {
		t.Error("Err is nil on the full disk: /healthz would answer 200")
	}
	rep, err := kernel.VerifyChain(ctx, s, nil)
	if err != nil || !rep.OK() || rep.UnknownCount != 1 {
		t.Errorf("on the full disk: %v %v; want the second call's intent with its outcome unknown", err, rep)
	}
	setMax("1073741823") // room again
	deadline := time.Now().Add(10 * time.Second)
	for l.Err() != nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := l.Err(); err != nil {
		t.Fatalf("the log did not recover: %v", err)
	}
	if out, err := call(); err != nil || out.Status != kernel.StatusOK {
		t.Fatalf("after recovery: %s %v", out.Status, err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err = kernel.VerifyChain(ctx, s, nil)
	if err != nil || !rep.OK() || rep.UnknownCount != 0 || rep.Records != 6 {
		t.Errorf("after recovery: %v %v; want 6 records (3 calls that ran), no outcome unknown", err, rep)
	}
}
