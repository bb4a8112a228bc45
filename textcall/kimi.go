// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"fmt"
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
		if strings.TrimSpace(string(body[:i])) != "" {
			return nil, &skipError{fmt.Sprintf("its id %q is not functions.NAME:INDEX", bytes.TrimSpace(body[:i]))}
		}
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
// functions.NAME:IDX. An id without the ":IDX" gives no name: the model's
// template always writes it, and without it the name cannot be told from
// the id (functions.invalid.0 is not a tool named "invalid.0").
func kimiName(head string) (name, id string) {
	id = strings.TrimSpace(head)
	name = strings.TrimPrefix(id, "functions.")
	k := strings.LastIndexByte(name, ':')
	if k < 0 {
		return "", ""
	}
	if _, err := strconv.ParseUint(name[k+1:], 10, 32); err != nil {
		return "", ""
	}
	return name[:k], id
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
