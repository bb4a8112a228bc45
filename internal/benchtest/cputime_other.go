// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build !unix

package benchtest

import "time"

// CPUTime returns 0: this platform's CPU time is not read.
func CPUTime() time.Duration { return 0 }
