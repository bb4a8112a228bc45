// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

func glmCall(name string, kv ...string) string {
	s := "<tool_call>" + name + "\n"
	for i := 0; i+1 < len(kv); i += 2 {
		s += "<arg_key>" + kv[i] + "</arg_key>\n<arg_value>" + kv[i+1] + "</arg_value>\n"
	}
	return s + "</tool_call>"
}

func glmCases() []familyCase {
	paris := glmCall("get_weather", "city", "Paris")
	news := glmCall("search", "query", "news")
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: paris, want: one(cParis)},
		{name: "parallel", in: paris + "\n" + news, want: one(cParis, cNews)},
		{name: "types", in: glmCall("search", "query", "q", "limit", "3", "score", "2.5", "exact", "false", "note", "null",
			"tags", `["a", 1]`, "filters", `{"lang": "en"}`, "none", "[]", "opts", "{}"), want: one(cTypes)},
		{name: "empty", in: glmCall("noop"), want: one(cNoop)},
		{name: "around", in: "Before. " + paris + " Between. " + news + " After.",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: glmCall("get_weather", "city", "Say \"hi\" \\ back\nslash 😀"), want: one(cEscapes)},
		{name: "malformed", in: "<tool_call>get_weather\n<arg_value>Paris</arg_value>\n</tool_call>",
			want: outcome{Content: "<tool_call>get_weather\n<arg_value>Paris</arg_value>\n</tool_call>", Codes: []string{"malformed-call"}}},
		// An incomplete call is content.
		{name: "cut", in: paris + "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>ne",
			want: outcome{Calls: []wantCall{cParis}, Content: "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>ne", Codes: []string{"malformed-call"}}},
		{name: "twice", in: paris + paris, want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>" + paris + "</think>It is sunny.", want: outcome{Reasoning: paris, Content: "It is sunny."}},
		{name: "unknown", in: glmCall("launch_rocket", "target", "moon"), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		{name: "uncoerced-kept-as-string", in: glmCall("get_weather", "city", "Paris", "days", "many"),
			want: outcome{Calls: []wantCall{{"get_weather", `{"city":"Paris","days":"many"}`}}, Codes: []string{"uncoerced-argument"}}},
		{name: "boolean-capitalised", in: glmCall("search", "exact", "True"), want: one(wantCall{"search", `{"exact":true}`})},
	}
}
