// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/gemini"
	"github.com/toolgate/toolgate/tool"
)

// geminiDataMembers are the members of a Part of which it holds exactly
// one, in both spellings the API takes.
var geminiDataMembers = map[string]string{
	"text": "text", "inlineData": "inlineData", "inline_data": "inlineData",
	"fileData": "fileData", "file_data": "fileData",
	"functionCall": "functionCall", "function_call": "functionCall",
	"functionResponse": "functionResponse", "function_response": "functionResponse",
	"executableCode": "executableCode", "executable_code": "executableCode",
	"codeExecutionResult": "codeExecutionResult", "code_execution_result": "codeExecutionResult",
}

// geminiGet returns the member of m spelled camel or snake.
func geminiGet(m map[string]json.RawMessage, camel, snake string) json.RawMessage {
	if v, ok := m[camel]; ok {
		return v
	}
	return m[snake]
}

// geminiCall is a call of the conversation, for matching its response.
type geminiCall struct {
	id, full, name string
	answered       bool
}

// decodeGemini reads a generateContent body for model, the model of the
// request's path. maxBytes bounds the body as in [DecodeRequest].
func decodeGemini(model string, body []byte, maxBytes int) (*Request, error) {
	if err := checkBody(body, maxBytes); err != nil {
		return nil, err
	}
	m, err := memberSetOf(body, "")
	if err != nil {
		return nil, err
	}
	r := &Request{API: APIGemini, Model: model}
	if err := decodeGeminiRequest(r, m); err != nil {
		return nil, err
	}
	r.Extra = rest(m)
	if err := checkMembers(APIGemini, r.Extra); err != nil {
		return nil, err
	}
	if r.Model == "" {
		return nil, badRequest("/model", "is required")
	}
	return r, nil
}

// decodeGeminiRequest reads a generateContent body: contents (user and
// model turns; functionResponse parts become tool results matched to
// their calls by id, else by name in order), systemInstruction, tools
// (parameters or parametersJsonSchema), toolConfig and generationConfig.
// Members of generationConfig the gateway does not translate stay in
// Extra under "generationConfig", for a Gemini backend only.
func decodeGeminiRequest(r *Request, m *memberSet) error {
	var model string
	if err := take(m, "model", &model); err != nil {
		return err
	}
	if r.Model == "" {
		r.Model = strings.TrimPrefix(model, "models/")
	}
	for _, k := range []string{"systemInstruction", "system_instruction"} {
		raw, ok := m.get(k)
		if !ok {
			continue
		}
		m.del(k)
		text, err := geminiSystem(raw, "/"+k)
		if err != nil {
			return err
		}
		r.System = joinText(r.System, text)
	}
	var contents []struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	}
	if err := take(m, "contents", &contents); err != nil {
		return err
	}
	if len(contents) == 0 {
		return badRequest("/contents", "must hold at least one content")
	}
	var calls []*geminiCall
	for i, c := range contents {
		ptr := fmt.Sprintf("/contents/%d", i)
		var user, model []Part
		flushUser := func() {
			if len(user) > 0 {
				r.Messages = append(r.Messages, Message{Role: RoleUser, Parts: user})
				user = nil
			}
		}
		for j, raw := range c.Parts {
			pp := fmt.Sprintf("%s/parts/%d", ptr, j)
			p, err := geminiPartIn(raw, pp, c.Role == "model")
			if err != nil {
				return err
			}
			switch {
			case p == nil:
			case c.Role == "model":
				if p.Kind == PartCall {
					id := p.CallID
					if id == "" {
						id = newGeminiCallID()
					}
					p.CallID = joinCallID(id, p.Signature)
					p.Signature = ""
					calls = append(calls, &geminiCall{id: id, full: p.CallID, name: p.Name})
				} else if p.Kind == PartResult {
					return badRequest(pp, "a functionResponse belongs in a user turn")
				}
				model = append(model, *p)
			case p.Kind == PartResult:
				call := matchGeminiCall(calls, p.CallID, p.Name)
				if call == nil {
					return badRequest(pp+"/functionResponse", "answers no functionCall of the conversation")
				}
				call.answered = true
				p.CallID = call.full
				flushUser()
				r.Messages = append(r.Messages, Message{Role: RoleTool, Parts: []Part{*p}})
			case p.Kind == PartCall:
				return badRequest(pp, "a functionCall belongs in a model turn")
			default:
				user = append(user, *p)
			}
		}
		switch c.Role {
		case "model":
			r.Messages = append(r.Messages, Message{Role: RoleAssistant, Parts: model})
		case "user", "", "function":
			flushUser()
		default:
			return badRequest(ptr+"/role", "role %q is not supported", clip(c.Role))
		}
	}
	if raw, ok := m.get("tools"); ok {
		m.del("tools")
		if string(raw) != "null" && string(raw) != "[]" {
			t, err := gemini.DecodeTools(raw)
			if err != nil {
				return badRequest("/tools", "unreadable tool definitions: %v", err)
			}
			r.Tools = t.Defs
		}
	}
	for _, k := range []string{"toolConfig", "tool_config"} {
		if raw, ok := m.get(k); ok {
			m.del(k)
			if err := geminiChoiceIn(r, raw, "/"+k); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"generationConfig", "generation_config"} {
		if raw, ok := m.get(k); ok {
			m.del(k)
			if err := geminiGenerationIn(r, m, raw, "/"+k); err != nil {
				return err
			}
		}
	}
	// The members left are the member table's (snake_case spelled as
	// camelCase, as Gemini takes both).
	for i := range m.ms {
		mb := &m.ms[i]
		if mb.taken {
			continue
		}
		if c := geminiCamel(mb.key); c != mb.key {
			if m.has(c) {
				return badRequest("/"+mb.key, "is also spelled %s", c)
			}
			mb.key = c
		}
	}
	return nil
}

