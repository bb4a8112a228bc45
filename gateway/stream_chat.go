// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"errors"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// chatDecoder reads OpenAI Chat Completions chunks, from OpenAI and from
// every OpenAI-compatible server: reasoning in reasoning_content (DeepSeek,
// xAI, Qwen) or reasoning (vLLM, Groq, Cerebras); tool-call indexes that
// start anywhere (Anthropic's compatible endpoint starts at 1); ids
// repeated as "" in later deltas; a whole call in one delta; usage in a
// last chunk with no choices; the finish reason held until that usage
// has had its chance to arrive.
type chatDecoder struct {
	n       int64
	started bool
	done    bool
	calls   calls
	// index maps a backend tool-call index to ours, closed marks the
	// calls closed; both are made at the first call.
	index  map[int]int
	cur    int // backend index of the open call
	closed map[int]bool
	finish string
	warned bool
	chunk  chunk // reused for each event
	// tpl is the last chunk when all it said was one string of text or
	// reasoning (see [template]), and tplKind that string's event: a
	// chunk laid out as it with only that string changed says that
	// string, and is read by checking and unquoting the string alone.
	tpl     template
	tplKind EventKind
	noTpl   bool // tests compare
	// room is where the next Decode puts its events, nil for a new
	// slice: a whole answer's events (start, reasoning, text, usage,
	// finish) are made in one go.
	room []Event
}

func newChatDecoder() *chatDecoder {
	return &chatDecoder{cur: -1}
}

type chatUsage struct {
	PromptTokens            *int64                 `json:"prompt_tokens"`
	CompletionTokens        *int64                 `json:"completion_tokens"`
	PromptTokensDetails     *chatPromptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *chatCompletionDetails `json:"completion_tokens_details"`
}

type chatPromptDetails struct {
	CachedTokens *int64 `json:"cached_tokens"`
}

type chatCompletionDetails struct {
	ReasoningTokens *int64 `json:"reasoning_tokens"`
}

func (u *chatUsage) usage() Usage {
	out := Usage{InputTokens: tokens(u.PromptTokens), OutputTokens: tokens(u.CompletionTokens), ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens = tokens(d.CachedTokens)
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = tokens(d.ReasoningTokens)
	}
	return out
}

