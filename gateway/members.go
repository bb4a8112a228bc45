// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// Handling is what the gateway does with one request member for one kind
// of backend (DESIGN.md, "Request members").
type Handling uint8

// The handlings, from the most faithful to the refusal.
const (
	// Passed: the member goes to the backend as the client sent it
	// (the backend speaks the front door's API).
	Passed Handling = iota + 1
	// Translated: the member is written in the backend's own terms.
	Translated
	// Emulated: the gateway does what the member asks itself (e.g. a
	// context_management edit applied to the conversation).
	Emulated
	// Dropped: the member is a hint that changes no answer; it is left
	// out and named in x-toolgate-warnings.
	Dropped
	// Refused: leaving the member out would change what the client
	// gets; a request that sets it is answered 400 naming it.
	Refused
)

func (h Handling) String() string {
	switch h {
	case Passed:
		return "passed"
	case Translated:
		return "translated"
	case Emulated:
		return "emulated"
	case Dropped:
		return "dropped"
	case Refused:
		return "refused"
	}
	return "?"
}

// BackendKind is a column of the member table: the API a backend speaks,
// or a text model (any API, tool calls read from its text).
type BackendKind uint8

// The backend kinds of the member table.
const (
	KindChat BackendKind = iota
	KindMessages
	KindResponses
	KindText
	numKinds
	// KindGemini is a Gemini backend: a column of its own in the Gemini
	// front door's table only (see [MemberRule.Handling] for the others),
	// so it comes after numKinds, the columns every table has.
	KindGemini = numKinds
	numColumns = numKinds + 1
)

func (k BackendKind) String() string {
	return [...]string{"chat", "messages", "responses", "text", "gemini"}[k]
}

// jsonKinds is a set of JSON value kinds a member may hold (null is
// always allowed: it means the member is not set).
type jsonKinds uint8

const (
	jObject jsonKinds = 1 << iota
	jArray
	jString
	jNumber
	jBool
	jAny = jObject | jArray | jString | jNumber | jBool
)

func kindOf(raw json.RawMessage) jsonKinds {
	s := strings.TrimLeft(string(raw), " \t\r\n")
	if s == "" {
		return 0
	}
	switch s[0] {
	case '{':
		return jObject
	case '[':
		return jArray
	case '"':
		return jString
	case 't', 'f':
		return jBool
	case 'n':
		return 0
	}
	return jNumber
}

func (k jsonKinds) String() string {
	var names []string
	for i, n := range []string{"an object", "an array", "a string", "a number", "a boolean"} {
		if k&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, " or ")
}

// MemberRule is one row of a front door's member table.
type MemberRule struct {
	// Name is the top-level member.
	Name string
	// Kinds are the JSON kinds it may hold.
	kinds jsonKinds
	// By holds the handling per backend kind.
	By [numColumns]Handling
	// OpenAIOnly marks a member that only OpenAI itself knows: it is
	// dropped with a warning for an OpenAI-compatible server.
	OpenAIOnly bool
	// Note says what translated or emulated means for this member.
	Note string
}

// P, T, E, D, R abbreviate the handlings in the tables below.
const (
	hP = Passed
	hT = Translated
	hE = Emulated
	hD = Dropped
	hR = Refused
)

// row builds a rule; by lists the handlings for chat, messages,
// responses and text backends.
func row(name string, k jsonKinds, chat, messages, responses, text Handling, note string) MemberRule {
	return MemberRule{Name: name, kinds: k, By: [numColumns]Handling{chat, messages, responses, text}, Note: note}
}

func openAIOnly(r MemberRule) MemberRule { r.OpenAIOnly = true; return r }

