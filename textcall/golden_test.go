// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// goldenJSON is a result as the parse command prints it.
func goldenJSON(t *testing.T, r *Result) []byte {
	t.Helper()
	type call struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	out := struct {
		Content   string   `json:"content,omitempty"`
		Reasoning string   `json:"reasoning,omitempty"`
		Calls     []call   `json:"tool_calls"`
		Warnings  []string `json:"warnings,omitempty"`
	}{Content: r.Content, Reasoning: r.Reasoning, Calls: []call{}}
	for _, c := range r.Calls {
		out.Calls = append(out.Calls, call{c.ID, c.Name, c.Arguments})
	}
	for _, w := range r.Warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFamilyGolden(t *testing.T) {
	path := filepath.Join("testdata", "families.txtar")
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := range ar.Files {
		f := &ar.Files[i]
		family, kind, _ := strings.Cut(f.Name, "/")
		if kind != "output" {
			continue
		}
		seen[family] = true
		text := strings.TrimSuffix(string(f.Data), "\n")
		cfg := &Config{Tools: testTools}
		if family == "deepseek-v3.1" {
			cfg.ThinkOpen = true
		}
		p := newTestParser(t, family, cfg)
		r := p.Parse(text)
		got := goldenJSON(t, r)
		if diff := resultDiff(r, streamed(t, p, chunkings(text, 0, 0)[0])); diff != "" {
			t.Errorf("%s: one-byte stream differs from Parse (-parse +stream):\n%s", family, diff)
		}
		want := &ar.Files[i+1]
		if want.Name != family+"/want" {
			t.Fatalf("%s is not followed by %s/want", f.Name, family)
		}
		if *update {
			want.Data = got
			continue
		}
		if diff := cmp.Diff(string(want.Data), string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", family, diff)
		}
	}
	for _, n := range Names() {
		if !seen[n] {
			t.Errorf("%s has no hand-written output in %s", n, path)
		}
	}
	if *update {
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
