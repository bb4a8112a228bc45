// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package goldentest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// Hostile checks that decode turns 10,000 levels of nesting and a document
// past the size limit into clear errors, not a crash or a long wait.
func Hostile(t *testing.T, decode func([]byte) error) {
	t.Helper()
	deep := append(bytes.Repeat([]byte(`{"name":"a","x":[`), 1), bytes.Repeat([]byte("["), 10000)...)
	if err := decode(deep); !errors.Is(err, strictjson.ErrTooDeep) {
		t.Errorf("10,000 levels: %v, want ErrTooDeep", err)
	}
	big := make([]byte, strictjson.DefaultMaxBytes+1)
	for i := range big {
		big[i] = ' '
	}
	if err := decode(big); !errors.Is(err, strictjson.ErrTooLarge) {
		t.Errorf("%d bytes: %v, want ErrTooLarge", len(big), err)
	}
}
