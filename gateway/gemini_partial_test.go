// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"strings"
	"testing"
)

func TestStreamedCallPieces(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		want   string
		bad    string
	}{
		{"one string in two pieces", []string{`[{"jsonPath":"$.q","stringValue":"Bos","willContinue":true}]`, `[{"jsonPath":"$.q","stringValue":"ton"}]`}, `{"q":"Boston"}`, ""},
		{"typed values and nesting", []string{`[{"jsonPath":"$.a.b","numberValue":3},{"jsonPath":"$.a.c","boolValue":false},{"jsonPath":"$['d e']","nullValue":null},{"jsonPath":"$.items[1].id","stringValue":"x"}]`},
			`{"a":{"b":3,"c":false},"d e":null,"items":[null,{"id":"x"}]}`, ""},
		{"no pieces", nil, `{}`, ""},
		{"bad path", []string{`[{"jsonPath":"a.b","stringValue":"x"}]`}, `{}`, "jsonPath"},
		{"shape conflict", []string{`[{"jsonPath":"$.a","stringValue":"x"},{"jsonPath":"$.a.b","stringValue":"y"}]`}, `{"a":"x"}`, "disagree"},
		{"restart a closed string", []string{`[{"jsonPath":"$.a","stringValue":"x"},{"jsonPath":"$.a","stringValue":"y"}]`}, `{"a":"x"}`, "disagree"},
		{"no value", []string{`[{"jsonPath":"$.a"}]`}, `{"a":null}`, "no value"},
		{"not pieces", []string{`[1,2]`}, `{}`, "not a list"},
		{"too deep", []string{`[{"jsonPath":"$` + strings.Repeat(".a", maxPathDepth+1) + `","stringValue":"x"}]`}, `{}`, "jsonPath"},
		{"escapes", []string{`[{"jsonPath":"$.k","stringValue":"\"<\u2028>\""}]`}, `{"k":"\"<\u2028>\""}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &streamedCall{name: "f"}
			for _, p := range tt.pieces {
				c.apply([]byte(p))
			}
			if got := string(c.json()); got != tt.want {
				t.Errorf("arguments %s, want %s", got, tt.want)
			}
			if (tt.bad == "") != (c.bad == "") || !strings.Contains(c.bad, tt.bad) {
				t.Errorf("bad %q, want %q", c.bad, tt.bad)
			}
		})
	}
}

func TestStreamedCallBounded(t *testing.T) {
	c := &streamedCall{name: "f"}
	piece := []byte(`[{"jsonPath":"$.a","stringValue":"` + strings.Repeat("x", 1<<20) + `","willContinue":true}]`)
	for range 6 {
		c.apply(piece)
	}
	if !strings.Contains(c.bad, "4 MiB") || len(c.json()) > maxStreamedArgs+16 {
		t.Errorf("bad %q, %d bytes", c.bad, len(c.json()))
	}
}
