// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package goldentest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// Want runs fn over every input file of the txtar archive at path (a name
// not ending in ".want") and compares its output with the file of the same
// base name ending in ".want". fn gets the input without its final
// newline; its output gets one if it lacks it. With update it rewrites the
// archive instead, keeping the prose at its top.
func Want(t *testing.T, path string, update bool, fn func(in []byte) string) {
	t.Helper()
	run(t, path, update, fn, layout{
		suffix: ".want",
		name:   func(n string) string { return strings.TrimSuffix(n, filepath.Ext(n)) },
		input:  func(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) },
		output: func(s string) string {
			if !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			return s
		},
	})
}

// Out runs fn over every input file of the txtar archive at path (a name
// not ending in ".out") and compares its output with the file named after
// the input, each of trim removed from its end in turn, plus ".out". fn
// gets the input trimmed of surrounding whitespace; its output is compared
// as it is. With update it rewrites the archive instead, keeping the prose
// at its top.
func Out(t *testing.T, path string, update bool, fn func(in []byte) string, trim ...string) {
	t.Helper()
	run(t, path, update, fn, layout{
		suffix: ".out",
		name: func(n string) string {
			for _, s := range trim {
				n = strings.TrimSuffix(n, s)
			}
			return n
		},
		input:  bytes.TrimSpace,
		output: func(s string) string { return s },
	})
}

// layout is how an archive pairs inputs with outputs.
type layout struct {
	suffix string              // of output files
	name   func(string) string // an input's name without what the output's drops
	input  func([]byte) []byte // what fn gets of an input file
	output func(string) string // what is compared of fn's result
}

func run(t *testing.T, path string, update bool, fn func(in []byte) string, l layout) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(bytes.TrimSpace(ar.Comment)) == 0 {
		t.Errorf("%s: the archive must start with prose naming what it pins", path)
	}
	wants := map[string]string{}
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, l.suffix) {
			wants[f.Name] = string(f.Data)
		}
	}
	var files []txtar.File
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, l.suffix) {
			continue
		}
		wantName := l.name(f.Name) + l.suffix
		got := l.output(fn(l.input(f.Data)))
		files = append(files, f, txtar.File{Name: wantName, Data: []byte(got)})
		if update {
			continue
		}
		want, ok := wants[wantName]
		if !ok {
			t.Errorf("%s: no %s (run with -update)", path, wantName)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: %s mismatch (-want +got):\n%s", path, f.Name, diff)
		}
	}
	if update {
		ar.Files = files
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
