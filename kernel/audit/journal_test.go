// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
)

// journalRecords are a call's intent and outcome and a second call's
// intent, as the kernel commits them.
func journalRecords() []kernel.AuditRecord {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	return []kernel.AuditRecord{
		{Kind: kernel.RecordIntent, Time: at, Principal: "ada", Tool: "touch", CallID: "c1", Effect: kernel.EffectAllow, Rule: "r", Args: json.RawMessage(`{"a":1}`)},
		{Kind: kernel.RecordOutcome, Time: at.Add(time.Millisecond), Principal: "ada", Tool: "touch", CallID: "c1", Status: kernel.StatusOK, Effect: kernel.EffectAllow, Rule: "r", Result: "done"},
		{Kind: kernel.RecordIntent, Time: at.Add(2 * time.Millisecond), Principal: "ada", Tool: "touch", CallID: "c2", Effect: kernel.EffectAllow, Rule: "r", Justification: "why", Grant: "g1", Parent: "req1"},
	}
}

// TestJournalRoundTrip: what a journal write holds reads back the same,
// numbered as written, and a padding frame reads back as nothing.
func TestJournalRoundTrip(t *testing.T) {
	j := newJournal(filepath.Join(t.TempDir(), "audit.db"))
	recs := journalRecords()
	if err := j.write(5, recs[:2]); err != nil {
		t.Fatal(err)
	}
	if err := j.write(7, nil); err != nil {
		t.Fatal(err)
	}
	if err := j.write(9, recs[2:]); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(j.segs[0].name)
	if err != nil {
		t.Fatal(err)
	}
	var got []kernel.AuditRecord
	var nums []int64
	last, err := readJournal(data, 0, func(n int64, r *kernel.AuditRecord) error {
		got, nums = append(got, *r), append(nums, n)
		return nil
	})
	if err != nil || last != 9 {
		t.Fatalf("read: last %d, %v", last, err)
	}
	if diff := cmp.Diff([]int64{5, 6, 9}, nums); diff != "" {
		t.Errorf("numbers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(recs, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	// A mapped segment is longer than what is written, zeros after it:
	// the end, read above without an error.
	if int64(len(data)) < j.size {
		t.Fatalf("%d bytes in the file, %d written", len(data), j.size)
	}
	data = data[:j.size]
	// Cut anywhere inside the last frame, or that frame copied in part
	// into a mapped segment (zeros after the cut): the records before it,
	// and an error naming where.
	for cut := len(data) - 1; cut > len(data)-20; cut-- {
		for _, d := range [][]byte{data[:cut], append(slices.Clip(data[:cut]), make([]byte, 4096)...)} {
			n := 0
			_, err := readJournal(d, 0, func(int64, *kernel.AuditRecord) error { n++; return nil })
			if _, ok := err.(*JournalError); !ok || n != 2 {
				t.Fatalf("cut at %d of %d: %d records, %v", cut, len(d), n, err)
			}
		}
	}
	if j.close() {
		t.Error("close removed a journal whose records are not in the database")
	}
}

// TestJournalSegments: past its segment size a journal starts a new
// file, and a file wholly in the database is removed, but not the one
// being written.
func TestJournalSegments(t *testing.T) {
	db := filepath.Join(t.TempDir(), "audit.db")
	j := newJournal(db)
	j.segBytes = 1 // a segment a write
	recs := journalRecords()
	for i := range 10 {
		if err := j.write(int64(3*i+1), recs); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(db + ".journal.*")
	if len(files) != 10 {
		t.Fatalf("%d segments, want 10: %q", len(files), files)
	}
	j.markApplied(15) // segments 1–5 hold records 1–15
	if files, _ = filepath.Glob(db + ".journal.*"); len(files) != 5 {
		t.Fatalf("after records 1–15 were applied: %d segments, want 5", len(files))
	}
	j.markApplied(30)
	if files, _ = filepath.Glob(db + ".journal.*"); len(files) != 1 {
		t.Fatalf("with everything applied: %d segments, want the one being written", len(files))
	}
	if j.close(); true {
		if files, _ = filepath.Glob(db + ".journal.*"); len(files) != 0 {
			t.Fatalf("after a close with everything applied: %q", files)
		}
	}
}

// TestJournalReplay is a process killed with records in its journal: one
// already moved into the database (its mark says so), two not, and a
// torn write at the end. verify, before any replay, counts the two and
// names the torn tail; the next log to open the database moves the two
// into the chain, once, and removes the journal and its mark; a live
// process's journal is left alone.
func TestJournalReplay(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "audit.db")
	recs := journalRecords()

	// Record 1 reached the database (through a log of its own) before
	// the kill, and the mark says so.
	dead, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.Journal(1, recs); err != nil {
		t.Fatal(err)
	}
	full, err := OpenSync(ctx, db, kernel.SyncFull)
	if err != nil {
		t.Fatal(err)
	}
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: full})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx, &recs[0]); err != nil {
		t.Fatal(err)
	}
	l.Close(ctx)
	full.Close()
	if _, err := dead.DB().Exec(`INSERT INTO audit_journal (name, through) VALUES (?, 1)`, dead.jr.id); err != nil {
		t.Fatal(err)
	}
	seg := dead.jr.segs[0].name
	// The kill: the files stay, their locks go.
	if dead.jr.close() {
		t.Fatal("a journal with records not in the database was removed")
	}
	dead.db.Close()
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{40, 0, 0, 0, 1, 2, 3, 4, 'x'}) // a frame cut short
	f.Close()

	// A live process with a record in its journal.
	live, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := live.Journal(1, recs[2:]); err != nil {
		t.Fatal(err)
	}

	st, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := kernel.VerifyChain(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Records != 1 || rep.Journaled != 3 || len(rep.JournalNotes) != 1 || rep.UnknownCount != 2 {
		t.Fatalf("before replay: %v\nwant 1 record, 3 journaled (2 dead, 1 live), one torn tail, 2 unknown outcomes", rep)
	}
	if !strings.Contains(rep.String(), "3 record(s) in journals not yet in the chain") || !strings.Contains(rep.String(), "journaled record: ada called touch (call c2)") {
		t.Errorf("report:\n%s", rep)
	}
	var listed []string
	if err := st.List(ctx, Filter{}, func(r *kernel.AuditRecord) error {
		listed = append(listed, string(r.Kind)+" "+r.CallID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The chain's, then the journals' (the two journals in the order
	// of their names, which is random here).
	slices.Sort(listed[1:])
	if diff := cmp.Diff([]string{"intent c1", "intent c2", "intent c2", "outcome c1"}, listed); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	l, err = kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err = kernel.VerifyChain(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Records != 3 || rep.Journaled != 1 || len(rep.JournalNotes) != 0 || rep.UnknownCount != 2 {
		t.Fatalf("after replay: %v\nwant 3 records, the live journal's 1 still journaled", rep)
	}
	// c1's intent was in the database before the replay: its outcome,
	// replayed, stays an outcome.
	if diff := cmp.Diff([]string{"intent c1", "outcome c1", "intent c2"}, kindsOf(t, st)); diff != "" {
		t.Errorf("chain after replay (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(seg); !os.IsNotExist(err) {
		t.Errorf("the dead journal is still there: %v", err)
	}
	var marks int
	st.DB().QueryRow(`SELECT count(*) FROM audit_journal WHERE name = ?`, dead.jr.id).Scan(&marks)
	if marks != 0 {
		t.Error("the dead journal's mark is still there")
	}
	// A second recovery finds nothing more to do.
	if n, err := st.Recover(ctx, func([]kernel.AuditRecord, int64, kernel.Hash) { t.Error("replayed again") }); n != 0 || err != nil {
		t.Errorf("second recovery: %d, %v", n, err)
	}
}

// FuzzReadJournal: any bytes read as a journal neither panic nor loop; a
// record read is encoded back to exactly its frame's payload; numbers
// rise; and an error, when there is one, names an offset inside the data.
func FuzzReadJournal(f *testing.F) {
	j := newJournal(filepath.Join(f.TempDir(), "audit.db"))
	recs := journalRecords()
	j.write(1, recs)
	j.write(4, nil)
	name := j.segs[0].name
	j.close()
	data, _ := os.ReadFile(name)
	f.Add(data)
	f.Add(data[:len(data)-3])
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var prev int64
		last, err := readJournal(data, 0, func(n int64, r *kernel.AuditRecord) error {
			if n <= prev {
				t.Fatalf("number %d after %d", n, prev)
			}
			prev = n
			enc := appendJournalRecord(nil, n, r)
			if !bytes.Contains(data, enc) {
				t.Fatalf("record %d does not encode back to its payload", n)
			}
			return nil
		})
		if last != prev {
			t.Fatalf("last %d, read up to %d", last, prev)
		}
		if je, ok := err.(*JournalError); ok && (je.Offset < 0 || je.Offset >= int64(len(data))) {
			t.Fatalf("error offset %d outside %d bytes", je.Offset, len(data))
		} else if err != nil && !ok {
			t.Fatalf("error of type %T", err)
		}
	})
}

// kindsOf lists the kind (call for the empty kind) and call id of each
// record in st's chain.
func kindsOf(t *testing.T, st *Store) []string {
	t.Helper()
	var out []string
	if err := st.Scan(context.Background(), func(r *kernel.AuditRecord) error {
		k := string(r.Kind)
		if k == "" {
			k = "call"
		}
		out = append(out, k+" "+r.CallID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJournalReplayMerges: a dead process's journal whose call c1 has its
// intent and outcome in it, and c2 only its intent, is replayed as one
// record for c1 (the intent's arguments, the outcome's result, the
// grant) and c2's intent, whose outcome is unknown.
func TestJournalReplayMerges(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "audit.db")
	recs := journalRecords()
	recs[0].Grant = "g0"
	dead, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.Journal(1, recs); err != nil {
		t.Fatal(err)
	}
	if dead.jr.close() {
		t.Fatal("a journal with records not in the database was removed")
	}
	dead.db.Close()

	st, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, st)
	want := []kernel.AuditRecord{
		{Time: recs[1].Time, Principal: "ada", Tool: "touch", CallID: "c1", Status: kernel.StatusOK, Effect: kernel.EffectAllow, Rule: "r", Args: json.RawMessage(`{"a":1}`), Result: "done", Grant: "g0"},
		recs[2],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chain after replay (-want +got):\n%s", diff)
	}
	rep, err := kernel.VerifyChain(ctx, st, nil)
	if err != nil || !rep.OK() || rep.Records != 2 || rep.Journaled != 0 || rep.UnknownCount != 1 || rep.Unknown[0].CallID != "c2" {
		t.Errorf("%v %v; want 2 records intact, c2's outcome unknown", err, rep)
	}
}
