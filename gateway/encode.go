// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"errors"
	"strconv"

	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// ReasoningField is where a Chat Completions front door writes reasoning.
type ReasoningField string

// The reasoning fields clients read: DeepSeek, xAI and Qwen clients read
// reasoning_content, vLLM's and OpenRouter's read reasoning.
const (
	ReasoningContent ReasoningField = "reasoning_content"
	ReasoningPlain   ReasoningField = "reasoning"
	ReasoningBoth    ReasoningField = "both"
)

// EncodeOptions configures a front door's stream encoder.
type EncodeOptions struct {
	// ID is the response id the client sees. If empty, the backend's.
	ID string
	// Model is the model name the client asked for; the backend's name
	// for it is never shown. If empty, the backend's.
	Model string
	// Created is the Unix time written in the response.
	Created int64
	// IncludeUsage sends the usage chunk on Chat Completions, as
	// stream_options.include_usage asks. Messages and Responses always
	// carry usage.
	IncludeUsage bool
	// ReasoningField is the Chat Completions reasoning field. If empty,
	// ReasoningContent.
	ReasoningField ReasoningField
	// gemini is what a Gemini client asked of the answer's shape.
	gemini geminiFront
	// origins maps the flattened tool names of a Responses request to
	// the names and shapes its client declared.
	origins map[string]toolOrigin
}

// StreamEncoder writes the events of one turn as one front door's stream.
//
// Encode takes the events in the order a [StreamDecoder] gives them and
// writes what each completes; Close ends the stream (it writes nothing
// more if the stream already ended, by a finish or an error). The encoder
// owns the invariants clients depend on: blocks closed before the next
// opens, tool indexes from 0 in call order, a call's id and name in its
// first delta, a turn with calls finishing tool_calls / tool_use, usage
// merged and sent last, and a failure after the first byte written as the
// API's own error event, never a silent end. It is not safe for
// concurrent use.
type StreamEncoder interface {
	Encode(e Event) error
	Close() error
}

// errEnded reports an event after the stream's end.
var errEnded = errors.New("gateway: event after the end of the stream")

// NewStreamEncoder returns an encoder of front door api's stream to w.
func NewStreamEncoder(api API, w *sse.Writer, opts *EncodeOptions) (StreamEncoder, error) {
	var o EncodeOptions
	if opts != nil {
		o = *opts
	}
	if o.ReasoningField == "" {
		o.ReasoningField = ReasoningContent
	}
	switch api {
	case APIChat:
		return &chatEncoder{w: w, o: o, usage: unknownUsage()}, nil
	case APIMessages:
		return &messagesEncoder{w: w, o: o, usage: unknownUsage(), block: -1}, nil
	case APIResponses:
		return newResponsesEncoder(w, o), nil
	case APIGemini:
		return newGeminiEncoder(w, o), nil
	}
	return nil, errors.New("gateway: unknown api " + string(api))
}

// jsonStr appends s as a JSON string.
func jsonStr(b []byte, s string) []byte { return strictjson.AppendQuote(b, s) }

func jsonInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// known returns n, or 0 when it is unknown (negative): the APIs have no
// way to say "unknown" in a required count.
func known(n int64) int64 { return max(n, 0) }
