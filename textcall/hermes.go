// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// hermes: Hermes 2 Pro/3, Qwen2.5, QwQ, Qwen3, Granite 4.
//
//	<tool_call>
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//	</tool_call>
//
// A missing </tool_call> is tolerated at the end of the output and before
// the next <tool_call>.
type hermes struct{}

func hermesFamily() Family { return hermes{} }

func (hermes) Name() string { return "hermes" }

func (hermes) spec() *spec {
	return &spec{
		name:    "hermes",
		aliases: []string{"qwen2.5", "qwen3", "qwq", "granite4", "nous"},
		openers: []opener{{
			marker: "<tool_call>",
			ends:   []string{"</tool_call>"},
			next:   []string{"<tool_call>"},
			eosOK:  true,
			parse:  jsonCalls,
			// a JSON call object: its arguments can stream
			streamArgs: true,
		}},
		drop: []string{"<|im_end|>"},
	}
}

// hermesSchema is the JSON Schema of one call, shown to the model.
const hermesSchema = `{"type": "object", "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}}, "required": ["name", "arguments"]}`

func (hermes) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("You are an assistant that can call functions. The function signatures are given inside <tools></tools> XML tags. ")
	b.WriteString("Call a function when it helps with the user's request, and never guess argument values the user has not given.\n\n")
	b.WriteString("<tools>\n")
	b.WriteString(toolLines(defs, openAITool))
	b.WriteString("\n</tools>\n\n")
	b.WriteString("Each call is a JSON object that matches this schema:\n")
	b.WriteString(hermesSchema)
	b.WriteString("\n\nFor each call, write the JSON object with the function name and its arguments inside <tool_call></tool_call> XML tags:\n")
	b.WriteString("<tool_call>\n{\"name\": <function-name>, \"arguments\": <arguments-object>}\n</tool_call>\n")
	b.WriteString("Results come back inside <tool_response></tool_response> XML tags. Until you see a result, do not assume what it holds.\n")
	b.WriteString(choiceText(choice))
	b.WriteString("\n")
	return b.String(), nil
}

func (hermes) FormatCalls(calls []tool.Call) string {
	var b []byte
	for i, c := range calls {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, "<tool_call>\n"...)
		b = callJSON(b, c, "arguments")
		b = append(b, "\n</tool_call>"...)
	}
	return string(b)
}

func (hermes) FormatResults(results []tool.Result) string {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("<tool_response>\n")
		b.WriteString(resultText(r))
		b.WriteString("\n</tool_response>")
	}
	return b.String()
}