// apiError is the error object of the OpenAI and Anthropic APIs.
type apiError struct {
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

func (e *apiError) event(status int) Event {
	typ := e.Type
	if typ == "" && len(e.Code) > 0 && e.Code[0] == '"' {
		_ = json.Unmarshal(e.Code, &typ)
	}
	return Event{Kind: EventError, Err: &BackendError{Status: status, Type: typ, Message: e.Message}}
}

func finishOf(reason string) Finish {
	switch reason {
	case "stop", "end_turn", "stop_sequence", "eos":
		return FinishStop
	case "length", "max_tokens", "model_context_window_exceeded":
		return FinishLength
	case "tool_calls", "function_call", "tool_use":
		return FinishToolCalls
	case "content_filter":
		return FinishContentFilter
	case "refusal":
		return FinishRefusal
	case "pause_turn":
		return FinishPause
	case "error":
		return FinishError
	}
	return FinishStop
}

func (d *chatDecoder) Decode(_ string, data []byte) ([]Event, error) {
	d.n++
	if d.done {
		return nil, nil
	}
	if string(data) == "[DONE]" {
		return d.end(), nil
	}
	if lit := d.tpl.match(data, &checkEvent); lit != nil {
		if s, err := strictjson.Unquote(lit); err == nil {
			if s == "" {
				return nil, nil
			}
			return []Event{{Kind: d.tplKind, Text: s}}, nil
		}
	}
	if err := strictjson.Check(data, &checkEvent); err != nil {
		return nil, malformed(d.n, "chat.completion.chunk", err)
	}
	d.tpl.ok = false
	c := &d.chunk
	if err := parseChunk(data, c); err != nil {
		detail := ""
		var te *typeError
		if errors.As(err, &te) {
			detail = "wrong type at " + te.ptr
			if te.ptr == "" {
				detail = "not a JSON object"
			}
		}
		return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: "chat.completion.chunk", Detail: detail}
	}
	out := d.room
	d.room = nil
	if c.err != nil {
		d.done = true
		return append(out, c.err.event(0)), nil
	}
	if !d.started {
		d.started = true
		out = append(out, Event{Kind: EventStart, ID: c.id, Model: c.model})
	}
	for i := range c.choices {
		ch := &c.choices[i]
		if ch.index != 0 {
			if !d.warned {
				d.warned = true
				out = append(out, Event{Kind: EventWarning, Text: "only the first choice is kept (n > 1)"})
			}
			continue
		}
		if ch.reasoningContent != "" {
			out = append(out, Event{Kind: EventReasoning, Text: ch.reasoningContent})
		} else if ch.reasoning != "" {
			out = append(out, Event{Kind: EventReasoning, Text: ch.reasoning})
		}
		if ch.content != "" {
			out = append(out, Event{Kind: EventText, Text: ch.content})
		}
		if ch.refusal != "" {
			out = append(out, Event{Kind: EventText, Text: ch.refusal})
			if d.finish == "" {
				d.finish = "refusal"
			}
		}
		for j := range ch.calls {
			tc := &ch.calls[j]
			bi := j
			if tc.hasIndex {
				bi = tc.index
			}
			if _, ok := d.index[bi]; !ok {
				if d.index == nil {
					d.index, d.closed = map[int]int{}, map[int]bool{}
				}
				if len(d.index) == 0 && bi != 0 {
					out = append(out, Event{Kind: EventWarning, Text: "tool call indexes renumbered from 0"})
				}
				d.index[bi] = d.calls.n
				if d.cur >= 0 {
					d.closed[d.cur] = true
				}
				d.cur = bi
				out = d.calls.start(out, tc.id, tc.name)
			} else if bi != d.cur || d.closed[bi] {
				return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: "chat.completion.chunk", Detail: "arguments for a tool call already closed"}
			}
			out = d.calls.args(out, tc.arguments)
		}
		if ch.finish != "" {
			if d.finish != "refusal" || ch.finish != "stop" {
				d.finish = ch.finish
			}
			out = d.calls.end(out)
			if d.cur >= 0 {
				d.closed[d.cur] = true
			}
		}
	}
	if c.usage != nil {
		u := c.usage.usage()
		out = append(out, Event{Kind: EventUsage, Usage: &u})
	}
	d.keep(data, c)
	return out, nil
}

// keep makes data, just read into c, the template when all it said was
// one string of text or reasoning of the first choice: no other choice,
// call, refusal, finish, usage or error, and no other string that a
// change of this one could bring forward (reasoning_content hides
// reasoning).
func (d *chatDecoder) keep(data []byte, c *chunk) {
	if d.noTpl || d.done || c.usage != nil || c.err != nil || len(c.choices) != 1 {
		return
	}
	ch := &c.choices[0]
	if ch.index != 0 || ch.finish != "" || len(ch.calls) != 0 || ch.refusal != "" {
		return
	}
	switch {
	case ch.content != "" && ch.reasoning == "" && ch.reasoningContent == "":
		d.tpl.keep(data, ch.contentRaw)
		d.tplKind = EventText
	case ch.content == "" && ch.reasoningContent != "" && ch.reasoning == "":
		d.tpl.keep(data, ch.reasoningContentRaw)
		d.tplKind = EventReasoning
	case ch.content == "" && ch.reasoningContent == "" && ch.reasoning != "":
		d.tpl.keep(data, ch.reasoningRaw)
		d.tplKind = EventReasoning
	}
}

// end closes the turn: open call, then the finish held until now.
func (d *chatDecoder) end() []Event { return d.endTo(nil) }

// endTo is end, appending to out.
func (d *chatDecoder) endTo(out []Event) []Event {
	d.done = true
	if !d.started {
		d.started = true
		out = append(out, Event{Kind: EventStart})
	}
	return d.calls.finish(out, finishOf(d.finish), d.finish)
}

func (d *chatDecoder) End() ([]Event, error) {
	if d.done {
		return nil, nil
	}
	if d.finish != "" {
		// Servers that never send [DONE] (and some that end the body
		// right after the finish chunk) still ended the turn.
		return d.end(), nil
	}
	return nil, &StreamError{Err: ErrIncomplete, Event: d.n, Detail: "no finish_reason and no [DONE]"}
}
