// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build !unix

package bfcl

import "time"

func cpuTime() time.Duration { return 0 }
