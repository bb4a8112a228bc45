// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"strconv"

	"github.com/toolgate/toolgate/internal/sse"
)

// responsesEncoder writes OpenAI Responses stream events: response.created
// and response.in_progress; output items one at a time — a reasoning item
// (summary text deltas, its encrypted content from the signature), a
// message item (one output_text part), function_call items (arguments
// deltas) — each with its added/delta/done events; then
// response.completed (or response.incomplete for a length stop) holding
// the whole response with its output and usage. Every event has a
// sequence_number. A failure after the start is an error event followed
// by response.failed.
type responsesEncoder struct {
	w       *sse.Writer
	o       EncodeOptions
	id      string
	model   string
	seq     int64
	started bool
	ended   bool
	failed  bool
	usage   Usage // the usage events' sum, for the final response

	item     int    // output_index of the open item, -1 when none
	kind     string // reasoning | message | function_call
	itemID   string
	text     []byte // the open item's text or arguments so far
	sig      string // the open reasoning item's encrypted content
	callID   string
	callName string
	items    int
	output   []byte // the done items, comma-separated
	buf      []byte
	delta    []byte // a delta event's members, reused
}

func newResponsesEncoder(w *sse.Writer, o EncodeOptions) *responsesEncoder {
	return &responsesEncoder{w: w, o: o, item: -1, usage: unknownUsage()}
}

// event writes one event: body holds the members after type and
// sequence_number, without braces.
func (r *responsesEncoder) event(typ string, body []byte) error {
	b := append(r.buf[:0], `{"type":`...)
	b = jsonStr(b, typ)
	b = append(b, `,"sequence_number":`...)
	b = jsonInt(b, r.seq)
	r.seq++
	if len(body) > 0 {
		b = append(b, ',')
		b = append(b, body...)
	}
	b = append(b, '}')
	r.buf = b
	return r.w.Write(typ, b)
}

// response appends the response object with the given status.
func (r *responsesEncoder) response(b []byte, status string, final bool) []byte {
	b = append(b, `"response":{"id":`...)
	b = jsonStr(b, r.id)
	b = append(b, `,"object":"response","created_at":`...)
	b = jsonInt(b, r.o.Created)
	b = append(b, `,"status":`...)
	b = jsonStr(b, status)
	b = append(b, `,"model":`...)
	b = jsonStr(b, r.model)
	b = append(b, `,"output":[`...)
	if final {
		b = append(b, r.output...)
	}
	b = append(b, ']')
	if final {
		u := r.usage
		if status == "incomplete" {
			b = append(b, `,"incomplete_details":{"reason":"max_output_tokens"}`...)
		}
		b = append(b, `,"usage":{"input_tokens":`...)
		b = jsonInt(b, known(u.InputTokens))
		b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
		b = jsonInt(b, known(u.CacheReadTokens))
		b = append(b, `},"output_tokens":`...)
		b = jsonInt(b, known(u.OutputTokens))
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
		b = jsonInt(b, known(u.ReasoningTokens))
		b = append(b, `},"total_tokens":`...)
		b = jsonInt(b, known(u.InputTokens)+known(u.OutputTokens))
		b = append(b, '}')
	}
	return append(b, '}')
}

func (r *responsesEncoder) start(id, model string) error {
	r.started = true
	r.id, r.model = r.o.ID, r.o.Model
	if r.id == "" {
		r.id = id
	}
	if r.model == "" {
		r.model = model
	}
	if err := r.event("response.created", r.response(nil, "in_progress", false)); err != nil {
		return err
	}
	return r.event("response.in_progress", r.response(nil, "in_progress", false))
}

func (r *responsesEncoder) itemHead(b []byte) []byte {
	b = append(b, `"output_index":`...)
	b = jsonInt(b, int64(r.item))
	b = append(b, `,"item_id":`...)
	return jsonStr(b, r.itemID)
}

