// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/store/sqlite"
)

// childEnv, when set, makes TestLimiterProcesses a process that asks
// for callsPerChild calls and prints how many were allowed.
const childEnv = "TOOLGATE_LIMITER_TEST_CHILD_DB"

const (
	children      = 4
	callsPerChild = 10
	sharedLimit   = 25
)

func TestLimiterProcesses(t *testing.T) {
	ctx := context.Background()
	if path := os.Getenv(childEnv); path != "" {
		l, err := sqlite.OpenLimiter(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		n := 0
		for range callsPerChild {
			ok, _, err := l.Allow(ctx, "agent", "refund", sharedLimit, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				n++
			}
		}
		fmt.Printf("allowed=%d\n", n)
		return
	}
	path := filepath.Join(t.TempDir(), "limits.db")
	l, err := sqlite.OpenLimiter(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var wg sync.WaitGroup
	allowed := make([]int, children)
	errs := make([]error, children)
	for i := range children {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLimiterProcesses$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("child %d: %w\n%s", i, err, out)
				return
			}
			_, after, ok := strings.Cut(string(out), "allowed=")
			if !ok {
				errs[i] = fmt.Errorf("child %d printed no count:\n%s", i, out)
				return
			}
			allowed[i], errs[i] = strconv.Atoi(strings.Fields(after)[0])
		})
	}
	wg.Wait()
	total := 0
	for i := range children {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		total += allowed[i]
	}
	if total != sharedLimit {
		t.Errorf("%d processes × %d calls: %d allowed (%v), want exactly %d", children, callsPerChild, total, allowed, sharedLimit)
	}
	ok, retry, err := l.Allow(ctx, "agent", "refund", sharedLimit, time.Hour)
	if ok || err != nil || retry <= 0 || retry > time.Hour {
		t.Errorf("the next call: ok %v, retry %s, err %v; want refused with a retry within the hour", ok, retry, err)
	}
}

func TestLimiterWindow(t *testing.T) {
	ctx := context.Background()
	l, err := sqlite.OpenLimiter(ctx, filepath.Join(t.TempDir(), "limits.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const window = 100 * time.Millisecond
	tests := []struct {
		name      string
		principal string
		limit     int
		sleep     time.Duration
		want      bool
	}{
		{"first", "a", 2, 0, true},
		{"second", "a", 2, 0, true},
		{"third-refused", "a", 2, 0, false},
		{"other-principal", "b", 2, 0, true},
		{"zero-limit", "c", 0, 0, false},
		{"no-limit", "a", -1, 0, true},
		{"after-window", "a", 2, window, true},
	}
	for _, tt := range tests {
		time.Sleep(tt.sleep)
		ok, _, err := l.Allow(ctx, tt.principal, "t", tt.limit, window)
		if err != nil || ok != tt.want {
			t.Errorf("%s: ok %v, err %v; want %v", tt.name, ok, err, tt.want)
		}
	}
}

// BenchmarkAllow is the per-call cost of a rate-limit decision in the
// file: one IMMEDIATE transaction.
func BenchmarkAllow(b *testing.B) {
	ctx := context.Background()
	l, err := sqlite.OpenLimiter(ctx, filepath.Join(b.TempDir(), "limits.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for b.Loop() {
		if ok, _, err := l.Allow(ctx, "agent", "weather", 1<<30, time.Minute); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// TestLimiterSweep checks that the periodic sweep of every key keeps the
// counts exact: a key whose calls it expired starts afresh.
func TestLimiterSweep(t *testing.T) {
	ctx := context.Background()
	l, err := sqlite.OpenLimiter(ctx, filepath.Join(t.TempDir(), "limits.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const window = 50 * time.Millisecond
	allow := func(p string, limit int) bool {
		t.Helper()
		ok, _, err := l.Allow(ctx, p, "t", limit, window)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if got := []bool{allow("a", 2), allow("a", 2), allow("a", 2)}; got[0] != true || got[1] != true || got[2] != false {
		t.Fatalf("limit of 2: %v, want [true true false]", got)
	}
	time.Sleep(window + 10*time.Millisecond)
	for i := range 1100 { // past a sweep
		allow(fmt.Sprintf("k%d", i%50), 1<<30)
	}
	got := []bool{allow("a", 2), allow("a", 2), allow("a", 2)}
	if got[0] != true || got[1] != true || got[2] != false {
		t.Errorf("after the sweep: %v, want [true true false]", got)
	}
}
