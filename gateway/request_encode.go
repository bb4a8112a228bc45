// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"strconv"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
)

// DefaultMaxTokens is the answer bound sent to a backend that requires
// one (Anthropic) when neither the client nor the provider set one.
const DefaultMaxTokens = 4096

// BackendOptions says how to write a request for one backend.
type BackendOptions struct {
	// API is the backend's API.
	API API
	// Model is the backend's name for the model.
	Model string
	// Compat is true for an OpenAI-compatible server that is not OpenAI:
	// it gets max_tokens (OpenAI wants max_completion_tokens) and the
	// reasoning of earlier assistant turns that made tool calls as
	// reasoning_content, which DeepSeek and Kimi require.
	Compat bool
	// MaxTokens is sent when the client set no bound. If zero, none for
	// Chat and Responses, DefaultMaxTokens for Anthropic.
	MaxTokens int
	// Extra holds top-level members for this backend's own server
	// (continue_final_message, chat_template_kwargs, think, …), written
	// last; a member of the client's Extra with the same name is left out.
	Extra map[string]json.RawMessage
	// Text is true for a text model: tools, calls and results travel in
	// its text (the member table's text column).
	Text bool
	// RefuseUnknown refuses a member in no member table instead of
	// dropping it with a warning (gateway.unknown_members: refuse).
	RefuseUnknown bool

	// lower caches lowered tool schemas (the Handler's); nil lowers
	// every time.
	lower *lowerCache
	// stream asks the backend for a stream even for a client that does
	// not stream: two passes cut pass 1 at its budget as it streams.
	stream bool
}

// Outbound is a request ready for a backend.
type Outbound struct {
	Body []byte
	// Names maps the tool names the backend saw back to the client's,
	// when lowering had to rename a tool.
	Names *schema.NameMap
	// Warnings list every change made to fit the backend, for the
	// x-toolgate-warnings header and the log.
	Warnings []tool.Warning
	// base, when set, is the request as the backend sees it before pass 1
	// of two passes changed it: pass 2 continues from it.
	base *Request
	// whole is true when the backend was asked for its whole answer in
	// one body (see [EncodeRequest]), false when for a stream.
	whole bool
}

// EncodeRequest writes r for the backend o describes. A streaming client's
// request asks the backend to stream, with usage included; a client that
// does not stream gets the backend's whole answer in one body (Chat
// Completions, Messages and Responses "stream":false, Gemini's
// generateContent), which the gateway decodes into the same events, except
// where a stream is needed (two passes) or safer (an Anthropic answer long
// enough that Anthropic wants it streamed). Members of r.Extra pass
// through, are translated, emulated, dropped with a warning or refused
// as the front door's member table says for the backend (see
// [MemberTable]).
func EncodeRequest(r *Request, o *BackendOptions) (*Outbound, error) {
	out := &Outbound{whole: !r.Stream && !o.stream}
	r, err := adaptFor(r, o, out)
	if err != nil {
		return nil, err
	}
	var target schema.Target
	switch o.API {
	case APIMessages:
		target = schema.Anthropic
	case APIGemini:
		target = schema.Gemini
	default:
		target = schema.OpenAI
	}
	var defs []tool.Definition
	if len(r.Tools) > 0 {
		out.Names = schema.NewNameMap(target)
		for i := range r.Tools {
			d, ws, err := o.lower.lowerDefinition(target, &r.Tools[i], out.Names)
			if err != nil {
				return nil, badRequest(r.toolPointer(i), "cannot be written for this backend: %v", err)
			}
			for _, w := range ws {
				w.Pointer = r.toolPointer(i) + w.Pointer
				out.Warnings = append(out.Warnings, w)
			}
			defs = append(defs, d)
		}
	}
	if o.API != APIGemini {
		r = withoutSignatures(r)
	}
	var b []byte
	switch o.API {
	case APIChat:
		b, err = chatRequest(r, o, defs, out)
	case APIMessages:
		b, err = messagesRequest(r, o, defs, out)
	case APIResponses:
		b, err = responsesRequest(r, o, defs, out)
	case APIGemini:
		b, err = geminiRequest(r, o, defs, out)
	default:
		return nil, badRequest("", "unknown backend api")
	}
	if err != nil {
		return nil, err
	}
	out.Body = b
	return out, nil
}

