// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// runGolden runs run on every "<case>.json" file of the archive and compares
// its report with "<case>.out", rewriting the outputs with -update.
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
		name := strings.TrimSuffix(f.Name, ".json")
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

func TestDetectGolden(t *testing.T) {
	runGolden(t, "detect.txtar", func(in []byte) string {
		r := Detect(in)
		var b strings.Builder
		fmt.Fprintf(&b, "format: %s\nconfidence: %.3f\nambiguous: %v\n", r.Format, r.Confidence, r.Ambiguous)
		if r.Err != nil {
			fmt.Fprintf(&b, "error: %v\n", r.Err)
		}
		for _, s := range r.Scores {
			if s.Confidence > 0 {
				fmt.Fprintf(&b, "score: %-16s %.3f\n", s.Format, s.Confidence)
			}
		}
		for _, e := range r.Evidence {
			b.WriteString("evidence: " + e + "\n")
		}
		return b.String()
	})
}
