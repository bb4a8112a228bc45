// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

func llama3Cases() []familyCase {
	p := `{"name": "get_weather", "parameters": {"city": "Paris"}}`
	n := `{"name": "search", "parameters": {"query": "news"}}`
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: p, want: one(cParis)},
		{name: "parallel", in: p + "; " + n, want: one(cParis, cNews)},
		{name: "types", in: jTypes, want: one(cTypes)},
		{name: "empty", in: `{"name": "noop", "parameters": {}}`, want: one(cNoop)},
		// Calls open the answer; prose after them is content, prose before
		// them makes the whole answer prose.
		{name: "around", in: p + ";\n" + n + "\nI asked for both.", want: outcome{Content: "I asked for both.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: jEscapes, want: one(cEscapes)},
		{name: "malformed", in: jBad, want: outcome{Content: jBad, Codes: []string{"malformed-call"}}},
		{name: "cut", in: p + "; " + jCut, want: outcome{Calls: []wantCall{cParis}, Content: jCut, Codes: []string{"malformed-call"}}},
		{name: "twice", in: p + "\n" + p, want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>" + p + "</think>It is sunny.", want: outcome{Reasoning: p, Content: "It is sunny."}},
		{name: "unknown", in: jUnknown, want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		{name: "prose-first", in: "Sure: " + p, want: outcome{Content: "Sure: " + p}},
		{name: "json-answer-is-content", in: `{"temperature": 21}`, want: outcome{Content: `{"temperature": 21}`}},
		{name: "braces-in-trailing-prose", in: p + " then {x} and }{", want: outcome{Content: "then {x} and }{", Calls: []wantCall{cParis}}},
		{name: "python-tag", in: "<|python_tag|>" + p + "<|eom_id|>", want: one(cParis)},
		{name: "python-tag-after-prose", in: "Some intro. <|python_tag|>" + p + "; " + n + "<|eom_id|>", want: outcome{Content: "Some intro.", Calls: []wantCall{cParis, cNews}}},
		{name: "python-tag-after-call", in: p + "\n<|python_tag|>" + n, want: one(cParis, cNews)},
		{name: "semicolon-newline", in: p + ";\n" + n + ";", want: one(cParis, cNews)},
	}
}
