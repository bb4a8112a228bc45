// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import "encoding/json"

// responsesDecoder reads OpenAI Responses stream events: output items of
// reasoning (summary text, or the open-model reasoning_text LM Studio and
// vLLM send; encrypted content kept as the signature), messages and
// function calls; the usage and status of response.completed,
// response.incomplete and response.failed; and error events.
type responsesDecoder struct {
	n       int64
	started bool
	done    bool
	calls   calls
	items   map[string]int // function_call item id -> our call index
	summary map[string]int // reasoning item id -> summary parts seen
	skipped map[string]bool
	errored bool // an error event came: the turn failed
	names   nameCache
}

func newResponsesDecoder() *responsesDecoder {
	return &responsesDecoder{items: map[string]int{}, summary: map[string]int{}}
}

type responsesItem struct {
	ID               string `json:"id"`
	Type             string `json:"type"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
}

type responsesUsage struct {
	InputTokens         *int64                  `json:"input_tokens"`
	OutputTokens        *int64                  `json:"output_tokens"`
	InputTokensDetails  *responsesInputDetails  `json:"input_tokens_details"`
	OutputTokensDetails *responsesOutputDetails `json:"output_tokens_details"`
}

type responsesInputDetails struct {
	CachedTokens *int64 `json:"cached_tokens"`
}

type responsesOutputDetails struct {
	ReasoningTokens *int64 `json:"reasoning_tokens"`
}

type responsesEvent struct {
	Type     string `json:"type"`
	Response *struct {
		ID                string               `json:"id"`
		Model             string               `json:"model"`
		Status            string               `json:"status"`
		Usage             *responsesUsage      `json:"usage"`
		Error             *apiError            `json:"error"`
		IncompleteDetails *responsesIncomplete `json:"incomplete_details"`
	} `json:"response"`
	Item         *responsesItem `json:"item"`
	ItemID       string         `json:"item_id"`
	SummaryIndex int            `json:"summary_index"`
	Delta        string         `json:"delta"`
	Arguments    string         `json:"arguments"`
	// error events: the fields at the top (as documented) or in an
	// error object (as OpenAI sends them)
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Error   *apiError       `json:"error"`
}

func (d *responsesDecoder) Decode(name string, data []byte) ([]Event, error) {
	d.n++
	if d.done {
		return nil, nil
	}
	var e responsesEvent
	if err := decodeResponsesEvent(data, &e, &d.names); err != nil {
		return nil, malformed(d.n, name, err)
	}
	var out []Event
	switch e.Type {
	case "response.created", "response.in_progress", "response.queued":
		if !d.started && e.Response != nil {
			d.started = true
			out = append(out, Event{Kind: EventStart, ID: e.Response.ID, Model: e.Response.Model})
		}
	case "response.output_item.added":
		out = d.ensureStart(out)
		if it := e.Item; it != nil {
			switch it.Type {
			case "function_call":
				d.items[it.ID] = d.calls.n
				out = d.calls.start(out, it.CallID, it.Name)
			case "reasoning", "message":
			default:
				out = d.skip(out, it.Type)
			}
		}
	case "response.output_text.delta", "response.refusal.delta":
		if e.Delta != "" {
			out = append(out, Event{Kind: EventText, Text: e.Delta})
		}
	case "response.reasoning_summary_part.added":
		// Parts of one summary are paragraphs: keep them apart.
		if d.summary[e.ItemID] > 0 {
			out = append(out, Event{Kind: EventReasoning, Text: "\n\n"})
		}
		d.summary[e.ItemID]++
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if e.Delta != "" {
			out = append(out, Event{Kind: EventReasoning, Text: e.Delta})
		}
	case "response.function_call_arguments.delta":
		i, ok := d.items[e.ItemID]
		if !ok || i != d.calls.n-1 || !d.calls.open {
			return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: e.Type, Detail: "arguments for a call that is not open"}
		}
		out = d.calls.args(out, e.Delta)
	case "response.function_call_arguments.done":
		if i, ok := d.items[e.ItemID]; ok && i == d.calls.n-1 && d.calls.open && !d.calls.gotArg {
			out = d.calls.args(out, e.Arguments)
		}
	case "response.output_item.done":
		if it := e.Item; it != nil {
			switch it.Type {
			case "function_call":
				if i, ok := d.items[it.ID]; ok && i == d.calls.n-1 && d.calls.open {
					if !d.calls.gotArg {
						out = d.calls.args(out, it.Arguments)
					}
					out = d.calls.end(out)
				}
			case "reasoning":
				if it.EncryptedContent != "" {
					out = append(out, Event{Kind: EventSignature, ID: it.ID, Text: it.EncryptedContent})
				}
			}
		}
	case "response.completed", "response.incomplete", "response.failed":
		out = d.ensureStart(out)
		d.done = true
		r := e.Response
		if r == nil {
			return nil, &StreamError{Err: ErrMalformed, Event: d.n, Type: e.Type, Detail: "no response"}
		}
		if r.Usage != nil {
			u := Usage{InputTokens: tokens(r.Usage.InputTokens), OutputTokens: tokens(r.Usage.OutputTokens), ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}
			if x := r.Usage.InputTokensDetails; x != nil {
				u.CacheReadTokens = tokens(x.CachedTokens)
			}
			if x := r.Usage.OutputTokensDetails; x != nil {
				u.ReasoningTokens = tokens(x.ReasoningTokens)
			}
			out = append(out, Event{Kind: EventUsage, Usage: &u})
		}
		switch e.Type {
		case "response.failed":
			out = d.calls.end(out)
			switch {
			case d.errored:
			case r.Error != nil:
				out = append(out, r.Error.event(0))
			default:
				out = append(out, Event{Kind: EventError, Err: &BackendError{Type: "response.failed"}})
			}
			return append(out, Event{Kind: EventFinish, Finish: FinishError, Text: r.Status}), nil
		case "response.incomplete":
			reason := ""
			if r.IncompleteDetails != nil {
				reason = r.IncompleteDetails.Reason
			}
			f := FinishLength
			if reason == "content_filter" {
				f = FinishContentFilter
			}
			return d.calls.finish(out, f, reason), nil
		}
		return d.calls.finish(out, FinishStop, r.Status), nil
	case "error":
		// response.failed usually follows; it finishes the turn.
		ae := apiError{Code: e.Code, Message: e.Message}
		if e.Error != nil {
			ae = *e.Error
		}
		out = d.calls.end(out)
		d.errored = true
		return append(out, ae.event(0)), nil
	default:
		// Part, done and annotation events repeat what the deltas said.
	}
	return out, nil
}

func (d *responsesDecoder) ensureStart(out []Event) []Event {
	if !d.started {
		d.started = true
		out = append(out, Event{Kind: EventStart}, Event{Kind: EventWarning, Text: "the stream had no response.created"})
	}
	return out
}

func (d *responsesDecoder) skip(out []Event, kind string) []Event {
	if d.skipped == nil {
		d.skipped = map[string]bool{}
	}
	if d.skipped[kind] {
		return out
	}
	d.skipped[kind] = true
	return append(out, Event{Kind: EventWarning, Text: "not carried: " + truncateKind(kind)})
}

func (d *responsesDecoder) End() ([]Event, error) {
	if d.done {
		return nil, nil
	}
	if d.errored {
		d.done = true
		return []Event{{Kind: EventFinish, Finish: FinishError}}, nil
	}
	return nil, &StreamError{Err: ErrIncomplete, Event: d.n, Detail: "no response.completed"}
}
