// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
)

// apiGenerate is the native contract of POST /generate. It is a front
// door only: no backend speaks it.
const apiGenerate API = "generate"

// generateRequest is the body of POST /generate: the founding providers
// design's request. Settings given override the provider's for this
// request only.
type generateRequest struct {
	Model             string          `json:"model"`
	Messages          json.RawMessage `json:"messages"`
	Temperature       *float64        `json:"temperature"`
	TwoPass           *bool           `json:"two_pass"`
	ThinkTag          *string         `json:"think_tag"`
	MaxThinkingTokens *int            `json:"max_thinking_tokens"`
	MaxResponseTokens *int            `json:"max_response_tokens"`
	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ToolParser        *string         `json:"tool_parser"`
}

var generateMembers = map[string]bool{"model": true, "messages": true, "temperature": true, "two_pass": true, "think_tag": true,
	"max_thinking_tokens": true, "max_response_tokens": true, "tools": true, "tool_choice": true, "tool_parser": true}

// generate serves POST /generate: the native contract of the founding
// providers design. The messages and tools are OpenAI Chat's; tool_choice
// is "auto", "none", "required", {"name": NAME} or OpenAI's object. The
// answer is one JSON body:
//
//	{"thinking": "…", "response": "…", "pre_tool_text": "…",
//	 "tool_calls": [{"id": "call_…", "name": "get_weather", "arguments": {"city": "Paris"}}]}
//
// thinking is the reasoning; response the whole answer text with the
// calls taken out; pre_tool_text the answer text before the first call
// (empty without calls); arguments a JSON object, not a string.
// Without model the first vllm_native provider answers, else the first
// provider.
func (h *Handler) generate(w http.ResponseWriter, r *http.Request) {
	front := apiGenerate
	s := &served{front: front, start: h.cfg.Now()}
	defer h.log(s)
	r, body, ok := h.begin(w, r, s)
	if !ok {
		return
	}
	req, p, err := h.decodeGenerate(body)
	if err != nil {
		s.err = err
		h.refuse(w, front, err, s)
		return
	}
	s.model, s.known = req.Model, true
	release, ok := h.admit(w, r, front, req, p, len(body), s)
	if !ok {
		return
	}
	defer release()
	h.answer(w, r, front, req, p, s)
}

// decodeGenerate reads a /generate body into the internal request and
// the provider, with the request's settings, that answers it.
func (h *Handler) decodeGenerate(body []byte) (*Request, *Provider, error) {
	if err := checkBody(body, -1); err != nil {
		return nil, nil, err
	}
	m, err := members(body, "")
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !generateMembers[k] {
			return nil, nil, badRequest("/"+k, "is not a member of the /generate request")
		}
	}
	for _, k := range []string{"max_thinking_tokens", "max_response_tokens"} {
		if _, err := tokenBound(m[k], "/"+k); err != nil {
			return nil, nil, err
		}
	}
	var g generateRequest
	if err := json.Unmarshal(body, &g); err != nil {
		return nil, nil, badRequest("", "a member has the wrong type")
	}
	if len(g.Messages) == 0 {
		return nil, nil, badRequest("/messages", "is required")
	}
	var p *Provider
	switch {
	case g.Model != "":
		name, ok := h.models[g.Model]
		if !ok {
			return nil, nil, &RequestError{Pointer: "/model", Reason: "is not a model served here", Status: http.StatusNotFound, Err: ErrBadRequest}
		}
		p = h.providers[name]
	default:
		for i := range h.cfg.Providers {
			if q := h.providers[h.cfg.Providers[i].Name]; q.Backend == BackendVLLM {
				p = q
				break
			}
		}
		if p == nil {
			p = h.providers[h.cfg.Providers[0].Name]
		}
		g.Model = p.Name
	}
	// The request's settings, on a copy of the provider.
	c := *p
	if g.TwoPass != nil {
		c.TwoPass = TwoPassOff
		if *g.TwoPass {
			c.TwoPass = TwoPassOn
		}
	}
	if g.ThinkTag != nil {
		c.ThinkTag = *g.ThinkTag
	}
	if g.MaxThinkingTokens != nil {
		c.MaxThinkingTokens = *g.MaxThinkingTokens
	}
	if g.MaxResponseTokens != nil {
		c.MaxResponseTokens = *g.MaxResponseTokens
	}
	if g.ToolParser != nil {
		c.ToolParser = *g.ToolParser
	}
	if err := checkTextModel(&c); err != nil {
		return nil, nil, badRequest("", "the request's settings do not fit provider %q: %v", p.Name, err)
	}
	// The rest is a Chat Completions request.
	chat := map[string]json.RawMessage{"messages": g.Messages}
	chat["model"], _ = json.Marshal(g.Model)
	if g.Temperature != nil {
		chat["temperature"] = m["temperature"]
	}
	if len(g.Tools) > 0 && string(g.Tools) != "null" {
		chat["tools"] = g.Tools
	}
	if len(g.ToolChoice) > 0 && string(g.ToolChoice) != "null" {
		var named struct {
			Name *string `json:"name"`
			Type string  `json:"type"`
		}
		if json.Unmarshal(g.ToolChoice, &named) == nil && named.Name != nil && named.Type == "" {
			chat["tool_choice"], _ = json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": *named.Name}})
		} else {
			chat["tool_choice"] = g.ToolChoice
		}
	}
	cb, _ := json.Marshal(chat)
	req, err := DecodeRequest(APIChat, cb, -1)
	if err != nil {
		return nil, nil, err
	}
	req.API = apiGenerate
	return req, &c, nil
}

// generateResponse is a turn as /generate's answer.
func generateResponse(t *Turn) []byte {
	b := jsonStr([]byte(`{"thinking":`), t.Reasoning)
	b = jsonStr(append(b, `,"response":`...), t.Text)
	b = append(b, `,"tool_calls":[`...)
	for i, c := range t.Calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonStr(append(b, `{"id":`...), c.ID)
		b = jsonStr(append(b, `,"name":`...), c.Name)
		b = append(append(b, `,"arguments":`...), argsOrEmpty(c.Arguments)...)
		b = append(b, '}')
	}
	pre := ""
	if len(t.Calls) > 0 {
		pre = t.PreCallText
	}
	b = jsonStr(append(b, `],"pre_tool_text":`...), pre)
	b = append(b, `,"finish_reason":`...)
	b = jsonStr(b, string(t.Finish))
	b = append(b, `,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, known(t.Usage.InputTokens), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, known(t.Usage.OutputTokens), 10)
	b = append(b, `,"reasoning_tokens":`...)
	b = strconv.AppendInt(b, known(t.Usage.ReasoningTokens), 10)
	return append(b, "}}"...)
}
