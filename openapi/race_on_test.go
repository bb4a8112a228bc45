// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build race

package openapi

// raceEnabled is true under the race detector, which makes the
// single-goroutine corpus checks ten times slower and finds nothing in
// them; .ci/run runs them without it too.
const raceEnabled = true
