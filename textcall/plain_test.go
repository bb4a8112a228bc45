// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// plainConfigs are the configurations Plain is held to: the defaults, the
// gateway's (no implied reasoning, calls on or off, a tag of its own),
// and those Plain must refuse to vouch for.
var plainConfigs = []*Config{
	nil,
	{DisableImpliedReasoning: true, DiscardText: true, Tools: testTools},
	{DisableImpliedReasoning: true, DiscardText: true, DisableCalls: true},
	{DisableImpliedReasoning: true, DisableCalls: true, ThinkTag: "reason"},
	{DisableReasoning: true, DisableCalls: true},
	{DisableReasoning: true, Tools: testTools},
	{ThinkOpen: true, DisableImpliedReasoning: true, DisableCalls: true},
}

// checkPlain fails when Plain says text is plain for p and a Scanner,
// fed text in pieces cut by seed and closed, reads anything but that
// very text as answer.
func checkPlain(t *testing.T, family string, cfg *Config, text string, seed uint64) {
	t.Helper()
	p := newTestParser(t, family, cfg)
	if !p.Plain(text) {
		return
	}
	r := rand.New(rand.NewPCG(seed, 2))
	s := p.NewScanner()
	var got strings.Builder
	check := func(evs []Event) {
		for _, e := range evs {
			if e.Kind != EventContent {
				t.Fatalf("%s %+v: Plain(%q), but the scanner gave a %v event %q", family, cfg, text, e.Kind, e.Text)
			}
			got.WriteString(e.Text)
		}
	}
	for i := 0; i < len(text); {
		n := min(1+r.IntN(6), len(text)-i)
		check(s.Feed(text[i : i+n]))
		i += n
	}
	check(s.Close())
	if got.String() != text {
		t.Fatalf("%s %+v: Plain(%q), but the scanner's answer is %q", family, cfg, text, got.String())
	}
	res := s.Result()
	if res.Reasoning != "" || res.UnclosedReasoning || len(res.Calls) > 0 || len(res.Rejected) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("%s %+v: Plain(%q), but the result is %+v", family, cfg, text, res)
	}
}

// FuzzPlain holds Plain to its word for every family and configuration:
// a text it calls plain is all answer, whatever the cuts.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", " ", "\n\n", "Hello, world.", "  spaced answer ", "a</think>b", "<think>x</think>y",
		"[TOOL_CALLS]", "{\"name\": \"noop\", \"arguments\": {}}", "[noop()]", "<|python_tag|>", "functions.noop:0", "\u00e9t\u00e9 \xff"} {
		f.Add(s, uint64(len(s)))
	}
	for _, fam := range Names() {
		for _, tc := range familyTables()[fam] {
			f.Add(tc.in, uint64(3))
		}
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		for _, fam := range Names() {
			for _, cfg := range plainConfigs {
				checkPlain(t, fam, cfg, text, seed)
			}
		}
	})
}

// TestPlain says which parsers Plain vouches for, so that a change that
// makes it refuse them all does not pass unseen, and that the bytes that
// may start a tag or a marker are refused.
func TestPlain(t *testing.T) {
	gateway := &Config{DisableImpliedReasoning: true, DiscardText: true, DisableCalls: true}
	for _, tc := range []struct {
		family string
		cfg    *Config
		text   string
		want   bool
	}{
		{"hermes", gateway, "The answer is 42.\n", true},
		{"hermes", gateway, "", true},
		{"hermes", gateway, "  ", true},
		{"hermes", gateway, "a <b", false},
		{"hermes", gateway, "<think>x</think>y", false},
		{"hermes", &Config{DisableImpliedReasoning: true, Tools: testTools}, "plain text", true},
		{"hermes", &Config{DisableImpliedReasoning: true, Tools: testTools}, "x<tool_call>", false},
		{"hermes", &Config{DisableImpliedReasoning: true, DisableCalls: true, ThinkTag: "reason"}, "no tag", true},
		{"hermes", &Config{DisableReasoning: true, DisableCalls: true}, "anything", true},
		{"mistral", &Config{DisableImpliedReasoning: true, Tools: testTools}, "see [TOOL_CALLS]", false},
		{"mistral", &Config{DisableImpliedReasoning: true, Tools: testTools}, "see the list", true},
		// Implied reasoning: text may be reasoning until a closing tag.
		{"hermes", &Config{DisableCalls: true}, "plain", false},
		// Output that starts in the reasoning.
		{"hermes", &Config{ThinkOpen: true, DisableImpliedReasoning: true, DisableCalls: true}, "plain", false},
		// Calls at the start of the answer, whatever their bytes.
		{"llama3-json", &Config{DisableImpliedReasoning: true, Tools: testTools}, "plain", false},
		{"llama3-json", &Config{DisableImpliedReasoning: true, DisableCalls: true}, "plain", true},
		// A machine of its own.
		{"harmony", &Config{DisableImpliedReasoning: true, Tools: testTools}, "plain", false},
	} {
		p := newTestParser(t, tc.family, tc.cfg)
		if got := p.Plain(tc.text); got != tc.want {
			t.Errorf("%s %+v: Plain(%q) = %v, want %v", tc.family, tc.cfg, tc.text, got, tc.want)
		}
		checkPlain(t, tc.family, tc.cfg, tc.text, 1)
	}
}
