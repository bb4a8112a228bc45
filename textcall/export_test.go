// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

const casesGoldenIntro = `The family cases of textcall's own tests, for the gateway's tests: each
case's model output (NAME.txt) and what textcall reads from it with the
test tools offered and the strict reasoning reading the gateway uses
(DisableImpliedReasoning), as JSON (NAME.json). The gateway checks that
every front door carries exactly this. Regenerate with
go test ./textcall -run TestCasesGolden -update.
`

// TestCasesGolden keeps testdata/cases.txtar in step with the family
// tables.
func TestCasesGolden(t *testing.T) {
	ar := &txtar.Archive{Comment: []byte(casesGoldenIntro)}
	tools, _ := json.Marshal(testTools)
	ar.Files = append(ar.Files, txtar.File{Name: "tools.json", Data: append(tools, '\n')})
	tables := familyTables()
	for _, family := range Names() {
		for _, tc := range tables[family] {
			if tc.cfg != nil {
				continue // a case of its own settings, not the gateway's
			}
			r, err := Parse(family, tc.in, &Config{Tools: testTools, DisableImpliedReasoning: true, Seed: testSeed})
			if err != nil {
				t.Fatal(err)
			}
			o := project(r)
			o.Codes = nil
			want, _ := json.MarshalIndent(o, "", "  ")
			ar.Files = append(ar.Files,
				txtar.File{Name: family + "/" + tc.name + ".txt", Data: []byte(tc.in + "\n")},
				txtar.File{Name: family + "/" + tc.name + ".json", Data: append(want, '\n')})
		}
	}
	path := filepath.Join("testdata", "cases.txtar")
	got := txtar.Format(ar)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s is out of date: run go test ./textcall -run TestCasesGolden -update", path)
	}
}
