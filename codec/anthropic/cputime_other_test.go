// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build !unix

package anthropic

// cpuTime is not measured on this platform.
func cpuTime() int64 { return 0 }
