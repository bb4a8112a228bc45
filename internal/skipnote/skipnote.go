// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package skipnote

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
)

// skipped holds what [Skip] recorded for [Main]. A package global is the
// one place both can reach: Skip is called from deep in test helpers,
// and a test binary tests exactly one package, so there is nothing else
// it could be shared with.
var skipped registry

// Skip records that suite was skipped and how to run it, for [Main] to
// report, then skips t with a message holding both. A suite is reported
// once however many tests skip it, with the how of the first. Skip is
// safe to call from parallel tests.
func Skip(t testing.TB, suite, how string) {
	t.Helper()
	skipped.add(suite, how)
	t.Skip("skipped " + suite + ": " + how)
}

// Main runs the tests of m and exits with their code. Before it exits,
// if any test called [Skip], it prints one line naming the package, the
// suites skipped and how to run them. Call it from the package's TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if line := skipped.note(pkgPath()); line != "" {
		// Without -v the go command discards a passing test binary's
		// output, stdout and stderr alike: printed here, the line would
		// be lost. The binary's parent is the go command, so the line is
		// written to the go command's standard error, where it shows just
		// before the package's "ok" line, with or without -v. Opening it
		// through /proc works on Linux only; elsewhere the open fails and
		// nothing more is printed.
		//
		// A result the go command takes from its test cache is printed
		// as "ok ... (cached)" without running the binary, so the line
		// shows only when the tests run: on a fresh clone, after a
		// change, or with -count=1.
		f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/2", os.Getppid()), os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			f.WriteString(line)
			f.Close()
		}
	}
	os.Exit(code)
}

// pkgPath returns the import path of the package under test: the go
// command names the test binary's main package after it, plus ".test".
func pkgPath() string {
	p := filepath.Base(os.Args[0])
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		p = bi.Path
	}
	return strings.TrimSuffix(p, ".test")
}

// registry is the set of skipped suites, each with how to run it.
type registry struct {
	mu     sync.Mutex
	suites map[string]string // suite → how, the first recorded
}

func (r *registry) add(suite, how string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.suites == nil {
		r.suites = make(map[string]string)
	}
	if _, ok := r.suites[suite]; !ok {
		r.suites[suite] = how
	}
}

// note returns the line [Main] prints for pkg, ending in a newline, or ""
// when nothing was skipped. Suites are sorted by name, so that parallel
// tests do not change the line from one run to the next.
func (r *registry) note(pkg string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.suites) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: skipped %d suite", pkg, len(r.suites))
	if len(r.suites) > 1 {
		b.WriteString("s")
	}
	b.WriteString(":")
	for i, suite := range slices.Sorted(maps.Keys(r.suites)) {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s (%s)", suite, r.suites[suite])
	}
	b.WriteString("\n")
	return b.String()
}
