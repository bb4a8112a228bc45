// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/tool"
)

// childEnv, when set, makes TestConcurrentProcesses a writer process:
// the value is the database file.
const childEnv = "TOOLGATE_AUDIT_TEST_CHILD_DB"

const (
	writers        = 8
	callsPerWriter = 100
)

// writeCalls runs n calls through a kernel whose audit log is the file at
// path, flushing after each, as n `toolgate call` processes would.
func writeCalls(ctx context.Context, path, who string, n int) error {
	return runCalls(ctx, path, who, n, true)
}

// runCalls runs n calls; with flush, each waits for its record to be
// written, else the log batches them.
func runCalls(ctx context.Context, path, who string, n int, flush bool) error {
	st, err := audit.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	log, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
	if err != nil {
		return err
	}
	reg := kernel.NewRegistry()
	res := tool.TextResult("", "ok")
	if err := reg.Add(kernel.Capability{
		Definition: tool.Definition{Name: "weather", InputSchema: json.RawMessage(benchSchema)},
		Safety:     kernel.SafetyRead,
		Executor:   kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return res, nil }),
	}); err != nil {
		return err
	}
	k, err := kernel.New(&kernel.Config{Registry: reg, Audit: log, Limits: kernel.RateLimits{Read: -1}})
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		req := kernel.Request{Principal: kernel.Principal{ID: who}, Call: tool.Call{ID: strconv.Itoa(i), Name: "weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}
		out, err := k.Call(ctx, &req)
		if err != nil {
			return err
		}
		if out.Status != kernel.StatusOK {
			return fmt.Errorf("call %d: %s: %s", i, out.Status, out.Result.Text())
		}
		if !flush {
			continue
		}
		if err := log.Flush(ctx); err != nil {
			return err
		}
	}
	return log.Close(ctx)
}

// TestConcurrentProcesses runs several processes appending to one
// database, each committing one record per transaction, and checks they
// made one chain: records 1..N, no gap, no fork, verification intact.
func TestConcurrentProcesses(t *testing.T) {
	if path := os.Getenv(childEnv); path != "" {
		n, flush := callsPerWriter, true
		if s := os.Getenv(childCallsEnv); s != "" { // a benchmark's writer
			n, _ = strconv.Atoi(s)
			flush = false
		}
		if err := runCalls(context.Background(), path, "p"+strconv.Itoa(os.Getpid()), n, flush); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "audit.db")
	// The file exists, with its schema, before the writers race to it.
	st, err := audit.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("writer %d: %w\n%s", i, err, out)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d processes × %d calls in %s", writers, callsPerWriter, time.Since(start).Round(time.Millisecond))
	checkOneChain(t, st, writers*callsPerWriter)
}

// childCallsEnv, with childEnv, makes the writer run that many calls
// without flushing each, as a busy serve does.
const childCallsEnv = "TOOLGATE_AUDIT_TEST_CHILD_CALLS"

// BenchmarkCallSQLiteProcesses is BenchmarkCallSQLite with four
// processes writing one database at once, each running b.N/4 calls and
// batching; the figure is the whole machine's calls per second, process
// start-up included.
func BenchmarkCallSQLiteProcesses(b *testing.B) {
	const procs = 4
	path := filepath.Join(b.TempDir(), "audit.db")
	st, err := audit.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	per := max(b.N/procs, 1)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+path, childCallsEnv+"="+strconv.Itoa(per))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("writer %d: %w\n%s", i, err, out)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(per*procs)/elapsed.Seconds(), "calls/s")
	rep, err := kernel.VerifyChain(context.Background(), st, nil)
	if err != nil || !rep.OK() || rep.UnknownCount != 0 {
		b.Fatalf("%v %v", err, rep)
	}
	if calls, _, _ := countCalls(b, st); calls != int64(per*procs) {
		b.Fatalf("%d calls in the chain, want %d", calls, per*procs)
	}
}

// TestConcurrentLogs is TestConcurrentProcesses within one process:
// several audit logs, each with its own connection, on one file.
func TestConcurrentLogs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	st, err := audit.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = writeCalls(context.Background(), path, "w"+strconv.Itoa(i), 50) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	checkOneChain(t, st, 200)
}

// countCalls counts the calls in st's chain — a record of the empty kind
// is a call whose intent and outcome were written as one — and the
// intents and outcomes written apart.
func countCalls(t testing.TB, st *audit.Store) (calls, intents, outcomes int64) {
	t.Helper()
	if err := st.Scan(context.Background(), func(r *kernel.AuditRecord) error {
		switch r.Kind {
		case kernel.RecordIntent:
			calls++
			intents++
		case kernel.RecordOutcome:
			outcomes++
		case "":
			calls++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return calls, intents, outcomes
}

// checkOneChain checks that st holds calls calls in one intact chain,
// each as one record or as an intent and its outcome.
func checkOneChain(t *testing.T, st *audit.Store, calls int) {
	t.Helper()
	ctx := context.Background()
	rep, err := kernel.VerifyChain(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, in, out := countCalls(t, st)
	n := int(c + out)
	if !rep.OK() || rep.UnknownCount != 0 || c != int64(calls) || in != out || rep.Records != int64(n) || rep.Head != int64(n) {
		t.Fatalf("want %d calls (%d intents, %d outcomes apart) intact, got %d: %s", calls, in, out, c, rep)
	}
	t.Logf("%d calls in %d records", calls, n)
	var got, want []int64
	if err := st.Scan(ctx, func(r *kernel.AuditRecord) error { got = append(got, r.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		want = append(want, int64(i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sequence numbers (-want +got):\n%s", diff)
	}
}

// TestAppendStaleHead checks that Append refuses records chained from a
// head another writer has moved past, instead of forking the chain.
func TestAppendStaleHead(t *testing.T) {
	ctx := context.Background()
	st, err := audit.Open(ctx, filepath.Join(t.TempDir(), "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := []kernel.AuditRecord{{Seq: 1, Time: time.Unix(1, 0), Principal: "a", Tool: "t"}}
	if err := st.Append(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := st.Append(ctx, rec); !errors.Is(err, audit.ErrStaleHead) {
		t.Fatalf("second append of record 1: %v, want ErrStaleHead", err)
	}
	if seq, _, err := st.Head(ctx); err != nil || seq != 1 {
		t.Fatalf("head %d, %v; want 1", seq, err)
	}
}
