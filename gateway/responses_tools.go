// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// The Responses API has tools with no canonical form: a namespace groups
// function and custom tools under one name, a custom tool takes free-form
// text (optionally following a grammar) instead of JSON, and hosted tools
// (web_search, file_search, code_interpreter, …) run at OpenAI. Codex
// sends all three. The front door flattens a namespace (its tools become
// functions named NAMESPACE__NAME), carries a custom tool as a function
// with one string argument "input", and keeps hosted tools aside: they go
// to a Responses backend as sent and are dropped with a warning
// elsewhere. Calls are written back to the client under the names and
// shapes it declared ([toolOrigin]).

// nsSep joins a namespace and a tool name in a flattened name: both are
// legal in every backend's tool names.
const nsSep = "__"

// toolOrigin is what a flattened tool name stands for on the client's
// side: a function or custom tool in a namespace, or a custom tool.
type toolOrigin struct {
	// Namespace is the namespace the tool was declared in; "" at top
	// level.
	Namespace string
	// Name is the tool's own name in its namespace.
	Name string
	// Custom marks a free-form tool: its call is a custom_tool_call whose
	// input is the "input" argument.
	Custom bool
}

// hostedTool is a tool the vendor runs, kept as sent.
type hostedTool struct {
	Type string
	Ptr  string
	Raw  json.RawMessage
}

// frontTools is what a front door read of its request that the canonical
// request does not hold: flattened names, hosted tools, the hosted tool
// a tool_choice names, and Responses reasoning.summary.
type frontTools struct {
	// origins maps flattened names to what the client declared; nil
	// when every tool is a plain function.
	origins map[string]toolOrigin
	hosted  []hostedTool
	// choice is a tool_choice naming a hosted tool, as sent.
	choice json.RawMessage
	// summary is the Responses reasoning.summary as sent ("" when not).
	summary string
	// ptrs are the client's pointers of the function tools, by index in
	// the request's Tools, when flattening moved them.
	ptrs []string
	// warnings are what the decoder left out, reported for every
	// backend.
	warnings []tool.Warning
	// passHosted are the hosted tools the backend gets as sent: set by
	// adaptFor for the vendor that hosts them.
	passHosted []json.RawMessage
}

// flatName is the name a tool of namespace ns is known by to backends.
func flatName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + nsSep + name
}

// hostedType reports whether typ is a Responses tool OpenAI runs itself
// (or, for local_shell, shell and apply_patch, a tool whose calls have
// their own item types no other backend produces).
func hostedType(typ string) bool {
	switch typ {
	case "file_search", "code_interpreter", "image_generation", "computer_use_preview", "computer_use",
		"computer", "mcp", "local_shell", "shell", "apply_patch", "tool_search":
		return true
	}
	return strings.HasPrefix(typ, "web_search")
}

// readResponsesTools rewrites the tools member of a Responses request in
// m to function tools only — namespaces flattened, custom tools as
// functions — keeping hosted tools and a tool_choice naming one aside in
// r.front. Flattened names that collide are refused, naming both.
func readResponsesTools(r *Request, m *memberSet) error {
	if err := readResponsesChoice(r, m); err != nil {
		return err
	}
	raw, ok := m.get("tools")
	if !ok || string(raw) == "null" {
		return nil
	}
	var tools []json.RawMessage
	if !fastTake(raw, &tools) && json.Unmarshal(raw, &tools) != nil {
		return badRequest("/tools", "must be an array of tools")
	}
	flat := make([]json.RawMessage, 0, len(tools))
	owner := map[string]string{} // flattened name -> pointer of its declaration
	changed := false
	add := func(name, ptr string, def json.RawMessage, o toolOrigin) error {
		if prev, dup := owner[name]; dup {
			return badRequest(ptr, "flattens to the tool name %q, as %s does: tool names must differ", clip(name), prev)
		}
		owner[name] = ptr
		r.front.ptrs = append(r.front.ptrs, strings.TrimSuffix(ptr, "/name"))
		if o.Namespace != "" || o.Custom {
			if r.front.origins == nil {
				r.front.origins = map[string]toolOrigin{}
			}
			r.front.origins[name] = o
			changed = true
		}
		flat = append(flat, def)
		return nil
	}
	for i, t := range tools {
		ptr := "/tools/" + strconv.Itoa(i)
		var head responsesToolHead
		if readToolHead(t, &head) != nil {
			return badRequest(ptr, "must be a tool object")
		}
		switch {
		case head.Type == "function":
			if err := add(head.Name, ptr+"/name", t, toolOrigin{}); err != nil {
				return err
			}
		case head.Type == "custom":
			def, err := customFunction(t, head.Name, ptr)
			if err != nil {
				return err
			}
			if err := add(head.Name, ptr+"/name", def, toolOrigin{Name: head.Name, Custom: true}); err != nil {
				return err
			}
		case head.Type == "namespace":
			if head.Name == "" {
				return badRequest(ptr+"/name", "a namespace needs a name")
			}
			changed = true
			for j, in := range head.Tools {
				ip := ptr + "/tools/" + strconv.Itoa(j)
				def, o, err := namespaced(in, head.Name, ip)
				if err != nil {
					return err
				}
				if err := add(flatName(head.Name, o.Name), ip+"/name", def, o); err != nil {
					return err
				}
			}
		case hostedType(head.Type):
			r.front.hosted = append(r.front.hosted, hostedTool{Type: head.Type, Ptr: ptr, Raw: t})
			changed = true
		default:
			// The codec names what is wrong with it.
			flat = append(flat, t)
			r.front.ptrs = append(r.front.ptrs, ptr)
		}
	}
	if !changed {
		r.front.ptrs = nil
		return nil
	}
	b, _ := json.Marshal(flat)
	m.set("tools", b)
	return nil
}

