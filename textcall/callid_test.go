// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"
	"testing"
)

// TestCallIDSeed pins how generated ids depend on Config.Seed: a zero
// seed gives each response (Parse or Scanner) ids of its own, so two turns
// of a conversation do not repeat them; a set seed gives the same ids
// every time.
func TestCallIDSeed(t *testing.T) {
	in := "<tool_call>" + jParis + "</tool_call><tool_call>" + jNews + "</tool_call>"
	ids := func(p *Parser, stream bool) []string {
		var r *Result
		if stream {
			s := p.NewScanner()
			for i := range len(in) {
				s.Feed(in[i : i+1])
			}
			s.Close()
			r = s.Result()
		} else {
			r = p.Parse(in)
		}
		var out []string
		for _, c := range r.Calls {
			out = append(out, c.ID)
		}
		return out
	}
	tests := []struct {
		name string
		seed uint64
		same bool
	}{
		{"zero-is-random", 0, false},
		{"seeded", 42, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New("hermes", &Config{Seed: tt.seed})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for i := range 8 {
				got := ids(p, i%2 == 1)
				if len(got) != 2 || got[0] == got[1] || !strings.HasPrefix(got[0], "call_") || len(got[0]) != 29 {
					t.Fatalf("ids %q: want two distinct call_ ids", got)
				}
				for _, id := range got {
					seen[id]++
				}
			}
			if tt.same && len(seen) != 2 {
				t.Errorf("seed %d gave %d distinct ids over 8 responses, want the same 2 each time", tt.seed, len(seen))
			}
			if !tt.same && len(seen) != 16 {
				t.Errorf("a zero seed gave %d distinct ids over 8 responses of 2 calls, want 16", len(seen))
			}
		})
	}
}
