// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package benchtest helps benchmarks report figures that mean something on
// a shared machine: CPU time beside wall time, per unit of work.
//
//	benchtest.Per(b, len(defs), "def", func() { decode(data) })
//	// reports ns/def, cpu-ns/def and allocs/def
package benchtest

import (
	"runtime"
	"testing"
)

// Per runs run in b's loop and reports, per unit of work (units per call
// of run, named unit), the wall time, the CPU time and the allocations.
// CPU time is what the work costs whatever else the machine is doing; it
// is left out where the platform cannot measure it.
func Per(b *testing.B, units int, unit string, run func()) {
	b.Helper()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := CPUTime()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.StopTimer()
	cpu = CPUTime() - cpu
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(units)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/"+unit)
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/"+unit)
	}
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/"+unit)
}