// toolWarning moves a warning about the tools array the backend gets
// (its pointer starts with a tool's index) under the client's pointer of
// that tool.
func (r *Request) toolWarning(w tool.Warning) tool.Warning {
	rest := strings.TrimPrefix(w.Pointer, "/")
	n, tail, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(n)
	if err != nil || !strings.HasPrefix(w.Pointer, "/") {
		w.Pointer = "/tools" + w.Pointer
		return w
	}
	w.Pointer = r.toolPointer(i)
	if tail != "" {
		w.Pointer += "/" + tail
	}
	return w
}

// toolPointer is the client's pointer of r.Tools[i].
func (r *Request) toolPointer(i int) string {
	if i < len(r.front.ptrs) {
		return r.front.ptrs[i]
	}
	return "/tools/" + strconv.Itoa(i)
}

// customParams is the input schema of a custom tool carried as a
// function: its free-form input as one string.
const customParams = `{"type":"object","properties":{"input":{"type":"string","description":"The tool's input, as free-form text (not JSON)."}},"required":["input"],"additionalProperties":false}`

// customFunction writes a Responses custom tool as a function tool with
// one string argument "input"; a grammar goes into the description, the
// only place a model can read it.
func customFunction(raw json.RawMessage, name, ptr string) (json.RawMessage, error) {
	var c struct {
		Description *string `json:"description"`
		Format      *struct {
			Type       string `json:"type"`
			Syntax     string `json:"syntax"`
			Definition string `json:"definition"`
		} `json:"format"`
		DeferLoading json.RawMessage `json:"defer_loading"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, badRequest(ptr, "a custom tool's description must be a string and its format an object")
	}
	if name == "" {
		return nil, badRequest(ptr+"/name", "a custom tool needs a name")
	}
	desc := ""
	if c.Description != nil {
		desc = *c.Description
	}
	if c.Format != nil {
		switch c.Format.Type {
		case "", "text":
		case "grammar":
			syntax := c.Format.Syntax
			if syntax == "" {
				syntax = "lark"
			}
			desc = joinText(desc, "The input must follow this "+syntax+" grammar:\n"+c.Format.Definition)
		default:
			return nil, badRequest(ptr+"/format/type", "custom tool format %q is not text or grammar", clip(c.Format.Type))
		}
	}
	def := map[string]any{"type": "function", "name": name, "parameters": json.RawMessage(customParams), "strict": false}
	if desc != "" {
		def["description"] = desc
	}
	if len(c.DeferLoading) > 0 {
		def["defer_loading"] = c.DeferLoading
	}
	b, _ := json.Marshal(def)
	return b, nil
}

// namespaced reads one tool of namespace ns: a function, renamed to its
// flattened name, or a custom tool as a function.
func namespaced(raw json.RawMessage, ns, ptr string) (json.RawMessage, toolOrigin, error) {
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil {
		return nil, toolOrigin{}, badRequest(ptr, "must be a tool object")
	}
	var typ, name string
	if json.Unmarshal(in["type"], &typ) != nil || json.Unmarshal(in["name"], &name) != nil || name == "" {
		return nil, toolOrigin{}, badRequest(ptr, "a namespace's tool needs a type and a name")
	}
	o := toolOrigin{Namespace: ns, Name: name}
	switch typ {
	case "function":
		in["name"], _ = json.Marshal(flatName(ns, name))
		b, _ := json.Marshal(in)
		return b, o, nil
	case "custom":
		o.Custom = true
		b, err := customFunction(raw, flatName(ns, name), ptr)
		return b, o, err
	}
	return nil, toolOrigin{}, badRequest(ptr+"/type", "a namespace holds function and custom tools only, not %q", clip(typ))
}

// readResponsesChoice reads a tool_choice that the canonical choice has
// no form for: a custom tool's becomes a function's (its name is the
// same), one naming a hosted tool is kept aside in r.front.
func readResponsesChoice(r *Request, m *memberSet) error {
	raw, ok := m.get("tool_choice")
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var c struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return badRequest("/tool_choice", "must be a string or a tool choice object")
	}
	switch {
	case c.Type == "custom" || (c.Type == "function" && c.Namespace != ""):
		b, _ := json.Marshal(map[string]string{"type": "function", "name": flatName(c.Namespace, c.Name)})
		m.set("tool_choice", b)
	case hostedType(c.Type):
		r.front.choice = raw
		m.del("tool_choice")
	}
	return nil
}

// readReasoning reads the Responses reasoning member: effort, and summary
// (kept for a Responses backend; the gateway gives the reasoning text as
// the summary for the others). Other settings are dropped with a warning.
func readReasoning(r *Request, m *memberSet) error {
	raw, ok := m.get("reasoning")
	if !ok {
		return nil
	}
	m.del("reasoning")
	if string(raw) == "null" {
		return nil
	}
	rm, err := members(raw, "/reasoning")
	if err != nil {
		return err
	}
	for _, k := range extraKeys(rm) {
		v := rm[k]
		if string(v) == "null" {
			continue
		}
		var s string
		switch k {
		case "effort", "summary", "generate_summary":
			if json.Unmarshal(v, &s) != nil {
				return badRequest("/reasoning/"+k, "must be a string")
			}
		default:
			r.front.warnings = append(r.front.warnings, tool.Warning{Pointer: "/reasoning/" + k, Code: "dropped", Message: "left out: not a reasoning setting the gateway knows"})
			continue
		}
		switch k {
		case "effort":
			r.ReasoningEffort = s
		default:
			switch s {
			case "auto", "concise", "detailed", "none":
			default:
				return badRequest("/reasoning/"+k, "must be auto, concise, detailed or none")
			}
			if r.front.summary == "" || k == "summary" {
				r.front.summary = s
			}
		}
	}
	return nil
}

// adaptTools applies the hosted-tools rule for a backend of kind k:
// hosted tools (and a tool_choice naming one) go as sent to the vendor
// that hosts them — OpenAI's Responses API for Responses tools — and are
// dropped with a warning elsewhere; a tool_choice naming one is refused
// there, since the model could not make the call asked of it.
func adaptTools(c *Request, k BackendKind, compat bool, out *Outbound) error {
	if f := &c.front; len(f.warnings) == 0 && len(f.choice) == 0 && len(f.hosted) == 0 && f.summary == "" {
		// The usual request, with none of it: the rest is skipped.
		f.passHosted = nil
		return nil
	}
	out.Warnings = append(out.Warnings, c.front.warnings...)
	host := (c.API == APIResponses && k == KindResponses && !compat) || (c.API == APIMessages && k == KindMessages)
	if len(c.front.choice) > 0 {
		if !host {
			var t struct {
				Type string `json:"type"`
				Name string `json:"name"`
			}
			json.Unmarshal(c.front.choice, &t)
			if t.Type == "tool" {
				t.Type = t.Name
			}
			return badRequest("/tool_choice", "names the hosted tool %q, which this model's backend does not run", clip(t.Type))
		}
		parallel := c.Choice != nil && c.Choice.DisableParallel
		c.Choice = nil
		c.Extra = withMember(c.Extra, "tool_choice", c.front.choice)
		if parallel && c.API == APIResponses {
			c.Extra = withMember(c.Extra, "parallel_tool_calls", json.RawMessage("false"))
		}
	}
	c.front.passHosted = nil
	for _, h := range c.front.hosted {
		if host {
			c.front.passHosted = append(c.front.passHosted, h.Raw)
			continue
		}
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: h.Ptr, Code: "dropped", Message: fmt.Sprintf("the hosted tool %q left out: this model's backend does not run it", clip(h.Type))})
	}
	if k != KindResponses && (c.front.summary == "concise" || c.front.summary == "detailed") {
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/reasoning/summary", Code: "emulated", Message: "the reasoning text is the summary: this backend does not summarize"})
	}
	return nil
}

// withMember returns m (a copy) with key set to v.
func withMember(m map[string]json.RawMessage, key string, v json.RawMessage) map[string]json.RawMessage {
	c := make(map[string]json.RawMessage, len(m)+1)
	for k, x := range m {
		c[k] = x
	}
	c[key] = v
	return c
}

// appendHosted appends hosted tools to the tools array tb ("" when the
// request has no function tools).
func appendHosted(tb []byte, hosted []json.RawMessage) []byte {
	if len(hosted) == 0 {
		return tb
	}
	if len(tb) < 2 {
		tb = []byte("[]")
	}
	out := append([]byte(nil), tb[:len(tb)-1]...)
	for i, h := range hosted {
		if i > 0 || len(tb) > 2 {
			out = append(out, ',')
		}
		out = append(out, h...)
	}
	return append(out, ']')
}

// customInput is the free-form input of a custom tool's call from the
// arguments a backend gave the function standing for it: the "input"
// string, else the only string member, else the arguments as text.
func customInput(args []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return string(args)
	}
	var s string
	if v, ok := m["input"]; ok && json.Unmarshal(v, &s) == nil {
		return s
	}
	if len(m) == 1 {
		for _, v := range m {
			if json.Unmarshal(v, &s) == nil {
				return s
			}
		}
	}
	return string(args)
}

// customArgs are the function arguments standing for a custom tool
// call's input, as a client replays it.
func customArgs(input string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"input": input})
	return b
}

// anthropicDefined reports whether typ names an Anthropic-defined tool
// (server tools such as web_search_20250305, and the schema-less client
// tools such as bash_20250124), which carry a date version, or an MCP
// toolset: tools whose definition only Anthropic reads.
func anthropicDefined(typ string) bool {
	if typ == "mcp_toolset" {
		return true
	}
	i := strings.LastIndexByte(typ, '_')
	if i <= 0 || len(typ)-i-1 != 8 {
		return false
	}
	for _, c := range typ[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// readMessagesTools keeps the Anthropic-defined tools of a Messages
// request aside in r.front (with a tool_choice naming one), as
// readResponsesTools does for hosted Responses tools: they go to
// Anthropic as sent and are dropped with a warning elsewhere.
func readMessagesTools(r *Request, m *memberSet) error {
	raw, ok := m.get("tools")
	if !ok || string(raw) == "null" {
		return nil
	}
	var tools []json.RawMessage
	if !fastTake(raw, &tools) && json.Unmarshal(raw, &tools) != nil {
		return badRequest("/tools", "must be an array of tools")
	}
	var kept []json.RawMessage
	var keptAt []int // the kept tools' places in the client's array
	var names map[string]bool
	for i, t := range tools {
		var head messagesToolHead
		if readToolHead(t, &head) != nil {
			return badRequest("/tools/"+strconv.Itoa(i), "must be a tool object")
		}
		if !anthropicDefined(head.Type) {
			kept, keptAt = append(kept, t), append(keptAt, i)
			continue
		}
		r.front.hosted = append(r.front.hosted, hostedTool{Type: head.Type, Ptr: "/tools/" + strconv.Itoa(i), Raw: t})
		if names == nil {
			names = map[string]bool{}
		}
		names[head.Name] = true
	}
	if len(r.front.hosted) == 0 {
		// The tools go to the codec as the client wrote them: their
		// pointers are the codec's own.
		return nil
	}
	for _, i := range keptAt {
		r.front.ptrs = append(r.front.ptrs, "/tools/"+strconv.Itoa(i))
	}
	if kept == nil {
		kept = []json.RawMessage{} // server tools only: an empty array, not null
	}
	b, _ := json.Marshal(kept)
	m.set("tools", b)
	if c, ok := m.get("tool_choice"); ok {
		var tc struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if json.Unmarshal(c, &tc) == nil && tc.Type == "tool" && names[tc.Name] {
			r.front.choice = c
			m.del("tool_choice")
		}
	}
	return nil
}
