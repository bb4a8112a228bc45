// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeLog appends n records through an AuditLog and returns the store.
func writeLog(t *testing.T, n int, key []byte) *MemoryAuditStore {
	t.Helper()
	ctx := context.Background()
	store := NewMemoryAuditStore()
	l, err := NewAuditLog(ctx, &AuditConfig{Store: store, Key: key, MaxBatch: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		rec := AuditRecord{Time: time.Unix(1700000000+int64(i), 0), Principal: "ada", Tool: "get", Status: StatusOK, Args: []byte(fmt.Sprintf(`{"i":%d}`, i)), Result: "ok"}
		if err := l.Append(ctx, &rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return store
}

func problems(t *testing.T, store AuditStore, key []byte) []string {
	t.Helper()
	rep, err := VerifyChain(context.Background(), store, key)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range rep.Problems {
		out = append(out, fmt.Sprintf("%d %s", p.Seq, p.Kind))
	}
	return out
}

func TestAuditChainIntact(t *testing.T) {
	store := writeLog(t, 10, nil)
	recs := store.Records()
	if len(recs) != 10 {
		t.Fatalf("%d records, want 10", len(recs))
	}
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Errorf("record %d has seq %d", i, r.Seq)
		}
	}
	if p := problems(t, store, nil); len(p) != 0 {
		t.Errorf("intact log reported %v", p)
	}
	// Reopening continues the chain.
	ctx := context.Background()
	l, err := NewAuditLog(ctx, &AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ctx, &AuditRecord{Tool: "more"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	l.Close(ctx)
	if p := problems(t, store, nil); len(p) != 0 {
		t.Errorf("continued log reported %v", p)
	}
	if err := l.Append(ctx, &AuditRecord{}); err != ErrAuditClosed {
		t.Errorf("Append after Close = %v", err)
	}
}

// TestAuditTamper edits the store by hand in each way and checks the
// verifier names the damaged record.
func TestAuditTamper(t *testing.T) {
	key := []byte("audit-key")
	tests := []struct {
		name   string
		key    []byte
		change func(r []AuditRecord) []AuditRecord
		want   []string
	}{
		{"edit-content", nil, func(r []AuditRecord) []AuditRecord {
			r[4].Principal = "mallory"
			return r
		}, []string{"5 edited"}},
		{"edit-and-rehash", nil, func(r []AuditRecord) []AuditRecord {
			r[4].Result = "forged"
			r[4].Hash = newChainHasher(nil).sum(&r[4])
			return r
		}, []string{"5 edited"}},
		{"edit-and-rehash-keyed", key, func(r []AuditRecord) []AuditRecord {
			r[4].Result = "forged"
			r[4].Hash = newChainHasher(nil).sum(&r[4]) // the forger lacks the key
			return r
		}, []string{"5 edited", "5 edited"}},
		{"delete", nil, func(r []AuditRecord) []AuditRecord {
			return append(r[:3:3], r[4:]...)
		}, []string{"4 deleted"}},
		{"insert-duplicate", nil, func(r []AuditRecord) []AuditRecord {
			extra := r[2]
			extra.Result = "injected"
			out := append(r[:3:3], extra)
			return append(out, r[3:]...)
		}, []string{"3 edited", "3 inserted"}},
		{"insert-past-head", nil, func(r []AuditRecord) []AuditRecord {
			extra := AuditRecord{Seq: 11, Prev: r[9].Hash, Tool: "forged"}
			extra.Hash = newChainHasher(nil).sum(&extra)
			return append(r, extra)
		}, []string{"11 inserted"}},
		{"reorder", nil, func(r []AuditRecord) []AuditRecord {
			r[5], r[6] = r[6], r[5]
			return r
		}, []string{"6 reordered"}},
		{"truncate", nil, func(r []AuditRecord) []AuditRecord {
			return r[:7]
		}, []string{"8 truncated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := writeLog(t, 10, tt.key)
			store.SetRecords(tt.change(store.Records()))
			if diff := cmp.Diff(tt.want, problems(t, store, tt.key)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuditFlushUnderLoad appends from many goroutines and checks every
// record arrives, numbered without gaps.
func TestAuditFlushUnderLoad(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryAuditStore()
	l, err := NewAuditLog(ctx, &AuditConfig{Store: store, MaxPending: 64})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 500; i++ {
				if err := l.Append(ctx, &AuditRecord{Tool: "t"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(store.Records()); n != 4000 {
		t.Fatalf("%d records, want 4000", n)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if p := problems(t, store, nil); len(p) != 0 {
		t.Errorf("problems: %v", p)
	}
}

// TestAuditAppendCopiesArgs pins that Append keeps its own copy of the
// arguments: the caller reuses one buffer for every record, small and
// large (past the slab's share), and appending to a stored record's Args
// does not reach the next record.
func TestAuditAppendCopiesArgs(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryAuditStore()
	l, err := NewAuditLog(ctx, &AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	buf := make([]byte, 0, argSlab)
	for i := range 40 {
		buf = fmt.Appendf(buf[:0], `{"i":%d,"pad":"`, i)
		for range (i % 3) * argSlab / 6 {
			buf = append(buf, 'x')
		}
		buf = append(buf, `"}`...)
		want = append(want, string(buf))
		rec := AuditRecord{Principal: "ada", Tool: "get", Status: StatusOK, Args: buf}
		if err := l.Append(ctx, &rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	var recs []*AuditRecord
	if err := store.Scan(ctx, func(r *AuditRecord) error {
		got = append(got, string(r.Args))
		c := *r
		recs = append(recs, &c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("stored arguments (-want +got):\n%s", diff)
	}
	_ = append(recs[0].Args, "overwritten"...)
	if string(recs[1].Args) != want[1] {
		t.Errorf("appending to record 1's Args changed record 2's: %q", recs[1].Args)
	}
}
