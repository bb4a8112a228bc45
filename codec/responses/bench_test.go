// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// perDef reports the benchmark's time and allocations per definition.
func perDef(b *testing.B, defs int, run func()) {
	b.Helper()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.StopTimer()
	cpu = cpuTime() - cpu
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(defs)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/def")
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/n, "cpu-ns/def")
	}
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/def")
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
