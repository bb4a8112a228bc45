// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// internlm: InternLM 2.5.
//
//	<|action_start|><|plugin|>
//	{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>
type internlm struct{}

func internlmFamily() Family { return internlm{} }

func (internlm) Name() string { return "internlm" }

const (
	internlmStart = "<|action_start|><|plugin|>"
	internlmEnd   = "<|action_end|>"
)

func (internlm) spec() *spec {
	return &spec{
		name:    "internlm",
		aliases: []string{"internlm2", "internlm2.5"},
		openers: []opener{{marker: internlmStart, ends: []string{internlmEnd}, eosOK: true, parse: jsonCalls, streamArgs: true}},
		drop:    []string{"<|im_end|>"},
	}
}

func (internlm) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return genericPrompt(defs, choice, internlmStart+"\n{\"name\": \"tool_name\", \"parameters\": {\"argument\": \"value\"}}"+internlmEnd+"\nMake one call per turn.")
}

func (internlm) FormatCalls(calls []tool.Call) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(internlmStart + "\n" + string(callJSON(nil, c, "parameters")) + internlmEnd)
	}
	return b.String()
}

func (internlm) FormatResults(results []tool.Result) string { return granite{}.FormatResults(results) }
