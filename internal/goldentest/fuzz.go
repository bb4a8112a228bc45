// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package goldentest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// Seeds adds every input file of the txtar archives at paths (a name not
// ending in ".want" or ".out") to f's corpus.
func Seeds(f *testing.F, paths ...string) {
	f.Helper()
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if !strings.HasSuffix(file.Name, ".want") && !strings.HasSuffix(file.Name, ".out") {
				f.Add(file.Data)
			}
		}
	}
}

// RoundTrip checks a decoder and its encoder on data: when decode accepts
// data, encode must accept the result and write the same bytes twice, and
// decode must accept what it wrote. diff compares the first decoded value
// with the one decoded from the encoding and returns "" when they agree;
// nil means cmp.Diff.
func RoundTrip[T any](t *testing.T, data []byte, decode func([]byte) (T, error), encode func(T) ([]byte, error), diff func(first, back T) string) {
	t.Helper()
	v, err := decode(data)
	if err != nil {
		return
	}
	out, err := encode(v)
	if err != nil {
		t.Fatalf("encoding after a successful decode: %v", err)
	}
	again, err := encode(v)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("encoding is not byte-stable:\n%s\n%s", out, again)
	}
	back, err := decode(out)
	if err != nil {
		t.Fatalf("decoding the encoding: %v\n%s", err, out)
	}
	if diff == nil {
		diff = func(first, back T) string { return cmp.Diff(first, back) }
	}
	if d := diff(v, back); d != "" {
		t.Errorf("round trip (-first +second):\n%s", d)
	}
}
