// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// emptySchema is written for a tool without an input schema.
const emptySchema = `{"type":"object","properties":{}}`

// schemaOf returns d's input schema without insignificant whitespace, its
// key order kept, so each tool fits on one line of the prompt and the
// prompt is the same bytes however the definition file was indented.
func schemaOf(d tool.Definition) []byte {
	if len(bytes.TrimSpace(d.InputSchema)) == 0 {
		return []byte(emptySchema)
	}
	if c, err := checked(d.InputSchema); err == nil {
		return c
	}
	return d.InputSchema
}

// functionJSON writes d as {"name","description","parameters"}, the schema
// bytes kept as they are so the prompt is byte-stable.
func functionJSON(dst []byte, d tool.Definition) []byte {
	dst = append(dst, `{"name": `...)
	dst = strictjson.AppendQuote(dst, d.Name)
	if d.Description != "" {
		dst = append(dst, `, "description": `...)
		dst = strictjson.AppendQuote(dst, d.Description)
	}
	dst = append(dst, `, "parameters": `...)
	dst = append(dst, schemaOf(d)...)
	return append(dst, '}')
}

// openAITool writes d in the OpenAI tools shape most templates print.
func openAITool(dst []byte, d tool.Definition) []byte {
	dst = append(dst, `{"type": "function", "function": `...)
	dst = functionJSON(dst, d)
	return append(dst, '}')
}

// toolLines writes each tool on its own line with write.
func toolLines(defs []tool.Definition, write func([]byte, tool.Definition) []byte) string {
	var b []byte
	for i, d := range defs {
		if i > 0 {
			b = append(b, '\n')
		}
		b = write(b, d)
	}
	return string(b)
}

// choiceText is the instruction that carries a tool choice into a prompt.
func choiceText(choice tool.Choice) string {
	var lines []string
	switch choice.Mode {
	case tool.ChoiceRequired:
		lines = append(lines, "You must call at least one of these tools before you answer.")
	case tool.ChoiceTool:
		lines = append(lines, "You must call the tool "+choice.Name+" before you answer.")
	default:
		lines = append(lines, "If none of the tools fits the request, answer directly without calling one.")
	}
	if choice.DisableParallel {
		lines = append(lines, "Call at most one tool in each turn.")
	}
	return strings.Join(lines, "\n")
}

// argsText returns a call's arguments as compact JSON, {} when empty.
func argsText(c tool.Call) string {
	a := bytes.TrimSpace(c.Arguments)
	if len(a) == 0 || string(a) == "null" {
		return "{}"
	}
	return string(a)
}

// callJSON writes {"name": N, key: args}.
func callJSON(dst []byte, c tool.Call, key string) []byte {
	dst = append(dst, `{"name": `...)
	dst = strictjson.AppendQuote(dst, c.Name)
	dst = append(dst, ", "...)
	dst = strictjson.AppendQuote(dst, key)
	dst = append(dst, ": "...)
	dst = append(dst, argsText(c)...)
	return append(dst, '}')
}

// resultText is what a result tells the model, marked when it is an error.
func resultText(r tool.Result) string {
	t := r.Text()
	if r.IsError {
		return "Error: " + t
	}
	return t
}

// genericPrompt is the tools section for families whose templates list the
// tools as JSON and show the call format by example.
func genericPrompt(defs []tool.Definition, choice tool.Choice, format string) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("You can call the following tools. Their parameters are JSON Schemas.\n\n")
	b.WriteString(toolLines(defs, openAITool))
	b.WriteString("\n\nTo call tools, answer in exactly this format and nothing else for the call:\n")
	b.WriteString(format)
	b.WriteString("\nUse only the tools listed, with arguments that match their schemas; do not invent values the user did not give.\n")
	b.WriteString(choiceText(choice))
	b.WriteString("\n")
	return b.String(), nil
}
