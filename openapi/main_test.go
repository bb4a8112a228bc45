// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"testing"

	"github.com/toolgate/toolgate/internal/skipnote"
)

// TestMain runs the tests and then says which suites were skipped, and how
// to run them, even without -v: the corpus tests skip on a machine that
// lacks what they need.
func TestMain(m *testing.M) { skipnote.Main(m) }
