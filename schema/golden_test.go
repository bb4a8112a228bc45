// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestLowerGolden runs every case of testdata/lower/<target>.txtar: a file
// "<case>/input.json" and the expected "<case>/output.json" (exact bytes)
// and "<case>/warnings.txt" (one warning a line), or "<case>/error.txt".
func TestLowerGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "lower", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatal("no golden archives")
	}
	for _, file := range files {
		target := Target(strings.TrimSuffix(filepath.Base(file), ".txtar"))
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var out []txtar.File
		for _, f := range ar.Files {
			if !strings.HasSuffix(f.Name, "/input.json") {
				continue
			}
			name := strings.TrimSuffix(f.Name, "/input.json")
			input := bytes.TrimSpace(f.Data)
			got, warns, err := Lower(target, input)
			var gotFiles []txtar.File
			gotFiles = append(gotFiles, txtar.File{Name: f.Name, Data: f.Data})
			if err != nil {
				gotFiles = append(gotFiles, txtar.File{Name: name + "/error.txt", Data: []byte(err.Error() + "\n")})
			} else {
				var w strings.Builder
				for _, x := range warns {
					w.WriteString(x.String())
					w.WriteByte('\n')
				}
				gotFiles = append(gotFiles,
					txtar.File{Name: name + "/output.json", Data: append(append([]byte(nil), got...), '\n')},
					txtar.File{Name: name + "/warnings.txt", Data: []byte(w.String())})
				if probs := Check(target, "tool", got); len(probs) > 0 {
					t.Errorf("%s %s: output fails Check: %v", target, name, probs)
				}
				if !json.Valid(got) {
					t.Errorf("%s %s: output is not JSON", target, name)
				}
			}
			out = append(out, gotFiles...)
			if *update {
				continue
			}
			for _, g := range gotFiles[1:] {
				want, ok := fileData(ar, g.Name)
				if !ok {
					t.Errorf("%s: %s missing from the archive (run with -update)", file, g.Name)
					continue
				}
				if diff := cmp.Diff(string(want), string(g.Data)); diff != "" {
					t.Errorf("%s: %s (-want +got):\n%s", file, g.Name, diff)
				}
			}
		}
		if *update {
			ar.Files = out
			if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func fileData(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}
