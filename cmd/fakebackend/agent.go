// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/sse"
)

// The "agent:read" model plays a coding agent's model: it asks the agent
// to read the file whose absolute path (ending in .txt) the user's prompt
// names, with the agent's own read tool under whatever name the agent
// declared it (Claude Code's Read, opencode's read, Codex's shell or
// exec_command), then answers with the tool result it got back:
// "The file says: RESULT". Requests without tools (an agent's title or
// summary requests) get a short answer.

// agentTool is a tool the client declared: its name and input schema.
type agentTool struct {
	Name   string
	Schema json.RawMessage
	// Custom is a free-form tool (Responses "custom"): its input is
	// plain text, not JSON.
	Custom bool
}

var txtPath = regexp.MustCompile(`/[A-Za-z0-9._/+-]+\.txt`)

// agentPlan is what the scripted agent model says next.
type agentPlan struct {
	Reasoning string
	Text      string
	Call      string // tool name; empty: no call
	Args      string // JSON arguments (the raw text for a custom tool)
}

// planAgent decides the next turn from the conversation: user texts,
// the last tool result (ok reports whether there is one) and the tools.
func planAgent(user []string, result string, hasResult bool, tools []agentTool) agentPlan {
	if hasResult {
		return agentPlan{Reasoning: "The tool answered; report what the file holds.", Text: "The file says: " + strings.TrimSpace(result)}
	}
	var path string
	for i := len(user) - 1; i >= 0 && path == ""; i-- {
		path = txtPath.FindString(user[i])
	}
	if path == "" || len(tools) == 0 {
		return agentPlan{Text: "Nothing to read."}
	}
	t, args, ok := readCall(tools, path)
	if !ok {
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		return agentPlan{Text: "No tool to read a file with among: " + strings.Join(names, ", ")}
	}
	return agentPlan{Reasoning: "The user wants " + path + " read; call " + t + ".", Call: t, Args: args}
}

// readCall picks the client's tool that reads a file and writes its
// arguments for path: a read tool (Read, read, read_file) with its path
// property, else a shell tool (shell, exec_command, bash, …) running cat.
func readCall(tools []agentTool, path string) (name, args string, ok bool) {
	for _, t := range tools {
		switch strings.ToLower(t.Name) {
		case "read", "read_file", "readfile", "view":
			if prop := schemaProp(t.Schema, func(p string, _ string) bool { return strings.Contains(strings.ToLower(p), "path") }); prop != "" {
				return t.Name, jsonObject(prop, path), true
			}
		}
	}
	for _, t := range tools {
		base := strings.ToLower(t.Name)
		if i := strings.LastIndexAny(base, ".:_"); i >= 0 && strings.HasPrefix(base, "functions") {
			base = base[i+1:]
		}
		switch base {
		case "shell", "exec_command", "bash", "shell_command", "local_shell", "container.exec":
		default:
			continue
		}
		if t.Custom {
			return t.Name, "cat " + path, true
		}
		var typ string
		prop := schemaProp(t.Schema, func(p, ty string) bool {
			if p == "command" || p == "cmd" {
				typ = ty
				return true
			}
			return false
		})
		switch {
		case prop == "":
		case typ == "array":
			b, _ := json.Marshal(map[string][]string{prop: {"cat", path}})
			return t.Name, string(b), true
		default:
			return t.Name, jsonObject(prop, "cat "+path), true
		}
	}
	return "", "", false
}

// schemaProp returns the first property of a JSON Schema object, in the
// schema's order, that match accepts (name and type).
func schemaProp(schema json.RawMessage, match func(name, typ string) bool) string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		var p struct {
			Type any `json:"type"`
		}
		if dec.Decode(&p) != nil {
			return ""
		}
		typ, _ := p.Type.(string)
		// Gemini's own schema subset spells types in capitals.
		typ = strings.ToLower(typ)
		if name, _ := t.(string); match(name, typ) {
			return name
		}
	}
	return ""
}

func jsonObject(k, v string) string {
	b, _ := json.Marshal(map[string]string{k: v})
	return string(b)
}