func matchGeminiCall(calls []*geminiCall, id, name string) *geminiCall {
	if id != "" {
		for _, c := range calls {
			if c.id == id || c.full == id {
				return c
			}
		}
		return nil
	}
	for _, c := range calls {
		if !c.answered && c.name == name {
			return c
		}
	}
	// A second response to the same call, as some clients send when a
	// tool is retried: the last call of that name.
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].name == name {
			return calls[i]
		}
	}
	return nil
}

// geminiSystem reads a systemInstruction: a Content, or a string.
func geminiSystem(raw json.RawMessage, ptr string) (string, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badRequest(ptr, "wrong type")
		}
		return s, nil
	}
	var c struct {
		Parts []struct {
			Text *string `json:"text"`
		} `json:"parts"`
	}
	if string(raw) == "null" {
		return "", nil
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", badRequest(ptr, "must be a Content with text parts")
	}
	var s string
	for i, p := range c.Parts {
		if p.Text == nil {
			return "", badRequest(fmt.Sprintf("%s/parts/%d", ptr, i), "a system instruction holds text parts only")
		}
		s = joinText(s, *p.Text)
	}
	return s, nil
}

// geminiPartIn reads one Part: nil for a part that carries nothing the
// gateway passes on (a lone thoughtSignature). A call's signature is
// left in Signature for the caller to fold into its id.
func geminiPartIn(raw json.RawMessage, ptr string, model bool) (*Part, error) {
	var pm map[string]json.RawMessage
	if err := json.Unmarshal(raw, &pm); err != nil || pm == nil {
		return nil, badRequest(ptr, "must be a Part object")
	}
	data := ""
	for k := range pm {
		if canon, ok := geminiDataMembers[k]; ok {
			if data != "" {
				return nil, badRequest(ptr, "a part holds one of text, inlineData, fileData, functionCall and functionResponse; this one holds %s and %s", data, canon)
			}
			data = canon
		}
	}
	var thought bool
	if v := pm["thought"]; v != nil && json.Unmarshal(v, &thought) != nil {
		return nil, badRequest(ptr+"/thought", "must be a boolean")
	}
	var sig string
	if v := geminiGet(pm, "thoughtSignature", "thought_signature"); v != nil && json.Unmarshal(v, &sig) != nil {
		return nil, badRequest(ptr+"/thoughtSignature", "must be a string")
	}
	raw = pm[data]
	if raw == nil {
		for k, canon := range geminiDataMembers {
			if canon == data && pm[k] != nil {
				raw = pm[k]
			}
		}
	}
	dp := ptr + "/" + data
	switch data {
	case "":
		return nil, nil
	case "text":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, badRequest(dp, "must be a string")
		}
		if thought {
			if !model {
				return nil, nil
			}
			return &Part{Kind: PartReasoning, Text: s}, nil
		}
		return &Part{Kind: PartText, Text: s}, nil
	case "inlineData", "fileData":
		var d map[string]json.RawMessage
		if err := json.Unmarshal(raw, &d); err != nil || d == nil {
			return nil, badRequest(dp, "must be an object")
		}
		var mime, data, uri string
		json.Unmarshal(geminiGet(d, "mimeType", "mime_type"), &mime)
		json.Unmarshal(d["data"], &data)
		json.Unmarshal(geminiGet(d, "fileUri", "file_uri"), &uri)
		if mime != "" && !strings.HasPrefix(mime, "image/") {
			return nil, badRequest(dp+"/mimeType", "only images are supported, not %q", clip(mime))
		}
		if uri != "" {
			return &Part{Kind: PartImage, URL: uri, MediaType: mime}, nil
		}
		if data == "" || mime == "" {
			return nil, badRequest(dp, "mimeType and data are required")
		}
		return &Part{Kind: PartImage, MediaType: mime, Data: data}, nil
	case "functionCall":
		var fc struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(raw, &fc); err != nil {
			return nil, badRequest(dp, "must be a FunctionCall object")
		}
		if fc.Name == "" {
			return nil, badRequest(dp+"/name", "is required")
		}
		args := fc.Args
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		} else if args[0] != '{' {
			return nil, badRequest(dp+"/args", "must be an object")
		}
		return &Part{Kind: PartCall, CallID: fc.ID, Name: fc.Name, Arguments: args, Signature: sig}, nil
	case "functionResponse":
		var fr struct {
			ID       string                     `json:"id"`
			Name     string                     `json:"name"`
			Response map[string]json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(raw, &fr); err != nil {
			return nil, badRequest(dp, "must be a FunctionResponse object")
		}
		if fr.Name == "" {
			return nil, badRequest(dp+"/name", "is required")
		}
		text, isErr := geminiResultText(fr.Response)
		return &Part{Kind: PartResult, CallID: fr.ID, Name: fr.Name, Content: []Part{{Kind: PartText, Text: text}}, IsError: isErr}, nil
	}
	return nil, badRequest(dp, "%s parts are not supported", data)
}

