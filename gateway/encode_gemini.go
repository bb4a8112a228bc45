// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/internal/sse"
)

// geminiFront holds what a Gemini client asked of the answer's shape
// beyond the [Request]: its zero value is a streaming client that reads
// thoughts.
type geminiFront struct {
	// hideThoughts leaves the reasoning out, as Gemini does unless
	// thinkingConfig.includeThoughts is set.
	hideThoughts bool
	// array is a :streamGenerateContent without alt=sse: the answer is a
	// JSON array of responses, written whole.
	array bool
}

// geminiEncoder writes a streamGenerateContent?alt=sse stream: one
// GenerateContentResponse an event, each holding one part (a text or
// thought piece, or a whole functionCall once its arguments are
// complete). Each part is held until the next one comes, so that the
// last carries the finishReason and the usage, as Gemini's own last
// chunk does. A failure after the start is an event holding Google's
// error object.
type geminiEncoder struct {
	w      *sse.Writer
	o      EncodeOptions
	ended  bool
	failed bool
	id     string
	model  string
	held   []byte // the part not yet written, nil when none
	callID string
	name   string
	args   strings.Builder
	usage  Usage
	buf    []byte
}

func newGeminiEncoder(w *sse.Writer, o EncodeOptions) *geminiEncoder {
	return &geminiEncoder{w: w, o: o, usage: unknownUsage()}
}

func (g *geminiEncoder) Encode(e Event) error {
	if g.ended {
		if g.failed || e.Kind == EventWarning {
			return nil
		}
		return errEnded
	}
	switch e.Kind {
	case EventStart:
		if g.id == "" && g.model == "" {
			g.id, g.model = e.ID, e.Model
		}
	case EventUsage:
		g.usage.merge(*e.Usage)
	case EventReasoning:
		if g.o.gemini.hideThoughts || e.Text == "" {
			return nil
		}
		return g.part(appendGeminiText(nil, e.Text, true))
	case EventText:
		if e.Text == "" {
			return nil
		}
		return g.part(appendGeminiText(nil, e.Text, false))
	case EventCall:
		g.callID, g.name = e.ID, e.Name
		g.args.Reset()
	case EventArguments:
		g.args.WriteString(e.Text)
	case EventCallEnd:
		return g.part(appendGeminiCall(nil, g.callID, g.name, g.args.String()))
	case EventFinish:
		g.ended = true
		held := g.held
		if held == nil {
			held = []byte(`{"text":""}`)
		}
		g.held = nil
		return g.write(g.chunk(held, geminiReason(e.Finish, e.Text), true))
	case EventError:
		g.ended, g.failed = true, true
		if g.held != nil {
			if err := g.write(g.chunk(g.held, "", false)); err != nil {
				return err
			}
		}
		return g.write(geminiErrorBody(e.Err.Status, e.Err.Message))
	}
	return nil
}

// part writes the part held and holds p.
func (g *geminiEncoder) part(p []byte) error {
	prev := g.held
	g.held = p
	if prev == nil {
		return nil
	}
	return g.write(g.chunk(prev, "", false))
}

func (g *geminiEncoder) write(b []byte) error {
	g.buf = b
	return g.w.Write("", b)
}

func (g *geminiEncoder) chunk(part []byte, finish string, usage bool) []byte {
	b := append(g.buf[:0], `{"candidates":[{"content":{"parts":[`...)
	b = append(b, part...)
	b = append(b, `],"role":"model"}`...)
	if finish != "" {
		b = jsonStr(append(b, `,"finishReason":`...), finish)
	}
	b = append(b, `,"index":0}]`...)
	if usage {
		b = appendGeminiUsage(append(b, `,"usageMetadata":`...), g.usage)
	}
	return g.tail(b)
}

func (g *geminiEncoder) tail(b []byte) []byte {
	id, model := g.id, g.model
	if g.o.ID != "" {
		id = g.o.ID
	}
	if g.o.Model != "" {
		model = g.o.Model
	}
	b = jsonStr(append(b, `,"modelVersion":`...), model)
	b = jsonStr(append(b, `,"responseId":`...), id)
	return append(b, '}')
}

func (g *geminiEncoder) Close() error {
	if g.ended {
		return nil
	}
	return g.Encode(Event{Kind: EventError, Err: &BackendError{Status: http.StatusBadGateway, Message: "the backend's stream ended before the turn did"}})
}

func appendGeminiText(b []byte, text string, thought bool) []byte {
	b = jsonStr(append(b, `{"text":`...), text)
	if thought {
		b = append(b, `,"thought":true`...)
	}
	return append(b, '}')
}

