// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"strconv"

	"github.com/toolgate/toolgate/internal/sse"
)

// messagesEncoder writes Anthropic Messages stream events: message_start,
// one content block at a time (thinking with its signature, redacted
// thinking, text, tool_use with input_json_delta pieces), each closed
// before the next opens, then message_delta with the stop reason and the
// usage — held until the end, so it carries the last figures — and
// message_stop. A failure after the start is an error event.
type messagesEncoder struct {
	w       *sse.Writer
	o       EncodeOptions
	started bool
	ended   bool
	failed  bool
	block   int    // index of the open block, -1 when none
	kind    string // its type
	blocks  int    // blocks opened so far
	calls   int
	usage   Usage
	finish  Finish
	raw     string
	id      string // of EventStart, until message_start is written
	model   string
	buf     []byte
}

func (m *messagesEncoder) write(name string, b []byte) error {
	m.buf = b
	return m.w.Write(name, b)
}

func (m *messagesEncoder) start(id, model string) error {
	m.started = true
	if m.o.ID != "" {
		id = m.o.ID
	}
	if m.o.Model != "" {
		model = m.o.Model
	}
	b := append(m.buf[:0], `{"type":"message_start","message":{"id":`...)
	b = jsonStr(b, id)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = jsonStr(b, model)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":`...)
	b = m.appendUsage(b)
	b = append(b, "}}"...)
	return m.write("message_start", b)
}

// appendUsage writes the usage as Anthropic counts it: input without the
// cache tokens, which have their own fields.
func (m *messagesEncoder) appendUsage(b []byte) []byte {
	u := m.usage
	in := known(u.InputTokens) - known(u.CacheReadTokens) - known(u.CacheWriteTokens)
	b = append(b, `{"input_tokens":`...)
	b = jsonInt(b, max(in, 0))
	b = append(b, `,"cache_creation_input_tokens":`...)
	b = jsonInt(b, known(u.CacheWriteTokens))
	b = append(b, `,"cache_read_input_tokens":`...)
	b = jsonInt(b, known(u.CacheReadTokens))
	b = append(b, `,"output_tokens":`...)
	b = jsonInt(b, known(u.OutputTokens))
	return append(b, '}')
}

// open closes the open block unless it is of kind, and opens one of kind
// with the content_block body given (without its index).
func (m *messagesEncoder) open(kind string, body []byte) error {
	if m.block >= 0 && m.kind == kind && kind != "tool_use" && kind != "redacted_thinking" {
		return nil
	}
	if err := m.closeBlock(); err != nil {
		return err
	}
	m.block, m.kind = m.blocks, kind
	m.blocks++
	b := append(m.buf[:0], `{"type":"content_block_start","index":`...)
	b = jsonInt(b, int64(m.block))
	b = append(b, `,"content_block":`...)
	b = append(b, body...)
	b = append(b, '}')
	return m.write("content_block_start", b)
}

func (m *messagesEncoder) closeBlock() error {
	if m.block < 0 {
		return nil
	}
	b := append(m.buf[:0], `{"type":"content_block_stop","index":`...)
	b = jsonInt(b, int64(m.block))
	b = append(b, '}')
	m.block = -1
	return m.write("content_block_stop", b)
}

func (m *messagesEncoder) delta(typ, field, text string) error {
	b := append(m.buf[:0], `{"type":"content_block_delta","index":`...)
	b = jsonInt(b, int64(m.block))
	b = append(b, `,"delta":{"type":`...)
	b = jsonStr(b, typ)
	b = append(b, ',')
	b = jsonStr(b, field)
	b = append(b, ':')
	b = jsonStr(b, text)
	b = append(b, "}}"...)
	return m.write("content_block_delta", b)
}

