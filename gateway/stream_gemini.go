// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// geminiDecoder reads a streamGenerateContent?alt=sse stream: one
// GenerateContentResponse an event. Text parts are the answer, thought
// parts the reasoning, functionCall parts whole calls (an id made where
// Gemini gave none, the part's thoughtSignature carried in the id, see
// [joinCallID]); usageMetadata comes with every chunk, the last figures
// winning; the candidate's finishReason is held until the stream ends,
// and a stream that ends without one is incomplete. A prompt blocked
// before any candidate (promptFeedback.blockReason) ends the turn as
// content_filter.
type geminiDecoder struct {
	n       int64
	started bool
	done    bool
	calls   calls
	finish  string
	blocked string
	usage   Usage
	skipped map[string]bool
	chunk   gchunk // reused for each event
	// streamed is the call being sent in pieces, nil when none is (see
	// streamedCall).
	streamed *streamedCall
}

func newGeminiDecoder() *geminiDecoder { return &geminiDecoder{usage: unknownUsage()} }

type geminiUsage struct {
	PromptTokenCount        *int64 `json:"promptTokenCount"`
	CandidatesTokenCount    *int64 `json:"candidatesTokenCount"`
	ThoughtsTokenCount      *int64 `json:"thoughtsTokenCount"`
	CachedContentTokenCount *int64 `json:"cachedContentTokenCount"`
	ToolUsePromptTokenCount *int64 `json:"toolUsePromptTokenCount"`
	TotalTokenCount         *int64 `json:"totalTokenCount"`
}

// geminiError is Google's error object.
type geminiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

func (e *geminiError) event() Event {
	return Event{Kind: EventError, Err: &BackendError{Status: e.Code, Type: e.Status, Message: e.Message}}
}

// fold sets the usage from Gemini's counts: the prompt includes the
// cached tokens, as Usage counts them; the output is the candidates'
// tokens and the thoughts', which Gemini counts apart.
func (d *geminiDecoder) fold(u *geminiUsage) {
	if u.PromptTokenCount != nil {
		d.usage.InputTokens = *u.PromptTokenCount
		if u.ToolUsePromptTokenCount != nil {
			d.usage.InputTokens += *u.ToolUsePromptTokenCount
		}
	}
	thoughts := int64(0)
	if u.ThoughtsTokenCount != nil {
		thoughts = *u.ThoughtsTokenCount
		d.usage.ReasoningTokens = thoughts
	} else if u.CandidatesTokenCount != nil {
		d.usage.ReasoningTokens = 0
	}
	if u.CandidatesTokenCount != nil {
		d.usage.OutputTokens = *u.CandidatesTokenCount + thoughts
	} else if u.ThoughtsTokenCount != nil {
		d.usage.OutputTokens = thoughts
	}
	if u.CachedContentTokenCount != nil {
		d.usage.CacheReadTokens = *u.CachedContentTokenCount
	} else if u.PromptTokenCount != nil {
		d.usage.CacheReadTokens = 0
	}
}

// geminiFinish maps Gemini's finishReason to the gateway's.
func geminiFinish(reason string) Finish {
	switch reason {
	case "STOP", "FINISH_REASON_UNSPECIFIED", "":
		return FinishStop
	case "MAX_TOKENS":
		return FinishLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE":
		return FinishContentFilter
	}
	// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS,
	// OTHER and reasons yet to come.
	return FinishError
}