// chatMembers is the Chat Completions front door's table: every member of
// ChatCompletionCreateParams in the pinned openai SDK.
var chatMembers = []MemberRule{
	row("messages", jArray, hP, hT, hT, hE, "system and developer messages kept in place; text models get calls and results as text"),
	row("model", jString, hT, hT, hT, hT, "the provider's model name"),
	row("audio", jObject, hP, hR, hR, hR, "audio output"),
	row("frequency_penalty", jNumber, hP, hD, hD, hP, ""),
	openAIOnly(row("function_call", jString|jObject, hP, hR, hR, hR, "legacy functions: use tools")),
	openAIOnly(row("functions", jArray, hP, hR, hR, hR, "legacy functions: use tools")),
	row("logit_bias", jObject, hP, hD, hD, hP, ""),
	row("logprobs", jBool, hP, hR, hR, hP, "the answer would lack them"),
	row("max_completion_tokens", jNumber, hT, hT, hT, hT, "max_tokens, max_output_tokens"),
	row("max_tokens", jNumber, hT, hT, hT, hT, "max_completion_tokens for OpenAI"),
	openAIOnly(row("metadata", jObject, hP, hD, hP, hD, "")),
	row("modalities", jArray, hP, hD, hD, hD, "text is what every backend gives"),
	openAIOnly(row("moderation", jAny, hP, hD, hP, hD, "")),
	row("n", jNumber, hT, hT, hT, hT, "one choice only: n > 1 is refused"),
	row("parallel_tool_calls", jBool, hT, hT, hT, hE, "disable_parallel_tool_use for Anthropic"),
	openAIOnly(row("prediction", jObject, hP, hD, hD, hD, "a latency hint")),
	row("presence_penalty", jNumber, hP, hD, hD, hP, ""),
	openAIOnly(row("prompt_cache_key", jString, hP, hD, hP, hD, "a cache hint")),
	openAIOnly(row("prompt_cache_options", jObject, hP, hD, hP, hD, "a cache hint")),
	openAIOnly(row("prompt_cache_retention", jString, hP, hD, hP, hD, "a cache hint")),
	row("reasoning_effort", jString, hT, hT, hT, hT, "thinking budget for Anthropic, reasoning.effort for Responses; two passes for text models"),
	row("response_format", jObject, hP, hR, hR, hR, "structured output"),
	openAIOnly(row("safety_identifier", jString, hP, hD, hP, hD, "")),
	row("seed", jNumber, hP, hD, hD, hP, ""),
	openAIOnly(row("service_tier", jString, hP, hD, hP, hD, "")),
	row("stop", jString|jArray, hT, hT, hD, hT, "stop_sequences for Anthropic"),
	openAIOnly(row("store", jBool, hP, hD, hD, hD, "")),
	row("stream", jBool, hT, hT, hT, hT, "backends always stream; the gateway collects for clients that do not"),
	row("stream_options", jObject, hT, hT, hT, hT, "include_usage honoured"),
	row("temperature", jNumber, hT, hT, hT, hT, ""),
	row("tool_choice", jString|jObject, hT, hT, hT, hE, "text models: in the tools prompt"),
	row("tools", jArray, hT, hT, hT, hE, "text models: the family's tools prompt"),
	row("top_logprobs", jNumber, hP, hR, hR, hP, "the answer would lack them"),
	row("top_p", jNumber, hT, hT, hT, hT, ""),
	row("user", jString, hP, hT, hP, hP, "metadata.user_id for Anthropic"),
	openAIOnly(row("verbosity", jString, hP, hD, hD, hD, "")),
	openAIOnly(row("web_search_options", jObject, hP, hD, hD, hD, "a hosted tool")),
}