// mapName is the name the backend knows a tool by.
func mapName(out *Outbound, name string) string {
	if out.Names == nil {
		return name
	}
	if m, err := out.Names.Map(name); err == nil {
		return m
	}
	return name
}

func member(b []byte, key string) []byte {
	b = append(b, ',')
	b = jsonStr(b, key)
	return append(b, ':')
}

// appendExtra writes the client's members that [adaptFor] kept for the
// backend, then the backend's own.
func appendExtra(b []byte, r *Request, o *BackendOptions) []byte {
	if len(r.Extra) == 0 && len(o.Extra) == 0 {
		return b
	}
	for _, k := range extraKeys(r.Extra) {
		if _, ours := o.Extra[k]; !ours {
			b = append(member(b, k), r.Extra[k]...)
		}
	}
	for _, k := range extraKeys(o.Extra) {
		b = append(member(b, k), o.Extra[k]...)
	}
	return b
}

func appendSampling(b []byte, r *Request) []byte {
	if r.Temperature != nil {
		b = strconv.AppendFloat(member(b, "temperature"), *r.Temperature, 'g', -1, 64)
	}
	if r.TopP != nil {
		b = strconv.AppendFloat(member(b, "top_p"), *r.TopP, 'g', -1, 64)
	}
	return b
}

func stringsJSON(ss []string) []byte {
	b, _ := json.Marshal(ss)
	return b
}

// resultText joins a tool result's text parts; images in results are
// carried only where the backend takes them.
func resultText(p *Part, out *Outbound, ptr string) string {
	var s string
	for _, c := range p.Content {
		if c.Kind == PartText {
			s += c.Text
		} else {
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "not-carried", Message: "an image in a tool result was left out: this backend takes text results"})
		}
	}
	return s
}

func chatRequest(r *Request, o *BackendOptions, defs []tool.Definition, out *Outbound) ([]byte, error) {
	b := jsonStr([]byte(`{"model":`), o.Model)
	b = append(b, `,"messages":[`...)
	n := 0
	open := func(role string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = jsonStr(append(b, `{"role":`...), role)
	}
	if r.System != "" {
		open("system")
		b = jsonStr(append(b, `,"content":`...), r.System)
		b = append(b, '}')
	}
	for i, m := range r.Messages {
		ptr := "/messages/" + strconv.Itoa(i)
		switch m.Role {
		case RoleSystem:
			open("system")
			b = jsonStr(append(b, `,"content":`...), partsText(m.Parts))
			b = append(b, '}')
		case RoleUser:
			open("user")
			if len(m.Parts) == 1 && m.Parts[0].Kind == PartText {
				// A plain string: every compatible server reads it.
				b = jsonStr(append(b, `,"content":`...), m.Parts[0].Text)
				b = append(b, '}')
				break
			}
			b = append(b, `,"content":[`...)
			for j, p := range m.Parts {
				if j > 0 {
					b = append(b, ',')
				}
				b = chatPart(b, &p)
			}
			b = append(b, "]}"...)
		case RoleAssistant:
			open("assistant")
			var text, reasoning string
			var calls []Part
			for _, p := range m.Parts {
				switch p.Kind {
				case PartText:
					text += p.Text
				case PartReasoning:
					reasoning += p.Text
				case PartCall:
					calls = append(calls, p)
				case PartRedacted:
					out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "not-carried", Message: "encrypted reasoning left out: only its own provider can read it"})
				}
			}
			if text == "" && len(calls) > 0 {
				b = append(b, `,"content":null`...)
			} else {
				b = jsonStr(append(b, `,"content":`...), text)
			}
			if reasoning != "" && o.Compat && len(calls) > 0 {
				b = jsonStr(append(b, `,"reasoning_content":`...), reasoning)
			}
			if len(calls) > 0 {
				b = append(b, `,"tool_calls":[`...)
				for j, c := range calls {
					if j > 0 {
						b = append(b, ',')
					}
					b = jsonStr(append(b, `{"id":`...), c.CallID)
					b = jsonStr(append(b, `,"type":"function","function":{"name":`...), mapName(out, c.Name))
					b = jsonStr(append(b, `,"arguments":`...), string(argsOrEmpty(c.Arguments)))
					b = append(b, "}}"...)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		case RoleTool:
			for _, p := range m.Parts {
				open("tool")
				b = jsonStr(append(b, `,"tool_call_id":`...), p.CallID)
				text := resultText(&p, out, ptr)
				if p.IsError {
					text = "Error: " + text
				}
				b = jsonStr(append(b, `,"content":`...), text)
				b = append(b, '}')
			}
		}
	}
	b = append(b, ']')
	b, err := appendTools(b, r, defs, out, openai.EncodeTools, openai.EncodeChoice, true)
	if err != nil {
		return nil, err
	}
	maxTokens := r.MaxTokens
	if maxTokens == 0 {
		maxTokens = o.MaxTokens
	}
	if maxTokens > 0 {
		key := "max_completion_tokens"
		if o.Compat {
			key = "max_tokens"
		}
		b = strconv.AppendInt(member(b, key), int64(maxTokens), 10)
	}
	b = appendSampling(b, r)
	if len(r.Stop) > 0 {
		b = append(member(b, "stop"), stringsJSON(r.Stop)...)
	}
	if r.ReasoningEffort != "" {
		b = jsonStr(member(b, "reasoning_effort"), r.ReasoningEffort)
	} else if r.ThinkingBudget > 0 {
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/thinking/budget_tokens", Code: "not-carried", Message: "a thinking budget has no Chat Completions equivalent; sent as reasoning_effort " + effortFor(r.ThinkingBudget)})
		b = jsonStr(member(b, "reasoning_effort"), effortFor(r.ThinkingBudget))
	}
	// A stream always with usage: the gateway strips the usage chunk for
	// clients that did not ask for it. A whole answer always has its
	// usage, and OpenAI refuses stream_options without a stream.
	if out.whole {
		b = append(b, `,"stream":false`...)
	} else {
		b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	}
	b = appendExtra(b, r, o)
	return append(b, '}'), nil
}