// geminiResultText reads a functionResponse's response by Gemini's
// convention: {"output": …} is the result, {"error": …} a failure, any
// other object the result as it is.
func geminiResultText(resp map[string]json.RawMessage) (string, bool) {
	str := func(v json.RawMessage) string {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return string(v)
	}
	if len(resp) == 1 {
		if v, ok := resp["output"]; ok {
			return str(v), false
		}
		if v, ok := resp["error"]; ok {
			return str(v), true
		}
	}
	if resp == nil {
		return "", false
	}
	b, _ := json.Marshal(resp)
	return string(b), false
}

// geminiChoiceIn reads toolConfig.functionCallingConfig: AUTO is auto,
// NONE none, ANY required (one allowed name: that tool; several: the
// tools narrowed to them), VALIDATED auto.
func geminiChoiceIn(r *Request, raw json.RawMessage, ptr string) error {
	if string(raw) == "null" {
		return nil
	}
	var tc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tc); err != nil || tc == nil {
		return badRequest(ptr, "must be an object")
	}
	fcRaw := geminiGet(tc, "functionCallingConfig", "function_calling_config")
	if fcRaw == nil {
		return nil
	}
	var fc map[string]json.RawMessage
	if err := json.Unmarshal(fcRaw, &fc); err != nil || fc == nil {
		return badRequest(ptr+"/functionCallingConfig", "must be an object")
	}
	var mode string
	var names []string
	if v := fc["mode"]; v != nil && json.Unmarshal(v, &mode) != nil {
		return badRequest(ptr+"/functionCallingConfig/mode", "must be a string")
	}
	if v := geminiGet(fc, "allowedFunctionNames", "allowed_function_names"); v != nil && json.Unmarshal(v, &names) != nil {
		return badRequest(ptr+"/functionCallingConfig/allowedFunctionNames", "must be an array of strings")
	}
	c := tool.Choice{Mode: tool.ChoiceAuto}
	switch mode {
	case "", "AUTO", "MODE_UNSPECIFIED", "VALIDATED":
	case "NONE":
		c.Mode = tool.ChoiceNone
	case "ANY":
		c.Mode = tool.ChoiceRequired
		switch {
		case len(names) == 1:
			c.Mode, c.Name = tool.ChoiceTool, names[0]
		case len(names) > 1:
			allowed := map[string]bool{}
			for _, n := range names {
				allowed[n] = true
			}
			var keep []tool.Definition
			for _, d := range r.Tools {
				if allowed[d.Name] {
					keep = append(keep, d)
				}
			}
			r.Tools = keep
		}
	default:
		return badRequest(ptr+"/functionCallingConfig/mode", "mode %q is not supported", clip(mode))
	}
	r.Choice = &c
	return nil
}

