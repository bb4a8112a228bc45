// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// A client that does not stream gets the backend's whole answer: one
// JSON body (see [EncodeRequest]), read within a bound and decoded here
// into the events the backend's stream would have given, in the same
// order, so that the filters, the collector and every count downstream
// see no difference.

// wholeBytesPerEvent is how many times the bound of one event of a stream
// (Config.MaxEventBytes) a whole answer may take: 16 MiB by default.
const wholeBytesPerEvent = 4

// maxWholeBytes is the bound of a backend's whole answer for an event
// bound of maxEvent (Config.MaxEventBytes): negative, none.
func maxWholeBytes(maxEvent int) int64 {
	switch {
	case maxEvent < 0:
		return -1
	case maxEvent == 0:
		maxEvent = sse.DefaultMaxEventBytes
	}
	return wholeBytesPerEvent * int64(maxEvent)
}

// errWholeTooLarge reports a whole answer past the bound.
var errWholeTooLarge = errors.New("gateway: backend answer too large")

// wholeError is a problem with a backend's whole answer: Err is
// ErrMalformed, ErrIncomplete or errWholeTooLarge. Like a [*StreamError]
// it says where (a JSON Pointer, a type) and never holds the answer's
// content.
type wholeError struct {
	Err    error
	Type   string // the answer's type, when known
	Detail string
}

func (e *wholeError) Error() string {
	s := e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Type != "" {
		s += " (" + strconv.Quote(e.Type) + ")"
	}
	return s
}

func (e *wholeError) Unwrap() error { return e.Err }

// public is what the client is told: what was wrong, without content.
func (e *wholeError) public() string {
	switch {
	case errors.Is(e.Err, errWholeTooLarge):
		return "was " + e.Detail
	case errors.Is(e.Err, ErrIncomplete):
		return "was incomplete: " + e.Detail
	case e.Detail != "":
		return "could not be read: " + e.Detail
	}
	return "could not be read"
}

// answerFailure is the error a client that does not stream gets for err,
// which ended the reading of the backend's answer: a whole answer's
// problem named, a stream's as for a stream.
func answerFailure(err error) error {
	var we *wholeError
	if errors.As(err, &we) {
		return &backendError{status: http.StatusBadGateway, msg: "the model backend's answer " + we.public()}
	}
	return streamFailure(err)
}

// eventStream reports whether resp is an SSE stream, by its Content-Type:
// a backend that streams although asked for a whole answer is read as it
// answered.
func eventStream(resp *http.Response) bool {
	const sse = "text/event-stream"
	ct := strings.TrimSpace(resp.Header.Get("Content-Type"))
	return len(ct) >= len(sse) && strings.EqualFold(ct[:len(sse)], sse) && (len(ct) == len(sse) || ct[len(sse)] == ';' || ct[len(sse)] == ' ')
}

// pumpWhole reads one backend pass that answered whole through filter f,
// as [turn.pump] reads a stream.
func (t *turn) pumpWhole(resp *http.Response, f eventFilter, emit func(Event) error, flush func() error) error {
	data := t.read
	if data == nil {
		var err error
		if data, err = readWhole(resp.Body, resp.ContentLength, maxWholeBytes(t.h.cfg.MaxEventBytes)); err != nil {
			return err
		}
	}
	t.read = nil
	evs, err := decodeWhole(t.p.API, data)
	if err != nil {
		return err
	}
	if tf, ok := f.(*textFilter); ok && !t.h.slowStreams && tf.plainTurn(evs) {
		f = passThrough{}
	}
	for i := range evs {
		t.unmap(&evs[i])
		if err := f.Feed(evs[i], emit); err != nil {
			return err
		}
	}
	if err := f.Close(emit); err != nil {
		return err
	}
	return flush()
}

// readWhole reads body, of size bytes when known (else -1), to its end:
// at most limit bytes (negative: no limit), else errWholeTooLarge.
func readWhole(body io.Reader, size, limit int64) ([]byte, error) {
	tooLarge := func() error {
		return &wholeError{Err: errWholeTooLarge, Detail: "larger than " + strconv.FormatInt(limit, 10) + " bytes"}
	}
	if limit >= 0 && size > limit {
		return nil, tooLarge()
	}
	r := body
	if limit >= 0 {
		r = io.LimitReader(body, limit+1)
	}
	// Read into the buffer sized by Content-Length, growing it only when
	// the body is longer (bytes.Buffer.ReadFrom would grow it before every
	// read that has less than 512 bytes of room). Without a length the
	// body is read into a pooled buffer and copied out at its size: a
	// fresh one would be zeroed and its memory cold on every request.
	var buf []byte
	var err error
	if size > 0 {
		// Room to see the end without growing; a backend's length is a
		// claim, so no more than maxPresize is reserved for it.
		buf, err = readAllInto(r, make([]byte, 0, min(size+1, maxPresize)))
	} else {
		sp := wholeBuffers.Get().(*[]byte)
		buf, err = readAllInto(r, (*sp)[:0])
		if cap(buf) == cap(*sp) {
			buf = bytes.Clone(buf) // still the pool's array
		}
		wholeBuffers.Put(sp)
	}
	if err != nil {
		if errors.Is(err, errTimeout) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, &wholeError{Err: ErrIncomplete, Detail: "the connection failed before its end"}
	}
	if limit >= 0 && int64(len(buf)) > limit {
		return nil, tooLarge()
	}
	return buf, nil
}

