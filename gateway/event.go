// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// EventKind says what an [Event] carries.
type EventKind uint8

// The events of one model turn, in the order a well-formed stream gives
// them: EventStart first; reasoning, text and calls in any order (a call's
// EventCall, then its EventArguments, then its EventCallEnd, never
// interleaved with another call's); EventUsage and EventFinish last.
const (
	// EventStart opens the turn: ID and Model.
	EventStart EventKind = iota + 1
	// EventReasoning is a piece of the model's reasoning: Text.
	EventReasoning
	// EventSignature is provider state that must be replayed with the
	// reasoning just sent, to the same provider: an Anthropic thinking
	// signature, a Responses reasoning item's encrypted content. Text; ID
	// is the provider's item id when it has one.
	EventSignature
	// EventRedactedReasoning is reasoning the provider sent encrypted
	// (Anthropic redacted_thinking): Text is its opaque data.
	EventRedactedReasoning
	// EventText is a piece of the answer: Text.
	EventText
	// EventCall opens a tool call: Index (from 0, in call order), ID, Name.
	EventCall
	// EventArguments is a piece of the open call's arguments: Index, Text.
	// The pieces of one call concatenate to a JSON object.
	EventArguments
	// EventCallEnd closes the call: Index.
	EventCallEnd
	// EventUsage is the token usage so far: Usage. Later events replace
	// earlier ones field by field.
	EventUsage
	// EventFinish ends the turn: Finish, and Text the backend's own stop
	// reason as it said it.
	EventFinish
	// EventWarning is something the gateway noticed and repaired: Text, a
	// message without content from the stream.
	EventWarning
	// EventError is a failure reported by the backend inside the stream:
	// Err.
	EventError
	// EventServerTool is a call the gateway ran itself for the model — a
	// tool of its own sources, through the kernel — whole, with its
	// result: Server. The client sees it as the API's server-tool blocks
	// (Anthropic mcp_tool_use and mcp_tool_result, a Responses mcp_call
	// item), never as a call to run.
	EventServerTool
)

var kindNames = [...]string{
	EventStart: "start", EventReasoning: "reasoning", EventSignature: "signature",
	EventRedactedReasoning: "redacted_reasoning", EventText: "text", EventCall: "call",
	EventArguments: "arguments", EventCallEnd: "call_end", EventUsage: "usage",
	EventFinish: "finish", EventWarning: "warning", EventError: "error",
	EventServerTool: "server_tool",
}

func (k EventKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// Event is one step of a model turn, whichever API it came from.
type Event struct {
	Kind   EventKind
	Text   string
	Index  int
	ID     string
	Name   string
	Model  string
	Usage  *Usage
	Finish Finish
	Err    *BackendError
	Server *ServerCall
}

// ServerCall is a call the gateway ran for the model (see
// [EventServerTool]).
type ServerCall struct {
	ID   string
	Name string
	// Server names the source of the tool: Anthropic's server_name, the
	// Responses server_label.
	Server    string
	Arguments json.RawMessage
	// Result is the tool's result as text, after the kernel's firewall.
	Result  string
	IsError bool
}

// Usage counts tokens. InputTokens includes cached tokens (as OpenAI
// counts them; Anthropic's input_tokens excludes them, and is converted),
// OutputTokens includes ReasoningTokens. A negative field is unknown.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	ReasoningTokens  int64 `json:"reasoning_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
}

// unknownUsage has every field unknown.
func unknownUsage() Usage { return Usage{-1, -1, -1, -1, -1} }

// merge folds the known fields of u into m: later wins.
func (m *Usage) merge(u Usage) {
	if u.InputTokens >= 0 {
		m.InputTokens = u.InputTokens
	}
	if u.OutputTokens >= 0 {
		m.OutputTokens = u.OutputTokens
	}
	if u.ReasoningTokens >= 0 {
		m.ReasoningTokens = u.ReasoningTokens
	}
	if u.CacheReadTokens >= 0 {
		m.CacheReadTokens = u.CacheReadTokens
	}
	if u.CacheWriteTokens >= 0 {
		m.CacheWriteTokens = u.CacheWriteTokens
	}
}

// Finish is why a turn ended, in one vocabulary for every API.
type Finish string

// The finish reasons. Each front door maps them to its own words.
const (
	FinishStop          Finish = "stop"
	FinishLength        Finish = "length"
	FinishToolCalls     Finish = "tool_calls"
	FinishContentFilter Finish = "content_filter"
	FinishRefusal       Finish = "refusal"
	FinishPause         Finish = "pause"
	FinishError         Finish = "error"
)

// BackendError is an error a backend reported, in its own words. Message
// comes from the backend and is passed on only after redaction.
type BackendError struct {
	Status  int    // HTTP status, when known
	Type    string // the backend's error type or code
	Message string
}

func (e *BackendError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("backend error (%s): %s", e.Type, e.Message)
	}
	return "backend error: " + e.Message
}

