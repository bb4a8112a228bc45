// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

func mistralCases() []familyCase {
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: "[TOOL_CALLS] [" + jParis + "]", want: one(cParis)},
		{name: "parallel", in: "[TOOL_CALLS] [" + jParis + ", " + jNews + "]", want: one(cParis, cNews)},
		{name: "types", in: `[TOOL_CALLS]search{"query": "q", "limit": 3, "score": 2.5, "exact": false, "note": null, "tags": ["a", 1], "filters": {"lang": "en"}, "none": [], "opts": {}}`, want: one(cTypes)},
		{name: "empty", in: "[TOOL_CALLS]noop{}", want: one(cNoop)},
		{name: "around", in: `Before. [TOOL_CALLS]get_weather{"city": "Paris"} Between. [TOOL_CALLS]search{"query": "news"} After.`,
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: "[TOOL_CALLS][" + jEscapes + "]", want: one(cEscapes)},
		{name: "malformed", in: "[TOOL_CALLS] [" + jBad + "]", want: outcome{Content: "[TOOL_CALLS] [" + jBad + "]", Codes: []string{"malformed-call"}}},
		{name: "cut", in: "[TOOL_CALLS] [" + jParis + ", " + jCut,
			want: outcome{Calls: []wantCall{cParis}, Content: jCut, Codes: []string{"partial-call"}}},
		{name: "twice", in: `[TOOL_CALLS]get_weather{"city": "Paris"}[TOOL_CALLS]get_weather{"city": "Paris"}`, want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>[TOOL_CALLS] [" + jParis + "]</think>It is sunny.", want: outcome{Reasoning: "[TOOL_CALLS] [" + jParis + "]", Content: "It is sunny."}},
		{name: "unknown", in: "[TOOL_CALLS] [" + jUnknown + "]", want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		{name: "v13-args-token", in: `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}</s>`, want: one(cParis)},
		{name: "not-followed-by-call", in: "[TOOL_CALLS] sorry, no", want: outcome{Content: "[TOOL_CALLS] sorry, no", Codes: []string{"malformed-call"}}},
		{name: "model-id-kept-when-valid", in: `[TOOL_CALLS][{"name": "noop", "arguments": {}, "id": "a1B2c3D4e"}]`, want: one(cNoop)},
	}
}