// responsesMembers is the Responses front door's table: every member of
// ResponseCreateParams in the pinned openai SDK.
var responsesMembers = []MemberRule{
	row("access_programs", jAny, hD, hD, hP, hD, ""),
	row("background", jBool, hR, hR, hR, hR, "the gateway answers in the foreground only"),
	row("client_metadata", jObject, hD, hD, hP, hD, "Codex's; not in the SDK"),
	row("context_management", jArray, hD, hD, hP, hD, "server-side compaction"),
	row("conversation", jString|jObject, hR, hR, hR, hR, "the gateway is stateless: send the whole conversation"),
	row("image", jObject, hD, hD, hP, hD, ""),
	row("include", jArray, hD, hD, hT, hD, "reasoning.encrypted_content is always asked of a Responses backend"),
	row("input", jString|jArray, hT, hT, hP, hE, "system and developer items kept in place"),
	row("instructions", jString, hT, hT, hP, hT, "the system prompt"),
	row("max_output_tokens", jNumber, hT, hT, hP, hT, ""),
	row("max_tool_calls", jNumber, hD, hD, hP, hD, ""),
	row("metadata", jObject, hD, hD, hP, hD, ""),
	row("model", jString, hT, hT, hT, hT, "the provider's model name"),
	row("moderation", jAny, hD, hD, hP, hD, ""),
	row("parallel_tool_calls", jBool, hT, hT, hP, hE, ""),
	row("previous_response_id", jString, hR, hR, hR, hR, "the gateway is stateless: send the whole conversation"),
	row("prompt", jObject, hR, hR, hP, hR, "a stored prompt"),
	row("prompt_cache_key", jString, hP, hD, hP, hD, "a cache hint; passed to OpenAI Chat"),
	row("prompt_cache_options", jObject, hP, hD, hP, hD, "a cache hint; passed to OpenAI Chat"),
	row("prompt_cache_retention", jString, hP, hD, hP, hD, "a cache hint; passed to OpenAI Chat"),
	row("reasoning", jObject, hT, hT, hP, hT, "effort as reasoning_effort or a thinking budget; summary passed to Responses, elsewhere the reasoning text is the summary"),
	row("safety_identifier", jString, hP, hD, hP, hD, "passed to OpenAI Chat"),
	row("service_tier", jString, hP, hD, hP, hD, "passed to OpenAI Chat"),
	row("store", jBool, hT, hT, hT, hT, "false only: the gateway is stateless"),
	row("stream", jBool, hT, hT, hP, hT, ""),
	row("stream_options", jObject, hD, hD, hP, hD, ""),
	row("temperature", jNumber, hT, hT, hP, hT, ""),
	row("text", jObject, hT, hT, hP, hT, "format text only elsewhere; verbosity dropped"),
	row("tool_choice", jString|jObject, hT, hT, hP, hE, ""),
	row("tools", jArray, hT, hT, hT, hE, "namespace tools flattened (NAMESPACE__NAME) and custom tools carried as functions, names mapped back; hosted tools passed to OpenAI Responses only"),
	row("top_logprobs", jNumber, hR, hR, hP, hR, "the answer would lack them"),
	row("top_p", jNumber, hT, hT, hP, hT, ""),
	row("truncation", jString, hD, hD, hP, hD, ""),
	row("user", jString, hP, hT, hP, hP, "metadata.user_id for Anthropic"),
}