// appendItem appends the open item as the done events and the final
// output show it.
func (r *responsesEncoder) appendItem(b []byte, done bool) []byte {
	b = append(b, `{"id":`...)
	b = jsonStr(b, r.itemID)
	b = append(b, `,"type":`...)
	b = jsonStr(b, r.kind)
	status := "in_progress"
	if done {
		status = "completed"
	}
	switch r.kind {
	case "reasoning":
		b = append(b, `,"summary":[`...)
		if done && len(r.text) > 0 {
			b = jsonStr(append(b, `{"type":"summary_text","text":`...), string(r.text))
			b = append(b, '}')
		}
		b = append(b, ']')
		if r.sig != "" {
			b = jsonStr(append(b, `,"encrypted_content":`...), r.sig)
		}
	case "message":
		b = jsonStr(append(b, `,"status":`...), status)
		b = append(b, `,"role":"assistant","content":[`...)
		if done {
			b = jsonStr(append(b, `{"type":"output_text","text":`...), string(r.text))
			b = append(b, `,"annotations":[]}`...)
		}
		b = append(b, ']')
	case "function_call", "custom_tool_call":
		// A flattened name goes back as the client declared it: its
		// namespace apart, a custom tool's input as free-form text.
		name, o := r.callName, r.o.origins[r.callName]
		if o.Name != "" {
			name = o.Name
		}
		b = jsonStr(append(b, `,"status":`...), status)
		b = jsonStr(append(b, `,"call_id":`...), r.callID)
		b = jsonStr(append(b, `,"name":`...), name)
		if o.Namespace != "" {
			b = jsonStr(append(b, `,"namespace":`...), o.Namespace)
		}
		args := ""
		if done {
			args = string(r.text)
		}
		if r.kind == "custom_tool_call" {
			if done {
				args = customInput(r.text)
			}
			b = jsonStr(append(b, `,"input":`...), args)
			break
		}
		b = jsonStr(append(b, `,"arguments":`...), args)
	}
	return append(b, '}')
}

func (r *responsesEncoder) open(kind, prefix string) error {
	if r.item >= 0 && r.kind == kind && kind != "function_call" && kind != "custom_tool_call" {
		return nil
	}
	if err := r.closeItem(); err != nil {
		return err
	}
	r.item, r.kind, r.itemID = r.items, kind, r.newID(prefix)
	r.items++
	r.text, r.sig = r.text[:0], ""
	b := append([]byte(nil), `"output_index":`...)
	b = jsonInt(b, int64(r.item))
	b = append(b, `,"item":`...)
	b = r.appendItem(b, false)
	if err := r.event("response.output_item.added", b); err != nil {
		return err
	}
	switch kind {
	case "message":
		return r.event("response.content_part.added", append(r.itemHead(nil), `,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`...))
	case "reasoning":
		return r.event("response.reasoning_summary_part.added", append(r.itemHead(nil), `,"summary_index":0,"part":{"type":"summary_text","text":""}`...))
	}
	return nil
}

func (r *responsesEncoder) closeItem() error {
	if r.item < 0 {
		return nil
	}
	text := string(r.text)
	var err error
	switch r.kind {
	case "message":
		err = r.event("response.output_text.done", jsonStr(append(r.itemHead(nil), `,"content_index":0,"text":`...), text))
		if err == nil {
			b := append(r.itemHead(nil), `,"content_index":0,"part":{"type":"output_text","text":`...)
			err = r.event("response.content_part.done", append(jsonStr(b, text), `,"annotations":[]}`...))
		}
	case "reasoning":
		err = r.event("response.reasoning_summary_text.done", jsonStr(append(r.itemHead(nil), `,"summary_index":0,"text":`...), text))
		if err == nil {
			b := append(r.itemHead(nil), `,"summary_index":0,"part":{"type":"summary_text","text":`...)
			err = r.event("response.reasoning_summary_part.done", append(jsonStr(b, text), '}'))
		}
	case "function_call":
		err = r.event("response.function_call_arguments.done", jsonStr(append(r.itemHead(nil), `,"arguments":`...), text))
	case "custom_tool_call":
		// The input is known once the arguments standing for it are
		// whole: one delta, then done.
		input := customInput(r.text)
		err = r.event("response.custom_tool_call_input.delta", jsonStr(append(r.itemHead(nil), `,"delta":`...), input))
		if err == nil {
			err = r.event("response.custom_tool_call_input.done", jsonStr(append(r.itemHead(nil), `,"input":`...), input))
		}
	}
	if err != nil {
		return err
	}
	item := r.appendItem(nil, true)
	if len(r.output) > 0 {
		r.output = append(r.output, ',')
	}
	r.output = append(r.output, item...)
	b := append([]byte(nil), `"output_index":`...)
	b = jsonInt(b, int64(r.item))
	b = append(b, `,"item":`...)
	b = append(b, item...)
	r.item = -1
	return r.event("response.output_item.done", b)
}

func (r *responsesEncoder) newID(prefix string) string {
	return prefix + "_" + strconv.Itoa(r.items) + "_" + r.id
}

