// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden runs fn over every input file of the archive (a name not ending in
// ".want") and compares its output with the file of the same base name
// ending in ".want". With -update it rewrites the archive, keeping the
// prose at its top.
func golden(t *testing.T, file string, fn func(in []byte) string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(bytes.TrimSpace(ar.Comment)) == 0 {
		t.Errorf("%s: the archive must start with prose naming what it pins", path)
	}
	wants := map[string]string{}
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".want") {
			wants[f.Name] = string(f.Data)
		}
	}
	var files []txtar.File
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".want") {
			continue
		}
		wantName := strings.TrimSuffix(f.Name, filepath.Ext(f.Name)) + ".want"
		got := fn(bytes.TrimSuffix(f.Data, []byte("\n")))
		if !strings.HasSuffix(got, "\n") {
			got += "\n"
		}
		files = append(files, f, txtar.File{Name: wantName, Data: []byte(got)})
		if *update {
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
	if *update {
		ar.Files = files
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// canonical renders v as indented canonical JSON for goldens.
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "marshal: " + err.Error()
	}
	return b.String()
}

func warnings(ws []tool.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

func TestGoldenTools(t *testing.T) {
	golden(t, "tools.txtar", func(in []byte) string {
		tools, err := DecodeTools(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, ws, err := EncodeTools(tools)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("single: %v\n%s%s== encoded ==\n%s\n", tools.Single, warnings(tools.Warnings), canonical(tools.Defs), out) + warnings(ws)
	})
}

func TestGoldenResponse(t *testing.T) {
	golden(t, "response.txtar", func(in []byte) string {
		r, err := DecodeResponse(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := EncodeResponse(r)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("%s== encoded ==\n%s\n", canonical(r), out)
	})
}

func TestGoldenResults(t *testing.T) {
	golden(t, "results.txtar", func(in []byte) string {
		rs, err := DecodeResults(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := EncodeResults(rs)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("%s== encoded ==\n%s\n", canonical(rs), out)
	})
}

func TestGoldenChoice(t *testing.T) {
	golden(t, "choice.txtar", func(in []byte) string {
		c, err := DecodeChoice(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := EncodeChoice(c)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("%s== encoded ==\n%s\n", canonical(c), out)
	})
}
