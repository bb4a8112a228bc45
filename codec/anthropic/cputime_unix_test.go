// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build unix

package anthropic

import "syscall"

// cpuTime returns the process's user and system CPU time in nanoseconds.
// Benchmarks report it beside wall time because the machines they run on
// are shared: CPU time is what a conversion costs, whatever the load.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