func (r *responsesEncoder) Encode(e Event) error {
	if r.ended {
		if r.failed || e.Kind == EventWarning {
			return nil // nothing more is said after an error event
		}
		return errEnded
	}
	if e.Kind == EventUsage {
		r.usage.merge(*e.Usage)
	}
	if !r.started && e.Kind != EventStart && e.Kind != EventUsage {
		if err := r.start("", ""); err != nil {
			return err
		}
	}
	switch e.Kind {
	case EventStart:
		if r.started {
			return nil
		}
		return r.start(e.ID, e.Model)
	case EventReasoning:
		if err := r.open("reasoning", "rs"); err != nil {
			return err
		}
		r.text = append(r.text, e.Text...)
		r.delta = jsonStr(append(r.itemHead(r.delta[:0]), `,"summary_index":0,"delta":`...), e.Text)
		return r.event("response.reasoning_summary_text.delta", r.delta)
	case EventSignature:
		if r.item < 0 || r.kind != "reasoning" {
			if err := r.open("reasoning", "rs"); err != nil {
				return err
			}
		}
		r.sig += e.Text
	case EventText:
		if err := r.open("message", "msg"); err != nil {
			return err
		}
		r.text = append(r.text, e.Text...)
		r.delta = jsonStr(append(r.itemHead(r.delta[:0]), `,"content_index":0,"delta":`...), e.Text)
		return r.event("response.output_text.delta", r.delta)
	case EventCall:
		r.callID, r.callName = e.ID, e.Name
		if r.o.origins[e.Name].Custom {
			return r.open("custom_tool_call", "ctc")
		}
		return r.open("function_call", "fc")
	case EventArguments:
		r.text = append(r.text, e.Text...)
		if r.kind == "custom_tool_call" {
			return nil
		}
		r.delta = jsonStr(append(r.itemHead(r.delta[:0]), `,"delta":`...), e.Text)
		return r.event("response.function_call_arguments.delta", r.delta)
	case EventCallEnd:
		return r.closeItem()
	case EventServerTool:
		return r.serverTool(e.Server)
	case EventFinish:
		r.ended = true
		if err := r.closeItem(); err != nil {
			return err
		}
		if e.Finish == FinishLength {
			return r.event("response.incomplete", r.response(nil, "incomplete", true))
		}
		return r.event("response.completed", r.response(nil, "completed", true))
	case EventError:
		r.ended, r.failed = true, true
		typ := e.Err.Type
		if typ == "" {
			typ = "server_error"
		}
		b := jsonStr([]byte(`"code":`), typ)
		b = jsonStr(append(b, `,"message":`...), e.Err.Message)
		b = append(b, `,"param":null`...)
		if err := r.event("error", b); err != nil {
			return err
		}
		return r.event("response.failed", r.response(nil, "failed", true))
	}
	return nil
}

func (r *responsesEncoder) Close() error {
	if r.ended {
		return nil
	}
	return r.Encode(Event{Kind: EventError, Err: &BackendError{Type: "server_error", Message: "the backend's stream ended before the turn did"}})
}

// serverTool writes c as a whole mcp_call output item: added in progress,
// then done with its output.
func (r *responsesEncoder) serverTool(c *ServerCall) error {
	if err := r.closeItem(); err != nil {
		return err
	}
	index := r.items
	r.items++
	b := append([]byte(nil), `"output_index":`...)
	b = jsonInt(b, int64(index))
	b = appendMCPCall(append(b, `,"item":`...), c, "in_progress")
	if err := r.event("response.output_item.added", b); err != nil {
		return err
	}
	item := appendMCPCall(nil, c, "completed")
	if len(r.output) > 0 {
		r.output = append(r.output, ',')
	}
	r.output = append(r.output, item...)
	b = append(b[:0], `"output_index":`...)
	b = jsonInt(b, int64(index))
	b = append(append(b, `,"item":`...), item...)
	return r.event("response.output_item.done", b)
}

// appendMCPCall appends c as a Responses mcp_call item; in progress, it
// has no output yet.
func appendMCPCall(b []byte, c *ServerCall, status string) []byte {
	b = jsonStr(append(b, `{"id":`...), "mcp_"+c.ID)
	b = jsonStr(append(b, `,"type":"mcp_call","status":`...), status)
	b = jsonStr(append(b, `,"server_label":`...), c.Server)
	b = jsonStr(append(b, `,"name":`...), c.Name)
	b = jsonStr(append(b, `,"arguments":`...), string(argsOrEmpty(c.Arguments)))
	switch {
	case status != "completed":
		b = append(b, `,"output":null,"error":null`...)
	case c.IsError:
		b = append(b, `,"output":null,"error":`...)
		b = jsonStr(b, c.Result)
	default:
		b = jsonStr(append(b, `,"output":`...), c.Result)
		b = append(b, `,"error":null`...)
	}
	return append(b, '}')
}
