// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

// flakyStore is a MemoryAuditStore that fails while down is set, as a
// database that is stopped and restarted does.
type flakyStore struct {
	*MemoryAuditStore
	down atomic.Bool
}

var errDown = errors.New("store down")

func (f *flakyStore) Append(ctx context.Context, recs []AuditRecord) error {
	if f.down.Load() {
		return errDown
	}
	return f.MemoryAuditStore.Append(ctx, recs)
}

// TestAuditStoreDownAndBack stops the store mid-run: calls fail closed
// while it is down, and the refusal of the first is recorded once it is
// back; the chain continues without a gap.
func TestAuditStoreDownAndBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := &flakyStore{MemoryAuditStore: NewMemoryAuditStore()}
		l, err := NewAuditLog(ctx, &AuditConfig{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		k := newTestKernel(t, func(c *Config) { c.Audit = l })
		for range 3 {
			if out := k.run(t, reader, "weather", `{"city":"Oslo"}`, ""); out.Status != StatusOK {
				t.Fatalf("%s: %s", out.Status, out.Result.Text())
			}
		}
		store.down.Store(true)
		// Fails closed: the intent cannot be written, so the tool does
		// not run, and the call is an error; the next is refused at once.
		for _, city := range []string{"Rome", "Lima"} {
			out, err := k.Call(ctx, &Request{Principal: *reader, Call: tool.Call{ID: city, Name: "weather", Arguments: json.RawMessage(`{"city":"` + city + `"}`)}})
			if !errors.Is(err, ErrAuditUnavailable) || !errors.Is(err, errDown) || out.Status != StatusAuditError || !out.Result.IsError {
				t.Errorf("call with the store down: %s, %v; want %s and ErrAuditUnavailable", out.Status, err, StatusAuditError)
			}
		}
		if err := l.Err(); !errors.Is(err, errDown) {
			t.Errorf("Err with the store down: %v", err)
		}
		store.down.Store(false)
		deadline := time.Now().Add(5 * time.Second)
		for l.Err() != nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if err := l.Err(); err != nil {
			t.Fatalf("the log did not recover: %v", err)
		}
		if out := k.run(t, reader, "weather", `{"city":"Oslo"}`, ""); out.Status != StatusOK {
			t.Fatalf("after recovery: %s: %s", out.Status, out.Result.Text())
		}
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
		rep, err := VerifyChain(ctx, store, nil)
		if err != nil || !rep.OK() || rep.Records != 9 || rep.UnknownCount != 0 {
			t.Fatalf("want 9 records intact (3 calls before, Rome refused, 1 call after): %v %v", err, rep)
		}
		var got []string
		for _, r := range store.Records() {
			got = append(got, string(r.Kind)+" "+r.CallID+" "+string(r.Status))
		}
		want := []string{"intent call_1 ", "outcome call_1 ok", "intent call_1 ", "outcome call_1 ok", "intent call_1 ", "outcome call_1 ok",
			" Rome audit_error", "intent call_1 ", "outcome call_1 ok"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
}

// TestAuditCloseWhileDown checks that Close gives up on a store that
// stays down, reporting its error, instead of hanging.
func TestAuditCloseWhileDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		store := &flakyStore{MemoryAuditStore: NewMemoryAuditStore()}
		store.down.Store(true)
		l, err := NewAuditLog(ctx, &AuditConfig{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(ctx, &AuditRecord{Principal: "p", Tool: "t"}); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(ctx); !errors.Is(err, errDown) {
			t.Errorf("close: %v, want the store's error", err)
		}
	})
}
