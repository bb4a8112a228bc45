// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDisableCalls checks that with Config.DisableCalls only reasoning is
// split off: call markers of any family are content, whole and streamed.
func TestDisableCalls(t *testing.T) {
	tests := []struct {
		name, family, in   string
		reasoning, content string
		unclosed           bool
	}{
		{"hermes-call-is-text", "hermes", `<think>hm</think>Answer <tool_call>{"name":"a","arguments":{}}</tool_call>`, "hm", `Answer <tool_call>{"name":"a","arguments":{}}</tool_call>`, false},
		{"marker-in-reasoning", "hermes", `<think>hm <tool_call>x</tool_call></think>ok`, "hm <tool_call>x</tool_call>", "ok", false},
		{"mistral-bare", "mistral", `[TOOL_CALLS][{"name":"a","arguments":{}}]`, "", `[TOOL_CALLS][{"name":"a","arguments":{}}]`, false},
		{"llama3-bare-json", "llama3-json", `{"name":"a","parameters":{}}`, "", `{"name":"a","parameters":{}}`, false},
		{"unclosed", "hermes", `<think>still thinking <tool_call>{"name":"a","arguments":{}}</tool_call>`, `still thinking <tool_call>{"name":"a","arguments":{}}</tool_call>`, "", true},
		{"end-of-turn-dropped", "hermes", `done<|im_end|>`, "", "done", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &Config{DisableCalls: true, Tools: testTools}
			r, err := Parse(tt.family, tt.in, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Calls) != 0 || len(r.Rejected) != 0 {
				t.Errorf("calls %v rejected %v, want none", r.Calls, r.Rejected)
			}
			got := [3]any{r.Reasoning, r.Content, r.UnclosedReasoning}
			if diff := cmp.Diff([3]any{tt.reasoning, tt.content, tt.unclosed}, got); diff != "" {
				t.Errorf("whole (-want +got)\n%s", diff)
			}
			p, _ := New(tt.family, cfg)
			s := p.NewScanner()
			for i := 0; i < len(tt.in); i += 3 {
				s.Feed(tt.in[i:min(i+3, len(tt.in))])
			}
			s.Close()
			sr := s.Result()
			if diff := cmp.Diff(got, [3]any{sr.Reasoning, sr.Content, sr.UnclosedReasoning}); diff != "" {
				t.Errorf("streamed differs from whole (-whole +streamed)\n%s", diff)
			}
		})
	}
}
