// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package layout holds the test that enforces DESIGN.md's import
// direction: each package may import only the toolgate packages beneath it.
// It has no code of its own.
package layout
