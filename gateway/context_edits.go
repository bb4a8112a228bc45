// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// clearedResult is what a cleared tool result says, as Anthropic's own
// context editing leaves a placeholder.
const clearedResult = "[tool result cleared to save context]"

// applyContextEdits does what Anthropic's context_management edits ask,
// for a backend that cannot: clear_thinking_* removes the reasoning of
// all but the last assistant turns that hold some; clear_tool_uses_*
// replaces old tool results (and with clear_tool_inputs, their calls'
// inputs) with a placeholder once the conversation passes the trigger.
// Tokens are estimated as four bytes each. An edit it cannot read or
// apply is a warning, never a failure. msgs is not modified.
func applyContextEdits(raw json.RawMessage, msgs []Message, out *Outbound) []Message {
	var cm struct {
		Edits []json.RawMessage `json:"edits"`
	}
	if json.Unmarshal(raw, &cm) != nil {
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/context_management", Code: "not-applied", Message: "unreadable: no edit applied"})
		return msgs
	}
	msgs = cloneMessages(msgs)
	for i, e := range cm.Edits {
		ptr := fmt.Sprintf("/context_management/edits/%d", i)
		var edit struct {
			Type            string          `json:"type"`
			Keep            json.RawMessage `json:"keep"`
			Trigger         *amount         `json:"trigger"`
			ExcludeTools    []string        `json:"exclude_tools"`
			ClearToolInputs json.RawMessage `json:"clear_tool_inputs"`
		}
		if json.Unmarshal(e, &edit) != nil {
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "not-applied", Message: "unreadable edit left out"})
			continue
		}
		switch {
		case strings.HasPrefix(edit.Type, "clear_thinking_"):
			keep := 1
			if string(edit.Keep) == `"all"` {
				continue
			}
			var k amount
			if len(edit.Keep) > 0 && json.Unmarshal(edit.Keep, &k) == nil && k.Type == "thinking_turns" {
				keep = k.Value
			}
			clearThinking(msgs, max(keep, 0))
		case strings.HasPrefix(edit.Type, "clear_tool_uses_"):
			trigger := 100000
			if edit.Trigger != nil && edit.Trigger.Type == "input_tokens" {
				trigger = edit.Trigger.Value
			}
			if estimateTokens(msgs) < trigger {
				continue
			}
			keep := 3
			var k amount
			if len(edit.Keep) > 0 && json.Unmarshal(edit.Keep, &k) == nil && k.Type == "tool_uses" {
				keep = k.Value
			}
			var inputs []string
			all := string(edit.ClearToolInputs) == "true"
			json.Unmarshal(edit.ClearToolInputs, &inputs)
			clearToolUses(msgs, keep, edit.ExcludeTools, all, inputs)
		default:
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr + "/type", Code: "not-applied", Message: fmt.Sprintf("edit %q is not one the gateway can apply: left out", clip(edit.Type))})
		}
	}
	return msgs
}

// amount is a context-management count: {type, value}.
type amount struct {
	Type  string `json:"type"`
	Value int    `json:"value"`
}

func cloneMessages(msgs []Message) []Message {
	c := make([]Message, len(msgs))
	for i, m := range msgs {
		c[i] = Message{Role: m.Role, Parts: slices.Clone(m.Parts)}
	}
	return c
}

// clearThinking removes reasoning from every assistant turn but the last
// keep that hold some.
func clearThinking(msgs []Message, keep int) {
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != RoleAssistant || !slices.ContainsFunc(m.Parts, isReasoning) {
			continue
		}
		seen++
		if seen > keep {
			m.Parts = slices.DeleteFunc(m.Parts, isReasoning)
		}
	}
}

func isReasoning(p Part) bool { return p.Kind == PartReasoning || p.Kind == PartRedacted }

// clearToolUses clears the results of all but the last keep tool calls,
// except those of excluded tools; with all (or the tool named in
// inputs) the calls' inputs too.
func clearToolUses(msgs []Message, keep int, exclude []string, all bool, inputs []string) {
	names := map[string]string{}
	var calls []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == PartCall {
				names[p.CallID] = p.Name
				calls = append(calls, p.CallID)
			}
		}
	}
	keep = max(keep, 0)
	if len(calls) <= keep {
		return
	}
	clear := map[string]bool{}
	for _, id := range calls[:len(calls)-keep] {
		if !slices.Contains(exclude, names[id]) {
			clear[id] = true
		}
	}
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			switch {
			case p.Kind == PartResult && clear[p.CallID]:
				p.Content = []Part{{Kind: PartText, Text: clearedResult}}
			case p.Kind == PartCall && clear[p.CallID] && (all || slices.Contains(inputs, p.Name)):
				p.Arguments = json.RawMessage("{}")
			}
		}
	}
}

// estimateTokens guesses the conversation's size: four bytes a token.
func estimateTokens(msgs []Message) int {
	n := 0
	var count func(ps []Part)
	count = func(ps []Part) {
		for _, p := range ps {
			n += len(p.Text) + len(p.Arguments) + len(p.Data)
			count(p.Content)
		}
	}
	for _, m := range msgs {
		count(m.Parts)
	}
	return n / 4
}
