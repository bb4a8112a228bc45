// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

import (
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// TestSkipValue compares the fast skipper with strictjson.Skip, the
// reference, on values with escapes at every position.
func TestSkipValue(t *testing.T) {
	tests := []string{
		`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"abcdefghijklmnop\"q"`, `"abcdefghijklmnopqrstu\\"`,
		`"0123456789abcde\\"`, `"0123456789abcdef\\"`, `"\u0022"`, `{"a":"}"}`, `["]",{"b":[1,2]}]`,
		`123`, `-1.5e3`, `true`, `null`, `{"k\"ey":"v\\\\"}`,
	}
	for _, v := range tests {
		data := []byte(v + ` ,`)
		if err := strictjson.Check([]byte(v), nil); err != nil {
			t.Fatalf("bad test value %s: %v", v, err)
		}
		if got, want := skipValue(data, 0), strictjson.Skip(data, 0); got != want {
			t.Errorf("skipValue(%s) = %d, want %d", v, got, want)
		}
	}
}

func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `{"x":["\\",1]}`, `"0123456789abcdef\\\"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if strictjson.Check(data, nil) != nil {
			return
		}
		i := 0
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
			i++
		}
		if got, want := skipValue(data, i), strictjson.Skip(data, i); got != want {
			t.Fatalf("skipValue = %d, strictjson.Skip = %d on %q", got, want, data)
		}
	})
}