func (d *geminiDecoder) Decode(_ string, data []byte) ([]Event, error) {
	d.n++
	if d.done {
		return nil, nil
	}
	if err := strictjson.Check(data, &strictjson.Options{MaxBytes: -1}); err != nil {
		return nil, malformed(d.n, "GenerateContentResponse", err)
	}
	c := &d.chunk
	if err := parseGeminiChunk(data, c); err != nil {
		detail := ""
		var te *typeError
		if errors.As(err, &te) {
			detail = "wrong type at " + te.ptr
			if te.ptr == "" {
				detail = "not a JSON object"
			}
		}
		return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: "GenerateContentResponse", Detail: detail}
	}
	var out []Event
	if c.err != nil {
		d.done = true
		return append(out, c.err.event()), nil
	}
	if !d.started {
		d.started = true
		out = append(out, Event{Kind: EventStart, ID: c.responseID, Model: c.model})
	}
	if c.otherCandidate {
		out = d.skip(out, "candidate")
	}
	for i := range c.parts {
		out = d.part(out, &c.parts[i])
	}
	if c.finish != "" {
		d.finish = c.finish
	}
	if c.blocked != "" {
		d.blocked = c.blocked
	}
	if c.usage != nil {
		d.fold(c.usage)
		u := d.usage
		out = append(out, Event{Kind: EventUsage, Usage: &u})
	}
	return out, nil
}

func (d *geminiDecoder) part(out []Event, p *gpart) []Event {
	if s := d.streamed; s != nil {
		if p.kind == gpartCall && p.name == "" && p.id == "" && len(p.args) == 0 {
			// The next piece of the call, or (without willContinue) its end.
			if len(p.partial) > 0 {
				s.apply(p.partial)
			}
			if !p.more {
				out = d.endStreamed(out)
			}
			return out
		}
		out = d.endStreamed(out)
	}
	switch p.kind {
	case gpartCall:
		if p.more && len(p.args) == 0 {
			d.streamed = &streamedCall{id: p.id, name: p.name, sig: p.sig}
			if len(p.partial) > 0 {
				d.streamed.apply(p.partial)
			}
			return out
		}
		id := p.id
		if id == "" {
			id = newGeminiCallID()
		}
		out = d.calls.start(out, joinCallID(id, p.sig), p.name)
		if len(p.args) > 0 {
			args := p.args
			var buf bytes.Buffer
			if json.Compact(&buf, args) == nil {
				args = buf.Bytes()
			}
			out = d.calls.args(out, string(args))
		}
		return d.calls.end(out)
	case gpartText:
		if p.text == "" {
			return out
		}
		if p.thought {
			return append(out, Event{Kind: EventReasoning, Text: p.text})
		}
		return append(out, Event{Kind: EventText, Text: p.text})
	case gpartSkip:
		return d.skip(out, p.skip)
	}
	return out
}

// endStreamed gives the streamed call whole.
func (d *geminiDecoder) endStreamed(out []Event) []Event {
	s := d.streamed
	d.streamed = nil
	if s.bad != "" {
		out = append(out, Event{Kind: EventWarning, Text: "a call streamed in pieces (partialArgs) was not read whole: " + s.bad})
	}
	id := s.id
	if id == "" {
		id = newGeminiCallID()
	}
	out = d.calls.start(out, joinCallID(id, s.sig), s.name)
	out = d.calls.args(out, string(s.json()))
	return d.calls.end(out)
}

func (d *geminiDecoder) skip(out []Event, kind string) []Event {
	if d.skipped == nil {
		d.skipped = map[string]bool{}
	}
	if d.skipped[kind] {
		return out
	}
	d.skipped[kind] = true
	return append(out, Event{Kind: EventWarning, Text: "not carried: " + kind})
}

func (d *geminiDecoder) End() ([]Event, error) {
	if d.done {
		return nil, nil
	}
	d.done = true
	var out []Event
	if d.streamed != nil {
		out = d.endStreamed(out)
	}
	switch {
	case d.finish != "":
		f := geminiFinish(d.finish)
		if d.finish == "MALFORMED_FUNCTION_CALL" {
			out = append(out, Event{Kind: EventWarning, Text: "the model wrote a function call Gemini could not read (MALFORMED_FUNCTION_CALL)"})
		}
		return d.calls.finish(out, f, d.finish), nil
	case d.blocked != "":
		if !d.started {
			out = append(out, Event{Kind: EventStart})
		}
		return d.calls.finish(out, FinishContentFilter, d.blocked), nil
	}
	return nil, &StreamError{Err: ErrIncomplete, Event: d.n, Detail: "no finishReason"}
}
