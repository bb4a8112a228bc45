// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package jsonschema

import (
	"testing"

	"github.com/toolgate/toolgate/internal/goldentest"
)

// TestHostileInput checks that 10,000 levels of nesting and a document
// past the size limit are clear errors, not a crash or a long wait.
func TestHostileInput(t *testing.T) {
	goldentest.Hostile(t, func(b []byte) error {
		_, err := DecodeTools(b)
		return err
	})
}
