// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// An API names a model API's wire format.
type API string

// The APIs the gateway speaks, as a front door and to backends.
const (
	APIChat      API = "openai-chat"      // OpenAI Chat Completions
	APIResponses API = "openai-responses" // OpenAI Responses
	APIMessages  API = "anthropic"        // Anthropic Messages
)

// StreamDecoder turns one backend API's stream into [Event] values.
//
// Decode is called once per SSE event, in order, with the event's name
// (empty when the stream sent none) and data; End is called once when
// the stream has no more events. Both return the events the input
// completed, in order: the slice and its strings are the caller's. The
// decoder keeps the open call and the stop reason between calls, and
// nothing of an event's data after Decode returns.
//
// A decoder repairs what it can (a call index that does not start at 0, a
// second message_start, an empty arguments string) with an EventWarning.
// It returns a *StreamError (ErrMalformed) for an event it cannot read and
// ErrIncomplete from End when the stream stopped before the turn ended; a
// failure the backend reports inside the stream is an EventError, not a
// Go error. A StreamDecoder is not safe for concurrent use.
type StreamDecoder interface {
	Decode(name string, data []byte) ([]Event, error)
	End() ([]Event, error)
}

// NewStreamDecoder returns a decoder of api's streaming responses.
func NewStreamDecoder(api API) (StreamDecoder, error) {
	switch api {
	case APIChat:
		return newChatDecoder(), nil
	case APIMessages:
		return newMessagesDecoder(), nil
	case APIResponses:
		return newResponsesDecoder(), nil
	case APIGemini:
		return newGeminiDecoder(), nil
	}
	return nil, errors.New("gateway: unknown api " + string(api))
}

// calls numbers a turn's tool calls from 0 in the order they open and
// keeps the stream's order: one call open at a time.
type calls struct {
	n      int  // calls opened so far
	open   bool // call n-1 is open
	gotArg bool // the open call has had a non-empty arguments piece
}

func (c *calls) start(out []Event, id, name string) []Event {
	out = c.end(out)
	out = append(out, Event{Kind: EventCall, Index: c.n, ID: id, Name: name})
	c.n++
	c.open, c.gotArg = true, false
	return out
}

func (c *calls) args(out []Event, piece string) []Event {
	if !c.open || piece == "" {
		return out
	}
	c.gotArg = true
	return append(out, Event{Kind: EventArguments, Index: c.n - 1, Text: piece})
}

// end closes the open call; a call that had no arguments gets "{}", so
// the pieces of every call concatenate to a JSON object.
func (c *calls) end(out []Event) []Event {
	if !c.open {
		return out
	}
	if !c.gotArg {
		out = append(out, Event{Kind: EventArguments, Index: c.n - 1, Text: "{}"})
	}
	c.open = false
	return append(out, Event{Kind: EventCallEnd, Index: c.n - 1})
}

// finish is the turn's end: a turn that holds calls ends tool_calls
// whatever the backend said (several backends say "stop").
func (c *calls) finish(out []Event, f Finish, raw string) []Event {
	out = c.end(out)
	if c.n > 0 && (f == FinishStop || f == "") {
		f = FinishToolCalls
	}
	if f == "" {
		f = FinishStop
	}
	return append(out, Event{Kind: EventFinish, Finish: f, Text: raw})
}

// unmarshal reads an event's JSON strictly: duplicate names and invalid
// UTF-8 are refused before encoding/json sees it.
func unmarshal(data []byte, v any) error {
	if err := strictjson.Check(data, &strictjson.Options{MaxBytes: -1}); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

func malformed(n int64, typ string, err error) error {
	detail := ""
	var se *strictjson.Error
	if errors.As(err, &se) {
		detail = "at " + se.Pointer
		if se.Pointer == "" {
			detail = "not JSON"
		}
	} else if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			detail = "wrong type at " + te.Field
		}
	}
	return &StreamError{Err: ErrMalformed, Event: n, Type: typ, Detail: detail}
}

// tokens reads an optional token count: -1 when absent.
func tokens(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// streamReadBuffer is the most one read of a backend's stream takes: as
// much as the backend has sent since the last read, up to this, so that
// a fast backend's events are read, and written to the client, in few
// system calls.
const streamReadBuffer = 16 << 10

// readBuffers are the read buffers of backend streams.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, streamReadBuffer); return &b }}

// pump reads the SSE body of a backend response through dec and hands
// each batch of events to emit, in order. It returns nil once the turn has
// ended, the first error of emit, a *sse.Error for a body that breaks the
// framing, or the decoder's *StreamError. A body whose last event lacks
// its closing blank line still ends well when the decoder had already
// seen the turn's end (one recorded server does this), with a warning.
func pump(body io.Reader, dec StreamDecoder, maxEventBytes int, emit func([]Event) error) error {
	buf := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(buf)
	r := sse.NewReader(body, &sse.Config{MaxEventBytes: maxEventBytes, Buffer: *buf})
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, sse.ErrTruncated) {
				if evs, endErr := dec.End(); endErr == nil {
					return emit(append([]Event{{Kind: EventWarning, Text: "the stream's last event was not terminated"}}, evs...))
				}
			}
			return err
		}
		evs, err := dec.Decode(ev.Name, ev.Data)
		if len(evs) > 0 {
			if err := emit(evs); err != nil {
				return err
			}
		}
		if err != nil {
			return err
		}
	}
	evs, err := dec.End()
	if len(evs) > 0 {
		if err := emit(evs); err != nil {
			return err
		}
	}
	return err
}
