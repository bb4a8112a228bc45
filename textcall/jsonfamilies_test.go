// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

func graniteCases() []familyCase {
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: "<|tool_call|>[" + jParis + "]", want: one(cParis)},
		{name: "parallel", in: "<|tool_call|>[" + jParis + ", " + jNews + "]", want: one(cParis, cNews)},
		{name: "types", in: "<|tool_call|>[" + jTypes + "]", want: one(cTypes)},
		{name: "empty", in: "<|tool_call|>[" + jNoop + "]", want: one(cNoop)},
		{name: "around", in: "Before. <|tool_call|>[" + jParis + "] Between. <tool_call>[" + jNews + "]</tool_call> After.",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: "<|tool_call|>[" + jEscapes + "]", want: one(cEscapes)},
		{name: "malformed", in: "<|tool_call|>[" + jBad + "]", want: outcome{Content: "<|tool_call|>[" + jBad + "]", Codes: []string{"malformed-call"}}},
		{name: "cut", in: "<|tool_call|>[" + jParis + ", " + jCut, want: outcome{Calls: []wantCall{cParis}, Content: jCut, Codes: []string{"partial-call"}}},
		{name: "twice", in: "<|tool_call|>[" + jParis + ", " + jParis + "]", want: one(cParis, cParis)},
		{name: "reasoning", in: "<think><|tool_call|>[" + jParis + "]</think>It is sunny.", want: outcome{Reasoning: "<|tool_call|>[" + jParis + "]", Content: "It is sunny."}},
		{name: "unknown", in: "<|tool_call|>[" + jUnknown + "]", want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},
		{name: "arguments-before-name", in: `<|tool_call|>[{"arguments": {"city": "Paris"}, "name": "get_weather"}]<|end_of_text|>`, want: one(cParis)},
	}
}

func jambaCases() []familyCase {
	tc := func(body string) string { return "<tool_calls>" + body + "</tool_calls>" }
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: tc("[" + jParis + "]"), want: one(cParis)},
		{name: "parallel", in: tc("[" + jParis + ", " + jNews + "]"), want: one(cParis, cNews)},
		{name: "types", in: tc("[" + jTypes + "]"), want: one(cTypes)},
		{name: "empty", in: tc("[" + jNoop + "]"), want: one(cNoop)},
		{name: "around", in: "Before. " + tc("["+jParis+"]") + " Between. " + tc("["+jNews+"]") + " After.",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: tc("[" + jEscapes + "]"), want: one(cEscapes)},
		{name: "malformed", in: tc("[" + jBad + "]"), want: outcome{Content: tc("[" + jBad + "]"), Codes: []string{"malformed-call"}}},
		{name: "cut", in: "<tool_calls>[" + jParis + ", " + jCut, want: outcome{Calls: []wantCall{cParis}, Content: jCut, Codes: []string{"partial-call"}}},
		{name: "twice", in: tc("[" + jParis + ", " + jParis + "]"), want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>" + tc("["+jParis+"]") + "</think>It is sunny.", want: outcome{Reasoning: tc("[" + jParis + "]"), Content: "It is sunny."}},
		{name: "unknown", in: tc("[" + jUnknown + "]"), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},
	}
}

func internlmCases() []familyCase {
	tc := func(body string) string { return internlmStart + "\n" + body + internlmEnd }
	p := `{"name": "get_weather", "parameters": {"city": "Paris"}}`
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: tc(p), want: one(cParis)},
		{name: "parallel", in: tc(p) + tc(jNews), want: one(cParis, cNews)},
		{name: "types", in: tc(jTypes), want: one(cTypes)},
		{name: "empty", in: tc(`{"name": "noop", "parameters": {}}`), want: one(cNoop)},
		{name: "around", in: "Before. " + tc(p) + " Between. " + tc(jNews) + " After.<|im_end|>",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: tc(jEscapes), want: one(cEscapes)},
		{name: "malformed", in: tc(jBad), want: outcome{Content: tc(jBad), Codes: []string{"malformed-call"}}},
		{name: "cut", in: tc(p) + internlmStart + jCut, want: outcome{Calls: []wantCall{cParis}, Content: internlmStart + jCut, Codes: []string{"malformed-call"}}},
		{name: "twice", in: tc(p) + tc(p), want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>" + tc(p) + "</think>It is sunny.", want: outcome{Reasoning: tc(p), Content: "It is sunny."}},
		{name: "unknown", in: tc(jUnknown), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},
	}
}

func xlamCases() []familyCase {
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: "[" + jParis + "]", want: one(cParis)},
		{name: "parallel", in: "[" + jParis + ", " + jNews + "]", want: one(cParis, cNews)},
		{name: "types", in: jTypes, want: one(cTypes)},
		{name: "empty", in: "[" + jNoop + "]", want: one(cNoop)},
		{name: "around", in: "Before.\n```json\n[" + jParis + "]\n```\nBetween. <tool_call>" + jNews + "</tool_call> After.",
			want: outcome{Content: "Before.\n\nBetween.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: "[" + jEscapes + "]", want: one(cEscapes)},
		{name: "malformed", in: "<tool_call>" + jBad + "</tool_call>", want: outcome{Content: "<tool_call>" + jBad + "</tool_call>", Codes: []string{"malformed-call"}}},
		{name: "cut", in: "[" + jParis + ", " + jCut, want: outcome{Calls: []wantCall{cParis}, Content: jCut, Codes: []string{"partial-call"}}},
		{name: "twice", in: "[TOOL_CALLS][" + jParis + ", " + jParis + "]", want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>[" + jParis + "]</think>It is sunny.", want: outcome{Reasoning: "[" + jParis + "]", Content: "It is sunny."}},
		{name: "unknown", in: "[" + jUnknown + "]", want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},
		{name: "code-fence-stays-content", in: "Run:\n```python\nprint(1)\n```", want: outcome{Content: "Run:\n```python\nprint(1)\n```"}},
		{name: "after-think", in: "<think>plan</think>\n[" + jParis + "]", want: outcome{Reasoning: "plan", Calls: []wantCall{cParis}}},
	}
}