// messagesMembers is the Messages front door's table: every member of
// MessageCreateParams in the pinned @anthropic-ai/sdk, beta members
// included.
var messagesMembers = []MemberRule{
	row("max_tokens", jNumber, hT, hP, hT, hT, ""),
	row("messages", jArray, hT, hP, hT, hE, "system-role messages kept in place (merged into the system prompt with a warning where a backend takes one)"),
	row("model", jString, hT, hT, hT, hT, "the provider's model name"),
	row("betas", jArray, hD, hP, hD, hD, "the SDK sends it as the anthropic-beta header, forwarded to Anthropic"),
	row("billing_policy", jAny, hD, hP, hD, hD, ""),
	row("cache_control", jObject, hD, hP, hD, hD, "a cache hint"),
	row("compaction", jAny, hD, hP, hD, hD, ""),
	row("container", jString|jObject, hD, hP, hD, hD, "a hosted tool's container"),
	row("context_management", jObject, hE, hP, hE, hE, "clear_thinking and clear_tool_uses edits applied to the conversation"),
	row("diagnostics", jAny, hD, hP, hD, hD, ""),
	row("fallback_credit_token", jAny, hD, hP, hD, hD, ""),
	row("fallbacks", jAny, hD, hP, hD, hD, ""),
	row("inference_geo", jString, hD, hP, hD, hD, ""),
	row("mcp_servers", jArray, hD, hP, hD, hD, "hosted MCP servers"),
	row("metadata", jObject, hT, hP, hT, hT, "user_id as user"),
	row("output_config", jObject, hT, hP, hT, hT, "effort as reasoning_effort / reasoning.effort; a format is refused"),
	row("output_format", jObject, hR, hP, hR, hR, "structured output"),
	row("service_tier", jString, hD, hP, hD, hD, ""),
	row("speed", jString, hD, hP, hD, hD, ""),
	row("stop_sequences", jArray, hT, hP, hD, hT, ""),
	row("stream", jBool, hT, hP, hT, hT, ""),
	row("system", jString|jArray, hT, hP, hT, hT, ""),
	row("temperature", jNumber, hT, hP, hT, hT, ""),
	row("thinking", jObject, hT, hP, hT, hT, "enabled and adaptive as reasoning effort; display omitted honoured"),
	row("thread", jAny, hD, hP, hD, hD, ""),
	row("tool_choice", jObject, hT, hP, hT, hE, ""),
	row("tools", jArray, hT, hP, hT, hE, "hosted (server) tools dropped with a warning elsewhere"),
	row("top_k", jNumber, hD, hP, hD, hP, ""),
	row("top_p", jNumber, hT, hP, hT, hT, ""),
	row("user_profile_id", jString, hD, hP, hD, hD, ""),
	row("workspace_id", jString, hD, hP, hD, hD, ""),
}

// MemberTable returns the member table of front door api, in order: a
// copy, for documentation and tests.
func MemberTable(api API) []MemberRule {
	return append([]MemberRule(nil), membersOf(api)...)
}

func membersOf(api API) []MemberRule {
	switch api {
	case APIChat:
		return chatMembers
	case APIResponses:
		return responsesMembers
	case APIMessages:
		return messagesMembers
	case APIGemini:
		return geminiMembers
	}
	return nil
}

// memberIndex finds rules by name, per front door, built once.
var memberIndex = func() map[API]map[string]*MemberRule {
	idx := map[API]map[string]*MemberRule{}
	for _, api := range []API{APIChat, APIResponses, APIMessages, APIGemini} {
		m := map[string]*MemberRule{}
		rules := membersOf(api)
		for i := range rules {
			m[rules[i].Name] = &rules[i]
		}
		idx[api] = m
	}
	return idx
}()

// Handling returns the rule's handling for a backend of kind k; compat
// is true for an OpenAI-compatible server that is not OpenAI. A table
// without a Gemini column treats a Gemini backend as a Chat one, except
// that a member passed there is dropped: a Gemini backend takes no other
// API's members.
func (r *MemberRule) Handling(k BackendKind, compat bool) Handling {
	h := r.By[k]
	if h == 0 && k == KindGemini {
		if h = r.By[KindChat]; h == Passed {
			h = Dropped
		}
	}
	if h == Passed && r.OpenAIOnly && compat {
		return Dropped
	}
	return h
}

// checkMembers checks the JSON kind of every member the table knows, so
// that a member of the wrong type is a 400 naming it even when it would
// be dropped.
func checkMembers(api API, m map[string]json.RawMessage) error {
	idx := memberIndex[api]
	for k, raw := range m {
		rule := idx[k]
		if rule == nil {
			continue
		}
		if got := kindOf(raw); got != 0 && got&rule.kinds == 0 {
			return badRequest("/"+k, "must be %s", rule.kinds)
		}
	}
	return nil
}

// empty reports whether a member's value asks for nothing: null, false,
// "", 0, [] or {}.
func empty(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "null", "false", `""`, "0", "[]", "{}":
		return true
	}
	return false
}

