// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func kimiCases() []familyCase {
	call := func(id, args string) string { return kimiCall + id + kimiArgs + args + kimiCallEnd }
	block := func(calls ...string) string {
		s := kimiSection
		for _, c := range calls {
			s += c
		}
		return s + kimiSectionEnd
	}
	paris := call("functions.get_weather:0", `{"city": "Paris"}`)
	news := call("functions.search:1", `{"query": "news"}`)
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: block(paris), want: one(cParis)},
		{name: "parallel", in: block(paris, news), want: one(cParis, cNews)},
		{name: "types", in: block(call("functions.search:0", `{"query": "q", "limit": 3, "score": 2.5, "exact": false, "note": null, "tags": ["a", 1], "filters": {"lang": "en"}, "none": [], "opts": {}}`)), want: one(cTypes)},
		{name: "empty", in: block(call("functions.noop:0", "{}")), want: one(cNoop)},
		{name: "around", in: "Before. " + block(paris) + " Between. " + block(news) + " After.",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: block(call("functions.get_weather:0", `{"city": "Say \"hi\" \\ back\nslash 😀"}`)), want: one(cEscapes)},
		{name: "malformed", in: block(call("functions.get_weather:0", `{"city": }`)), want: outcome{Content: call("functions.get_weather:0", `{"city": }`), Codes: []string{"malformed-call"}}},
		{name: "cut", in: kimiSection + paris + kimiCall + "functions.search:1" + kimiArgs + `{"query": "ne`,
			want: outcome{Calls: []wantCall{cParis}, Content: kimiCall + "functions.search:1" + kimiArgs + `{"query": "ne`, Codes: []string{"malformed-call"}}},
		// The same native id twice: the second gets a generated one.
		{name: "twice", in: block(paris, paris), want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>" + block(paris) + "</think>It is sunny.", want: outcome{Reasoning: block(paris), Content: "It is sunny."}},
		// An id without ":N" names no tool: the call is skipped, the
		// calls around it kept (the text was a call, not content).
		{name: "id-without-index", in: block(paris, call("functions.invalid.0", `{"x": 1}`), news),
			want: outcome{Calls: []wantCall{cParis, cNews}, Codes: []string{"invalid-call"}}},
		{name: "id-with-bad-index", in: "Before. " + block(call("functions.get_weather:x", `{"city": "Paris"}`), news),
			want: outcome{Content: "Before.", Calls: []wantCall{cNews}, Codes: []string{"invalid-call"}}},
		{name: "unknown", in: block(call("functions.launch_rocket:0", `{"target": "moon"}`)), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},
	}
}

func TestKimiKeepsNativeIDs(t *testing.T) {
	in := kimiSection + kimiCall + "functions.get_weather:0" + kimiArgs + `{"city":"Paris"}` + kimiCallEnd +
		kimiCall + "functions.get_weather:0" + kimiArgs + `{"city":"Paris"}` + kimiCallEnd + kimiSectionEnd
	r, err := Parse("kimi-k2", in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Calls) != 2 {
		t.Fatalf("got %d calls, want 2", len(r.Calls))
	}
	if diff := cmp.Diff("functions.get_weather:0", r.Calls[0].ID); diff != "" {
		t.Errorf("first id (-want +got):\n%s", diff)
	}
	if r.Calls[1].ID == r.Calls[0].ID {
		t.Errorf("duplicate native id kept twice: %q", r.Calls[1].ID)
	}
}
