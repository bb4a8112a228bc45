// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build !unix

package textcall

import "time"

// cpuTime is not measured on this system.
func cpuTime() time.Duration { return 0 }
