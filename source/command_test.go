// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/kernel"
)

func TestNewCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  *CommandConfig
	}{
		{name: "nil", cfg: nil},
		{name: "no_name", cfg: &CommandConfig{Argv: []string{"echo"}}},
		{name: "no_argv", cfg: &CommandConfig{Name: "x"}},
		{name: "bad_output", cfg: &CommandConfig{Name: "x", Argv: []string{"echo"}, Output: "html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewCommand(tt.cfg); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("got %v, want ErrInvalidConfig", err)
			}
		})
	}
}

// TestSources checks that every source kind satisfies Source and that
// Capabilities hands out a copy the caller may change.
func TestSources(t *testing.T) {
	cmd, err := NewCommand(&CommandConfig{Name: "x", Argv: []string{"echo"}, Safety: kernel.SafetyRead})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Source{cmd, Static{{Executor: cmd.c.Executor}}, &OpenAPI{caps: cmd.Capabilities()}} {
		caps := s.Capabilities()
		caps[0].Safety = kernel.SafetyDestructive
		if s.Capabilities()[0].Safety == kernel.SafetyDestructive {
			t.Errorf("%T: Capabilities shares its slice", s)
		}
		if err := s.Close(); err != nil {
			t.Errorf("%T: Close: %v", s, err)
		}
	}
}
