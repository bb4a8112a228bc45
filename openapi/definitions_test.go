// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txtar goldens with the current output")

// TestDefinitions builds the tools of each spec in
// testdata/definitions.txtar and compares them with the archive.
func TestDefinitions(t *testing.T) {
	const file = "testdata/definitions.txtar"
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var cases []string
	for _, f := range ar.Files {
		files[f.Name] = f.Data
		if name, part, _ := strings.Cut(f.Name, "/"); strings.HasPrefix(part, "spec.") {
			cases = append(cases, name)
		}
	}
	sort.Strings(cases)
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			var spec []byte
			for k, v := range files {
				if strings.HasPrefix(k, name+"/spec.") {
					spec = v
				}
			}
			api, err := Load(context.Background(), spec, "", &Config{MaxDescription: 60})
			if err != nil {
				t.Fatal(err)
			}
			var tools bytes.Buffer
			enc := json.NewEncoder(&tools)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(api.Tools()); err != nil {
				t.Fatal(err)
			}
			var warns strings.Builder
			for _, w := range api.Warnings {
				warns.WriteString(w.String() + "\n")
			}
			got := map[string]string{name + "/tools.json": tools.String(), name + "/warnings.txt": warns.String()}
			for k, v := range got {
				if *update {
					files[k] = []byte(v)
					continue
				}
				if diff := cmp.Diff(string(files[k]), v); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
	if *update {
		for i, f := range ar.Files {
			ar.Files[i].Data = files[f.Name]
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