// appendTools writes the tools and tool_choice members with the backend
// API's codec, their warnings under /tools and /tool_choice. With
// parallelMember (OpenAI's APIs), "at most one call" is its own
// parallel_tool_calls member; Anthropic carries it inside tool_choice.
func appendTools(b []byte, r *Request, defs []tool.Definition, out *Outbound,
	encodeTools func(*codec.Tools) ([]byte, []tool.Warning, error),
	encodeChoice func(tool.Choice) ([]byte, []tool.Warning, error), parallelMember bool) ([]byte, error) {
	warn := func(prefix string, ws []tool.Warning) {
		for _, w := range ws {
			w.Pointer = prefix + w.Pointer
			out.Warnings = append(out.Warnings, w)
		}
	}
	if len(defs) > 0 {
		tb, ws, err := encodeTools(&codec.Tools{Defs: defs})
		if err != nil {
			return nil, badRequest("/tools", "cannot be written for this backend: %v", err)
		}
		for _, w := range ws {
			out.Warnings = append(out.Warnings, r.toolWarning(w))
		}
		b = append(member(b, "tools"), appendHosted(tb, r.front.passHosted)...)
	} else if len(r.front.passHosted) > 0 {
		b = append(member(b, "tools"), appendHosted(nil, r.front.passHosted)...)
	}
	if r.Choice == nil {
		return b, nil
	}
	c := *r.Choice
	c.Name = mapName(out, c.Name)
	one := c.DisableParallel && c.Mode != tool.ChoiceNone
	c.DisableParallel = one && !parallelMember
	cb, ws, err := encodeChoice(c)
	if err != nil {
		return nil, badRequest("/tool_choice", "cannot be written for this backend: %v", err)
	}
	warn("/tool_choice", ws)
	b = append(member(b, "tool_choice"), cb...)
	if one && parallelMember {
		b = append(member(b, "parallel_tool_calls"), "false"...)
	}
	return b, nil
}

// effortFor maps a thinking budget to the nearest reasoning effort.
func effortFor(budget int) string {
	switch {
	case budget <= 2048:
		return "low"
	case budget <= 16384:
		return "medium"
	}
	return "high"
}

