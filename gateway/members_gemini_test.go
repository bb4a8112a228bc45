// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import "testing"

// TestGeminiMemberRows checks the Gemini table's shape: every member
// once, a handling in all five columns, and a member passed only to a
// Gemini backend.
func TestGeminiMemberRows(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range geminiMembers {
		if seen[r.Name] {
			t.Errorf("%q twice", r.Name)
		}
		seen[r.Name] = true
		for k := KindChat; k < numColumns; k++ {
			h := r.Handling(k, false)
			if h == 0 {
				t.Errorf("%s: no handling for %s", r.Name, k)
			}
			if h == Passed && k != KindGemini {
				t.Errorf("%s: passed to a %s backend, which speaks another API", r.Name, k)
			}
		}
	}
}

// TestGeminiColumnOfOtherTables checks that the tables without a Gemini
// column treat a Gemini backend as a Chat one, dropping what would pass.
func TestGeminiColumnOfOtherTables(t *testing.T) {
	for _, api := range []API{APIChat, APIResponses, APIMessages} {
		for _, r := range membersOf(api) {
			want := r.Handling(KindChat, false)
			if want == Passed {
				want = Dropped
			}
			if got := r.Handling(KindGemini, false); got != want {
				t.Errorf("%s %s: %s for a Gemini backend, want %s", api, r.Name, got, want)
			}
		}
	}
}

func TestGeminiCamel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"safety_settings", "safetySettings"},
		{"top_k", "topK"},
		{"topK", "topK"},
		{"response_json_schema", "responseJsonSchema"},
		{"a__b", "aB"},
	}
	for _, tt := range tests {
		if got := geminiCamel(tt.in); got != tt.want {
			t.Errorf("geminiCamel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
