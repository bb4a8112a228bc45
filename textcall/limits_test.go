// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMaxCallBytesConvention pins the limit convention on
// Config.MaxCallBytes: zero means DefaultMaxCallBytes, a positive value is
// the cap, a negative one turns it off.
func TestMaxCallBytesConvention(t *testing.T) {
	big := strings.Repeat("x", DefaultMaxCallBytes+10)
	in := `<tool_call>{"name": "get_weather", "arguments": {"city": "` + big + `"}}</tool_call>`
	tests := []struct {
		name  string
		max   int
		calls int
		codes []string
	}{
		{"zero-is-default", 0, 0, []string{"call-too-large"}},
		{"default-spelled-out", DefaultMaxCallBytes, 0, []string{"call-too-large"}},
		{"larger", 2 * DefaultMaxCallBytes, 1, nil},
		{"negative-is-off", -1, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse("hermes", in, &Config{MaxCallBytes: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			for _, w := range r.Warnings {
				codes = append(codes, w.Code)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" || len(r.Calls) != tt.calls {
				t.Errorf("%d calls (want %d); warning codes (-want +got):\n%s", len(r.Calls), tt.calls, diff)
			}
		})
	}
}
