// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// runGolden runs run on every "<case>.json" (or .jsonl) file of the archive
// and compares its report with "<case>.out", rewriting with -update.
func runGolden(t *testing.T, file string, run func(in []byte) string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	var inputs []txtar.File
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".out") {
			want[strings.TrimSuffix(f.Name, ".out")] = string(f.Data)
			continue
		}
		inputs = append(inputs, f)
	}
	out := &txtar.Archive{Comment: ar.Comment}
	for _, f := range inputs {
		name := strings.TrimSuffix(strings.TrimSuffix(f.Name, ".jsonl"), ".json")
		got := run(bytes.TrimSpace(f.Data))
		out.Files = append(out.Files, f, txtar.File{Name: name + ".out", Data: []byte(got)})
		if *update {
			continue
		}
		if diff := cmp.Diff(want[name], got); diff != "" {
			t.Errorf("%s: %s mismatch (-want +got):\n%s", file, name, diff)
		}
	}
	if *update {
		if err := os.WriteFile(path, txtar.Format(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDecodeGolden(t *testing.T) {
	runGolden(t, "decode.txtar", func(in []byte) string {
		ts, err := DecodeTools(in)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		for _, d := range ts.Defs {
			b.WriteString(d.Name + ": " + string(d.InputSchema) + "\n")
			if d.OutputSchema != nil {
				b.WriteString(d.Name + " output: " + string(d.OutputSchema) + "\n")
			}
		}
		if ts.Single {
			b.WriteString("single\n")
		}
		for _, w := range ts.Warnings {
			b.WriteString("warning: " + w.String() + "\n")
		}
		return b.String()
	})
}
