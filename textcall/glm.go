// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"errors"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// glm-4.5: GLM-4.5/4.6/4.7.
//
//	<tool_call>get_weather
//	<arg_key>city</arg_key>
//	<arg_value>Paris</arg_value>
//	</tool_call>
//
// Values are text, coerced by the tool's schema; a call cut off is text.
type glm struct{}

func glmFamily() Family { return glm{} }

func (glm) Name() string { return "glm-4.5" }

func (glm) spec() *spec {
	return &spec{
		name:    "glm-4.5",
		aliases: []string{"glm45", "glm-45", "glm47", "glm-4.6", "glm-4.7", "glm"},
		openers: []opener{{marker: "<tool_call>", ends: []string{"</tool_call>"}, parse: glmCalls,
			streamArgs: true, argsXML: xmlGLM}},
		drop: []string{"<|user|>", "<|observation|>"},
	}
}

func glmCalls(c *callCtx, body []byte) ([]rawCall, error) {
	k := bytes.Index(body, []byte("<arg_key>"))
	head := body
	if k >= 0 {
		head = body[:k]
	}
	name := strings.TrimSpace(string(head))
	if name == "" || strings.ContainsAny(name, "<>{}\n") {
		return nil, errNoName
	}
	var a argsBuilder
	rest := body[len(head):]
	for len(bytes.TrimSpace(rest)) > 0 {
		rest = bytes.TrimSpace(rest)
		if !bytes.HasPrefix(rest, []byte("<arg_key>")) {
			return nil, errors.New("<arg_key> expected")
		}
		rest = rest[len("<arg_key>"):]
		e := bytes.Index(rest, []byte("</arg_key>"))
		if e < 0 {
			return nil, errors.New("<arg_key> not closed")
		}
		key := strings.TrimSpace(string(rest[:e]))
		rest = bytes.TrimSpace(rest[e+len("</arg_key>"):])
		if !bytes.HasPrefix(rest, []byte("<arg_value>")) {
			return nil, errors.New("<arg_value> expected")
		}
		rest = rest[len("<arg_value>"):]
		e = bytes.Index(rest, []byte("</arg_value>"))
		if e < 0 {
			return nil, errors.New("<arg_value> not closed")
		}
		c.stringArg(&a, name, key, string(rest[:e]))
		rest = rest[e+len("</arg_value>"):]
	}
	args, err := checked(a.bytes())
	if err != nil {
		return nil, err
	}
	return []rawCall{{name: name, args: args, warns: c.take()}}, nil
}

func (glm) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Tools\n\nYou may call one or more functions to help with the user's request.\n\n")
	b.WriteString("The function signatures are inside <tools></tools> XML tags:\n<tools>\n")
	b.WriteString(toolLines(defs, openAITool))
	b.WriteString("\n</tools>\n\nFor each call, write the function name and its arguments as key/value tags inside <tool_call></tool_call>:\n")
	b.WriteString("<tool_call>function-name\n<arg_key>argument-name</arg_key>\n<arg_value>argument-value</arg_value>\n...\n</tool_call>\n")
	b.WriteString("Values that are not strings are written as JSON.\n")
	b.WriteString(choiceText(choice))
	b.WriteString("\n")
	return b.String(), nil
}

func (glm) FormatCalls(calls []tool.Call) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("<tool_call>" + c.Name + "\n")
		if strictjson.Check([]byte(argsText(c)), nil) == nil {
			_ = strictjson.Members([]byte(argsText(c)), func(k, v []byte) error {
				b.WriteString("<arg_key>" + string(k) + "</arg_key>\n<arg_value>" + xmlValue(v) + "</arg_value>\n")
				return nil
			})
		}
		b.WriteString("</tool_call>")
	}
	return b.String()
}

func (glm) FormatResults(results []tool.Result) string {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("<tool_response>\n" + resultText(r) + "\n</tool_response>")
	}
	return b.String()
}