func (m *messagesEncoder) Encode(e Event) error {
	if m.ended {
		if m.failed || e.Kind == EventWarning {
			return nil // nothing more is said after an error event
		}
		return errEnded
	}
	// message_start waits for the first content, so that it carries the
	// input tokens a backend reports at its start (the SDKs read them
	// there).
	switch e.Kind {
	case EventStart:
		if !m.started && m.id == "" && m.model == "" {
			m.id, m.model = e.ID, e.Model
		}
		return nil
	case EventUsage:
		m.usage.merge(*e.Usage)
		return nil
	case EventWarning:
		return nil
	}
	if !m.started {
		if err := m.start(m.id, m.model); err != nil {
			return err
		}
	}
	switch e.Kind {
	case EventReasoning:
		if err := m.open("thinking", []byte(`{"type":"thinking","thinking":"","signature":""}`)); err != nil {
			return err
		}
		return m.delta("thinking_delta", "thinking", e.Text)
	case EventSignature:
		// A signature belongs to the thinking block it follows.
		if err := m.open("thinking", []byte(`{"type":"thinking","thinking":"","signature":""}`)); err != nil {
			return err
		}
		return m.delta("signature_delta", "signature", e.Text)
	case EventRedactedReasoning:
		b := jsonStr([]byte(`{"type":"redacted_thinking","data":`), e.Text)
		return m.open("redacted_thinking", append(b, '}'))
	case EventText:
		if err := m.open("text", []byte(`{"type":"text","text":""}`)); err != nil {
			return err
		}
		return m.delta("text_delta", "text", e.Text)
	case EventCall:
		b := jsonStr([]byte(`{"type":"tool_use","id":`), e.ID)
		b = jsonStr(append(b, `,"name":`...), e.Name)
		b = append(b, `,"input":{}}`...)
		m.calls++
		return m.open("tool_use", b)
	case EventArguments:
		return m.delta("input_json_delta", "partial_json", e.Text)
	case EventCallEnd:
		return m.closeBlock()
	case EventServerTool:
		if err := m.closeBlock(); err != nil {
			return err
		}
		if err := m.open("mcp_tool_use", appendMCPToolUse(nil, e.Server)); err != nil {
			return err
		}
		if err := m.closeBlock(); err != nil {
			return err
		}
		if err := m.open("mcp_tool_result", appendMCPToolResult(nil, e.Server)); err != nil {
			return err
		}
		return m.closeBlock()
	case EventFinish:
		m.finish, m.raw = e.Finish, e.Text
		return m.end()
	case EventError:
		m.ended, m.failed = true, true
		return m.write("error", messagesError(e.Err))
	}
	return nil
}

func messagesStop(f Finish, calls int) string {
	switch {
	case calls > 0 && (f == FinishStop || f == FinishToolCalls):
		return "tool_use"
	case f == FinishLength:
		return "max_tokens"
	case f == FinishRefusal || f == FinishContentFilter:
		return "refusal"
	case f == FinishPause:
		return "pause_turn"
	}
	return "end_turn"
}

func (m *messagesEncoder) end() error {
	m.ended = true
	if err := m.closeBlock(); err != nil {
		return err
	}
	b := append(m.buf[:0], `{"type":"message_delta","delta":{"stop_reason":`...)
	b = jsonStr(b, messagesStop(m.finish, m.calls))
	b = append(b, `,"stop_sequence":null},"usage":`...)
	b = m.appendUsage(b)
	b = append(b, '}')
	if err := m.write("message_delta", b); err != nil {
		return err
	}
	return m.write("message_stop", []byte(`{"type":"message_stop"}`))
}

func messagesError(e *BackendError) []byte {
	typ := e.Type
	if typ == "" {
		typ = "api_error"
	}
	b := jsonStr([]byte(`{"type":"error","error":{"type":`), typ)
	b = jsonStr(append(b, `,"message":`...), e.Message)
	return append(b, "}}"...)
}

func (m *messagesEncoder) Close() error {
	if m.ended {
		return nil
	}
	return m.Encode(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: "the backend's stream ended before the turn did"}})
}

// appendMCPToolUse appends c as an Anthropic mcp_tool_use block.
func appendMCPToolUse(b []byte, c *ServerCall) []byte {
	b = jsonStr(append(b, `{"type":"mcp_tool_use","id":`...), c.ID)
	b = jsonStr(append(b, `,"name":`...), c.Name)
	b = jsonStr(append(b, `,"server_name":`...), c.Server)
	b = append(append(b, `,"input":`...), argsOrEmpty(c.Arguments)...)
	return append(b, '}')
}

// appendMCPToolResult appends c's result as an Anthropic mcp_tool_result
// block.
func appendMCPToolResult(b []byte, c *ServerCall) []byte {
	b = jsonStr(append(b, `{"type":"mcp_tool_result","tool_use_id":`...), c.ID)
	b = append(b, `,"is_error":`...)
	b = strconv.AppendBool(b, c.IsError)
	b = jsonStr(append(b, `,"content":[{"type":"text","text":`...), c.Result)
	return append(b, "}]}"...)
}
