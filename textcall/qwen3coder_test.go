// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

// qwenCall writes a Qwen3-Coder call with params as name, value pairs.
func qwenCall(name string, params ...string) string {
	s := "<tool_call>\n<function=" + name + ">\n"
	for i := 0; i+1 < len(params); i += 2 {
		s += "<parameter=" + params[i] + ">\n" + params[i+1] + "\n</parameter>\n"
	}
	return s + "</function>\n</tool_call>"
}

func qwen3CoderCases() []familyCase {
	paris := qwenCall("get_weather", "city", "Paris")
	news := qwenCall("search", "query", "news")
	types := qwenCall("search", "query", "q", "limit", "3", "score", "2.5", "exact", "false", "note", "null",
		"tags", `["a", 1]`, "filters", `{"lang": "en"}`, "none", "[]", "opts", "{}")
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: paris, want: one(cParis)},
		{name: "parallel", in: paris + "\n" + news, want: one(cParis, cNews)},
		{name: "types", in: types, want: one(cTypes)},
		{name: "empty", in: qwenCall("noop"), want: one(cNoop)},
		{name: "around", in: "Before. " + paris + " Between. " + news + " After.",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: qwenCall("get_weather", "city", "Say \"hi\" \\ back\nslash 😀"), want: one(cEscapes)},
		{name: "malformed", in: "<tool_call>\n<parameter=city>\nParis\n</parameter>\n</tool_call>",
			want: outcome{Content: "<tool_call>\n<parameter=city>\nParis\n</parameter>\n</tool_call>", Codes: []string{"malformed-call"}}},
		{name: "cut", in: paris + "\n<tool_call>\n<function=search>\n<parameter=query>\nne",
			want: outcome{Calls: []wantCall{cParis}, Content: "<tool_call>\n<function=search>\n<parameter=query>\nne", Codes: []string{"malformed-call"}}},
		{name: "twice", in: paris + paris, want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>Maybe " + paris + " fits.</think>\n\nIt is sunny.",
			want: outcome{Reasoning: "Maybe " + paris + " fits.", Content: "It is sunny."}},
		{name: "unknown", in: qwenCall("launch_rocket", "target", "moon"), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		// A number no float64 holds is no number: a string, with a warning.
		{name: "out-of-range-number", in: qwenCall("search", "score", "1e999", "limit", "1"+strings.Repeat("0", 400)),
			want: outcome{Calls: []wantCall{{"search", `{"score":"1e999","limit":"1` + strings.Repeat("0", 400) + `"}`}}, Codes: []string{"uncoerced-argument", "uncoerced-argument"}}},
		{name: "uncoerced-kept-as-string", in: qwenCall("get_weather", "city", "Paris", "days", "three"),
			want: outcome{Calls: []wantCall{{"get_weather", `{"city":"Paris","days":"three"}`}}, Codes: []string{"uncoerced-argument"}}},
		{name: "integer-written-as-float", in: qwenCall("get_weather", "city", "Paris", "days", "2.0"),
			want: one(wantCall{"get_weather", `{"city":"Paris","days":2}`})},
		{name: "python-literal-object", in: qwenCall("search", "filters", "{'lang': 'en', 'safe': True}"),
			want: one(wantCall{"search", `{"filters":{"lang":"en","safe":true}}`})},
		{name: "without-tools-values-stay-strings", in: qwenCall("search", "limit", "3", "exact", "false"), cfg: &Config{},
			want: one(wantCall{"search", `{"limit":"3","exact":"false"}`})},
		{name: "duplicate-parameter", in: qwenCall("get_weather", "city", "Paris", "city", "Rome"),
			want: outcome{Calls: []wantCall{cParis}, Codes: []string{"duplicate-argument"}}},
		{name: "seed-oss", in: "<seed:think>hmm</seed:think><seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
			cfg: &Config{Tools: testTools, ThinkTag: "seed:think"}, want: outcome{Reasoning: "hmm", Calls: []wantCall{cParis}}},
		{name: "qwen3-empty-think", in: "<think>\n\n</think>\n\n" + paris, want: one(cParis)},
		{name: "bare-function", in: "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>", want: one(cParis)},
		{name: "missing-parameter-close", in: "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>", want: one(cParis)},
	}
}

func TestCoercionWarningPointsAtTheArgument(t *testing.T) {
	in := qwenCall("noop") + qwenCall("get_weather", "city", "Paris", "days", "three")
	r := newTestParser(t, "qwen3-coder", nil).Parse(in)
	want := []tool.Warning{{
		Pointer: "/tool_calls/1/arguments/days",
		Code:    "uncoerced-argument",
		Message: `tool "get_weather": the value of "days" does not match its schema type; it is kept as a string`,
	}}
	if diff := cmp.Diff(want, r.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