// wholeBuffers hold the first wholeBufferBytes of a whole answer whose
// length is not given; a longer answer grows out of it.
var wholeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, wholeBufferBytes); return &b }}

const wholeBufferBytes = 4 << 10

// maxPresize bounds the buffer reserved for a body by the length it
// claims; a longer body grows the buffer as it comes.
const maxPresize = 4 << 20

// readAllInto reads r to its end, appending to buf, and grows buf only
// when it is full.
func readAllInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// decodeWhole turns api's whole answer data into the events the API's
// stream of the same answer gives (see [StreamDecoder]): the slice and its
// strings are the caller's. It returns a *wholeError for an answer it
// cannot read; a failure the backend reports in the body is an
// EventError.
func decodeWhole(api API, data []byte) ([]Event, error) {
	switch api {
	case APIChat:
		return wholeChat(data)
	case APIMessages:
		return wholeMessages(data)
	case APIResponses:
		return wholeResponses(data)
	case APIGemini:
		return wholeGemini(data)
	}
	return nil, errors.New("gateway: unknown api " + string(api))
}

// asWhole makes a stream decoder's error about the one event it read the
// whole answer's.
func asWhole(err error, typ string) error {
	var se *StreamError
	if errors.As(err, &se) {
		return &wholeError{Err: se.Err, Type: typ, Detail: se.Detail}
	}
	return &wholeError{Err: ErrMalformed, Type: typ}
}

// wholeMalformed is the error for data that strictjson or encoding/json
// refused.
func wholeMalformed(typ string, err error) error {
	return &wholeError{Err: ErrMalformed, Type: typ, Detail: malformed(0, typ, err).(*StreamError).Detail}
}

// wholeChat reads a chat.completion: one chunk whose choices carry a
// message instead of a delta, which the stream's decoder reads as such.
func wholeChat(data []byte) ([]Event, error) {
	const typ = "chat.completion"
	d := newChatDecoder()
	d.room = make([]Event, 0, 6)
	out, err := d.Decode("", data)
	if err != nil {
		return nil, asWhole(err, typ)
	}
	if d.done { // an error body
		return out, nil
	}
	if d.finish == "" {
		return nil, &wholeError{Err: ErrIncomplete, Type: typ, Detail: "no finish_reason"}
	}
	return d.endTo(out), nil
}

// wholeGemini reads a GenerateContentResponse: the stream's chunks are
// that same object, a piece each.
func wholeGemini(data []byte) ([]Event, error) {
	const typ = "GenerateContentResponse"
	d := newGeminiDecoder()
	out, err := d.Decode("", data)
	if err != nil {
		return nil, asWhole(err, typ)
	}
	end, err := d.End()
	if err != nil {
		return nil, asWhole(err, typ)
	}
	return append(out, end...), nil
}

// messagesAnswer is an Anthropic message (or an error body).
type messagesAnswer struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	Model      string          `json:"model"`
	Content    []messagesBlock `json:"content"`
	StopReason *string         `json:"stop_reason"`
	Usage      *messagesUsage  `json:"usage"`
	Error      *apiError       `json:"error"`
}

type messagesBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// wholeMessages reads an Anthropic message: its content blocks in order,
// as their content_block events would give them, the usage folded as
// message_start's and message_delta's are.
func wholeMessages(data []byte) ([]Event, error) {
	const typ = "message"
	var m messagesAnswer
	if err := decodeMessagesAnswer(data, &m); err != nil {
		return nil, wholeMalformed(typ, err)
	}
	if m.Type == "error" || m.Error != nil {
		if m.Error == nil {
			m.Error = &apiError{Type: "error"}
		}
		return []Event{m.Error.event(0)}, nil
	}
	if m.Type != typ && m.Type != "" {
		return nil, &wholeError{Err: ErrMalformed, Type: truncateKind(m.Type), Detail: "not a message"}
	}
	d := newMessagesDecoder()
	out := []Event{{Kind: EventStart, ID: m.ID, Model: m.Model}}
	for i := range m.Content {
		b := &m.Content[i]
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
			if in := b.Input; len(in) > 0 && string(in) != "null" {
				if strictjson.KindOf(in) != strictjson.Object {
					return nil, &wholeError{Err: ErrMalformed, Type: typ, Detail: "wrong type at /content/" + strconv.Itoa(i) + "/input"}
				}
				var buf bytes.Buffer
				if err := json.Compact(&buf, in); err == nil && buf.String() != "{}" {
					out = d.calls.args(out, buf.String())
				}
			}
			out = d.calls.end(out)
		default:
			out = d.skip(out, b.Type)
		}
	}
	if m.Usage != nil {
		d.fold(m.Usage)
		out = append(out, d.usageEvent())
	}
	stop := ""
	if m.StopReason != nil {
		stop = *m.StopReason
	}
	return d.calls.finish(out, finishOf(stop), stop), nil
}

