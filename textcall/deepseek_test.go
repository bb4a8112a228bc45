// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

func dsV3(name, args string) string {
	return dsCallBegin + "function" + dsSep + name + "\n```json\n" + args + "\n```" + dsCallEnd
}

func deepseekV3Cases() []familyCase {
	block := func(calls ...string) string {
		s := dsCallsBegin
		for _, c := range calls {
			s += c
		}
		return s + dsCallsEnd
	}
	paris := dsV3("get_weather", `{"city": "Paris"}`)
	news := dsV3("search", `{"query": "news"}`)
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: block(paris), want: one(cParis)},
		{name: "parallel", in: block(paris, "\n", news), want: one(cParis, cNews)},
		{name: "types", in: block(dsV3("search", `{"query": "q", "limit": 3, "score": 2.5, "exact": false, "note": null, "tags": ["a", 1], "filters": {"lang": "en"}, "none": [], "opts": {}}`)), want: one(cTypes)},
		{name: "empty", in: block(dsV3("noop", "{}")), want: one(cNoop)},
		{name: "around", in: "Before. " + block(paris) + " Between. " + block(news) + " After.<｜end▁of▁sentence｜>",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: block(dsV3("get_weather", `{"city": "Say \"hi\" \\ back\nslash 😀"}`)), want: one(cEscapes)},
		{name: "malformed", in: block(dsV3("get_weather", `{"city": }`)), want: outcome{Content: dsV3("get_weather", `{"city": }`), Codes: []string{"malformed-call"}}},
		{name: "cut", in: dsCallsBegin + paris + dsCallBegin + "function" + dsSep + "search\n```json\n{\"query\": \"ne",
			want: outcome{Calls: []wantCall{cParis}, Content: dsCallBegin + "function" + dsSep + "search\n```json\n{\"query\": \"ne", Codes: []string{"malformed-call"}}},
		{name: "twice", in: block(paris, paris), want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>" + block(paris) + "</think>It is sunny.", want: outcome{Reasoning: block(paris), Content: "It is sunny."}},
		{name: "unknown", in: block(dsV3("launch_rocket", `{"target": "moon"}`)), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		{name: "r1-think-open", in: "Paris it is.</think>\n\n" + block(paris), cfg: &Config{Tools: testTools, ThinkOpen: true},
			want: outcome{Reasoning: "Paris it is.", Calls: []wantCall{cParis}}},
		// The same output without ThinkOpen: the opener is implied.
		{name: "r1-implied-think-open", in: "Paris it is.</think>\n\n" + block(paris),
			want: outcome{Reasoning: "Paris it is.", Calls: []wantCall{cParis}, Codes: []string{"implied-reasoning-open"}}},
		{name: "r1-unclosed-then-call", in: "<think>Paris it is.\n" + block(paris),
			want: outcome{Reasoning: "Paris it is.", Calls: []wantCall{cParis}, Codes: []string{"reasoning-closed-by-call"}}},
		{name: "missing-call-end", in: dsCallsBegin + dsCallBegin + "function" + dsSep + "get_weather\n```json\n{\"city\": \"Paris\"}\n```" + dsCallsEnd,
			want: outcome{Calls: []wantCall{cParis}, Codes: []string{"unclosed-call"}}},
	}
}

func deepseekV31Cases() []familyCase {
	call := func(name, args string) string { return dsCallBegin + name + dsSep + args + dsCallEnd }
	block := func(calls ...string) string {
		s := dsCallsBegin
		for _, c := range calls {
			s += c
		}
		return s + dsCallsEnd
	}
	paris := call("get_weather", `{"city": "Paris"}`)
	news := call("search", `{"query": "news"}`)
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: block(paris), want: one(cParis)},
		{name: "parallel", in: block(paris, news), want: one(cParis, cNews)},
		{name: "types", in: block(call("search", `{"query": "q", "limit": 3, "score": 2.5, "exact": false, "note": null, "tags": ["a", 1], "filters": {"lang": "en"}, "none": [], "opts": {}}`)), want: one(cTypes)},
		{name: "empty", in: block(call("noop", "{}")), want: one(cNoop)},
		{name: "around", in: "Before. " + block(paris) + " Between. " + block(news) + " After.",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: block(call("get_weather", `{"city": "Say \"hi\" \\ back\nslash 😀"}`)), want: one(cEscapes)},
		{name: "malformed", in: block(call("get_weather", `{"city": }`)), want: outcome{Content: call("get_weather", `{"city": }`), Codes: []string{"malformed-call"}}},
		{name: "cut", in: dsCallsBegin + paris + dsCallBegin + "search" + dsSep + `{"query": "ne`,
			want: outcome{Calls: []wantCall{cParis}, Content: dsCallBegin + "search" + dsSep + `{"query": "ne`, Codes: []string{"malformed-call"}}},
		{name: "twice", in: block(paris, paris), want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>" + block(paris) + "</think>It is sunny.", want: outcome{Reasoning: block(paris), Content: "It is sunny."}},
		{name: "unknown", in: block(call("launch_rocket", `{"target": "moon"}`)), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},
	}
}
