// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// fullFile is a journal segment written with write(2) on a disk that
// fills: while full is set, a write puts half its bytes in the file and
// fails with ENOSPC, as write(2) does when the space runs out part way.
type fullFile struct {
	*os.File
	full *atomic.Bool
}

func (f fullFile) Write(p []byte) (int, error) {
	if f.full.Load() {
		n, _ := f.File.Write(p[:len(p)/2])
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return f.File.Write(p)
}

// createFullSegment makes a journal segment on a disk that fills while
// full is set. A mapped segment (Linux) is allocated nothing up front,
// so that each write must allocate more of it, which fails with ENOSPC
// as fallocate(2) does on a full disk; a segment written with write(2)
// is a fullFile.
func createFullSegment(name string, full *atomic.Bool) (journalFile, error) {
	if full.Load() {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.ENOSPC}
	}
	f, err := createSegmentAlloc(name, 0, func(fd int, size int64) error {
		if full.Load() {
			return syscall.ENOSPC
		}
		return fallocate(fd, size)
	})
	if err != nil {
		return nil, err
	}
	if f, ok := f.(*os.File); ok {
		return fullFile{f, full}, nil
	}
	return f, nil
}

// TestDatabaseFull fills the audit database for real: SQLite's
// max_page_count makes every write past it fail with SQLITE_FULL, as a
// full disk does, without needing a small filesystem; at audit.sync
// normal the journal's file fails with ENOSPC at the same time, after
// writing part of what it was given. A tool that runs while the disk
// fills gets the error saying it ran but could not be recorded; from
// then on no tool runs; once there is room again the queued outcome is
// written and calls run again, and verify finds the chain intact with no
// outcome unknown and no journal left.
func TestDatabaseFull(t *testing.T) {
	for _, mode := range []kernel.AuditSync{kernel.SyncFull, kernel.SyncNormal} {
		t.Run(string(mode), func(t *testing.T) { testDatabaseFull(t, mode) })
	}
}

func testDatabaseFull(t *testing.T, mode kernel.AuditSync) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "audit.db")
	s, err := OpenSync(ctx, dbPath, mode)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var diskFull atomic.Bool
	if s.jr != nil {
		s.jr.create = func(name string) (journalFile, error) { return createFullSegment(name, &diskFull) }
	}
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
				diskFull.Store(true)
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
		t.Fatalf("call that filled the disk: %s %v %.200q", out.Status, err, out.Result.Text())
	}
	if !strings.Contains(err.Error(), "full") && !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("error %q does not say the disk is full", err)
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
	if err != nil || !rep.OK() || rep.UnknownCount != 1 || len(rep.JournalNotes) > 0 {
		t.Errorf("on the full disk: %v %v; want the second call's intent with its outcome unknown, and the journal whole", err, rep)
	}
	setMax("1073741823") // room again
	diskFull.Store(false)
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
	var calls, outcomes int64
	s.Scan(ctx, func(r *kernel.AuditRecord) error {
		switch r.Kind {
		case kernel.RecordIntent:
			calls++
		case "": // a call written as one record; not one refused
			if r.Status != kernel.StatusAuditError {
				calls++
			}
		case kernel.RecordOutcome:
			outcomes++
		}
		return nil
	})
	if err != nil || !rep.OK() || rep.UnknownCount != 0 || calls != 3 || rep.Records != calls+outcomes || rep.Journaled != 0 {
		t.Errorf("after recovery: %v %v; want 3 calls that ran (%d), each one record or an intent and an outcome, no outcome unknown, none journaled", err, rep, calls)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(dbPath + ".journal.*"); len(left) > 0 {
		t.Errorf("journals left after a clean close: %q", left)
	}
}