// responsesAnswer is a Responses response object.
type responsesAnswer struct {
	ID                string               `json:"id"`
	Object            string               `json:"object"`
	Model             string               `json:"model"`
	Status            string               `json:"status"`
	Output            []responsesOutput    `json:"output"`
	Usage             *responsesUsage      `json:"usage"`
	Error             *apiError            `json:"error"`
	IncompleteDetails *responsesIncomplete `json:"incomplete_details"`
}

// responsesIncomplete says why a response is incomplete.
type responsesIncomplete struct {
	Reason string `json:"reason"`
}

// responsesOutput is an item of a response's output: the members a
// stream's item has (not embedded: encoding/json would name the
// embedded struct in the error's path), and the parts the stream gives
// in their own events.
type responsesOutput struct {
	ID               string                 `json:"id"`
	Type             string                 `json:"type"`
	CallID           string                 `json:"call_id"`
	Name             string                 `json:"name"`
	Arguments        string                 `json:"arguments"`
	EncryptedContent string                 `json:"encrypted_content"`
	Summary          []responsesSummaryPart `json:"summary"`
	Content          []responsesContentPart `json:"content"`
}

// responsesSummaryPart is a part of a reasoning item's summary.
type responsesSummaryPart struct {
	Text string `json:"text"`
}

// responsesContentPart is a part of a message's or a reasoning item's
// content.
type responsesContentPart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

// wholeResponses reads a Responses response: its output items in order,
// as their stream events would give them, and the end its status says
// (completed, incomplete or failed).
func wholeResponses(data []byte) ([]Event, error) {
	const typ = "response"
	var r responsesAnswer
	if err := decodeResponsesAnswer(data, &r); err != nil {
		return nil, wholeMalformed(typ, err)
	}
	if r.Object != "" && r.Object != typ {
		if r.Error != nil { // an error body
			return []Event{r.Error.event(0)}, nil
		}
		return nil, &wholeError{Err: ErrMalformed, Type: truncateKind(r.Object), Detail: "not a response"}
	}
	d := newResponsesDecoder()
	out := []Event{{Kind: EventStart, ID: r.ID, Model: r.Model}}
	for i := range r.Output {
		it := &r.Output[i]
		switch it.Type {
		case "reasoning":
			for j, s := range it.Summary {
				// Parts of one summary are paragraphs: keep them apart.
				if j > 0 {
					out = append(out, Event{Kind: EventReasoning, Text: "\n\n"})
				}
				if s.Text != "" {
					out = append(out, Event{Kind: EventReasoning, Text: s.Text})
				}
			}
			for _, c := range it.Content {
				if c.Type == "reasoning_text" && c.Text != "" {
					out = append(out, Event{Kind: EventReasoning, Text: c.Text})
				}
			}
			if it.EncryptedContent != "" {
				out = append(out, Event{Kind: EventSignature, ID: it.ID, Text: it.EncryptedContent})
			}
		case "message":
			for _, c := range it.Content {
				switch {
				case c.Type == "output_text" && c.Text != "":
					out = append(out, Event{Kind: EventText, Text: c.Text})
				case c.Type == "refusal" && c.Refusal != "":
					out = append(out, Event{Kind: EventText, Text: c.Refusal})
				}
			}
		case "function_call":
			out = d.calls.start(out, it.CallID, it.Name)
			out = d.calls.args(out, it.Arguments)
			out = d.calls.end(out)
		default:
			out = d.skip(out, it.Type)
		}
	}
	if u := r.Usage; u != nil {
		usage := Usage{InputTokens: tokens(u.InputTokens), OutputTokens: tokens(u.OutputTokens), ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}
		if x := u.InputTokensDetails; x != nil {
			usage.CacheReadTokens = tokens(x.CachedTokens)
		}
		if x := u.OutputTokensDetails; x != nil {
			usage.ReasoningTokens = tokens(x.ReasoningTokens)
		}
		out = append(out, Event{Kind: EventUsage, Usage: &usage})
	}
	switch r.Status {
	case "completed", "":
		if r.Status == "" && r.Error != nil {
			break // an error body without a status
		}
		return d.calls.finish(out, FinishStop, r.Status), nil
	case "incomplete":
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		f := FinishLength
		if reason == "content_filter" {
			f = FinishContentFilter
		}
		return d.calls.finish(out, f, reason), nil
	case "failed":
	default:
		return nil, &wholeError{Err: ErrIncomplete, Type: typ, Detail: "status " + strconv.Quote(truncateKind(r.Status))}
	}
	if r.Error == nil {
		r.Error = &apiError{Type: "response.failed"}
	}
	out = append(out, r.Error.event(0))
	return append(out, Event{Kind: EventFinish, Finish: FinishError, Text: r.Status}), nil
}