// agentConversation reads what the agent model needs from a request body
// of any API: the user texts, the last tool result and the tools.
func agentConversation(api gateway.API, body []byte) (user []string, result string, hasResult bool, tools []agentTool) {
	if api == gateway.APIGemini {
		return geminiConversation(body)
	}
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
		Input    json.RawMessage              `json:"input"`
		Tools    []json.RawMessage            `json:"tools"`
	}
	json.Unmarshal(body, &req)
	items := req.Messages
	if api == gateway.APIResponses {
		if json.Unmarshal(req.Input, &items) != nil {
			var s string
			json.Unmarshal(req.Input, &s)
			user = append(user, s)
		}
	}
	for _, it := range items {
		role, typ := str(it["role"]), str(it["type"])
		switch {
		case role == "user":
			if api == gateway.APIMessages {
				var blocks []map[string]json.RawMessage
				if json.Unmarshal(it["content"], &blocks) == nil {
					var texts []string
					for _, b := range blocks {
						if str(b["type"]) == "tool_result" {
							result, hasResult = allText(b["content"]), true
							continue
						}
						texts = append(texts, allText(b["text"]))
					}
					user = append(user, strings.Join(texts, "\n"))
					continue
				}
			}
			user = append(user, allText(it["content"]))
		case role == "tool":
			result, hasResult = allText(it["content"]), true
		case typ == "function_call_output" || typ == "custom_tool_call_output":
			result, hasResult = allText(it["output"]), true
		}
	}
	for _, raw := range req.Tools {
		tools = append(tools, declaredTools(raw, "")...)
	}
	return user, result, hasResult, tools
}

