// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolgate/toolgate/tool"
)

// walKernel is a kernel with one tool, "act", whose executor runs fn,
// and an audit log over store.
func walKernel(t *testing.T, store AuditStore, fn func(ctx context.Context) (tool.Result, error)) (*Kernel, *AuditLog) {
	t.Helper()
	l, err := NewAuditLog(context.Background(), &AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := reg.Add(Capability{
		Definition: tool.Definition{Name: "act"},
		Safety:     SafetyRead,
		Executor:   ExecutorFunc(func(ctx context.Context, _ tool.Call) (tool.Result, error) { return fn(ctx) }),
	}); err != nil {
		t.Fatal(err)
	}
	k, err := New(&Config{Registry: reg, Audit: l, Limits: RateLimits{Read: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return k, l
}

func actRequest(id string) *Request {
	return &Request{Principal: Principal{ID: "ada"}, Parent: "req_9", Call: tool.Call{ID: id, Name: "act", Arguments: json.RawMessage(`{"n":1}`)}}
}

// TestIntentBeforeExecutor checks the order the store sees: the call's
// intent is in the store when the executor starts, and its outcome when
// Call returns, without a Flush.
func TestIntentBeforeExecutor(t *testing.T) {
	store := NewMemoryAuditStore()
	var seen []AuditRecord
	k, l := walKernel(t, store, func(context.Context) (tool.Result, error) {
		seen = store.Records()
		return tool.TextResult("", "done"), nil
	})
	defer l.Close(context.Background())
	out, err := k.Call(context.Background(), actRequest("c1"))
	if err != nil || out.Status != StatusOK {
		t.Fatalf("%s %v", out.Status, err)
	}
	if len(seen) != 1 || seen[0].Kind != RecordIntent {
		t.Fatalf("the executor started with %d records in the store, want the intent", len(seen))
	}
	in := seen[0]
	if in.Principal != "ada" || in.Tool != "act" || in.CallID != "c1" || in.Parent != "req_9" || in.Effect != EffectAllow ||
		string(in.Args) != `{"n":1}` || in.Result != "" || len(in.Grant) != 16 {
		t.Errorf("intent %+v", in)
	}
	recs := store.Records()
	if len(recs) != 2 {
		t.Fatalf("%d records when Call returned, want 2", len(recs))
	}
	o := recs[1]
	want := AuditRecord{Kind: RecordOutcome, Principal: "ada", Tool: "act", CallID: "c1", Parent: "req_9", Status: StatusOK,
		Effect: EffectAllow, Rule: in.Rule, Code: in.Code, Reason: in.Reason, Result: "done"}
	o.Seq, o.Time, o.Prev, o.Hash = 0, time.Time{}, Hash{}, Hash{}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	// A denied call stays one record: nothing ran.
	out, _ = k.Call(context.Background(), &Request{Principal: Principal{ID: "ada"}, Call: tool.Call{ID: "c2", Name: "nope"}})
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if recs := store.Records(); len(recs) != 3 || recs[2].Kind != "" || recs[2].Status != StatusUnknownTool || out.Status != StatusUnknownTool {
		t.Errorf("unknown tool: %d records, last %+v", len(recs), recs[len(recs)-1])
	}
}

// slowStore is a MemoryAuditStore whose appends take a while and are
// counted, as a database's commits are.
type slowStore struct {
	*MemoryAuditStore
	appends atomic.Int64
	delay   time.Duration
}

func (s *slowStore) Append(ctx context.Context, recs []AuditRecord) error {
	s.appends.Add(1)
	time.Sleep(s.delay)
	return s.MemoryAuditStore.Append(ctx, recs)
}

// TestGroupCommit runs 32 calls at once against a store whose commits
// take a millisecond: they share commits, and every call has its intent
// and outcome.
func TestGroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &slowStore{MemoryAuditStore: NewMemoryAuditStore(), delay: time.Millisecond}
		k, l := walKernel(t, store, func(context.Context) (tool.Result, error) { return tool.TextResult("", "ok"), nil })
		const calls = 32
		var wg sync.WaitGroup
		for i := range calls {
			wg.Go(func() {
				if out, err := k.Call(context.Background(), actRequest(string(rune('a'+i)))); err != nil || out.Status != StatusOK {
					t.Errorf("%s %v", out.Status, err)
				}
			})
		}
		wg.Wait()
		if err := l.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		n := store.appends.Load()
		if n >= calls {
			t.Errorf("%d commits for %d records: not shared", n, 2*calls)
		}
		rep, err := VerifyChain(context.Background(), store, nil)
		if err != nil || !rep.OK() || rep.Records != 2*calls || rep.UnknownCount != 0 {
			t.Errorf("%v %v", err, rep)
		}
		t.Logf("%d records in %d commits", 2*calls, n)
	})
}

// TestOutcomeNotRecorded is a tool that runs while the store starts to
// fail: the call ran, so the caller is told it ran but could not be
// recorded and gets no result; the intent is in the log, which verify
// reports as an outcome unknown, and the outcome is written once the
// store is back.
func TestOutcomeNotRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := &flakyStore{MemoryAuditStore: NewMemoryAuditStore()}
		var runs atomic.Int64
		k, l := walKernel(t, store, func(context.Context) (tool.Result, error) {
			runs.Add(1)
			store.down.Store(true) // the disk fills while the tool runs
			return tool.TextResult("", "the secret plan"), nil
		})
		out, err := k.Call(ctx, actRequest("c1"))
		if !errors.Is(err, ErrOutcomeNotRecorded) || !errors.Is(err, errDown) || out.Status != StatusAuditError || !out.Result.IsError {
			t.Fatalf("%s %v; want %s and ErrOutcomeNotRecorded", out.Status, err, StatusAuditError)
		}
		if text := out.Result.Text(); strings.Contains(text, "secret plan") || !strings.Contains(text, "the tool ran") || out.Result.Name != "act" || out.Result.CallID != "c1" {
			t.Errorf("result %q (%s %s): want the tool ran, no result", text, out.Result.Name, out.Result.CallID)
		}
		rep, err := VerifyChain(ctx, store, nil)
		if err != nil || !rep.OK() || rep.UnknownCount != 1 || len(rep.Unknown) != 1 || rep.Unknown[0].CallID != "c1" || rep.Unknown[0].Parent != "req_9" {
			t.Fatalf("with the outcome not written: %v %v", err, rep)
		}
		if !strings.Contains(rep.String(), "outcome unknown (the process stopped)") {
			t.Errorf("report:\n%s", rep)
		}
		// No other call runs meanwhile.
		if out, err := k.Call(ctx, actRequest("c2")); !errors.Is(err, ErrAuditUnavailable) || out.Status != StatusAuditError {
			t.Errorf("second call: %s %v", out.Status, err)
		}
		if n := runs.Load(); n != 1 {
			t.Errorf("%d runs, want 1", n)
		}
		store.down.Store(false)
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
		rep, err = VerifyChain(ctx, store, nil)
		if err != nil || !rep.OK() || rep.UnknownCount != 0 || rep.Records != 2 {
			t.Fatalf("after the store came back: %v %v", err, rep)
		}
		if r := store.Records()[1]; r.Kind != RecordOutcome || r.Status != StatusOK || r.Result != "the secret plan" {
			t.Errorf("outcome %+v", r)
		}
	})
}

