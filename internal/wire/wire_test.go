// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
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
		{name: "missing", err: "/x/0: unknown shape: missing"},
		{name: "number", in: `12`, err: "/x/0: unknown shape: want a string, got number"},
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
				if diff := cmp.Diff(tt.err, err.Error()); diff != "" {
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
		{name: "empty", defs: defs("a", ""), err: `x: /1/name: tool: invalid definition: empty tool name`},
		{name: "duplicate", defs: defs("a", "a"), err: `x: /1/name: tool: invalid definition: duplicate tool name, first at /0/name`},
		{name: "duplicate-many", defs: defs(many...), err: `x: /17/name: tool: invalid definition: duplicate tool name, first at /2/name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Fail("x", nil, Names(tt.defs, func(i int) string { return Index("", i) + "/name" }))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, tool.ErrInvalidDefinition) {
				t.Fatalf("Names = %v, want an invalid-definition error", err)
			}
			if diff := cmp.Diff(tt.err, err.Error()); diff != "" {
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

func TestFail(t *testing.T) {
	data := []byte(` {"tools": [{"a~b": {"x/y": [1, "s"]}}], "n": 1}`)
	tests := []struct {
		name string
		err  error
		want *codec.Error
	}{
		{name: "root", err: ShapeErr("", "want an array"), want: &codec.Error{Format: "f", Offset: 1}},
		{name: "escaped", err: ShapeErr("/tools/0/a~0b/x~1y/1", "x"), want: &codec.Error{Format: "f", Pointer: "/tools/0/a~0b/x~1y/1", Offset: 32}},
		{name: "missing-member", err: ShapeErr("/tools/0/name", "missing"), want: &codec.Error{Format: "f", Pointer: "/tools/0/name", Offset: -1}},
		{name: "index-out-of-range", err: ShapeErr("/tools/1", "x"), want: &codec.Error{Format: "f", Pointer: "/tools/1", Offset: -1}},
		{name: "index-leading-zero", err: ShapeErr("/tools/00", "x"), want: &codec.Error{Format: "f", Pointer: "/tools/00", Offset: -1}},
		{name: "into-scalar", err: ShapeErr("/n/0", "x"), want: &codec.Error{Format: "f", Pointer: "/n/0", Offset: -1}},
		{name: "strictjson", err: &strictjson.Error{Err: strictjson.ErrDuplicateName, Offset: 7, Pointer: "/a"}, want: &codec.Error{Format: "f", Pointer: "/a", Offset: 7}},
		{name: "other", err: errors.New("boom"), want: &codec.Error{Format: "f", Offset: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Fail("f", data, tt.err)
			ce, ok := errors.AsType[*codec.Error](err)
			if !ok {
				t.Fatalf("Fail = %T, want a *codec.Error", err)
			}
			got := &codec.Error{Format: ce.Format, Pointer: ce.Pointer, Offset: ce.Offset}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !errors.Is(err, tt.err) && !errors.Is(err, codec.ErrUnknownShape) {
				t.Errorf("Fail lost its cause: %v", err)
			}
		})
	}
}

func TestAppendString(t *testing.T) {
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