// Sentinel errors of stream decoding. They are wrapped in a
// [*StreamError] that says where.
var (
	// ErrMalformed reports an event the decoder cannot read.
	ErrMalformed = errors.New("gateway: malformed backend event")
	// ErrIncomplete reports a stream that ended before the turn did.
	ErrIncomplete = errors.New("gateway: backend stream ended early")
)

// StreamError is a decoding problem at an event of a backend stream. It
// names the event and never holds the stream's content.
type StreamError struct {
	Err    error
	Event  int64  // 1-based number of the event
	Type   string // the event's type, when known
	Detail string
}

func (e *StreamError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	fmt.Fprintf(&b, " (event %d", e.Event)
	if e.Type != "" {
		fmt.Fprintf(&b, ", %q", e.Type)
	}
	b.WriteString(")")
	return b.String()
}

func (e *StreamError) Unwrap() error { return e.Err }

// Turn is a whole model turn, collected from its events: what a
// non-streaming response holds.
type Turn struct {
	ID        string
	Model     string
	Reasoning string
	// Signature is the provider state of the reasoning (see
	// EventSignature), Redacted the encrypted reasoning blocks.
	Signature string
	Redacted  []string
	Text      string
	// PreCallText is the text before the first call.
	PreCallText string
	Calls       []Call
	// ServerCalls are the calls the gateway ran itself, in order.
	ServerCalls []ServerCall
	Usage       Usage
	Finish      Finish
	// StopReason is the backend's own word for Finish.
	StopReason string
	Warnings   []string
	Err        *BackendError
}

// Call is one tool call of a [Turn].
type Call struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Collector builds a [Turn] from events, checking the stream's order: a
// call's pieces must follow its EventCall, and calls are numbered from 0.
type Collector struct {
	t    Turn
	args []strings.Builder
	open int // index of the open call, or -1
	// The text, reasoning and signature so far, grown by doubling: a
	// string concatenated once per token copies the whole answer at
	// every token. The turn's strings are the builders' (String copies
	// nothing).
	text, reasoning, sig strings.Builder
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector { return &Collector{open: -1, t: Turn{Usage: unknownUsage()}} }

// Add folds e into the turn. It returns an error when e breaks the
// stream's order, which is a bug in a decoder, not bad input.
func (c *Collector) Add(e Event) error {
	switch e.Kind {
	case EventStart:
		c.t.ID, c.t.Model = e.ID, e.Model
	case EventReasoning:
		c.t.Reasoning = appendTo(&c.reasoning, c.t.Reasoning, e.Text)
	case EventSignature:
		c.t.Signature = appendTo(&c.sig, c.t.Signature, e.Text)
	case EventRedactedReasoning:
		c.t.Redacted = append(c.t.Redacted, e.Text)
	case EventText:
		c.t.Text = appendTo(&c.text, c.t.Text, e.Text)
	case EventCall:
		if e.Index != len(c.t.Calls) {
			return fmt.Errorf("call %d opened after %d calls", e.Index, len(c.t.Calls))
		}
		if c.open >= 0 {
			return fmt.Errorf("call %d opened while call %d is open", e.Index, c.open)
		}
		if len(c.t.Calls) == 0 {
			c.t.PreCallText = c.t.Text
		}
		c.t.Calls = append(c.t.Calls, Call{ID: e.ID, Name: e.Name})
		c.args = append(c.args, strings.Builder{})
		c.open = e.Index
	case EventArguments:
		if e.Index != c.open {
			return fmt.Errorf("arguments for call %d while call %d is open", e.Index, c.open)
		}
		c.args[e.Index].WriteString(e.Text)
	case EventCallEnd:
		if e.Index != c.open {
			return fmt.Errorf("end of call %d while call %d is open", e.Index, c.open)
		}
		c.t.Calls[e.Index].Arguments = json.RawMessage(c.args[e.Index].String())
		c.open = -1
	case EventUsage:
		c.t.Usage.merge(*e.Usage)
	case EventFinish:
		if c.open >= 0 {
			return fmt.Errorf("finish while call %d is open", c.open)
		}
		c.t.Finish, c.t.StopReason = e.Finish, e.Text
	case EventWarning:
		c.t.Warnings = append(c.t.Warnings, e.Text)
	case EventError:
		c.t.Err = e.Err
	case EventServerTool:
		if c.open >= 0 {
			return fmt.Errorf("server tool call while call %d is open", c.open)
		}
		c.t.ServerCalls = append(c.t.ServerCalls, *e.Server)
	default:
		return fmt.Errorf("unknown event kind %d", e.Kind)
	}
	return nil
}

// appendTo returns cur+add, appended in b. A turn set from outside (cur is
// not what b holds) starts b again from cur. The comparison costs nothing
// when it is b's own string: the same bytes at the same address.
func appendTo(b *strings.Builder, cur, add string) string {
	if b.String() != cur {
		b.Reset()
		b.WriteString(cur)
	}
	b.WriteString(add)
	return b.String()
}

// Turn returns the turn collected so far.
func (c *Collector) Turn() *Turn { return &c.t }
