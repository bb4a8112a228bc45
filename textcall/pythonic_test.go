// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

func pythonicCases() []familyCase {
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: "[get_weather(city='Paris')]", want: one(cParis)},
		{name: "parallel", in: `[get_weather(city="Paris"), search(query='news')]`, want: one(cParis, cNews)},
		{name: "types", in: `[search(query='q', limit=3, score=2.5, exact=False, note=None, tags=['a', 1], filters={'lang': 'en'}, none=[], opts={})]`, want: one(cTypes)},
		{name: "empty", in: "[noop()]", want: one(cNoop)},
		// Pythonic calls open the answer; text after them is content.
		{name: "around", in: "<|python_start|>[get_weather(city='Paris')]<|python_end|> Between. <|python_start|>[search(query='news')]<|python_end|> After.",
			want: outcome{Content: "Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: `[get_weather(city='Say "hi" \\ back\nslash 😀')]`, want: one(cEscapes)},
		{name: "malformed", in: "[get_weather(city='Paris', 3)]", want: outcome{Content: "[get_weather(city='Paris', 3)]", Codes: []string{"malformed-call"}}},
		{name: "cut", in: "[get_weather(city='Paris'), search(query='ne", want: outcome{Calls: []wantCall{cParis}, Content: "search(query='ne", Codes: []string{"partial-call"}}},
		{name: "twice", in: "[get_weather(city='Paris'), get_weather(city='Paris')]", want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>[get_weather(city='Paris')]</think>It is sunny.", want: outcome{Reasoning: "[get_weather(city='Paris')]", Content: "It is sunny."}},
		{name: "unknown", in: "[launch_rocket(target='moon')]", want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		{name: "citation-is-content", in: "[1] Paris is sunny.", want: outcome{Content: "[1] Paris is sunny."}},
		{name: "triple-quoted", in: `[search(query="""multi
line""")]`, want: one(wantCall{"search", `{"query":"multi\nline"}`})},
		{name: "bracket-in-string", in: "[search(query='a ] b')]", want: one(wantCall{"search", `{"query":"a ] b"}`})},
		{name: "json-literals-and-tuple", in: "[search(exact=true, note=null, tags=(1, 2.5e3))]", want: one(wantCall{"search", `{"exact":true,"note":null,"tags":[1,2.5e3]}`})},
		// Numbers no float64 holds are kept as the text the model wrote,
		// with a warning; one too small to hold is 0 everywhere and stays.
		{name: "out-of-range-number", in: "[search(score=1e999, tags=[1, -1e999, 1e-999], query='q')]",
			want: outcome{Calls: []wantCall{{"search", `{"score":"1e999","tags":[1,"-1e999",1e-999],"query":"q"}`}}, Codes: []string{"out-of-range-number", "out-of-range-number"}}},
		{name: "out-of-range-in-dict-value", in: "[search(filters={'n': 1E400})]",
			want: outcome{Calls: []wantCall{{"search", `{"filters":{"n":"1E400"}}`}}, Codes: []string{"out-of-range-number"}}},
		{name: "olmo-function-calls", in: "<function_calls>\nget_weather(city='Paris')\nsearch(query='news')\n</function_calls>", want: one(cParis, cNews)},
	}
}
