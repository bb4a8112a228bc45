// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

func harmonyCases() []familyCase {
	call := func(name, args string) string {
		return hChannelTok + "commentary to=functions." + name + " " + hConstrain + "json" + hMessageTok + args + hCallTok
	}
	analysis := func(s string) string { return hChannelTok + "analysis" + hMessageTok + s + hEndTok }
	final := func(s string) string {
		return hStartTok + "assistant" + hChannelTok + "final" + hMessageTok + s + hReturnTok
	}
	paris := call("get_weather", `{"city": "Paris"}`)
	news := hStartTok + "assistant to=functions.search" + hChannelTok + "commentary json" + hMessageTok + `{"query": "news"}` + hCallTok
	return []familyCase{
		{name: "none", in: analysis("Easy.") + final("The weather is nice today."), want: outcome{Reasoning: "Easy.", Content: "The weather is nice today."}},
		{name: "one", in: analysis("Need weather.") + paris, want: outcome{Reasoning: "Need weather.", Calls: []wantCall{cParis}}},
		{name: "parallel", in: paris + news, want: one(cParis, cNews)},
		{name: "types", in: call("search", `{"query": "q", "limit": 3, "score": 2.5, "exact": false, "note": null, "tags": ["a", 1], "filters": {"lang": "en"}, "none": [], "opts": {}}`), want: one(cTypes)},
		{name: "empty", in: call("noop", "{}"), want: one(cNoop)},
		{name: "around", in: hChannelTok + "commentary" + hMessageTok + "Before." + hEndTok + paris + final("After."),
			want: outcome{Content: "Before.After.", Calls: []wantCall{cParis}}},
		{name: "escapes", in: call("get_weather", `{"city": "Say \"hi\" \\ back\nslash 😀"}`), want: one(cEscapes)},
		{name: "malformed", in: call("get_weather", `{"city": }`), want: outcome{Content: `{"city": }`, Codes: []string{"malformed-call"}}},
		{name: "cut", in: paris + hStartTok + "assistant" + hChannelTok + "commentary to=functions.search json" + hMessageTok + `{"query": "ne`,
			want: outcome{Calls: []wantCall{cParis}, Content: `{"query": "ne`, Codes: []string{"malformed-call"}}},
		{name: "twice", in: paris + paris, want: one(cParis, cParis)},
		{name: "reasoning", in: analysis(`I will send to=functions.get_weather {"city": "Paris"}`) + final("It is sunny."),
			want: outcome{Reasoning: `I will send to=functions.get_weather {"city": "Paris"}`, Content: "It is sunny."}},
		{name: "unknown", in: call("launch_rocket", `{"target": "moon"}`), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		{name: "plain-text", in: "No channels here.", want: outcome{Content: "No channels here."}},
		{name: "cut-in-analysis", in: analysis("a") + hChannelTok + "analysis" + hMessageTok + "still thinking", want: outcome{Reasoning: "astill thinking"}},
		{name: "think-tags-are-text", in: final("<think>x</think>"), want: outcome{Content: "<think>x</think>"}},
	}
}