// geminiTranslated are the generationConfig members the gateway reads.
var geminiTranslated = map[string]bool{"temperature": true, "topP": true, "top_p": true, "maxOutputTokens": true, "max_output_tokens": true,
	"stopSequences": true, "stop_sequences": true, "candidateCount": true, "candidate_count": true, "thinkingConfig": true, "thinking_config": true}

func geminiGenerationIn(r *Request, m *memberSet, raw json.RawMessage, ptr string) error {
	if string(raw) == "null" {
		return nil
	}
	var g map[string]json.RawMessage
	if err := json.Unmarshal(raw, &g); err != nil || g == nil {
		return badRequest(ptr, "must be an object")
	}
	get := func(camel, snake string, v any) error {
		val := geminiGet(g, camel, snake)
		if val == nil || string(val) == "null" {
			return nil
		}
		if err := json.Unmarshal(val, v); err != nil {
			return badRequest(ptr+"/"+camel, "wrong type")
		}
		return nil
	}
	if err := get("temperature", "temperature", &r.Temperature); err != nil {
		return err
	}
	if err := get("topP", "top_p", &r.TopP); err != nil {
		return err
	}
	if err := get("maxOutputTokens", "max_output_tokens", &r.MaxTokens); err != nil {
		return err
	}
	if err := get("stopSequences", "stop_sequences", &r.Stop); err != nil {
		return err
	}
	var n int
	if err := get("candidateCount", "candidate_count", &n); err != nil {
		return err
	}
	if n > 1 {
		return badRequest(ptr+"/candidateCount", "only one candidate is supported")
	}
	var tc struct {
		IncludeThoughts  *bool  `json:"includeThoughts"`
		IncludeThoughtsS *bool  `json:"include_thoughts"`
		ThinkingBudget   *int   `json:"thinkingBudget"`
		ThinkingBudgetS  *int   `json:"thinking_budget"`
		ThinkingLevel    string `json:"thinkingLevel"`
		ThinkingLevelS   string `json:"thinking_level"`
	}
	if err := get("thinkingConfig", "thinking_config", &tc); err != nil {
		return err
	}
	include := tc.IncludeThoughts
	if include == nil {
		include = tc.IncludeThoughtsS
	}
	r.gemini.hideThoughts = include == nil || !*include
	budget := tc.ThinkingBudget
	if budget == nil {
		budget = tc.ThinkingBudgetS
	}
	level := tc.ThinkingLevel + tc.ThinkingLevelS
	switch {
	case level != "":
		r.ReasoningEffort = strings.ToLower(level)
	case budget != nil && *budget == 0:
		r.ReasoningEffort = "none"
	case budget != nil && *budget > 0:
		r.ThinkingBudget = *budget
	}
	// What is not translated is a row of the member table of its own,
	// "generationConfig/NAME": passed to a Gemini backend (back in
	// generationConfig), dropped or refused elsewhere.
	for k, v := range g {
		if geminiTranslated[k] {
			continue
		}
		c := geminiCamel(k)
		if c == "responseMimeType" && string(v) == `"text/plain"` {
			continue // the default
		}
		if m.has(geminiConfigMember + c) {
			return badRequest(ptr+"/"+k, "is also spelled %s", c)
		}
		m.set(geminiConfigMember+c, v)
	}
	return nil
}