// extraFor decides, member by member, what of r.Extra goes to a backend
// of kind k: the members it returns are written as they are; the others
// are translated elsewhere, dropped with a warning in out or refused.
// Members in no table are dropped with a warning, or refused with
// refuseUnknown.
func extraFor(r *Request, k BackendKind, compat, refuseUnknown bool, out *Outbound) (map[string]json.RawMessage, error) {
	if len(r.Extra) == 0 {
		return nil, nil
	}
	idx := memberIndex[r.API]
	var keep map[string]json.RawMessage
	for _, key := range extraKeys(r.Extra) {
		raw := r.Extra[key]
		rule := idx[key]
		if rule == nil {
			if refuseUnknown {
				return nil, badRequest("/"+key, "is not a known member of this API (gateway.unknown_members: refuse)")
			}
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/" + key, Code: "dropped", Message: "not a known member of this API: left out"})
			continue
		}
		h := rule.Handling(k, compat)
		switch {
		case h == Passed:
			if keep == nil {
				keep = map[string]json.RawMessage{}
			}
			keep[key] = raw
		case string(raw) == "null":
		case h == Refused && !empty(raw):
			return nil, badRequest("/"+key, "is not supported by this model's backend (%s)", rule.Note)
		case h == Dropped, h == Refused:
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/" + key, Code: "dropped", Message: dropMessage(rule, k)})
		}
		// Translated and emulated members were read by the decoder.
	}
	return keep, nil
}

func dropMessage(rule *MemberRule, k BackendKind) string {
	msg := fmt.Sprintf("left out: a %s backend has no such member", k)
	if rule.Note != "" {
		msg += " (" + rule.Note + ")"
	}
	return msg
}

// backendKind is the member-table column of a backend.
func backendKind(o *BackendOptions) BackendKind {
	switch {
	case o.Text:
		return KindText
	case o.API == APIMessages:
		return KindMessages
	case o.API == APIResponses:
		return KindResponses
	case o.API == APIGemini:
		return KindGemini
	}
	return KindChat
}

// adaptFor fits r's members to the backend o describes: the members in
// Extra filtered by the member table, the members that are translated
// or emulated for o's kind done here, mid-conversation system messages
// merged into the system prompt where the backend takes only one. It
// returns a copy when anything changes; warnings go to out.
func adaptFor(r *Request, o *BackendOptions, out *Outbound) (*Request, error) {
	k := backendKind(o)
	keep, err := extraFor(r, k, o.Compat, o.RefuseUnknown, out)
	if err != nil {
		return nil, err
	}
	c := *r
	c.Extra = keep
	if err := adaptTools(&c, k, o.Compat, out); err != nil {
		return nil, err
	}
	set := func(key string, v any) {
		b, _ := json.Marshal(v)
		if c.Extra == nil {
			c.Extra = map[string]json.RawMessage{}
		}
		c.Extra[key] = b
	}
	if r.API == APIMessages && k != KindMessages {
		var md struct {
			UserID string `json:"user_id"`
		}
		if raw, ok := r.Extra["metadata"]; ok && json.Unmarshal(raw, &md) != nil {
			return nil, badRequest("/metadata/user_id", "must be a string")
		}
		if md.UserID != "" {
			set("user", md.UserID)
		}
		if err := outputConfig(&c, r.Extra["output_config"], out); err != nil {
			return nil, err
		}
		if raw, ok := r.Extra["context_management"]; ok {
			c.Messages = applyContextEdits(raw, c.Messages, out)
		}
	}
	if r.API != APIMessages && k == KindMessages {
		var user string
		if raw, ok := r.Extra["user"]; ok && json.Unmarshal(raw, &user) == nil && user != "" {
			set("metadata", map[string]string{"user_id": user})
		}
	}
	if r.API == APIResponses && k != KindResponses {
		if err := responsesText(r.Extra["text"], out); err != nil {
			return nil, err
		}
	}
	if r.API == APIResponses {
		var include []string
		if raw, ok := r.Extra["include"]; ok && json.Unmarshal(raw, &include) != nil {
			return nil, badRequest("/include", "must be an array of strings")
		}
		// Elsewhere the member as a whole is dropped with a warning
		// (extraFor); toward Responses, each value the gateway does not
		// ask for itself is.
		for _, v := range include {
			if k != KindResponses {
				break
			}
			if v != "reasoning.encrypted_content" {
				out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/include", Code: "dropped", Message: fmt.Sprintf("%q left out: the gateway includes reasoning.encrypted_content from a Responses backend, nothing else", clip(v))})
			}
		}
	}
	// A system message mid-conversation stays in place for OpenAI,
	// Responses and Anthropic; other servers' chat templates take one
	// system prompt, first.
	if k == KindText || (k == KindChat && o.Compat) || (o.API != APIChat && o.API != APIMessages && o.API != APIResponses) {
		c.Messages, c.System = mergeSystem(c.Messages, c.System, out)
	}
	return &c, nil
}

