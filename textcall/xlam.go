// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// xlam: xLAM (Llama and Qwen based), which prints its calls in several
// styles:
//
//	[{"name": "get_weather", "arguments": {"city": "Paris"}}]
//	```json
//	[{"name": "get_weather", "arguments": {"city": "Paris"}}]
//	```
//	[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]
//	<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>
//
// A bare array or object opens the answer; a fence that holds no calls is
// a code block and stays content.
type xlam struct{}

func xlamFamily() Family { return xlam{} }

func (xlam) Name() string { return "xlam" }

func (xlam) spec() *spec {
	return &spec{
		name:    "xlam",
		aliases: []string{"xlam-llama", "xlam-qwen"},
		openers: []opener{
			{atStart: true, trigger: "[{", end: endJSON, eosOK: true, quiet: true, parse: quietJSONCalls, streamArgs: true},
			{marker: "```json", ends: []string{"```"}, quiet: true, parse: fenceCalls},
			{marker: "```", ends: []string{"```"}, quiet: true, parse: fenceCalls},
			{marker: "[TOOL_CALLS]", end: endJSON, eosOK: true, parse: jsonCalls, streamArgs: true},
			{marker: "<tool_call>", ends: []string{"</tool_call>"}, next: []string{"<tool_call>"}, eosOK: true, parse: jsonCalls, streamArgs: true},
		},
	}
}

// fenceCalls reads a fenced block; one that holds no calls is a code block.
func fenceCalls(c *callCtx, body []byte) ([]rawCall, error) {
	calls, err := jsonCalls(c, body)
	if len(calls) == 0 {
		return nil, errNotCall
	}
	return calls, err
}

func (xlam) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return genericPrompt(defs, choice, "[{\"name\": \"tool_name\", \"arguments\": {\"argument\": \"value\"}}, …]\nThe JSON array must be the whole answer.")
}

func (xlam) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	return jsonArray(calls)
}

func (xlam) FormatResults(results []tool.Result) string {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(resultText(r))
	}
	return b.String()
}