// budgetFor maps a reasoning effort to a thinking budget.
func budgetFor(effort string) int {
	switch effort {
	case "minimal", "low":
		return 1024
	case "medium":
		return 8192
	case "high", "xhigh":
		return 24576
	}
	return 0
}

func chatPart(b []byte, p *Part) []byte {
	switch p.Kind {
	case PartImage:
		url := p.URL
		if url == "" {
			url = "data:" + p.MediaType + ";base64," + p.Data
		}
		b = jsonStr(append(b, `{"type":"image_url","image_url":{"url":`...), url)
		return append(b, "}}"...)
	default:
		b = jsonStr(append(b, `{"type":"text","text":`...), p.Text)
		return append(b, '}')
	}
}

func messagesRequest(r *Request, o *BackendOptions, defs []tool.Definition, out *Outbound) ([]byte, error) {
	b := jsonStr([]byte(`{"model":`), o.Model)
	if r.System != "" {
		b = jsonStr(member(b, "system"), r.System)
	}
	b = append(b, `,"messages":[`...)
	// Anthropic wants user and assistant turns alternating: consecutive
	// tool results and user text become one user message.
	role := ""
	blocks := 0
	openMsg := func(want string) {
		if role == want {
			return
		}
		if role != "" {
			b = append(b, "]},"...)
		}
		role = want
		blocks = 0
		b = jsonStr(append(b, `{"role":`...), want)
		b = append(b, `,"content":[`...)
	}
	block := func() {
		if blocks > 0 {
			b = append(b, ',')
		}
		blocks++
	}
	for i, m := range r.Messages {
		ptr := "/messages/" + strconv.Itoa(i)
		switch m.Role {
		case RoleUser, RoleTool:
			openMsg("user")
		case RoleAssistant:
			openMsg("assistant")
		case RoleSystem:
			openMsg("system")
		}
		for _, p := range m.Parts {
			switch p.Kind {
			case PartText:
				if p.Text == "" {
					continue // Anthropic refuses empty text blocks
				}
				block()
				b = jsonStr(append(b, `{"type":"text","text":`...), p.Text)
				b = append(b, '}')
			case PartImage:
				block()
				b = messagesImage(b, &p)
			case PartReasoning:
				if p.Signature == "" || p.SignedBy != APIMessages {
					out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "not-carried", Message: "reasoning without an Anthropic signature left out: Anthropic accepts only its own signed thinking"})
					continue
				}
				block()
				b = jsonStr(append(b, `{"type":"thinking","thinking":`...), p.Text)
				b = jsonStr(append(b, `,"signature":`...), p.Signature)
				b = append(b, '}')
			case PartRedacted:
				block()
				b = jsonStr(append(b, `{"type":"redacted_thinking","data":`...), p.Data)
				b = append(b, '}')
			case PartCall:
				block()
				b = jsonStr(append(b, `{"type":"tool_use","id":`...), p.CallID)
				b = jsonStr(append(b, `,"name":`...), mapName(out, p.Name))
				b = append(append(b, `,"input":`...), argsOrEmpty(p.Arguments)...)
				b = append(b, '}')
			case PartResult:
				block()
				b = jsonStr(append(b, `{"type":"tool_result","tool_use_id":`...), p.CallID)
				b = append(b, `,"content":[`...)
				k := 0
				for _, c := range p.Content {
					if c.Kind == PartText && c.Text == "" {
						continue
					}
					if k > 0 {
						b = append(b, ',')
					}
					k++
					if c.Kind == PartImage {
						b = messagesImage(b, &c)
					} else {
						b = jsonStr(append(b, `{"type":"text","text":`...), c.Text)
						b = append(b, '}')
					}
				}
				b = append(b, ']')
				if p.IsError {
					b = append(b, `,"is_error":true`...)
				}
				b = append(b, '}')
			}
		}
	}
	if role != "" {
		b = append(b, "]}"...)
	}
	b = append(b, ']')
	b, err := appendTools(b, r, defs, out, anthropic.EncodeTools, anthropic.EncodeChoice, false)
	if err != nil {
		return nil, err
	}
	maxTokens := r.MaxTokens
	if maxTokens == 0 {
		maxTokens = o.MaxTokens
	}
	if maxTokens == 0 {
		maxTokens = DefaultMaxTokens
	}
	budget := r.ThinkingBudget
	if budget == 0 && r.ReasoningEffort != "" && r.ReasoningEffort != "none" {
		budget = budgetFor(r.ReasoningEffort)
	}
	if budget > 0 && !signedToolTurns(r) {
		// With thinking on, Anthropic refuses an assistant tool-use turn
		// that does not open with its own signed thinking.
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/thinking", Code: "not-carried", Message: "thinking left off: an earlier tool-use turn has no Anthropic-signed thinking to replay"})
		budget = 0
	}
	if budget > 0 && budget >= maxTokens {
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/max_tokens", Code: "max-tokens-raised", Message: "raised above the thinking budget, as Anthropic requires"})
		maxTokens = budget + DefaultMaxTokens
	}
	b = strconv.AppendInt(member(b, "max_tokens"), int64(maxTokens), 10)
	b = appendSampling(b, r)
	if len(r.Stop) > 0 {
		b = append(member(b, "stop_sequences"), stringsJSON(r.Stop)...)
	}
	switch {
	case r.Thinking == "adaptive" && r.API == APIMessages && signedToolTurns(r):
		// Passed as sent: Anthropic decides the budget itself.
		b = append(b, `,"thinking":{"type":"adaptive"`...)
		if r.ThinkingDisplay != "" {
			b = jsonStr(append(b, `,"display":`...), r.ThinkingDisplay)
		}
		b = append(b, '}')
	case r.Thinking == "adaptive" && r.API == APIMessages:
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/thinking", Code: "not-carried", Message: "thinking left off: an earlier tool-use turn has no Anthropic-signed thinking to replay"})
	case budget > 0:
		b = strconv.AppendInt(append(b, `,"thinking":{"type":"enabled","budget_tokens":`...), int64(budget), 10)
		if r.ThinkingDisplay != "" && r.API == APIMessages {
			b = jsonStr(append(b, `,"display":`...), r.ThinkingDisplay)
		}
		b = append(b, '}')
	}
	if maxTokens > maxWholeMessagesTokens {
		// Anthropic's SDKs refuse a non-streaming request that may take
		// longer than ten minutes, judged by max_tokens: the gateway
		// streams such an answer itself.
		out.whole = false
	}
	if out.whole {
		b = append(b, `,"stream":false`...)
	} else {
		b = append(b, `,"stream":true`...)
	}
	b = appendExtra(b, r, o)
	return append(b, '}'), nil
}

