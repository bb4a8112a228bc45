// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build race

package schema

// raceEnabled is true under the race detector, where the corpus tests
// sample the corpus: the plain run covers all of it, and lowering is pure
// single-goroutine code.
const raceEnabled = true
