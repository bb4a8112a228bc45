// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package canonical

import (
	"bytes"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// TestHostileInput checks that 10,000 levels of nesting and a document
// past the size limit are clear errors, not a crash or a long wait.
func TestHostileInput(t *testing.T) {
	deep := append(bytes.Repeat([]byte(`{"name":"a","x":[`), 1), bytes.Repeat([]byte("["), 10000)...)
	if _, err := DecodeTools(deep); !errors.Is(err, strictjson.ErrTooDeep) {
		t.Errorf("10,000 levels: %v, want ErrTooDeep", err)
	}
	big := make([]byte, strictjson.DefaultMaxBytes+1)
	for i := range big {
		big[i] = ' '
	}
	if _, err := DecodeTools(big); !errors.Is(err, strictjson.ErrTooLarge) {
		t.Errorf("%d bytes: %v, want ErrTooLarge", len(big), err)
	}
}
