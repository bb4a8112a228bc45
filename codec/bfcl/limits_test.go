// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

import (
	"bytes"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/goldentest"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// TestHostileInput checks that 10,000 levels of nesting and a document
// past the size limit are clear errors, not a crash or a long wait.
func TestHostileInput(t *testing.T) {
	goldentest.Hostile(t, func(b []byte) error {
		_, err := DecodeTools(b)
		return err
	})
	// JSON Lines of small valid lines get the same limit as one document.
	line := []byte(`{"name":"a","parameters":{"type":"dict"}}` + "\n")
	lines := bytes.Repeat(line, strictjson.DefaultMaxBytes/len(line)+1)
	if _, err := DecodeTools(lines); !errors.Is(err, strictjson.ErrTooLarge) {
		t.Errorf("%d bytes of JSON Lines: %v, want ErrTooLarge", len(lines), err)
	}
}
