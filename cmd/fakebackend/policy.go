// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/sse"
)

// The "agent:policy" model plays a coding agent's model in front of a
// gateway that mediates its tool calls (gateway.mediate_tools). It
// decides by the results the conversation holds, by tool name:
//
//  1. none: it asks the agent's Bash to run `rm -rf` on the folder the
//     prompt names (the gateway's policy is expected to deny it, and to
//     tell the model, so that the agent never sees the call);
//  2. a Bash result: it calls listTasks (a tool the gateway serves and
//     runs itself);
//  3. a listTasks result: it asks the agent's Read to read the .txt file
//     the prompt names;
//  4. a Read result: it answers "The file says: …", with what Bash and
//     listTasks answered when the conversation still holds them.
//
// Requests without tools (an agent's title requests) get a short answer.

// policyResults returns the conversation's tool results by tool name (the
// last of each), for a Chat Completions request.
func policyResults(body []byte) (user []string, results map[string]string, tools []agentTool) {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	names := map[string]string{}
	results = map[string]string{}
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			user = append(user, allText(m.Content))
		case "assistant":
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Function.Name
			}
		case "tool":
			results[names[m.ToolCallID]] = allText(m.Content)
		}
	}
	for _, raw := range req.Tools {
		tools = append(tools, declaredTools(raw, "")...)
	}
	return user, results, tools
}

// planPolicy is the "agent:policy" model's next turn.
func planPolicy(user []string, results map[string]string, tools []agentTool) agentPlan {
	if len(tools) == 0 {
		return agentPlan{Text: "A policy test."}
	}
	var prompt string
	if len(user) > 0 {
		prompt = user[len(user)-1]
	}
	if read, ok := results["Read"]; ok {
		text := "The file says: " + strings.TrimSpace(read)
		if b, ok := results["Bash"]; ok {
			text += "\nBash answered: " + b
		}
		if l, ok := results["listTasks"]; ok {
			text += "\nThe tracker answered: " + l
		}
		return agentPlan{Reasoning: "I have the file.", Text: text}
	}
	if _, ok := results["listTasks"]; ok {
		path := txtPath.FindString(prompt)
		name, args, ok := readCall(tools, path)
		if path == "" || !ok {
			return agentPlan{Text: "Nothing to read."}
		}
		return agentPlan{Reasoning: "Now read the file.", Call: name, Args: args}
	}
	if _, ok := results["Bash"]; ok {
		return agentPlan{Reasoning: "The delete was refused; look at the tasks instead.", Call: "listTasks", Args: "{}"}
	}
	dir := strings.Fields(prompt + " /tmp/nowhere")[0]
	for _, f := range strings.Fields(prompt) {
		if strings.HasPrefix(f, "/") && !strings.HasSuffix(f, ".txt") {
			dir = f
		}
	}
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + dir, "description": "Delete the folder"})
	return agentPlan{Reasoning: "Clean up first.", Call: "Bash", Args: string(args)}
}

// policyReply answers an "agent:policy" request: Chat Completions only; a
// stream, which the Backend makes whole for a request that asks for no
// stream.
func policyReply(r gatewaytest.Request) gatewaytest.Reply {
	plan := planPolicy(policyResults(r.Body))
	u1 := gateway.Usage{InputTokens: 50, OutputTokens: -1, ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}
	events := []gateway.Event{{Kind: gateway.EventStart, ID: "fake-policy", Model: "agent:policy"}, {Kind: gateway.EventUsage, Usage: &u1}}
	if plan.Reasoning != "" {
		events = append(events, gateway.Event{Kind: gateway.EventReasoning, Text: plan.Reasoning})
	}
	if plan.Text != "" {
		events = append(events, gateway.Event{Kind: gateway.EventText, Text: plan.Text})
	}
	if plan.Call != "" {
		events = append(events,
			gateway.Event{Kind: gateway.EventCall, Index: 0, ID: "call_policy_" + plan.Call, Name: plan.Call},
			gateway.Event{Kind: gateway.EventArguments, Index: 0, Text: plan.Args},
			gateway.Event{Kind: gateway.EventCallEnd, Index: 0})
	}
	u2 := gateway.Usage{InputTokens: -1, OutputTokens: 20, ReasoningTokens: 4, CacheReadTokens: -1, CacheWriteTokens: -1}
	events = append(events, gateway.Event{Kind: gateway.EventUsage, Usage: &u2}, gateway.Event{Kind: gateway.EventFinish, Finish: gateway.FinishStop})
	var buf bytes.Buffer
	enc, _ := gateway.NewStreamEncoder(gateway.APIChat, sse.NewWriter(&buf), &gateway.EncodeOptions{IncludeUsage: true, Created: 1700000000})
	for _, e := range events {
		enc.Encode(e)
	}
	enc.Close()
	return gatewaytest.Reply{Body: buf.Bytes(), Seed: uint64(len(r.Body))}
}