// TestStoreFailsNothingRuns is the full disk at the unit level, a store
// that fails every append: of many concurrent calls, none runs, each is
// refused with ErrAuditUnavailable, and Err reports the store's error.
func TestStoreFailsNothingRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &flakyStore{MemoryAuditStore: NewMemoryAuditStore()}
		store.down.Store(true)
		var runs atomic.Int64
		k, l := walKernel(t, store, func(context.Context) (tool.Result, error) {
			runs.Add(1)
			return tool.TextResult("", "ok"), nil
		})
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				out, err := k.Call(context.Background(), actRequest("c"))
				if !errors.Is(err, ErrAuditUnavailable) || out.Status != StatusAuditError {
					t.Errorf("%s %v", out.Status, err)
				}
			})
		}
		wg.Wait()
		if n := runs.Load(); n != 0 {
			t.Errorf("%d tools ran with the store failing", n)
		}
		if err := l.Err(); !errors.Is(err, errDown) {
			t.Errorf("Err: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := l.Close(ctx); !errors.Is(err, errDown) {
			t.Errorf("Close: %v", err)
		}
	})
}

// blockingStore holds every append until release is closed.
type blockingStore struct {
	*MemoryAuditStore
	entered chan struct{}
	release chan struct{}
}

func (b *blockingStore) Append(ctx context.Context, recs []AuditRecord) error {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	return b.MemoryAuditStore.Append(ctx, recs)
}

