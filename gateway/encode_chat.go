// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import "github.com/toolgate/toolgate/internal/sse"

// chatEncoder writes Chat Completions chunks: a first chunk with the
// role, reasoning in the configured field, tool calls with their index,
// id, type and name in the first delta and arguments after, a finish
// chunk, a usage chunk with no choices when the client asked for one, and
// data: [DONE]. A failure after the start is an error chunk, with no
// [DONE], which the OpenAI SDKs raise as an APIError.
type chatEncoder struct {
	w       *sse.Writer
	o       EncodeOptions
	id      string
	model   string
	started bool
	ended   bool
	failed  bool
	calls   int
	usage   Usage
	finish  Finish
	buf     []byte
	// prefix is every chunk's constant start (id, object, created,
	// model), written once the stream has started.
	prefix []byte
}

func (c *chatEncoder) head() []byte {
	if c.prefix != nil {
		return append(c.buf[:0], c.prefix...)
	}
	b := append(c.buf[:0], `{"id":`...)
	b = jsonStr(b, c.id)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = jsonInt(b, c.o.Created)
	b = append(b, `,"model":`...)
	b = jsonStr(b, c.model)
	if c.started {
		c.prefix = append([]byte(nil), b...)
	}
	return b
}

// delta writes one chunk whose choice holds the delta members in body
// (without braces) and finish reason (null when empty).
func (c *chatEncoder) delta(body []byte, finish string) error {
	b := c.head()
	b = append(b, `,"choices":[{"index":0,"delta":{`...)
	b = append(b, body...)
	b = append(b, `},"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = jsonStr(b, finish)
	}
	b = append(b, "}]}"...)
	c.buf = b
	return c.w.Write("", b)
}

func (c *chatEncoder) start(id, model string) error {
	c.started = true
	c.id, c.model = c.o.ID, c.o.Model
	if c.id == "" {
		c.id = id
	}
	if c.model == "" {
		c.model = model
	}
	return c.delta([]byte(`"role":"assistant","content":""`), "")
}

func (c *chatEncoder) Encode(e Event) error {
	if c.ended {
		if c.failed || e.Kind == EventWarning {
			return nil // nothing more is said after an error event
		}
		return errEnded
	}
	if !c.started && e.Kind != EventStart {
		if err := c.start("", ""); err != nil {
			return err
		}
	}
	var body []byte
	switch e.Kind {
	case EventStart:
		if c.started {
			return nil
		}
		return c.start(e.ID, e.Model)
	case EventReasoning:
		switch c.o.ReasoningField {
		case ReasoningPlain:
			body = jsonStr(append(body, `"reasoning":`...), e.Text)
		case ReasoningBoth:
			body = jsonStr(append(body, `"reasoning_content":`...), e.Text)
			body = jsonStr(append(body, `,"reasoning":`...), e.Text)
		default:
			body = jsonStr(append(body, `"reasoning_content":`...), e.Text)
		}
	case EventText:
		body = jsonStr(append(body, `"content":`...), e.Text)
	case EventCall:
		body = append(body, `"tool_calls":[{"index":`...)
		body = jsonInt(body, int64(c.calls))
		c.calls++
		body = append(body, `,"id":`...)
		body = jsonStr(body, e.ID)
		body = append(body, `,"type":"function","function":{"name":`...)
		body = jsonStr(body, e.Name)
		body = append(body, `,"arguments":""}}]`...)
	case EventArguments:
		body = append(body, `"tool_calls":[{"index":`...)
		body = jsonInt(body, int64(c.calls-1))
		body = append(body, `,"function":{"arguments":`...)
		body = jsonStr(body, e.Text)
		body = append(body, `}}]`...)
	case EventUsage:
		c.usage.merge(*e.Usage)
		return nil
	case EventFinish:
		c.finish = e.Finish
		return c.end()
	case EventError:
		c.ended, c.failed = true, true
		return c.w.Write("", chatError(e.Err))
	default:
		// Signatures and redacted reasoning have no place in Chat
		// Completions; call ends and warnings need no bytes.
		return nil
	}
	return c.delta(body, "")
}

func chatFinish(f Finish, calls int) string {
	switch {
	case calls > 0 && (f == FinishStop || f == FinishToolCalls):
		return "tool_calls"
	case f == FinishLength:
		return "length"
	case f == FinishContentFilter || f == FinishRefusal:
		return "content_filter"
	}
	return "stop"
}

func (c *chatEncoder) end() error {
	c.ended = true
	if err := c.delta(nil, chatFinish(c.finish, c.calls)); err != nil {
		return err
	}
	if c.o.IncludeUsage {
		u := c.usage
		b := c.head()
		b = append(b, `,"choices":[],"usage":{"prompt_tokens":`...)
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
		b = append(b, "}}"...)
		c.buf = b
		if err := c.w.Write("", b); err != nil {
			return err
		}
	}
	return c.w.Write("", []byte("[DONE]"))
}

func chatError(e *BackendError) []byte {
	typ := e.Type
	if typ == "" {
		typ = "api_error"
	}
	b := []byte(`{"error":{"message":`)
	b = jsonStr(b, e.Message)
	b = append(b, `,"type":`...)
	b = jsonStr(b, typ)
	b = append(b, `,"code":null}}`...)
	return b
}

func (c *chatEncoder) Close() error {
	if c.ended {
		return nil
	}
	return c.Encode(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: "the backend's stream ended before the turn did"}})
}
