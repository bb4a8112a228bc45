// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build unix

package textcall

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used: the benchmarks report it
// beside wall time because the development machine is shared.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
