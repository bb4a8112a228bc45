// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"
	"testing"
)

// TestNoLateEvents feeds every table case in one-byte and three-byte
// deltas and checks that a call closed by an end marker is sent with the
// delta that completes the marker, not later: the shortcuts must not keep
// appending to a call body while the start of its end marker is held.
func TestNoLateEvents(t *testing.T) {
	for family, cases := range familyTables() {
		for _, tc := range cases {
			for _, n := range []int{1, 3} {
				checkNoLateCalls(t, family, tc.cfg, tc.in, n)
			}
		}
	}
	twice := "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"q\"}}\n</tool_call>\nThe answer is plain text, long enough to notice.\n"
	checkNoLateCalls(t, "hermes", nil, twice+twice, 1)
}

// checkNoLateCalls streams in in deltas of n bytes; whenever the text so
// far ends with an end marker, the calls Parse finds in it must all have
// been sent.
func checkNoLateCalls(t *testing.T, family string, cfg *Config, in string, n int) {
	t.Helper()
	p := newTestParser(t, family, cfg)
	var ends []string
	for _, o := range p.sp.openers {
		if family == "qwen3-coder" && o.marker == "<function=" {
			// </function> also appears inside <tool_call>, which
			// stays open after it.
			continue
		}
		ends = append(ends, o.ends...)
	}
	if p.sp.machine != nil {
		ends = append(ends, hCallTok)
	}
	s := p.NewScanner()
	seen := 0
	for i := 0; i < len(in); i += n {
		j := min(i+n, len(in))
		for _, e := range s.Feed(in[i:j]) {
			if e.Kind == EventCall {
				seen++
			}
		}
		for _, m := range ends {
			if !strings.HasSuffix(in[:j], m) {
				continue
			}
			r := p.Parse(in[:j])
			if hasCode(r, "reasoning-closed-by-call") {
				// Such a call is known only at the end of the output:
				// a closing tag still to come would make it reasoning.
				continue
			}
			if want := len(r.Calls); seen < want {
				t.Fatalf("%s: after %d of %d bytes (deltas of %d), ending with %q, %d calls were sent, want %d:\n%q", family, j, len(in), n, m, seen, want, in[:j])
			}
		}
	}
}

func hasCode(r *Result, code string) bool {
	for _, w := range r.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}
