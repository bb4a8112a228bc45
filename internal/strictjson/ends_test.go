// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// valueStarts lists the offset of every value of a checked document, in
// document order, found with the reference skipper.
func valueStarts(data []byte) []int {
	var out []int
	var rec func(i int) int
	rec = func(i int) int {
		out = append(out, i)
		switch data[i] {
		case '{':
			end := refSkip(data, i)
			_, _ = WalkObject(data, i, func(_ []byte, vs int) (int, error) { return rec(vs), nil })
			return end
		case '[':
			end := refSkip(data, i)
			_, _ = WalkArray(data, i, func(_, vs int) (int, error) { return rec(vs), nil })
			return end
		}
		return refSkip(data, i)
	}
	rec(SkipSpace(data, 0))
	return out
}

// checkEnds compares Ends.SkipValue with the reference at every value of
// data, asked in document order, in reverse, and in document order again
// (a reader that starts over).
func checkEnds(t *testing.T, data []byte) {
	t.Helper()
	var ends Ends
	if err := CheckEnds(data, nil, &ends); err != nil {
		if err2 := Check(data, nil); err2 == nil || err.Error() != err2.Error() {
			t.Fatalf("CheckEnds = %v, Check = %v", err, err2)
		}
		if len(ends.spans) != 0 {
			t.Fatalf("CheckEnds failed but kept %d spans", len(ends.spans))
		}
		return
	}
	if err := Check(data, nil); err != nil {
		t.Fatalf("CheckEnds accepted what Check refuses: %v", err)
	}
	starts := valueStarts(data)
	var want, got []int
	order := append(append(append([]int{}, starts...), reverse(starts)...), starts...)
	for _, i := range order {
		want = append(want, refSkip(data, i))
		got = append(got, ends.SkipValue(data, i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Ends.SkipValue differs from the reference on %q (-want +got):\n%s", data, diff)
	}
}

func reverse(s []int) []int {
	r := make([]int, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

func TestEnds(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{name: "tools", in: `{"tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{"x":{"type":"array","items":[{"a":[[]]}]}}}}}]}`},
		{name: "array", in: ` [ {}, [], {"a":"}]"}, [[[[[[[1]]]]]]], "x" ] `},
		{name: "scalar", in: `"just a string"`},
		{name: "deep", in: strings.Repeat(`{"a":[`, 40) + strings.Repeat(`]}`, 40)},
		{name: "many", in: "[" + strings.Repeat(`{"k":[1,{"m":{}}]},`, 200) + "{}]"},
		{name: "invalid", in: `{"a":[1,2,{"b":}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkEnds(t, []byte(tt.in)) })
	}
}

// TestEndsReuse fills one Ends from two documents in turn: nothing of the
// first may leak into the second, even when the second fails.
func TestEndsReuse(t *testing.T) {
	var ends Ends
	first := []byte(`[{"a":[1,2,3]},{"b":{}}]`)
	if err := CheckEnds(first, nil, &ends); err != nil {
		t.Fatal(err)
	}
	second := []byte(`{"x":[[]],"y":{"z":[{}]}}`)
	if err := CheckEnds(second, nil, &ends); err != nil {
		t.Fatal(err)
	}
	for _, i := range valueStarts(second) {
		if got, want := ends.SkipValue(second, i), refSkip(second, i); got != want {
			t.Errorf("after reuse: SkipValue at %d = %d, want %d", i, got, want)
		}
	}
	if err := CheckEnds([]byte(`[1,{"a":1,"a":2}]`), nil, &ends); !errors.Is(err, ErrDuplicateName) {
		t.Fatalf("CheckEnds = %v, want a duplicate name", err)
	}
	// Nothing recorded now: lookups scan, and are still right.
	for _, i := range valueStarts(second) {
		if got, want := ends.SkipValue(second, i), refSkip(second, i); got != want {
			t.Errorf("after a failure: SkipValue at %d = %d, want %d", i, got, want)
		}
	}
}

// FuzzEnds checks Ends.SkipValue against the reference skipper at every
// value of every document CheckEnds accepts, and that a lookup in a
// document other than the one recorded never panics or runs past it.
func FuzzEnds(f *testing.F) {
	f.Add([]byte(`{"tools":[{"function":{"parameters":{"type":"object"}}}]}`), []byte(`[1]`))
	f.Add([]byte(` [ {}, [], {"a":"}]"}, [[[[[[[1]]]]]]] ] `), []byte(`{"a":[{"b":[]}]}`))
	f.Add([]byte(`{"a":"\"]}","b":[{"c":"\\"}]}`), []byte(`[[[[`))
	f.Fuzz(func(t *testing.T, data, other []byte) {
		checkEnds(t, data)
		var ends Ends
		if CheckEnds(data, nil, &ends) != nil {
			return
		}
		for i := range other {
			if end := ends.SkipValue(other, i); end < 0 || end > len(other) {
				t.Fatalf("SkipValue(other, %d) = %d, outside %d bytes", i, end, len(other))
			}
		}
	})
}