// geminiRequest writes r as a generateContent or streamGenerateContent
// body, which are the same: the model and whether to stream are in the
// URL (see [Provider.endpoint]).
func geminiRequest(r *Request, o *BackendOptions, defs []tool.Definition, out *Outbound) ([]byte, error) {
	model := strings.TrimPrefix(o.Model, "models/")
	gemini3 := strings.HasPrefix(model, "gemini-3")
	names := map[string]string{}
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			if p.Kind == PartCall {
				names[p.CallID] = p.Name
				base, _ := splitCallID(p.CallID)
				if _, ok := names[base]; !ok {
					names[base] = p.Name
				}
			}
		}
	}
	b := []byte(`{"contents":[`)
	role, n, parts := "", 0, 0
	open := func(want string) {
		if role == want {
			return
		}
		if role != "" {
			b = append(b, "]},"...)
		}
		role, parts = want, 0
		n++
		b = jsonStr(append(b, `{"role":`...), want)
		b = append(b, `,"parts":[`...)
	}
	part := func() {
		if parts > 0 {
			b = append(b, ',')
		}
		parts++
	}
	warnedReasoning := false
	for i, m := range r.Messages {
		ptr := "/messages/" + strconv.Itoa(i)
		firstCall := true
		switch m.Role {
		case RoleAssistant:
			open("model")
		default:
			open("user")
		}
		for _, p := range m.Parts {
			switch p.Kind {
			case PartText:
				if p.Text == "" {
					continue
				}
				part()
				b = appendGeminiText(b, p.Text, false)
			case PartImage:
				part()
				b = geminiImage(b, &p)
			case PartReasoning, PartRedacted:
				if !warnedReasoning {
					warnedReasoning = true
					out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "not-carried", Message: "earlier reasoning left out: Gemini keeps its thinking in the thought signatures of its calls"})
				}
			case PartCall:
				part()
				base, sig := splitCallID(p.CallID)
				if sig == "" && firstCall && gemini3 {
					// Gemini 3 refuses a call of the current turn without
					// its signature; a call made by another model has none,
					// and Google documents this value for that case.
					sig = "skip_thought_signature_validator"
					out.Warnings = append(out.Warnings, tool.Warning{Pointer: ptr, Code: "signature-skipped", Message: "a call without Gemini's thought signature was sent with the signature that skips its check"})
				}
				firstCall = false
				b = append(b, `{"functionCall":{`...)
				if base != "" && !generatedCallID(base) {
					b = jsonStr(append(b, `"id":`...), base)
					b = append(b, ',')
				}
				b = jsonStr(append(b, `"name":`...), mapName(out, p.Name))
				b = append(append(b, `,"args":`...), argsOrEmpty(p.Arguments)...)
				b = append(b, '}')
				if sig != "" {
					b = jsonStr(append(b, `,"thoughtSignature":`...), sig)
				}
				b = append(b, '}')
			case PartResult:
				name := p.Name
				if name == "" {
					name = names[p.CallID]
				}
				base, _ := splitCallID(p.CallID)
				if name == "" {
					name = names[base]
				}
				if name == "" {
					return nil, badRequest(ptr, "a tool result answers no call of the conversation: Gemini needs the call's name")
				}
				part()
				b = append(b, `{"functionResponse":{`...)
				if base != "" && !generatedCallID(base) {
					b = jsonStr(append(b, `"id":`...), base)
					b = append(b, ',')
				}
				b = jsonStr(append(b, `"name":`...), mapName(out, name))
				key := `,"response":{"output":`
				if p.IsError {
					key = `,"response":{"error":`
				}
				b = jsonStr(append(b, key...), resultText(&p, out, ptr))
				b = append(b, "}}}"...)
			}
		}
	}
	if role != "" {
		b = append(b, "]}"...)
	}
	b = append(b, ']')
	if r.System != "" {
		b = jsonStr(append(b, `,"systemInstruction":{"parts":[{"text":`...), r.System)
		b = append(b, "}]}"...)
	}
	if len(defs) > 0 {
		tb, ws, err := gemini.EncodeTools(&codec.Tools{Defs: defs})
		if err != nil {
			return nil, badRequest("/tools", "cannot be written for this backend: %v", err)
		}
		for _, w := range ws {
			w.Pointer = "/tools" + w.Pointer
			out.Warnings = append(out.Warnings, w)
		}
		b = append(member(b, "tools"), tb...)
	}
	if r.Choice != nil {
		c := *r.Choice
		c.Name = mapName(out, c.Name)
		cb, ws, err := gemini.EncodeChoice(c)
		if err != nil {
			return nil, badRequest("/tool_choice", "cannot be written for this backend: %v", err)
		}
		for _, w := range ws {
			w.Pointer = "/tool_choice" + w.Pointer
			out.Warnings = append(out.Warnings, w)
		}
		b = append(member(b, "toolConfig"), cb...)
	}
	b = append(b, `,"generationConfig":{`...)
	g := 0
	field := func(k string) {
		if g > 0 {
			b = append(b, ',')
		}
		g++
		b = append(jsonStr(b, k), ':')
	}
	maxTokens := r.MaxTokens
	if maxTokens == 0 {
		maxTokens = o.MaxTokens
	}
	if maxTokens > 0 {
		field("maxOutputTokens")
		b = strconv.AppendInt(b, int64(maxTokens), 10)
	}
	if r.Temperature != nil {
		field("temperature")
		b = strconv.AppendFloat(b, *r.Temperature, 'g', -1, 64)
	}
	if r.TopP != nil {
		field("topP")
		b = strconv.AppendFloat(b, *r.TopP, 'g', -1, 64)
	}
	if len(r.Stop) > 0 {
		field("stopSequences")
		b = append(b, stringsJSON(r.Stop)...)
	}
	if tc := geminiThinking(model, gemini3, r, out); tc != nil {
		field("thinkingConfig")
		b = append(b, tc...)
	}
	// The member table passed generationConfig's other members only
	// from a Gemini client.
	for _, k := range extraKeys(r.Extra) {
		if name, ok := strings.CutPrefix(k, geminiConfigMember); ok && r.API == APIGemini {
			field(name)
			b = append(b, r.Extra[k]...)
		}
	}
	b = append(b, '}')
	for _, k := range extraKeys(r.Extra) {
		switch _, ours := o.Extra[k]; {
		case r.API != o.API:
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/" + k, Code: "dropped", Message: "left out: a Gemini backend has no such member"})
		case !ours && !strings.HasPrefix(k, geminiConfigMember):
			b = append(member(b, k), r.Extra[k]...)
		}
	}
	for _, k := range extraKeys(o.Extra) {
		b = append(member(b, k), o.Extra[k]...)
	}
	return append(b, '}'), nil
}

