// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"errors"
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// llama3-json: Llama 3.1/3.2/4 JSON tool calling.
//
//	{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": …}
//
// A call is a bare JSON object at the start of the answer, or after
// <|python_tag|> anywhere; more may follow after ';' or newlines. Other
// JSON that is not a call, and text that does not start with '{' or hold
// <|python_tag|>, is content.
type llama3 struct{}

func llama3Family() Family { return llama3{} }

func (llama3) Name() string { return "llama3-json" }

func (llama3) spec() *spec {
	return &spec{
		name:    "llama3-json",
		aliases: []string{"llama3", "llama4-json", "llama-3", "llama3.1", "llama3.2"},
		openers: []opener{
			// <|python_tag|> opens calls wherever it appears: models
			// print it after a sentence of prose too.
			{marker: "<|python_tag|>", end: endJSON, eosOK: true, chain: true, parse: quietJSONCalls, streamArgs: true},
			{atStart: true, trigger: "{", end: endJSON, eosOK: true, chain: true, quiet: true, parse: quietJSONCalls, streamArgs: true},
		},
		drop: []string{"<|eom_id|>", "<|eot_id|>"},
	}
}

// quietJSONCalls is jsonCalls for bare JSON, where an object that is not
// call-shaped is an answer rather than a broken call.
func quietJSONCalls(c *callCtx, body []byte) ([]rawCall, error) {
	calls, err := jsonCalls(c, body)
	if len(calls) == 0 && (errors.Is(err, errNoName) || errors.Is(err, errBadShape)) {
		return nil, errNotCall
	}
	return calls, err
}

func (llama3) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("Given the following functions, reply with a JSON function call, with its arguments, that best answers the request.\n\n")
	b.WriteString("Reply in the form {\"name\": function name, \"parameters\": object of argument names and values}. Use values, not variables. ")
	b.WriteString("To call several functions, separate the objects with \";\".\n\n")
	b.WriteString(toolLines(defs, openAITool))
	b.WriteString("\n\n")
	b.WriteString(choiceText(choice))
	b.WriteString("\n")
	return b.String(), nil
}

func (llama3) FormatCalls(calls []tool.Call) string {
	var b []byte
	for i, c := range calls {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = callJSON(b, c, "parameters")
	}
	return string(b)
}

func (llama3) FormatResults(results []tool.Result) string {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(resultText(r))
	}
	return b.String()
}
