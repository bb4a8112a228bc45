// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import "github.com/toolgate/toolgate/tool"

// jamba: Jamba 1.5, and Hunyuan's <tool_calls> blocks.
//
//	<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>
type jamba struct{}

func jambaFamily() Family { return jamba{} }

func (jamba) Name() string { return "jamba" }

func (jamba) spec() *spec {
	return &spec{
		name:    "jamba",
		aliases: []string{"jamba-1.5", "hunyuan", "hunyuan-a13b"},
		openers: []opener{{marker: "<tool_calls>", ends: []string{"</tool_calls>"}, eosOK: true, parse: jsonCalls, streamArgs: true}},
		drop:    []string{"<|eom|>"},
	}
}

func (jamba) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return genericPrompt(defs, choice, "<tool_calls>[{\"name\": \"tool_name\", \"arguments\": {\"argument\": \"value\"}}]</tool_calls>")
}

func (jamba) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	return "<tool_calls>" + jsonArray(calls) + "</tool_calls>"
}

func (jamba) FormatResults(results []tool.Result) string { return granite{}.FormatResults(results) }
