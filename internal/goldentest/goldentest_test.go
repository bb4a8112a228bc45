// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package goldentest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestUpdate writes outputs into archives of both layouts with update
// set, checks what was written, and then runs them against it.
func TestUpdate(t *testing.T) {
	upper := func(in []byte) string { return strings.ToUpper(string(in)) }
	tests := []struct {
		name    string
		archive string
		run     func(t *testing.T, path string, update bool)
		want    string
	}{
		{
			name:    "want",
			archive: "Pins upper-casing.\n-- a.json --\n x \n-- a.want --\nstale\n-- b.txt --\ny\n",
			run:     func(t *testing.T, path string, update bool) { Want(t, path, update, upper) },
			want:    "Pins upper-casing.\n-- a.json --\n x \n-- a.want --\n X \n-- b.txt --\ny\n-- b.want --\nY\n",
		},
		{
			name:    "out",
			archive: "Pins upper-casing.\n-- a.json --\n x \n-- b.jsonl --\ny\n-- b.out --\nstale\n",
			run: func(t *testing.T, path string, update bool) {
				Out(t, path, update, func(in []byte) string { return upper(in) + "\n" }, ".jsonl", ".json")
			},
			want: "Pins upper-casing.\n-- a.json --\n x \n-- a.out --\nX\n-- b.jsonl --\ny\n-- b.out --\nY\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "case.txtar")
			if err := os.WriteFile(path, []byte(tt.archive), 0o644); err != nil {
				t.Fatal(err)
			}
			tt.run(t, path, true)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("rewritten archive (-want +got):\n%s", diff)
			}
			tt.run(t, path, false)
		})
	}
}

func FuzzRoundTrip(f *testing.F) {
	Seeds(f, "testdata/seeds.txtar")
	decode := func(b []byte) ([]string, error) {
		if !utf8.Valid(b) {
			return nil, errors.New("not UTF-8")
		}
		return strings.Split(string(b), ","), nil
	}
	encode := func(s []string) ([]byte, error) { return []byte(strings.Join(s, ",")), nil }
	f.Fuzz(func(t *testing.T, data []byte) {
		RoundTrip(t, data, decode, encode, nil)
	})
}
