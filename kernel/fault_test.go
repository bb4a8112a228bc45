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
// while it is down, records acknowledged before are not lost, and once
// it is back the chain continues without a gap.
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
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		store.down.Store(true)
		// Acknowledged, not yet written when the store goes down.
		if out := k.run(t, reader, "weather", `{"city":"Rome"}`, ""); out.Status != StatusOK {
			t.Fatalf("%s: %s", out.Status, out.Result.Text())
		}
		if err := l.Flush(ctx); !errors.Is(err, errDown) {
			t.Fatalf("flush with the store down: %v", err)
		}
		// Fails closed: the tool does not run, and the call is an error.
		out, err := k.Call(ctx, &Request{Principal: *reader, Call: tool.Call{ID: "c", Name: "weather", Arguments: json.RawMessage(`{"city":"Lima"}`)}})
		if err == nil || out.Status == StatusOK {
			t.Errorf("call with the store down: %s, %v; want refused with an error", out.Status, err)
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
		if err != nil || !rep.OK() || rep.Records != 5 {
			t.Fatalf("want 5 records intact (3 before, the acknowledged one, 1 after): %v %v", err, rep)
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
