// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// kimi-k2: Kimi K2.
//
//	<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>
//
// The model's id (functions.NAME:IDX) is kept as the call id.
type kimi struct{}

const (
	kimiSection    = "<|tool_calls_section_begin|>"
	kimiSectionEnd = "<|tool_calls_section_end|>"
	kimiCall       = "<|tool_call_begin|>"
	kimiCallEnd    = "<|tool_call_end|>"
	kimiArgs       = "<|tool_call_argument_begin|>"
)

func kimiFamily() Family { return kimi{} }

func (kimi) Name() string { return "kimi-k2" }

func (kimi) spec() *spec {
	return &spec{
		name:    "kimi-k2",
		aliases: []string{"kimi", "kimi-k2-thinking", "kimi-k3"},
		openers: []opener{{marker: kimiCall, ends: []string{kimiCallEnd}, next: []string{kimiCall, kimiSectionEnd}, eosOK: true, parse: kimiCalls,
			streamArgs: true, argsHead: sepHead(kimiArgs, kimiName)}},
		drop: []string{kimiSection, kimiSectionEnd, "<|tool_call_section_begin|>", "<|tool_call_section_end|>", "<|im_end|>"},
	}
}

func kimiCalls(c *callCtx, body []byte) ([]rawCall, error) {
	i := bytes.Index(body, []byte(kimiArgs))
	if i < 0 {
		return nil, errNoName
	}
	name, id := kimiName(string(body[:i]))
	if name == "" {
		return nil, errNoName
	}
	v, err := checked(body[i+len(kimiArgs):])
	if err != nil {
		return nil, err
	}
	args, err := argsObject(v)
	if err != nil {
		return nil, err
	}
	return []rawCall{{name: name, args: args, id: id}}, nil
}

// kimiName returns the name and id of a call whose id is head:
// functions.NAME:IDX.
func kimiName(head string) (name, id string) {
	id = strings.TrimSpace(head)
	name = strings.TrimPrefix(id, "functions.")
	if k := strings.LastIndexByte(name, ':'); k >= 0 {
		if _, err := strconv.Atoi(name[k+1:]); err == nil {
			name = name[:k]
		}
	}
	return name, id
}

func (kimi) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return genericPrompt(defs, choice, kimiSection+kimiCall+"functions.tool_name:0"+kimiArgs+"{\"argument\": \"value\"}"+kimiCallEnd+kimiSectionEnd+
		"\nNumber the calls of a turn from 0.")
}

func (kimi) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(kimiSection)
	for i, c := range calls {
		id := c.ID
		if !strings.HasPrefix(id, "functions.") {
			id = "functions." + c.Name + ":" + strconv.Itoa(i)
		}
		b.WriteString(kimiCall + id + kimiArgs + argsText(c) + kimiCallEnd)
	}
	b.WriteString(kimiSectionEnd)
	return b.String()
}

func (kimi) FormatResults(results []tool.Result) string {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("## Return of " + r.CallID + "\n" + resultText(r))
	}
	return b.String()
}
