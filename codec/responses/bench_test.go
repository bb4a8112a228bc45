// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/benchtest"
)

// perDef reports the benchmark's time and allocations per definition.
func perDef(b *testing.B, defs int, run func()) {
	b.Helper()
	benchtest.Per(b, defs, "def", run)
}

// BenchmarkDecodeTools decodes a realistic file of 20 tools.
func BenchmarkDecodeTools(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "tools20.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	perDef(b, 20, func() {
		if _, err := DecodeTools(data); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkEncodeTools encodes the same 20 tools.
func BenchmarkEncodeTools(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "tools20.json"))
	if err != nil {
		b.Fatal(err)
	}
	tools, err := DecodeTools(data)
	if err != nil {
		b.Fatal(err)
	}
	perDef(b, len(tools.Defs), func() {
		if _, _, err := EncodeTools(tools); err != nil {
			b.Fatal(err)
		}
	})
}
