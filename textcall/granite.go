// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// granite: Granite 3.0/3.1.
//
//	<|tool_call|>[{"arguments": {"city": "Paris"}, "name": "get_weather"}]
//
// The JSON array (or object) after the marker ends where its value ends.
type granite struct{}

func graniteFamily() Family { return granite{} }

func (granite) Name() string { return "granite" }

func (granite) spec() *spec {
	return &spec{
		name:    "granite",
		aliases: []string{"granite3", "granite-3"},
		openers: []opener{
			{marker: "<|tool_call|>", end: endJSON, eosOK: true, parse: jsonCalls, streamArgs: true},
			{marker: "<tool_call>", end: endJSON, ends: []string{"</tool_call>"}, eosOK: true, parse: jsonCalls, streamArgs: true},
		},
		drop: []string{"<|end_of_text|>"},
	}
}

func (granite) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return genericPrompt(defs, choice, "<|tool_call|>[{\"name\": \"tool_name\", \"arguments\": {\"argument\": \"value\"}}]\nPut every call of the turn in the one JSON array.")
}

func (granite) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	return "<|tool_call|>" + jsonArray(calls)
}

// jsonArray writes calls as [{"name": …, "arguments": …}, …].
func jsonArray(calls []tool.Call) string {
	b := []byte{'['}
	for i, c := range calls {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = callJSON(b, c, "arguments")
	}
	return string(append(b, ']'))
}

func (granite) FormatResults(results []tool.Result) string {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(resultText(r))
	}
	return b.String()
}
