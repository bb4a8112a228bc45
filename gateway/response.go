// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import "errors"

// EncodeResponse writes a whole turn as front door api's non-streaming
// response body. The gateway always streams from the backend and collects
// the events, so a non-streaming client gets exactly what a streaming one
// would have assembled. A turn that failed is not a response: write the
// API's error body instead.
func EncodeResponse(api API, t *Turn, opts *EncodeOptions) ([]byte, error) {
	var o EncodeOptions
	if opts != nil {
		o = *opts
	}
	if o.ID == "" {
		o.ID = t.ID
	}
	if o.Model == "" {
		o.Model = t.Model
	}
	if o.ReasoningField == "" {
		o.ReasoningField = ReasoningContent
	}
	switch api {
	case APIChat:
		return chatResponse(t, &o), nil
	case APIMessages:
		return messagesResponse(t, &o), nil
	case APIResponses:
		return responsesResponse(t, &o), nil
	case APIGemini:
		return geminiResponse(t, &o), nil
	case apiGenerate:
		return generateResponse(t), nil
	}
	return nil, errors.New("gateway: unknown api " + string(api))
}

// turnRoom is about the length of t's response body: its strings and
// room for the members around them, so that the body is written into
// one buffer rather than grown a dozen times from a few bytes.
func turnRoom(t *Turn, o *EncodeOptions) int {
	n := 384 + len(o.ID) + len(o.Model) + len(t.Text) + 2*len(t.Reasoning) + len(t.Signature)
	for i := range t.Calls {
		n += 96 + len(t.Calls[i].ID) + len(t.Calls[i].Name) + len(t.Calls[i].Arguments)
	}
	return n
}

func chatResponse(t *Turn, o *EncodeOptions) []byte {
	b := jsonStr(append(make([]byte, 0, turnRoom(t, o)), `{"id":`...), o.ID)
	b = append(b, `,"object":"chat.completion","created":`...)
	b = jsonInt(b, o.Created)
	b = jsonStr(append(b, `,"model":`...), o.Model)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	if t.Text == "" && len(t.Calls) > 0 {
		b = append(b, "null"...)
	} else {
		b = jsonStr(b, t.Text)
	}
	if t.Reasoning != "" {
		switch o.ReasoningField {
		case ReasoningPlain:
			b = jsonStr(append(b, `,"reasoning":`...), t.Reasoning)
		case ReasoningBoth:
			b = jsonStr(append(b, `,"reasoning_content":`...), t.Reasoning)
			b = jsonStr(append(b, `,"reasoning":`...), t.Reasoning)
		default:
			b = jsonStr(append(b, `,"reasoning_content":`...), t.Reasoning)
		}
	}
	if len(t.Calls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i, c := range t.Calls {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonStr(append(b, `{"id":`...), c.ID)
			b = jsonStr(append(b, `,"type":"function","function":{"name":`...), c.Name)
			b = jsonStr(append(b, `,"arguments":`...), string(argsOrEmpty(c.Arguments)))
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	b = append(b, `},"finish_reason":`...)
	b = jsonStr(b, chatFinish(t.Finish, len(t.Calls)))
	u := t.Usage
	b = append(b, `}],"usage":{"prompt_tokens":`...)
	b = jsonInt(b, known(u.InputTokens))
	b = append(b, `,"completion_tokens":`...)
	b = jsonInt(b, known(u.OutputTokens))
	b = append(b, `,"total_tokens":`...)
	b = jsonInt(b, known(u.InputTokens)+known(u.OutputTokens))
	if u.CacheReadTokens >= 0 {
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = jsonInt(b, u.CacheReadTokens)
		b = append(b, '}')
	}
	if u.ReasoningTokens >= 0 {
		b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
		b = jsonInt(b, u.ReasoningTokens)
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func argsOrEmpty(a []byte) []byte {
	if len(a) == 0 {
		return []byte("{}")
	}
	return a
}

func messagesResponse(t *Turn, o *EncodeOptions) []byte {
	b := jsonStr(append(make([]byte, 0, turnRoom(t, o)), `{"id":`...), o.ID)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = jsonStr(b, o.Model)
	b = append(b, `,"content":[`...)
	n := 0
	sep := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
	}
	if t.Reasoning != "" || t.Signature != "" {
		sep()
		b = jsonStr(append(b, `{"type":"thinking","thinking":`...), t.Reasoning)
		b = jsonStr(append(b, `,"signature":`...), t.Signature)
		b = append(b, '}')
	}
	for _, r := range t.Redacted {
		sep()
		b = jsonStr(append(b, `{"type":"redacted_thinking","data":`...), r)
		b = append(b, '}')
	}
	for i := range t.ServerCalls {
		sep()
		b = appendMCPToolUse(b, &t.ServerCalls[i])
		sep()
		b = appendMCPToolResult(b, &t.ServerCalls[i])
	}
	if t.Text != "" {
		sep()
		b = jsonStr(append(b, `{"type":"text","text":`...), t.Text)
		b = append(b, '}')
	}
	for _, c := range t.Calls {
		sep()
		b = jsonStr(append(b, `{"type":"tool_use","id":`...), c.ID)
		b = jsonStr(append(b, `,"name":`...), c.Name)
		b = append(append(b, `,"input":`...), argsOrEmpty(c.Arguments)...)
		b = append(b, '}')
	}
	b = append(b, `],"stop_reason":`...)
	b = jsonStr(b, messagesStop(t.Finish, len(t.Calls)))
	b = append(b, `,"stop_sequence":null,"usage":`...)
	m := messagesEncoder{usage: t.Usage}
	b = m.appendUsage(b)
	return append(b, '}')
}

func responsesResponse(t *Turn, o *EncodeOptions) []byte {
	r := &responsesEncoder{o: *o, id: o.ID, model: o.Model, item: -1, usage: t.Usage}
	add := func(kind, id string, fill func()) {
		r.item, r.kind, r.itemID = r.items, kind, id
		r.items++
		r.text, r.sig = r.text[:0], ""
		fill()
		if len(r.output) > 0 {
			r.output = append(r.output, ',')
		}
		r.output = r.appendItem(r.output, true)
	}
	if t.Reasoning != "" || t.Signature != "" {
		add("reasoning", r.newID("rs"), func() { r.text = append(r.text, t.Reasoning...); r.sig = t.Signature })
	}
	for i := range t.ServerCalls {
		if len(r.output) > 0 {
			r.output = append(r.output, ',')
		}
		r.output = appendMCPCall(r.output, &t.ServerCalls[i], "completed")
		r.items++
	}
	if t.Text != "" {
		add("message", r.newID("msg"), func() { r.text = append(r.text, t.Text...) })
	}
	for _, c := range t.Calls {
		kind := "function_call"
		if o.origins[c.Name].Custom {
			kind = "custom_tool_call"
		}
		add(kind, r.newID("fc"), func() {
			r.callID, r.callName = c.ID, c.Name
			r.text = append(r.text, argsOrEmpty(c.Arguments)...)
		})
	}
	status := "completed"
	if t.Finish == FinishLength {
		status = "incomplete"
	}
	// response() writes the member `"response":{...}` of a stream event;
	// the body is its value.
	b := r.response(nil, status, true)
	return b[len(`"response":`):]
}
