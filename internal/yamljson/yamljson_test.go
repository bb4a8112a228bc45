// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package yamljson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/strictjson"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{name: "key_order", yaml: "z: 1\na: {y: true, b: null}\n200: x\nv: 3.0\n", want: `{"z":1,"a":{"y":true,"b":null},"200":"x","v":3.0}`},
		{name: "exact_big_int", yaml: "n: 9007199254740993\n", want: `{"n":9007199254740993}`},
		{name: "huge_int", yaml: "n: 123456789012345678901234567890\n", want: `{"n":123456789012345678901234567890}`},
		{name: "negative_int", yaml: "n: -9223372036854775809\n", want: `{"n":-9223372036854775809}`},
		{name: "hex", yaml: "n: 0x1F\n", want: `{"n":31}`},
		{name: "hex_big", yaml: "n: 0x20000000000001\n", want: `{"n":9007199254740993}`},
		{name: "octal_yaml12", yaml: "n: 0o17\n", want: `{"n":15}`},
		{name: "leading_zero_is_decimal", yaml: "n: 017\n", want: `{"n":17}`},
		{name: "plus_sign", yaml: "n: +12\n", want: `{"n":12}`},
		{name: "minus_zero", yaml: "n: -0\n", want: `{"n":0}`},
		{name: "underscores", yaml: "n: 1_000\n", want: `{"n":1000}`},
		{name: "float_as_written", yaml: "n: 0.10000000000000000555\n", want: `{"n":0.10000000000000000555}`},
		{name: "float_yaml_form", yaml: "n: 1.5E3\n", want: `{"n":1.5E3}`},
		{name: "infinity_kept_as_text", yaml: "n: .inf\n", want: `{"n":".inf"}`},
		{name: "quoted_number_is_string", yaml: "n: '12'\n", want: `{"n":"12"}`},
		{name: "yaml11_yes_is_string", yaml: "n: yes\n", want: `{"n":"yes"}`},
		{name: "anchor_and_merge", yaml: "anchor: &x {k: 1}\nmerged: {<<: *x, j: 2}\n", want: `{"anchor":{"k":1},"merged":{"j":2,"k":1}}`},
		{name: "merge_does_not_override", yaml: "a: &a {k: 1}\nb: {k: 2, <<: *a}\n", want: `{"a":{"k":1},"b":{"k":2}}`},
		{name: "sequence", yaml: "- 1\n- [a, {b: c}]\n", want: `[1,["a",{"b":"c"}]]`},
		{name: "empty_document_body", yaml: "---\n", want: `null`},
		{name: "unicode_and_escapes", yaml: "s: \"é\\t\\\"\"\n", want: `{"s":"é\t\""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Convert([]byte(tt.yaml), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConvertErrors(t *testing.T) {
	bomb := "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
	tests := []struct {
		name, yaml string
		opts       *Options
		want       error
		line       int
	}{
		{name: "duplicate_key", yaml: "a: 1\nb: 2\na: 3\n", want: ErrDuplicateKey, line: 3},
		{name: "alias_bomb", yaml: bomb, want: ErrTooLarge},
		{name: "node_budget", yaml: "[1, 2, 3, 4]", opts: &Options{MaxNodes: 3}, want: ErrTooLarge},
		{name: "depth", yaml: strings.Repeat("[", 20) + strings.Repeat("]", 20), opts: &Options{MaxDepth: 10}, want: ErrTooDeep},
		{name: "bytes", yaml: "- " + strings.Repeat("x", 100) + "\n- y\n", opts: &Options{MaxBytes: 50}, want: ErrTooLarge},
		{name: "complex_key", yaml: "? [a]\n: 1\n", want: ErrUnsupported, line: 1},
		{name: "merge_scalar", yaml: "a: {<<: 1}\n", want: ErrUnsupported, line: 1},
		{name: "syntax", yaml: "a: [\n", want: ErrSyntax},
		{name: "empty", yaml: "", want: ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert([]byte(tt.yaml), tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			ye, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("%T is not a *Error", err)
			}
			if tt.line != 0 && ye.Line != tt.line {
				t.Errorf("line %d, want %d", ye.Line, tt.line)
			}
		})
	}
}

func TestNoLimits(t *testing.T) {
	js, err := Convert([]byte(strings.Repeat("[", 300)+strings.Repeat("]", 300)), &Options{MaxDepth: -1, MaxNodes: -1, MaxBytes: -1})
	if err != nil || len(js) != 600 {
		t.Fatalf("got %d bytes, %v", len(js), err)
	}
}

func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		"z: 1\na: {y: true, b: null}\n",
		"n: 0x1F\nm: 9007199254740993\no: 0o17\n",
		"anchor: &x {k: 1}\nmerged: {<<: *x, j: 2}\n",
		"a: &a [1,1]\nb: [*a,*a]\n",
		"- .inf\n- -.nan\n- 1e400\n- '1'\n",
		"{\"json\": [1, 2.5, \"x\"]}",
		"? [a]\n: 1\n",
		"s: |\n  multi\n  line\n",
		"a: 1\na: 2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := Convert(data, &Options{MaxNodes: 10000, MaxBytes: 1 << 20})
		if err != nil {
			if _, ok := errors.AsType[*Error](err); !ok && !isStrict(err) {
				t.Fatalf("error %T %v is neither a *Error nor a strictjson error", err, err)
			}
			return
		}
		if !json.Valid(js) {
			t.Fatalf("invalid JSON %q from %q", js, data)
		}
	})
}

func isStrict(err error) bool {
	_, ok := errors.AsType[*strictjson.Error](err)
	return ok
}
