// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/store/postgres"
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

func commitAll(t *testing.T, s kernel.AuditStore, recs []kernel.AuditRecord) {
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

// TestKindParentRoundTrip writes records of every kind at both sync
// modes, reads them back and checks the chain; editing a parent is found.
func TestKindParentRoundTrip(t *testing.T) {
	dsn := testDSN(t)
	s := open(t, dsn)
	want := kindRecords()
	for i, mode := range []kernel.AuditSync{kernel.SyncNormal, kernel.SyncFull} {
		if err := s.SetSync(mode); err != nil {
			t.Fatal(err)
		}
		half := want[i*3 : min(i*3+3, len(want))]
		commitAll(t, s, half)
	}
	if diff := cmp.Diff(want, readAll(t, s)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if p := problems(t, s); len(p) != 0 {
		t.Errorf("chain: %v", p)
	}
	if _, err := s.Pool().Exec(context.Background(), `UPDATE toolgate_audit SET parent = 'req_2' WHERE seq = 3`); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"3 edited"}, problems(t, s)); diff != "" {
		t.Errorf("after editing a parent (-want +got):\n%s", diff)
	}
	if err := s.SetSync("sometimes"); err == nil {
		t.Error("SetSync accepted \"sometimes\"")
	}
}

// TestMigrateKindParent opens a database at the schema before kind,
// parent and grant_id: the migrations add them, old records keep
// verifying.
func TestMigrateKindParent(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	s := open(t, dsn)
	old := kindRecords()
	for i := range old {
		old[i].Kind, old[i].Parent, old[i].Grant = "", "", ""
	}
	commitAll(t, s, old)
	if _, err := s.Pool().Exec(ctx, `ALTER TABLE toolgate_audit DROP COLUMN kind, DROP COLUMN parent, DROP COLUMN grant_id;
		UPDATE toolgate_schema SET version = 2`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	recs := kindRecords()
	commitAll(t, s2, recs)
	if diff := cmp.Diff(append(old, recs...), readAll(t, s2)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if p := problems(t, s2); len(p) != 0 {
		t.Errorf("chain: %v", p)
	}
}
