// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import "encoding/json"

// messagesDecoder reads Anthropic Messages stream events: message_start
// (usage without cache tokens, which are folded in), content blocks of
// text, thinking (with its signature), redacted thinking and tool use,
// message_delta (stop reason and cumulative usage, later wins), ping and
// error. A second message_start — a proxy's retry spliced into the
// stream — continues the same turn with a warning.
type messagesDecoder struct {
	n       int64
	started bool
	done    bool
	calls   calls
	blocks  map[int]string // open block index -> type
	tool    map[int]bool   // block index -> it is the open call
	stop    string
	usage   Usage
	skipped map[string]bool
	names   nameCache
}

func newMessagesDecoder() *messagesDecoder {
	return &messagesDecoder{blocks: map[int]string{}, tool: map[int]bool{}, usage: unknownUsage()}
}

type messagesUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
}

// fold merges u into m. Anthropic's input_tokens excludes the cache, so
// the total input is the sum of the three whenever input_tokens is known.
func (d *messagesDecoder) fold(u *messagesUsage) {
	if u.CacheCreationInputTokens != nil {
		d.usage.CacheWriteTokens = *u.CacheCreationInputTokens
	}
	if u.CacheReadInputTokens != nil {
		d.usage.CacheReadTokens = *u.CacheReadInputTokens
	}
	if u.InputTokens != nil {
		in := *u.InputTokens
		if d.usage.CacheWriteTokens > 0 {
			in += d.usage.CacheWriteTokens
		}
		if d.usage.CacheReadTokens > 0 {
			in += d.usage.CacheReadTokens
		}
		d.usage.InputTokens = in
	}
	if u.OutputTokens != nil {
		d.usage.OutputTokens = *u.OutputTokens
	}
}

type messagesEvent struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string         `json:"id"`
		Model string         `json:"model"`
		Usage *messagesUsage `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *messagesDelta `json:"delta"`
	Usage *messagesUsage `json:"usage"`
	Error *apiError      `json:"error"`
}

type messagesDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	Thinking    string  `json:"thinking"`
	Signature   string  `json:"signature"`
	PartialJSON string  `json:"partial_json"`
	StopReason  *string `json:"stop_reason"`
}

func (d *messagesDecoder) Decode(name string, data []byte) ([]Event, error) {
	d.n++
	if d.done {
		return nil, nil
	}
	var e messagesEvent
	if err := decodeMessagesEvent(data, &e, &d.names); err != nil {
		return nil, malformed(d.n, name, err)
	}
	var out []Event
	switch e.Type {
	case "message_start":
		if e.Message == nil {
			return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: e.Type, Detail: "no message"}
		}
		if d.started {
			// A proxy's retry spliced in. Before any content it is
			// harmless; inside a tool call the call can never be
			// completed, and what was sent of it cannot be taken back.
			if d.calls.open {
				return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: e.Type, Detail: "a second message_start inside an open tool_use block"}
			}
			d.blocks, d.tool = map[int]string{}, map[int]bool{}
			return append(out, Event{Kind: EventWarning, Text: "a second message_start continues the same message"}), nil
		}
		d.started = true
		out = append(out, Event{Kind: EventStart, ID: e.Message.ID, Model: e.Message.Model})
		if u := e.Message.Usage; u != nil {
			d.fold(u)
			out = append(out, d.usageEvent())
		}
	case "content_block_start":
		b := e.ContentBlock
		if b == nil {
			return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: e.Type, Detail: "no content_block"}
		}
		out = d.ensureStart(out)
		d.blocks[e.Index] = b.Type
		switch b.Type {
		case "text":
			if b.Text != "" {
				out = append(out, Event{Kind: EventText, Text: b.Text})
			}
		case "thinking":
			if b.Thinking != "" {
				out = append(out, Event{Kind: EventReasoning, Text: b.Thinking})
			}
			if b.Signature != "" {
				out = append(out, Event{Kind: EventSignature, Text: b.Signature})
			}
		case "redacted_thinking":
			out = append(out, Event{Kind: EventRedactedReasoning, Text: b.Data})
		case "tool_use":
			out = d.calls.start(out, b.ID, b.Name)
			d.tool = map[int]bool{e.Index: true}
			if in := b.Input; len(in) > 2 && string(in) != "{}" {
				// A proxy that does not stream the input sends it whole here.
				out = d.calls.args(out, string(in))
			}
		default:
			out = d.skip(out, b.Type)
		}
	case "content_block_delta":
		if e.Delta == nil {
			return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: e.Type, Detail: "no delta"}
		}
		switch e.Delta.Type {
		case "text_delta":
			if e.Delta.Text != "" {
				out = append(out, Event{Kind: EventText, Text: e.Delta.Text})
			}
		case "thinking_delta":
			if e.Delta.Thinking != "" {
				out = append(out, Event{Kind: EventReasoning, Text: e.Delta.Thinking})
			}
		case "signature_delta":
			if e.Delta.Signature != "" {
				out = append(out, Event{Kind: EventSignature, Text: e.Delta.Signature})
			}
		case "input_json_delta":
			if !d.tool[e.Index] {
				if d.blocks[e.Index] == "tool_use" {
					return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: e.Type, Detail: "input for a tool_use block already closed"}
				}
				break // input of a server tool block we do not carry
			}
			out = d.calls.args(out, e.Delta.PartialJSON)
		default:
			out = d.skip(out, e.Delta.Type)
		}
	case "content_block_stop":
		if d.tool[e.Index] {
			out = d.calls.end(out)
			delete(d.tool, e.Index)
		}
		delete(d.blocks, e.Index)
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != nil {
			d.stop = *e.Delta.StopReason
		}
		if e.Usage != nil {
			d.fold(e.Usage)
			out = append(out, d.usageEvent())
		}
	case "message_stop":
		out = d.ensureStart(out)
		d.done = true
		return d.calls.finish(out, finishOf(d.stop), d.stop), nil
	case "ping":
	case "error":
		d.done = true
		if e.Error == nil {
			e.Error = &apiError{Type: "error"}
		}
		return append(out, e.Error.event(0)), nil
	default:
		out = d.skip(out, e.Type)
	}
	return out, nil
}

func (d *messagesDecoder) ensureStart(out []Event) []Event {
	if !d.started {
		d.started = true
		out = append(out, Event{Kind: EventStart}, Event{Kind: EventWarning, Text: "the stream had no message_start"})
	}
	return out
}

func (d *messagesDecoder) usageEvent() Event {
	u := d.usage
	return Event{Kind: EventUsage, Usage: &u}
}

// skip warns once per kind of block or event the gateway does not carry
// (server tool results, citations, new kinds), so nothing is dropped in
// silence.
func (d *messagesDecoder) skip(out []Event, kind string) []Event {
	if d.skipped == nil {
		d.skipped = map[string]bool{}
	}
	if d.skipped[kind] {
		return out
	}
	d.skipped[kind] = true
	return append(out, Event{Kind: EventWarning, Text: "not carried: " + truncateKind(kind)})
}

// truncateKind bounds a type name taken from the stream before it goes
// into a warning.
func truncateKind(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return "an unnamed kind"
		}
	}
	return s
}

func (d *messagesDecoder) End() ([]Event, error) {
	if d.done {
		return nil, nil
	}
	return nil, &StreamError{Err: ErrIncomplete, Event: d.n, Detail: "no message_stop"}
}
