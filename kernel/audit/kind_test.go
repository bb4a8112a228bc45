// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/kernel"
)

// kindRecords are records of every kind, some under a parent.
func kindRecords() []kernel.AuditRecord {
	t0 := time.Unix(1800000000, 0).UTC()
	return []kernel.AuditRecord{
		{Time: t0, Principal: "ada", Tool: "qwen3", CallID: "req_1", Status: kernel.StatusOK, Kind: kernel.RecordModel, Result: "vllm 120+40 tokens stop"},
		{Time: t0.Add(1), Principal: "ada", Tool: "Bash", CallID: "toolu_1", Status: kernel.StatusDenied, Effect: kernel.EffectDeny, Rule: "no-rm", Kind: kernel.RecordProposal, Parent: "req_1"},
		{Time: t0.Add(2), Principal: "ada", Tool: "tasks", CallID: "toolu_2", Status: kernel.StatusOK, Effect: kernel.EffectAllow, Kind: kernel.RecordIntent, Parent: "req_1", Args: json.RawMessage(`{"id":7}`), Grant: "AAAA"},
		{Time: t0.Add(3), Principal: "ada", Tool: "tasks", CallID: "toolu_2", Status: kernel.StatusOK, Effect: kernel.EffectAllow, Kind: kernel.RecordOutcome, Parent: "req_1", Result: "done"},
		{Time: t0.Add(4), Principal: "bob", Tool: "get", CallID: "c9", Status: kernel.StatusUnknownTool, IsError: true},
	}
}

// mergedKindRecords is kindRecords as a log with a journal writes them
// when the call's intent and outcome reach the database together: as
// one record of the empty kind.
func mergedKindRecords() []kernel.AuditRecord {
	r := kindRecords()
	m := r[2]
	m.Kind, m.Time, m.Status, m.Result = "", r[3].Time, r[3].Status, r[3].Result
	return append(r[:2], m, r[4])
}

// wantKinds is want, or mergedKindRecords when got holds the call as one
// record: whether the writer's batch caught both is timing.
func wantKinds(want, got []kernel.AuditRecord) []kernel.AuditRecord {
	if len(got) == len(want)-1 {
		return mergedKindRecords()
	}
	return want
}

// appendAll writes recs through an audit log over s and returns them as
// chained.
func appendAll(t *testing.T, s kernel.AuditStore, recs []kernel.AuditRecord) {
	t.Helper()
	ctx := context.Background()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := l.Commit(ctx, &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// readAll returns every record of s, Seq, Prev and Hash cleared.
func readAll(t *testing.T, s kernel.AuditStore) []kernel.AuditRecord {
	t.Helper()
	var got []kernel.AuditRecord
	if err := s.Scan(context.Background(), func(r *kernel.AuditRecord) error {
		c := *r
		c.Args = append(json.RawMessage(nil), r.Args...)
		if len(c.Args) == 0 {
			c.Args = nil
		}
		c.Seq, c.Prev, c.Hash = 0, kernel.Hash{}, kernel.Hash{}
		got = append(got, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestKindParentRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []kernel.AuditSync{kernel.SyncNormal, kernel.SyncFull} {
		t.Run(string(mode), func(t *testing.T) {
			s, err := OpenSync(ctx, filepath.Join(t.TempDir(), "audit.db"), mode)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var pragma int
			if err := s.DB().QueryRow(`PRAGMA synchronous`).Scan(&pragma); err != nil {
				t.Fatal(err)
			}
			if want := map[kernel.AuditSync]int{kernel.SyncNormal: 1, kernel.SyncFull: 2}[mode]; pragma != want {
				t.Errorf("PRAGMA synchronous = %d, want %d", pragma, want)
			}
			want := kindRecords()
			appendAll(t, s, want)
			got := readAll(t, s)
			if mode == kernel.SyncNormal {
				want = wantKinds(want, got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if p := verify(t, s); len(p) != 0 {
				t.Errorf("chain: %v", p)
			}
			// A parent is a column: edit it and the chain says so.
			if _, err := s.DB().Exec(`UPDATE audit SET parent = 'req_2' WHERE seq = 3`); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"3 edited"}, verify(t, s)); diff != "" {
				t.Errorf("after editing a parent (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := OpenSync(ctx, filepath.Join(t.TempDir(), "audit.db"), "sometimes"); err == nil {
		t.Error("OpenSync accepted sync mode \"sometimes\"")
	}
}

// oldSchema is the audit table as it was before records had a kind and
// a parent.
const oldSchema = `
CREATE TABLE audit_old (
	id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, time INTEGER NOT NULL, principal TEXT NOT NULL,
	tool TEXT NOT NULL, call_id TEXT NOT NULL, status TEXT NOT NULL, effect TEXT NOT NULL,
	rule TEXT NOT NULL, code TEXT NOT NULL, reason TEXT NOT NULL, justification TEXT NOT NULL,
	args BLOB, result TEXT NOT NULL, is_error INTEGER NOT NULL, prev BLOB NOT NULL, hash BLOB NOT NULL);
INSERT INTO audit_old SELECT id, seq, time, principal, tool, call_id, status, effect, rule, code, reason,
	justification, args, result, is_error, prev, hash FROM audit;
DROP TABLE audit;
ALTER TABLE audit_old RENAME TO audit;`

// TestMigrateKindParent opens a database written before the kind and
// parent columns: they are added, the old records read with empty ones
// and keep verifying, and new records carry them.
func TestMigrateKindParent(t *testing.T) {
	ctx := context.Background()
	s, path := fill(t, 4)
	old := readAll(t, s)
	if _, err := s.DB().Exec(oldSchema); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Two processes opening it at once add each column once.
	stores := make(chan *Store, 2)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			s, err := Open(ctx, path)
			stores <- s
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if s := <-stores; s != nil {
			defer s.Close()
		}
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if diff := cmp.Diff(old, readAll(t, s2)); diff != "" {
		t.Errorf("old records after the migration (-want +got):\n%s", diff)
	}
	recs := kindRecords()
	appendAll(t, s2, recs)
	got := readAll(t, s2)
	if diff := cmp.Diff(append(old, wantKinds(recs, got[len(old):])...), got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if p := verify(t, s2); len(p) != 0 {
		t.Errorf("chain: %v", p)
	}
}
