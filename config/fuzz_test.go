// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse checks that any input either parses or fails with an *Error
// that matches ErrInvalid, without panicking.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("../examples/kernel/toolgate.yaml"); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		"server: {addr: ':1', allowed_origins: ['https://a.example/']}\n",
		"principals: [{id: a}, {id: a}]\n",
		"sources: [{name: x, command: {argv: [echo], input_schema: {a: &x [1], b: *x}}}]\n",
		"limits: {read: 0x10, window: 1m}\n",
		"a: &a [1,1]\nb: [*a,*a]\n",
		"policy: {rules: [{name: r, effect: deny, when: 'args.x <'}]}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(data, "f.yaml")
		if err == nil {
			return
		}
		if _, ok := errors.AsType[*Error](err); !ok || !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %T %v is not an *Error matching ErrInvalid", err, err)
		}
	})
}
