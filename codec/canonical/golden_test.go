// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package canonical

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

	"github.com/toolgate/toolgate/tool"
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

// report renders a decoded value, what it encodes to and the warnings.
func report(decoded any, decodeErr error, encoded []byte, warns []tool.Warning, encodeErr error) string {
	var b strings.Builder
	if decodeErr != nil {
		b.WriteString("decode error: " + decodeErr.Error() + "\n")
		return b.String()
	}
	var j bytes.Buffer
	enc := json.NewEncoder(&j)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(decoded); err != nil {
		j.WriteString("marshal: " + err.Error() + "\n")
	}
	b.WriteString("decoded:\n")
	b.Write(j.Bytes())
	if encodeErr != nil {
		b.WriteString("encode error: " + encodeErr.Error() + "\n")
		return b.String()
	}
	b.WriteString("encoded:\n")
	b.Write(encoded)
	b.WriteString("\n")
	for _, w := range warns {
		b.WriteString("warning: " + w.String() + "\n")
	}
	return b.String()
}