// maxWholeMessagesTokens is the largest max_tokens for which an Anthropic
// backend is asked for a whole answer: the bound of Anthropic's SDKs
// (an hour's output of 128,000 tokens, scaled to their ten-minute limit).
const maxWholeMessagesTokens = 21333

// signedToolTurns reports whether every assistant turn that calls tools
// carries signed or redacted thinking.
func signedToolTurns(r *Request) bool {
	for _, m := range r.Messages {
		if m.Role != RoleAssistant {
			continue
		}
		calls, signed := false, false
		for _, p := range m.Parts {
			calls = calls || p.Kind == PartCall
			signed = signed || p.Kind == PartRedacted || (p.Kind == PartReasoning && p.Signature != "" && p.SignedBy == APIMessages)
		}
		if calls && !signed {
			return false
		}
	}
	return true
}

func messagesImage(b []byte, p *Part) []byte {
	if p.URL != "" {
		b = jsonStr(append(b, `{"type":"image","source":{"type":"url","url":`...), p.URL)
		return append(b, "}}"...)
	}
	b = jsonStr(append(b, `{"type":"image","source":{"type":"base64","media_type":`...), p.MediaType)
	b = jsonStr(append(b, `,"data":`...), p.Data)
	return append(b, "}}"...)
}

func responsesRequest(r *Request, o *BackendOptions, defs []tool.Definition, out *Outbound) ([]byte, error) {
	b := jsonStr([]byte(`{"model":`), o.Model)
	if r.System != "" {
		b = jsonStr(member(b, "instructions"), r.System)
	}
	b = append(b, `,"input":[`...)
	n := 0
	item := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
	}
	for i, m := range r.Messages {
		ptr := "/messages/" + strconv.Itoa(i)
		switch m.Role {
		case RoleSystem:
			item()
			b = jsonStr(append(b, `{"role":"system","content":`...), partsText(m.Parts))
			b = append(b, '}')
		case RoleUser:
			item()
			b = append(b, `{"role":"user","content":[`...)
			for j, p := range m.Parts {
				if j > 0 {
					b = append(b, ',')
				}
				if p.Kind == PartImage {
					url := p.URL
					if url == "" {
						url = "data:" + p.MediaType + ";base64," + p.Data
					}
					b = jsonStr(append(b, `{"type":"input_image","image_url":`...), url)
				} else {
					b = jsonStr(append(b, `{"type":"input_text","text":`...), p.Text)
				}
				b = append(b, '}')
			}
			b = append(b, "]}"...)
		case RoleAssistant:
			for _, p := range m.Parts {
				switch p.Kind {
				case PartText:
					item()
					b = jsonStr(append(b, `{"role":"assistant","content":[{"type":"output_text","text":`...), p.Text)
					b = append(b, "}]}"...)
				case PartReasoning:
					if p.Signature == "" || p.SignedBy != APIResponses {
						out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "not-carried", Message: "reasoning without OpenAI encrypted content left out: Responses replays only its own"})
						continue
					}
					item()
					b = append(b, `{"type":"reasoning","summary":[`...)
					if p.Text != "" {
						b = jsonStr(append(b, `{"type":"summary_text","text":`...), p.Text)
						b = append(b, '}')
					}
					b = jsonStr(append(b, `],"encrypted_content":`...), p.Signature)
					b = append(b, '}')
				case PartCall:
					item()
					b = jsonStr(append(b, `{"type":"function_call","call_id":`...), p.CallID)
					b = jsonStr(append(b, `,"name":`...), mapName(out, p.Name))
					b = jsonStr(append(b, `,"arguments":`...), string(argsOrEmpty(p.Arguments)))
					b = append(b, '}')
				case PartRedacted:
					out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "not-carried", Message: "encrypted reasoning left out: only its own provider can read it"})
				}
			}
		case RoleTool:
			for _, p := range m.Parts {
				item()
				b = jsonStr(append(b, `{"type":"function_call_output","call_id":`...), p.CallID)
				text := resultText(&p, out, ptr)
				if p.IsError {
					text = "Error: " + text
				}
				b = jsonStr(append(b, `,"output":`...), text)
				b = append(b, '}')
			}
		}
	}
	b = append(b, ']')
	b, err := appendTools(b, r, defs, out, responses.EncodeTools, responses.EncodeChoice, true)
	if err != nil {
		return nil, err
	}
	maxTokens := r.MaxTokens
	if maxTokens == 0 {
		maxTokens = o.MaxTokens
	}
	if maxTokens > 0 {
		b = strconv.AppendInt(member(b, "max_output_tokens"), int64(maxTokens), 10)
	}
	b = appendSampling(b, r)
	if len(r.Stop) > 0 {
		out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/stop", Code: "not-carried", Message: "stop sequences have no Responses equivalent and were left out"})
	}
	effort := r.ReasoningEffort
	if effort == "" && r.ThinkingBudget > 0 {
		effort = effortFor(r.ThinkingBudget)
	}
	switch {
	case effort != "":
		b = jsonStr(append(b, `,"reasoning":{"effort":`...), effort)
		if r.front.summary != "" {
			b = jsonStr(append(b, `,"summary":`...), r.front.summary)
		}
		b = append(b, '}')
	case r.front.summary != "":
		b = jsonStr(append(b, `,"reasoning":{"summary":`...), r.front.summary)
		b = append(b, '}')
	}
	b = append(b, `,"store":false,"include":["reasoning.encrypted_content"]`...)
	if out.whole {
		b = append(b, `,"stream":false`...)
	} else {
		b = append(b, `,"stream":true`...)
	}
	b = appendExtra(b, r, o)
	return append(b, '}'), nil
}

// partsText joins the text of parts.
func partsText(parts []Part) string {
	var s string
	for _, p := range parts {
		if p.Kind == PartText {
			s = joinText(s, p.Text)
		}
	}
	return s
}
