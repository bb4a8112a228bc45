// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// TestGolden runs the command lines in testdata/*.txtar in-process and
// compares stdout, stderr and the exit status with the archive.
//
// In an archive, a case NAME is the files NAME/args (one argument a line;
// $EXAMPLES is the repository's examples/ folder), optionally NAME/stdin,
// and the expected NAME/stdout, NAME/stderr and NAME/exit.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs("../../../../examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cases := map[string]map[string]string{}
			for _, f := range ar.Files {
				name, part, ok := strings.Cut(f.Name, "/")
				if !ok {
					t.Fatalf("%s: file %q is not NAME/PART", file, f.Name)
				}
				if cases[name] == nil {
					cases[name] = map[string]string{}
				}
				cases[name][part] = string(f.Data)
			}
			names := make([]string, 0, len(cases))
			for n := range cases {
				names = append(names, n)
			}
			sort.Strings(names)
			var out []txtar.File
			for _, name := range names {
				c := cases[name]
				args := strings.Fields(strings.ReplaceAll(c["args"], "$EXAMPLES", examples))
				var stdout, stderr bytes.Buffer
				runErr := Run(context.Background(), args, strings.NewReader(c["stdin"]), &stdout, &stderr)
				got := map[string]string{
					"stdout": stdout.String(),
					"stderr": strings.ReplaceAll(stderr.String(), examples, "$EXAMPLES"),
					"exit":   strconv.Itoa(ExitCode(runErr)) + "\n",
				}
				out = append(out, txtar.File{Name: name + "/args", Data: []byte(c["args"])})
				if s, ok := c["stdin"]; ok {
					out = append(out, txtar.File{Name: name + "/stdin", Data: []byte(s)})
				}
				for _, part := range []string{"stdout", "stderr", "exit"} {
					out = append(out, txtar.File{Name: name + "/" + part, Data: []byte(got[part])})
					if *update {
						continue
					}
					if diff := cmp.Diff(c[part], got[part]); diff != "" {
						t.Errorf("%s: %s (-want +got):\n%s", name, part, diff)
					}
				}
			}
			if *update {
				ar.Files = out
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(os.Stderr, "updated %s\n", file)
			}
		})
	}
}