// geminiConversation reads a generateContent request: user texts from
// the user turns' text parts, the last functionResponse's output (or
// error) and the tools' functionDeclarations, whose schema is in
// parameters or parametersJsonSchema (Gemini CLI sends the latter).
func geminiConversation(body []byte) (user []string, result string, hasResult bool, tools []agentTool) {
	type part struct {
		Text             *string `json:"text"`
		FunctionResponse *struct {
			Response map[string]json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []part `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	for _, c := range req.Contents {
		if c.Role != "" && c.Role != "user" {
			continue
		}
		var texts []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				resp := p.FunctionResponse.Response
				out, ok := resp["output"]
				if !ok {
					out = resp["error"]
				}
				result, hasResult = allText(out), true
			case p.Text != nil:
				texts = append(texts, *p.Text)
			}
		}
		if len(texts) > 0 {
			user = append(user, strings.Join(texts, "\n"))
		}
	}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			s := d.ParametersJSONSchema
			if len(s) == 0 {
				s = d.Parameters
			}
			tools = append(tools, agentTool{Name: d.Name, Schema: s})
		}
	}
	return user, result, hasResult, tools
}

// declaredTools reads one tool declaration of any API; a Responses
// namespace holds several, named NAMESPACE.NAME here.
func declaredTools(raw json.RawMessage, prefix string) []agentTool {
	var t struct {
		Type        string            `json:"type"`
		Name        string            `json:"name"`
		Parameters  json.RawMessage   `json:"parameters"`
		InputSchema json.RawMessage   `json:"input_schema"`
		Tools       []json.RawMessage `json:"tools"`
		Function    *struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	switch {
	case t.Function != nil:
		return []agentTool{{Name: prefix + t.Function.Name, Schema: t.Function.Parameters}}
	case t.Type == "namespace":
		var out []agentTool
		for _, in := range t.Tools {
			out = append(out, declaredTools(in, prefix+t.Name+".")...)
		}
		return out
	case t.Type == "custom":
		return []agentTool{{Name: prefix + t.Name, Custom: true}}
	case t.Name != "":
		s := t.Parameters
		if len(s) == 0 {
			s = t.InputSchema
		}
		return []agentTool{{Name: prefix + t.Name, Schema: s}}
	}
	return nil
}

func str(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// allText joins every "text" string (or the value itself when it is a
// string) found in raw, depth first.
func allText(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			if s, ok := v["text"].(string); ok {
				b.WriteString(s)
				return
			}
			if c, ok := v["content"]; ok {
				walk(c)
			}
			if c, ok := v["output"]; ok {
				walk(c)
			}
		}
	}
	walk(v)
	return b.String()
}

// agentReply answers an "agent:read" request on its own API: a stream,
// which the Backend makes whole for a request that asks for no stream.
func agentReply(api gateway.API, r gatewaytest.Request) gatewaytest.Reply {
	plan := planAgent(agentConversation(api, r.Body))
	u1 := gateway.Usage{InputTokens: 42, OutputTokens: -1, ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}
	events := []gateway.Event{{Kind: gateway.EventStart, ID: "fake-agent", Model: "agent:read"}, {Kind: gateway.EventUsage, Usage: &u1}}
	if plan.Reasoning != "" {
		events = append(events, gateway.Event{Kind: gateway.EventReasoning, Text: plan.Reasoning})
	}
	if plan.Text != "" {
		events = append(events, gateway.Event{Kind: gateway.EventText, Text: plan.Text})
	}
	if plan.Call != "" {
		args := plan.Args
		half := len(args) / 2
		events = append(events,
			gateway.Event{Kind: gateway.EventCall, Index: 0, ID: fmt.Sprintf("call_agent_%d", len(r.Body)%997), Name: plan.Call},
			gateway.Event{Kind: gateway.EventArguments, Index: 0, Text: args[:half]},
			gateway.Event{Kind: gateway.EventArguments, Index: 0, Text: args[half:]},
			gateway.Event{Kind: gateway.EventCallEnd, Index: 0})
	}
	u2 := gateway.Usage{InputTokens: -1, OutputTokens: 17, ReasoningTokens: 5, CacheReadTokens: -1, CacheWriteTokens: -1}
	events = append(events, gateway.Event{Kind: gateway.EventUsage, Usage: &u2}, gateway.Event{Kind: gateway.EventFinish, Finish: gateway.FinishStop})
	var buf bytes.Buffer
	enc, _ := gateway.NewStreamEncoder(api, sse.NewWriter(&buf), &gateway.EncodeOptions{IncludeUsage: true, Created: 1700000000})
	for _, e := range events {
		enc.Encode(e)
	}
	enc.Close()
	return gatewaytest.Reply{Body: buf.Bytes(), Seed: uint64(len(r.Body))}
}

// textAgentScript is the same agent as a text model: the tools come from
// the Hermes prompt's <tools> block, a result from the last
// <tool_response>, and the call is a Hermes <tool_call>.
func textAgentScript(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	var user []string
	var tools []agentTool
	var result string
	hasResult := false
	for _, m := range req.Messages {
		text := allText(m.Content)
		switch m.Role {
		case "system":
			if _, rest, ok := strings.Cut(text, "<tools>\n"); ok {
				block, _, _ := strings.Cut(rest, "\n</tools>")
				for _, line := range strings.Split(block, "\n") {
					tools = append(tools, declaredTools(json.RawMessage(line), "")...)
				}
			}
		case "user":
			if i := strings.LastIndex(text, "<tool_response>"); i >= 0 {
				rest := text[i+len("<tool_response>"):]
				rest, _, _ = strings.Cut(rest, "</tool_response>")
				result, hasResult = rest, true
				continue
			}
			user = append(user, text)
		}
	}
	plan := planAgent(user, result, hasResult, tools)
	s := ""
	if plan.Reasoning != "" {
		s = "<think>" + plan.Reasoning + "</think>\n\n"
	}
	s += plan.Text
	if plan.Call != "" {
		s += "<tool_call>\n{\"name\": " + quote(plan.Call) + ", \"arguments\": " + plan.Args + "}\n</tool_call>"
	}
	return s
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// recorder writes the requests -record asks for, numbered from 1.
type recorder struct {
	dir string
	n   atomic.Int64
}

// record writes r to the directory as NNN.json: {path, header, body},
// the credentials left out.
func (rec *recorder) record(r gatewaytest.Request) {
	h := map[string]string{}
	for k, v := range r.Header {
		switch strings.ToLower(k) {
		case "authorization", "x-api-key", "cookie":
			continue
		}
		h[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	body := json.RawMessage(r.Body)
	if !json.Valid(body) {
		body, _ = json.Marshal(string(r.Body))
	}
	b, _ := json.MarshalIndent(struct {
		Path   string            `json:"path"`
		Header map[string]string `json:"header"`
		Body   json.RawMessage   `json:"body"`
	}{r.Path, h, body}, "", "  ")
	n := rec.n.Add(1)
	os.WriteFile(filepath.Join(rec.dir, fmt.Sprintf("%03d.json", n)), b, 0o644)
}