// outputConfig reads Anthropic's output_config for another backend:
// effort becomes the reasoning effort; a format (structured output) is
// refused, since the answer would not follow it.
func outputConfig(c *Request, raw json.RawMessage, out *Outbound) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	m, err := members(raw, "/output_config")
	if err != nil {
		return err
	}
	for _, key := range extraKeys(m) {
		v := m[key]
		switch key {
		case "effort":
			var effort string
			if json.Unmarshal(v, &effort) != nil {
				return badRequest("/output_config/effort", "must be a string")
			}
			if effort == "max" {
				effort = "high"
			}
			if c.ReasoningEffort == "" {
				c.ReasoningEffort = effort
			}
		case "format":
			if !empty(v) {
				return badRequest("/output_config/format", "is not supported by this model's backend (structured output)")
			}
		default:
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/output_config/" + key, Code: "dropped", Message: "left out: this backend has no such setting"})
		}
	}
	return nil
}

// responsesText reads the Responses text member for another backend:
// format text is what every backend gives; any other format is refused;
// verbosity is a hint, dropped with a warning.
func responsesText(raw json.RawMessage, out *Outbound) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var t struct {
		Format *struct {
			Type string `json:"type"`
		} `json:"format"`
		Verbosity *string `json:"verbosity"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return badRequest("/text", "must be an object")
	}
	if t.Format != nil && t.Format.Type != "" && t.Format.Type != "text" {
		return badRequest("/text/format", "is not supported by this model's backend (structured output)")
	}
	if t.Verbosity != nil {
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/text/verbosity", Code: "dropped", Message: "left out: this backend has no verbosity setting"})
	}
	return nil
}

// mergeSystem moves system messages from the conversation into the
// system prompt, with a warning each.
func mergeSystem(msgs []Message, system string, out *Outbound) ([]Message, string) {
	n := 0
	for _, m := range msgs {
		if m.Role == RoleSystem {
			n++
		}
	}
	if n == 0 {
		return msgs, system
	}
	kept := make([]Message, 0, len(msgs)-n)
	for i, m := range msgs {
		if m.Role != RoleSystem {
			kept = append(kept, m)
			continue
		}
		for _, p := range m.Parts {
			system = joinText(system, p.Text)
		}
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: fmt.Sprintf("/messages/%d", i), Code: "system-merged", Message: "a system message in the conversation was moved into the system prompt: this backend takes one system prompt"})
	}
	return kept, system
}

// betaKey carries a Messages client's anthropic-beta header in its
// request's context, to be forwarded to Anthropic backends.
type betaKey struct{}

// withBeta keeps r's anthropic-beta header values, joined, in its context.
func withBeta(r *http.Request) *http.Request {
	vs := r.Header.Values("anthropic-beta")
	if len(vs) == 0 {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), betaKey{}, strings.Join(vs, ",")))
}

// betaFrom returns the anthropic-beta value withBeta kept, or "".
func betaFrom(ctx context.Context) string {
	s, _ := ctx.Value(betaKey{}).(string)
	return s
}