// geminiThinking is the thinkingConfig for the request: thoughts always
// included (the front door drops them for a client that did not ask),
// Gemini 3's thinkingLevel from the effort, or a budget for Gemini 2.5.
// Models before 2.5 do not think and get none.
func geminiThinking(model string, gemini3 bool, r *Request, out *Outbound) []byte {
	if strings.HasPrefix(model, "gemini-1") || strings.HasPrefix(model, "gemini-2.0") {
		if r.ReasoningEffort != "" || r.ThinkingBudget > 0 {
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/reasoning_effort", Code: "not-carried", Message: "this Gemini model does not think; the reasoning setting was left out"})
		}
		return nil
	}
	b := []byte(`{"includeThoughts":true`)
	effort, budget := r.ReasoningEffort, r.ThinkingBudget
	switch {
	case gemini3 && (effort != "" || budget > 0):
		if effort == "" {
			effort = effortFor(budget)
		}
		level := "high"
		switch effort {
		case "none", "minimal", "low":
			level = "low"
		}
		if effort == "none" {
			out.Warnings = append(out.Warnings, tool.Warning{Pointer: "/reasoning_effort", Code: "effort-raised", Message: "Gemini 3 cannot turn thinking off; sent as thinkingLevel low"})
		}
		b = jsonStr(append(b, `,"thinkingLevel":`...), level)
	case effort == "none":
		b = append(b, `,"thinkingBudget":0`...)
	case budget > 0:
		b = strconv.AppendInt(append(b, `,"thinkingBudget":`...), int64(budget), 10)
	case effort != "":
		if n := budgetFor(effort); n > 0 {
			b = strconv.AppendInt(append(b, `,"thinkingBudget":`...), int64(n), 10)
		}
	}
	return append(b, '}')
}

func geminiImage(b []byte, p *Part) []byte {
	if p.URL != "" {
		b = jsonStr(append(b, `{"fileData":{"fileUri":`...), p.URL)
		if p.MediaType != "" {
			b = jsonStr(append(b, `,"mimeType":`...), p.MediaType)
		}
		return append(b, "}}"...)
	}
	b = jsonStr(append(b, `{"inlineData":{"mimeType":`...), p.MediaType)
	b = jsonStr(append(b, `,"data":`...), p.Data)
	return append(b, "}}"...)
}
