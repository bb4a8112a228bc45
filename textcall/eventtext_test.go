// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"fmt"
	"strings"
	"testing"
)

// keptEvent is an event as a caller keeps it: the Event value (its string
// headers, sharing whatever memory the scanner cut them from) and a deep
// copy of its text taken when Feed returned it.
type keptEvent struct {
	ev   Event
	text string
	feed int
}

// keptResult is a Result taken in the middle of a stream, with deep copies
// of its text.
type keptResult struct {
	r                  *Result
	content, reasoning string
	feed               int
}

// TestEventTextStable pins the rule on appendOnlyString: every
// Event.Text a Scanner returns, and the text of every Result, keeps its
// value after all later Feeds, Close and Result, though the scanner's
// buffers are reused. It runs every family's table, plus long outputs
// that make the kept text grow several times, with and without
// StreamArguments and DiscardText, one byte at a time (the one-byte
// shortcuts and the event cache), in token-sized pieces (the run
// shortcut), cut at every marker position, and in random pieces.
func TestEventTextStable(t *testing.T) {
	type input struct {
		family, name, text string
		cfg                *Config
	}
	var inputs []input
	for family, cases := range familyTables() {
		for _, tc := range cases {
			inputs = append(inputs, input{family, tc.name, tc.in, tc.cfg})
		}
	}
	long := hermesOutput(6<<10, 4)
	inputs = append(inputs,
		input{"hermes", "long", long, nil},
		input{"hermes", "long-reasoning", "<think>" + strings.Repeat("a < b, so think ", 300) + "</think>" + long, nil},
		input{"hermes", "long-think-open", strings.Repeat("thinking <x> on ", 300) + "</think>" + long, &Config{ThinkOpen: true}},
		input{"hermes", "interleaved", strings.Repeat("text <b>x</b> <think>why < "+strings.Repeat("r", 200)+"</think>", 20) + long, nil},
	)
	for _, in := range inputs {
		for _, mode := range []struct {
			name            string
			stream, discard bool
		}{
			{"plain", false, false},
			{"stream-args", true, false},
			{"discard", false, true},
			{"stream-args-discard", true, true},
		} {
			cfg := Config{Tools: testTools}
			if in.cfg != nil {
				cfg = *in.cfg
			}
			cfg.StreamArguments = mode.stream
			cfg.DiscardText = mode.discard
			p := newTestParser(t, in.family, &cfg)
			t.Run(in.family+"/"+in.name+"/"+mode.name, func(t *testing.T) {
				for i, pieces := range textChunkings(in.text) {
					checkEventTextStable(t, p, pieces, fmt.Sprintf("chunking %d", i))
				}
			})
		}
	}
}

// textChunkings returns one-byte pieces, token-sized pieces (2, 3, 4 and
// 7 bytes), a cut in two at a few places, and random pieces.
func textChunkings(text string) [][]string {
	out := chunkings(text, 12, 7)
	for _, n := range []int{2, 3, 4, 7} {
		var pieces []string
		for i := 0; i < len(text); i += n {
			pieces = append(pieces, text[i:min(i+n, len(text))])
		}
		out = append(out, pieces)
	}
	for _, at := range []int{len(text) / 3, len(text) / 2, len(text) - 1} {
		if at > 0 && at < len(text) {
			out = append(out, []string{text[:at], text[at:]})
		}
	}
	return out
}

// checkEventTextStable feeds pieces to a scanner of p, keeping each
// event and a mid-stream Result, and checks at the end that none of
// their strings changed.
func checkEventTextStable(t *testing.T, p *Parser, pieces []string, what string) {
	t.Helper()
	s := p.NewScanner()
	var kept []keptEvent
	var results []keptResult
	keep := func(feed int, evs []Event) {
		for _, e := range evs {
			// Copy the header, not the bytes: e.Text shares the
			// scanner's memory exactly as a caller's copy would.
			kept = append(kept, keptEvent{ev: e, text: strings.Clone(e.Text), feed: feed})
		}
	}
	for i, d := range pieces {
		keep(i, s.Feed(d))
		if i%(1+len(pieces)/4) == 0 {
			r := s.Result()
			results = append(results, keptResult{r, strings.Clone(r.Content), strings.Clone(r.Reasoning), i})
		}
	}
	keep(len(pieces), s.Close())
	r := s.Result()
	results = append(results, keptResult{r, strings.Clone(r.Content), strings.Clone(r.Reasoning), len(pieces)})
	// Feeding after Close does nothing, but must not touch them either.
	s.Feed("more <tool_call> text")
	s.Result()
	for _, k := range kept {
		if k.ev.Text != k.text {
			t.Fatalf("%s: the %s event of feed %d (%q) changed to %q after later feeds", what, k.ev.Kind, k.feed, pieces[min(k.feed, len(pieces)-1)], k.ev.Text)
		}
	}
	for _, k := range results {
		if k.r.Content != k.content || k.r.Reasoning != k.reasoning {
			t.Fatalf("%s: the Result taken after feed %d changed: content %q to %q, reasoning %q to %q", what, k.feed, k.content, k.r.Content, k.reasoning, k.r.Reasoning)
		}
	}
}
