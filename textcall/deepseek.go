// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// deepseek-v3: DeepSeek V3-0324 and R1-0528.
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
//	```json
//	{"city": "Paris"}
//	```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
type deepseekV3 struct{}

// The DeepSeek special tokens, spelled with U+FF5C and U+2581.
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
	dsOutputs    = "<｜tool▁outputs▁begin｜>"
	dsOutputsEnd = "<｜tool▁outputs▁end｜>"
	dsOutput     = "<｜tool▁output▁begin｜>"
	dsOutputEnd  = "<｜tool▁output▁end｜>"
	dsEOS        = "<｜end▁of▁sentence｜>"
)

func deepseekV3Family() Family { return deepseekV3{} }

func (deepseekV3) Name() string { return "deepseek-v3" }

func deepseekSpec(name string, aliases []string, parse func(*callCtx, []byte) ([]rawCall, error), head func([]byte) (string, string, int)) *spec {
	return &spec{
		name:    name,
		aliases: aliases,
		openers: []opener{{marker: dsCallBegin, ends: []string{dsCallEnd}, next: []string{dsCallBegin, dsCallsEnd}, eosOK: true, parse: parse,
			streamArgs: true, argsHead: head}},
		drop: []string{dsCallsBegin, dsCallsEnd, dsEOS},
	}
}

func (deepseekV3) spec() *spec {
	return deepseekSpec("deepseek-v3", []string{"deepseek-r1", "deepseekv3", "deepseek-v3-0324"}, deepseekV3Call, deepseekV3Head)
}

// deepseekV3Head finds the name and the arguments' '{' in a body written
// function SEP NAME \n ```json \n {…} as it arrives, for StreamArguments.
func deepseekV3Head(body []byte) (string, string, int) {
	i := bytes.Index(body, []byte(dsSep))
	if i < 0 {
		return "", "", headMore
	}
	rest := body[i+len(dsSep):]
	j := bytes.IndexAny(rest, "\n{`")
	if j < 0 {
		return "", "", headMore
	}
	name := strings.TrimSpace(string(rest[:j]))
	if rest[j] != '\n' || name == "" {
		// Left to the full read, which has its own fallbacks.
		return "", "", headNot
	}
	k := j + 1
	for k < len(rest) && isSpace(rest[k]) {
		k++
	}
	for _, fence := range []string{"```json", "```"} {
		if bytes.HasPrefix(rest[k:], []byte(fence)) {
			k += len(fence)
			break
		}
		if len(rest)-k < len(fence) && string(rest[k:]) == fence[:len(rest)-k] {
			return "", "", headMore
		}
	}
	at := objectAt(rest, k)
	if at >= 0 {
		at += i + len(dsSep)
	}
	return name, "", at
}

func deepseekV3Call(c *callCtx, body []byte) ([]rawCall, error) {
	i := bytes.Index(body, []byte(dsSep))
	if i < 0 {
		return nil, errNoName
	}
	rest := body[i+len(dsSep):]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		nl = bytes.IndexAny(rest, "{`")
		if nl < 0 {
			return nil, errNoName
		}
	}
	name := strings.TrimSpace(string(rest[:nl]))
	if name == "" {
		return nil, errNoName
	}
	js := bytes.TrimSpace(rest[nl:])
	js = bytes.TrimPrefix(js, []byte("```json"))
	js = bytes.TrimPrefix(js, []byte("```"))
	js = bytes.TrimSuffix(bytes.TrimSpace(js), []byte("```"))
	args, err := checked(js)
	if err != nil {
		return nil, err
	}
	args, err = argsObject(args)
	if err != nil {
		return nil, err
	}
	return []rawCall{{name: name, args: args}}, nil
}

func deepseekPrompt(defs []tool.Definition, choice tool.Choice, format string) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("## Tools\n\nYou have access to the following tools:\n\n")
	for _, d := range defs {
		b.WriteString("### " + d.Name + "\n")
		if d.Description != "" {
			b.WriteString("Description: " + strings.TrimSpace(d.Description) + "\n\n")
		}
		b.WriteString("Parameters: " + string(schemaOf(d)) + "\n\n")
	}
	b.WriteString("IMPORTANT: to call tools, use exactly this format:\n")
	b.WriteString(format)
	b.WriteString("\nSeveral calls go one after another inside the same tool calls block.\n")
	b.WriteString(choiceText(choice))
	b.WriteString("\n")
	return b.String(), nil
}

func (deepseekV3) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return deepseekPrompt(defs, choice, dsCallsBegin+dsCallBegin+"function"+dsSep+"tool_name\n```json\n{\"argument\": \"value\"}\n```"+dsCallEnd+dsCallsEnd)
}

func (deepseekV3) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(dsCallsBegin)
	for _, c := range calls {
		b.WriteString(dsCallBegin + "function" + dsSep + c.Name + "\n```json\n" + argsText(c) + "\n```" + dsCallEnd)
	}
	b.WriteString(dsCallsEnd)
	return b.String()
}

func deepseekResults(results []tool.Result) string {
	if len(results) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(dsOutputs)
	for _, r := range results {
		b.WriteString(dsOutput + resultText(r) + dsOutputEnd)
	}
	b.WriteString(dsOutputsEnd)
	return b.String()
}

func (deepseekV3) FormatResults(results []tool.Result) string { return deepseekResults(results) }

// deepseek-v3.1: DeepSeek V3.1, the same tokens without the type and fence.
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
type deepseekV31 struct{}

func deepseekV31Family() Family { return deepseekV31{} }

func (deepseekV31) Name() string { return "deepseek-v3.1" }

func (deepseekV31) spec() *spec {
	return deepseekSpec("deepseek-v3.1", []string{"deepseek-v31", "deepseekv31"}, deepseekV31Call,
		sepHead(dsSep, func(head string) (string, string) { return strings.TrimSpace(head), "" }))
}

func deepseekV31Call(c *callCtx, body []byte) ([]rawCall, error) {
	i := bytes.Index(body, []byte(dsSep))
	if i < 0 {
		return nil, errNoName
	}
	name := strings.TrimSpace(string(body[:i]))
	if name == "" {
		return nil, errNoName
	}
	v, err := checked(body[i+len(dsSep):])
	if err != nil {
		return nil, err
	}
	args, err := argsObject(v)
	if err != nil {
		return nil, err
	}
	if strictjson.KindOf(args) != strictjson.Object {
		return nil, errBadArgs
	}
	return []rawCall{{name: name, args: args}}, nil
}

func (deepseekV31) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return deepseekPrompt(defs, choice, dsCallsBegin+dsCallBegin+"tool_name"+dsSep+"{\"argument\": \"value\"}"+dsCallEnd+dsCallsEnd)
}

func (deepseekV31) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(dsCallsBegin)
	for _, c := range calls {
		b.WriteString(dsCallBegin + c.Name + dsSep + argsText(c) + dsCallEnd)
	}
	b.WriteString(dsCallsEnd)
	return b.String()
}

func (deepseekV31) FormatResults(results []tool.Result) string { return deepseekResults(results) }