// appendGeminiCall writes a functionCall part: the id unless the gateway
// made it up, the signature as the part's thoughtSignature.
func appendGeminiCall(b []byte, id, name, args string) []byte {
	base, sig := splitCallID(id)
	b = append(b, `{"functionCall":{`...)
	if base != "" && !generatedCallID(base) {
		b = jsonStr(append(b, `"id":`...), base)
		b = append(b, ',')
	}
	b = jsonStr(append(b, `"name":`...), name)
	b = append(b, `,"args":`...)
	if a := strings.TrimSpace(args); a != "" && a[0] == '{' && json.Valid([]byte(a)) {
		b = append(b, a...)
	} else {
		b = append(b, "{}"...)
	}
	b = append(b, '}')
	if sig != "" {
		b = jsonStr(append(b, `,"thoughtSignature":`...), sig)
	}
	return append(b, '}')
}

// appendGeminiUsage writes usageMetadata: Gemini counts the candidates'
// tokens without the thoughts, and the prompt with the cached tokens.
func appendGeminiUsage(b []byte, u Usage) []byte {
	in, out, thoughts, cached := known(u.InputTokens), known(u.OutputTokens), known(u.ReasoningTokens), known(u.CacheReadTokens)
	b = append(b, `{"promptTokenCount":`...)
	b = jsonInt(b, in)
	b = append(b, `,"candidatesTokenCount":`...)
	b = jsonInt(b, max(out-thoughts, 0))
	b = append(b, `,"totalTokenCount":`...)
	b = jsonInt(b, in+max(out, thoughts))
	if cached > 0 {
		b = append(b, `,"cachedContentTokenCount":`...)
		b = jsonInt(b, cached)
	}
	if thoughts > 0 {
		b = append(b, `,"thoughtsTokenCount":`...)
		b = jsonInt(b, thoughts)
	}
	return append(b, '}')
}

// geminiReason is the finishReason for f: the backend's own word when a
// Gemini backend said it, else the nearest of Gemini's.
func geminiReason(f Finish, raw string) string {
	if raw != "" && strings.ToUpper(raw) == raw && (geminiFinish(raw) == f || (f == FinishToolCalls && raw == "STOP")) && len(raw) < 64 {
		return raw
	}
	switch f {
	case FinishLength:
		return "MAX_TOKENS"
	case FinishContentFilter, FinishRefusal:
		return "SAFETY"
	case FinishError:
		return "OTHER"
	}
	return "STOP"
}

// geminiStatus is Google's status word for an HTTP status.
func geminiStatus(code int) string {
	switch code {
	case 400, 413:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 503, 502:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

// geminiErrorBody is Google's error shape:
// {"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT"}}.
func geminiErrorBody(code int, msg string) []byte {
	if code < 400 || code > 599 {
		code = http.StatusInternalServerError
	}
	b := jsonInt([]byte(`{"error":{"code":`), int64(code))
	b = jsonStr(append(b, `,"message":`...), msg)
	b = jsonStr(append(b, `,"status":`...), geminiStatus(code))
	return append(b, "}}"...)
}

// geminiResponse is a whole turn as one GenerateContentResponse, or, for
// a streaming client that did not ask for SSE, as a JSON array holding it.
func geminiResponse(t *Turn, o *EncodeOptions) []byte {
	var b []byte
	if o.gemini.array {
		b = append(b, '[')
	}
	b = append(b, `{"candidates":[{"content":{"parts":[`...)
	n := 0
	sep := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
	}
	if t.Reasoning != "" && !o.gemini.hideThoughts {
		sep()
		b = appendGeminiText(b, t.Reasoning, true)
	}
	if t.Text != "" {
		sep()
		b = appendGeminiText(b, t.Text, false)
	}
	for _, c := range t.Calls {
		sep()
		b = appendGeminiCall(b, c.ID, c.Name, string(c.Arguments))
	}
	if n == 0 {
		b = append(b, `{"text":""}`...)
	}
	b = append(b, `],"role":"model"},"finishReason":`...)
	b = jsonStr(b, geminiReason(t.Finish, t.StopReason))
	b = append(b, `,"index":0}],"usageMetadata":`...)
	b = appendGeminiUsage(b, t.Usage)
	b = jsonStr(append(b, `,"modelVersion":`...), o.Model)
	b = jsonStr(append(b, `,"responseId":`...), o.ID)
	b = append(b, '}')
	if o.gemini.array {
		b = append(b, ']')
	}
	return b
}