// TestCancelledWhileIntentWaits cancels a call while its intent waits
// behind another's commit: the tool does not run, and once written the
// intent is followed by an outcome saying so.
func TestCancelledWhileIntentWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &blockingStore{MemoryAuditStore: NewMemoryAuditStore(), entered: make(chan struct{}, 1), release: make(chan struct{})}
		var runs atomic.Int64
		k, l := walKernel(t, store, func(context.Context) (tool.Result, error) {
			runs.Add(1)
			return tool.TextResult("", "ok"), nil
		})
		// The first call writes its intent itself and is held there.
		first := make(chan Outcome)
		go func() {
			out, _ := k.Call(context.Background(), actRequest("c0"))
			first <- out
		}()
		<-store.entered
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan Outcome)
		go func() {
			out, _ := k.Call(ctx, actRequest("c1"))
			done <- out
		}()
		synctest.Wait()
		cancel()
		out := <-done
		if out.Status != StatusExecutorError || !strings.Contains(out.Result.Text(), "cancelled before it ran") {
			t.Errorf("%s %q", out.Status, out.Result.Text())
		}
		close(store.release)
		if out := <-first; out.Status != StatusOK {
			t.Errorf("first call: %s %q", out.Status, out.Result.Text())
		}
		if err := l.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := runs.Load(); n != 1 {
			t.Errorf("%d runs, want 1: the cancelled call ran", n)
		}
		var got []string
		for _, r := range store.Records() {
			got = append(got, string(r.Kind)+" "+r.CallID+" "+string(r.Status))
		}
		want := []string{"intent c0 ", "intent c1 ", "outcome c1 executor_error", "outcome c0 ok"}
		if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
}

// TestVerifyUnknownOutcomes pairs intents with outcomes by principal,
// tool, call id and parent, oldest first, and lists those left open apart
// from tampering.
func TestVerifyUnknownOutcomes(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryAuditStore()
	l, err := NewAuditLog(ctx, &AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	recs := []AuditRecord{
		{Kind: RecordIntent, Principal: "ada", Tool: "act", CallID: "dup"},
		{Kind: RecordIntent, Principal: "ada", Tool: "act", CallID: "dup"},
		{Kind: RecordIntent, Principal: "bob", Tool: "act", CallID: "x", Parent: "req_1"},
		{Kind: RecordOutcome, Principal: "ada", Tool: "act", CallID: "dup"},
		{Kind: RecordIntent, Principal: "bob", Tool: "act", CallID: "y"},
		{Kind: RecordOutcome, Principal: "bob", Tool: "act", CallID: "x"}, // another parent: not x's outcome
		{Kind: RecordOutcome, Principal: "bob", Tool: "act", CallID: "y"},
		{Principal: "cy", Tool: "act", Status: StatusDenied},
	}
	for i := range recs {
		recs[i].Time = time.Unix(1800000000+int64(i), 0)
		if err := l.Append(ctx, &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyChain(ctx, store, nil)
	if err != nil || !rep.OK() {
		t.Fatalf("%v %v", err, rep)
	}
	var got []int64
	for _, u := range rep.Unknown {
		got = append(got, u.Seq)
	}
	if diff := cmp.Diff([]int64{2, 3}, got); diff != "" || rep.UnknownCount != 2 {
		t.Errorf("unknown outcomes (-want +got):\n%s\n%s", diff, rep)
	}
	if s := rep.String(); !strings.Contains(s, "audit log intact") || !strings.Contains(s, "record 3: bob called act (call x)") || !strings.Contains(s, "outcome unknown (the process stopped)") {
		t.Errorf("report:\n%s", s)
	}
	b, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(b), `"unknown_outcome_count":2`) {
		t.Errorf("JSON %s %v", b, err)
	}
}

// TestStoreHangs is a store that does not answer: a call waiting behind
// the held write waits at most its timeout and does not run, and once the
// intent is written it is followed by an outcome saying so.
func TestStoreHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &blockingStore{MemoryAuditStore: NewMemoryAuditStore(), entered: make(chan struct{}, 1), release: make(chan struct{})}
		l, err := NewAuditLog(context.Background(), &AuditConfig{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		reg := NewRegistry()
		var runs atomic.Int64
		if err := reg.Add(Capability{Definition: tool.Definition{Name: "act"}, Safety: SafetyRead,
			Executor: ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
				runs.Add(1)
				return tool.TextResult("", "ok"), nil
			})}); err != nil {
			t.Fatal(err)
		}
		k, err := New(&Config{Registry: reg, Audit: l, Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		first := make(chan Outcome)
		go func() {
			out, _ := k.Call(context.Background(), actRequest("c0"))
			first <- out
		}()
		<-store.entered
		start := time.Now()
		out, err := k.Call(context.Background(), actRequest("c1"))
		if waited := time.Since(start); waited != time.Second || err != nil || out.Status != StatusAuditError || runs.Load() != 0 {
			t.Errorf("after %s: %s %v %q, %d runs; want refused after the 1s timeout", waited, out.Status, err, out.Result.Text(), runs.Load())
		}
		close(store.release)
		// The call's timeout covers the wait for its intent: the first
		// call's passed while its intent was held.
		if out := <-first; out.Status != StatusExecutorError || !strings.Contains(out.Result.Text(), "timed out") {
			t.Errorf("first call: %s %q", out.Status, out.Result.Text())
		}
		if err := l.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range store.Records() {
			got = append(got, string(r.Kind)+" "+r.CallID+" "+string(r.Status))
		}
		want := []string{"intent c0 ", "intent c1 ", "outcome c1 audit_error", "outcome c0 executor_error"}
		if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
}
