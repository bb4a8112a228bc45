// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package skipnote

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNote(t *testing.T) {
	type skip struct{ suite, how string }
	tests := []struct {
		name  string
		skips []skip
		want  string
	}{
		{
			name: "nothing_skipped",
			want: "",
		},
		{
			name:  "one_suite",
			skips: []skip{{"corpus", "put shared/ beside the repository or set TOOLGATE_CORPORA"}},
			want:  "example.com/p: skipped 1 suite: corpus (put shared/ beside the repository or set TOOLGATE_CORPORA)\n",
		},
		{
			name: "sorted_by_suite",
			skips: []skip{
				{"Redis", "set TOOLGATE_TEST_REDIS_URL; .ci/run starts one"},
				{"PostgreSQL", "set TOOLGATE_TEST_POSTGRES_DSN; .ci/run starts one"},
			},
			want: "example.com/p: skipped 2 suites: PostgreSQL (set TOOLGATE_TEST_POSTGRES_DSN; .ci/run starts one); Redis (set TOOLGATE_TEST_REDIS_URL; .ci/run starts one)\n",
		},
		{
			name: "once_per_suite_first_how_wins",
			skips: []skip{
				{"Redis", "set TOOLGATE_TEST_REDIS_URL"},
				{"Redis", "something else"},
				{"Redis", "set TOOLGATE_TEST_REDIS_URL"},
			},
			want: "example.com/p: skipped 1 suite: Redis (set TOOLGATE_TEST_REDIS_URL)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r registry
			for _, s := range tt.skips {
				r.add(s.suite, s.how)
			}
			if diff := cmp.Diff(tt.want, r.note("example.com/p")); diff != "" {
				t.Errorf("note (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAddConcurrent records from many goroutines at once; run with -race.
func TestAddConcurrent(t *testing.T) {
	var r registry
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { r.add(fmt.Sprintf("suite%d", i%5), "how") })
	}
	wg.Wait()
	want := "p: skipped 5 suites: suite0 (how); suite1 (how); suite2 (how); suite3 (how); suite4 (how)\n"
	if diff := cmp.Diff(want, r.note("p")); diff != "" {
		t.Errorf("note (-want +got):\n%s", diff)
	}
}

// TestSkip checks that Skip both skips the test and records the suite.
func TestSkip(t *testing.T) {
	var ran bool
	t.Run("needs_server", func(t *testing.T) {
		Skip(t, "TestSkip suite", "nothing to do")
		ran = true
	})
	if ran {
		t.Error("the test went on after Skip")
	}
	if got := skipped.note("p"); !strings.Contains(got, "TestSkip suite (nothing to do)") {
		t.Errorf("note = %q, want it to name the suite", got)
	}
}

func TestPkgPath(t *testing.T) {
	if got, want := pkgPath(), "github.com/toolgate/toolgate/internal/skipnote"; got != want {
		t.Errorf("pkgPath() = %q, want %q", got, want)
	}
}
