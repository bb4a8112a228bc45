// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// TestStyleExamples checks every defined cell of the OpenAPI 3.1.1 Style
// Examples table (testdata/style-examples.txtar) against the serializers.
func TestStyleExamples(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/style-examples.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var table string
	for _, f := range ar.Files {
		if f.Name == "table.md" {
			table = string(f.Data)
		}
	}
	values := []struct{ column, json string }{
		{"empty", `""`},
		{"string", `"blue"`},
		{"array", `["blue","black","brown"]`},
		{"object", `{"R":100,"G":200,"B":150}`},
	}
	cells := 0
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[2:] {
		cols := strings.Split(line, "|")
		if len(cols) != 6 {
			t.Fatalf("row %q has %d columns", line, len(cols))
		}
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		style, explode := cols[0], cols[1] == "true"
		for i, v := range values {
			want := cols[2+i]
			if want == "_n/a_" {
				continue
			}
			if want == "_empty_" {
				want = ""
			}
			cells++
			name := style + "/" + cols[1] + "/" + v.column
			t.Run(name, func(t *testing.T) {
				val := []byte(v.json)
				switch style {
				case "matrix", "label", "simple":
					if got := serializePathRaw("color", style, explode, val); got != want {
						t.Errorf("path: got %q, want %q", got, want)
					}
					if style != "simple" {
						return
					}
					got, err := serializeHeader(&Param{Name: "color", In: "header", Style: style, Explode: explode}, val)
					if err != nil || got != want {
						t.Errorf("header: got %q (%v), want %q", got, err, want)
					}
				default:
					p := &Param{Name: "color", In: "query", Style: style, Explode: explode}
					got := strings.Join(serializeQuery(p, val), "&")
					if want := strings.TrimPrefix(want, "?"); got != want {
						t.Errorf("query: got %q, want %q", got, want)
					}
				}
			})
		}
	}
	if cells != 37 {
		t.Errorf("checked %d cells, want the table's 37 defined ones", cells)
	}
}

// TestStyleExamplesThroughRequest sends a path parameter of each path
// style through buildRequest: the table's text is what reaches the URL,
// except a whole segment "." (label, empty), which a server would resolve
// away as a dot segment and is therefore sent as "%2E".
func TestStyleExamplesThroughRequest(t *testing.T) {
	tests := []struct {
		name, style string
		explode     bool
		arg, want   string
	}{
		{"matrix-empty", "matrix", false, `""`, "/p/;color"},
		{"matrix-explode-empty", "matrix", true, `""`, "/p/;color"},
		{"matrix-array", "matrix", true, `["blue","black"]`, "/p/;color=blue;color=black"},
		{"label-empty-is-not-a-dot-segment", "label", false, `""`, "/p/%2E"},
		{"label-object", "label", true, `{"R":1}`, "/p/.R=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &Operation{Method: "GET", Path: "/p/{color}", Params: []*Param{{Name: "color", Property: "color", In: "path", Style: tt.style, Explode: tt.explode, Required: true}}}
			r, err := buildRequest(op, "http://h", []byte(`{"color":`+tt.arg+`}`))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimPrefix(r.url, "http://h"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestMatrixRFC6570 pins the RFC 6570 path-style rules beyond the table:
// an empty item or member value is written as the name alone.
func TestMatrixRFC6570(t *testing.T) {
	tests := []struct {
		name    string
		explode bool
		arg     string
		want    string
	}{
		{"empty-items-exploded", true, `["","a"]`, ";color;color=a"},
		{"empty-items", false, `["","",""]`, ";color=,,"},
		{"empty-member-exploded", true, `{"R":"","G":"2"}`, ";R;G=2"},
		{"empty-array", false, `[]`, ";color"},
		{"empty-object", true, `{}`, ";color"},
		{"null-is-empty", false, `null`, ";color"},
		{"reserved-escaped", false, `"red;green=blue"`, ";color=red%3Bgreen%3Dblue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serializePathRaw("color", "matrix", tt.explode, []byte(tt.arg)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAllowReserved pins allowReserved to OpenAPI 3.1.1: reserved
// characters that keep their meaning inside one query value pass raw, and
// so do existing %XX triples; "[", "]", "#", "&", "=", "+" and ";" stay
// encoded, so a value never adds a parameter or cuts the query off.
func TestAllowReserved(t *testing.T) {
	tests := []struct {
		name, value string
		want        string // the query string sent
		wantValue   string // what a form decoder reads back
	}{
		{"ampersand-cannot-inject", "x&z=injected", "r=x%26z%3Dinjected", "x&z=injected"},
		{"hash-cannot-cut", "x#frag", "r=x%23frag", "x#frag"},
		{"triple-passes-once", "x%26y", "r=x%26y", "x&y"},
		{"lone-percent-encoded", "100%", "r=100%25", "100%"},
		{"bad-triple-encoded", "%zz", "r=%25zz", "%zz"},
		{"plus-stays-data", "a+b", "r=a%2Bb", "a+b"},
		{"brackets-encoded", "a[0]", "r=a%5B0%5D", "a[0]"},
		{"reserved-pass", "a/b:c?d@e!$'()*,", "r=a/b:c?d@e!$'()*,", "a/b:c?d@e!$'()*,"},
		{"semicolon-encoded", "a;b=c", "r=a%3Bb%3Dc", "a;b=c"},
		{"space-encoded", "a b", "r=a%20b", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Param{Name: "r", In: "query", Style: "form", Explode: true, AllowReserved: true}
			got := strings.Join(serializeQuery(p, quoteJSON(tt.value)), "&")
			if got != tt.want {
				t.Errorf("query: got %q, want %q", got, tt.want)
			}
			q, err := url.ParseQuery(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(url.Values{"r": {tt.wantValue}}, q); diff != "" {
				t.Errorf("decoded query (-want +got):\n%s", diff)
			}
		})
	}
}

func quoteJSON(s string) []byte {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}
