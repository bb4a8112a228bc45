// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build race

package gateway

// raceEnabled is true under the race detector, whose instrumentation
// allocates where the plain build does not: allocation counts are
// checked in the plain run only.
const raceEnabled = true
