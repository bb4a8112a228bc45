// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/tool"
)

func TestStr(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		err  string
	}{
		{name: "plain", in: `"a\nb"`, want: "a\nb"},
		{name: "missing", err: "unknown shape at /x/0: missing"},
		{name: "number", in: `12`, err: "unknown shape at /x/0: want a string, got number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []byte
			if tt.in != "" {
				in = []byte(tt.in)
			}
			got, err := Str(in, Index("/x", 0))
			if tt.err != "" {
				if err == nil || !errors.Is(err, codec.ErrUnknownShape) {
					t.Fatalf("Str(%s) = %q, %v; want an unknown-shape error", tt.in, got, err)
				}
				if diff := cmp.Diff(codec.ErrUnknownShape.Error()+tt.err[len("unknown shape"):], err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Str(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	defs := func(names ...string) []tool.Definition {
		var ds []tool.Definition
		for _, n := range names {
			ds = append(ds, tool.Definition{Name: n})
		}
		return ds
	}
	many := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "c"}
	tests := []struct {
		name string
		defs []tool.Definition
		err  string
	}{
		{name: "distinct", defs: defs("a", "b")},
		{name: "empty", defs: defs("a", ""), err: `x: invalid tool definition at /1/name: empty tool name`},
		{name: "duplicate", defs: defs("a", "a"), err: `x: invalid tool definition at /1/name: duplicate tool name "a", first at /0/name`},
		{name: "duplicate-many", defs: defs(many...), err: `x: invalid tool definition at /17/name: duplicate tool name "c", first at /2/name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Names("x: ", tt.defs, func(i int) string { return Index("", i) + "/name" })
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, tool.ErrInvalidDefinition) {
				t.Fatalf("Names = %v, want an invalid-definition error", err)
			}
			want := "x: " + tool.ErrInvalidDefinition.Error() + tt.err[len("x: invalid tool definition"):]
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAppend(t *testing.T) {
	dst := []byte("{")
	dst = AppendStr(dst, "name", `a"b`)
	dst = AppendRaw(dst, "args", []byte(" {} "))
	dst = AppendKey(append(dst, ','), "n")
	dst = append(dst, "1}"...)
	if diff := cmp.Diff(`{"name":"a\"b","args":{},"n":1}`, string(dst)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPrefixed(t *testing.T) {
	_, err := PrefixedBool("mcp: ", []byte(`"yes"`), Member("/tools/0", "a/b"))
	want := "mcp: /tools/0/a~1b: " + codec.ErrUnknownShape.Error() + ": want a boolean, have string"
	if err == nil || !errors.Is(err, codec.ErrUnknownShape) || err.Error() != want {
		t.Errorf("PrefixedBool error = %v, want %s", err, want)
	}
	if _, err := PrefixedStr("gemini: ", []byte(`1`), ""); err == nil || err.Error() != "gemini: document root: "+codec.ErrUnknownShape.Error()+": want a string, have number" {
		t.Errorf("PrefixedStr error = %v", err)
	}
	dst := []byte("{")
	first := true
	dst = AppendBool(AppendString(dst, &first, "k", "v"), &first, "b", false)
	if diff := cmp.Diff(`{"k":"v","b":false`, string(dst)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLoc(t *testing.T) {
	tests := []struct {
		name string
		loc  Loc
		want string
	}{
		{name: "root", loc: Loc{I: -1}, want: ""},
		{name: "root-path", loc: Loc{I: -1, Path: "/function"}, want: "/function"},
		{name: "element", loc: Loc{Base: "/tools", I: 3}, want: "/tools/3"},
		{name: "element-path", loc: Loc{Base: "/tools", I: 0, Path: "/function/name"}, want: "/tools/0/function/name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.loc.String(); got != tt.want {
				t.Errorf("%+v.String() = %q, want %q", tt.loc, got, tt.want)
			}
		})
	}
}
