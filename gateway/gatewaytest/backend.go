// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package gatewaytest is a fake model backend for testing the gateway
// and its clients: it speaks the Chat Completions, Responses, Messages
// and Gemini (generateContent and streamGenerateContent) endpoints,
// answers each request with a recorded or scripted stream cut into pieces
// at random, injects faults, and records the requests it got.
//
// A request that asks for no stream ("stream" false or absent, Gemini's
// generateContent) is answered as the real APIs answer it, with one JSON
// body: the pushed stream made whole by [Collapse], an implementation
// independent of the gateway's. A reply whose ContentType is set is
// written as it is, whatever the request asked (see [JSONReply]).
//
//	b := gatewaytest.NewBackend()
//	b.Push(gatewaytest.Reply{Body: recordedSSE})
//	srv := httptest.NewServer(b)
//
// [Sink] is the other end for benchmarks: an http.ResponseWriter that
// keeps the status, the headers and the byte count but not the body, at
// the cost of a server's connection buffer.
package gatewaytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Reply is what the backend answers to one request.
type Reply struct {
	// Status is the HTTP status. If zero, 200.
	Status int
	// Header is added to the response.
	Header http.Header
	// Body is an SSE stream for a 200, an error body otherwise. A 200's
	// stream is made whole (see [Collapse]) for a request that asks for no
	// stream, unless ContentType is set; a stream that cannot be made
	// whole is written as it is.
	Body []byte
	// ContentType is the response's Content-Type; when set, Body is
	// written as it is. If empty, text/event-stream for a 200 (or
	// application/json for the whole answer to a request that asks for no
	// stream) and application/json otherwise.
	ContentType string
	// Seed cuts Body into pieces of 1 to 64 bytes, each flushed on its
	// own. Zero writes it whole, or by events with PerEvent.
	Seed uint64
	// PerEvent, when Seed is zero, writes a stream one SSE event at a
	// time (through the blank line that ends it), each flushed, as a
	// real server streams; a whole answer is still one write.
	PerEvent bool
	// CutAfter ends the connection after that many bytes of Body, with no
	// clean end (0: never).
	CutAfter int
	// StallAfter stops writing after that many bytes of Body and waits
	// for the request to be cancelled (0: never).
	StallAfter int
	// Delay waits before the headers.
	Delay time.Duration
}

// Request is one request the backend got.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Backend is the fake. It is safe for concurrent use; replies are used in
// the order pushed; when none is left, Respond answers if set, else the
// last reply is repeated.
type Backend struct {
	// Respond, when set, answers requests no pushed reply is left for.
	// It is fixed at creation: set it before the first request.
	Respond func(Request) Reply

	mu        sync.Mutex
	replies   []Reply
	last      *Reply
	requests  []Request
	cancelled int
}

// NewBackend returns a Backend with no replies.
func NewBackend() *Backend { return &Backend{} }

// Push queues replies.
func (b *Backend) Push(r ...Reply) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.replies = append(b.replies, r...)
}

// Requests returns the requests so far: at most the last 1024.
func (b *Backend) Requests() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Request(nil), b.requests...)
}

// Cancelled returns how many requests the client cancelled while the
// backend was still answering.
func (b *Backend) Cancelled() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cancelled
}

// maxRequests bounds the requests a Backend keeps, so that a long load
// run does not grow it without bound: the most recent ones are kept.
const maxRequests = 1024

func (b *Backend) next(r *http.Request, body []byte) Reply {
	req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	b.mu.Lock()
	if len(b.requests) >= maxRequests {
		n := copy(b.requests, b.requests[len(b.requests)-maxRequests/2:])
		clear(b.requests[n:])
		b.requests = b.requests[:n]
	}
	b.requests = append(b.requests, req)
	if len(b.replies) == 0 && b.Respond != nil {
		b.mu.Unlock()
		return b.Respond(req) // outside the lock: replies are built concurrently
	}
	defer b.mu.Unlock()
	if len(b.replies) > 0 {
		rep := b.replies[0]
		b.replies = b.replies[1:]
		b.last = &rep
		return rep
	}
	if b.last != nil {
		return *b.last
	}
	return Reply{Status: http.StatusInternalServerError, Body: []byte(`{"error":{"message":"no reply scripted","type":"server_error"}}`)}
}

func (b *Backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rep := b.next(r, body)
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			b.cancel()
			return
		}
	}
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	ct := rep.ContentType
	if ct == "" {
		ct = "application/json"
		if status == http.StatusOK {
			ct = "text/event-stream"
			if wantsWhole(r.URL.Path, body) {
				if whole, err := Collapse(apiOf(r.URL.Path), rep.Body); err == nil {
					rep.Body, ct = whole, "application/json"
				}
			}
		}
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	data := rep.Body
	limit := len(data)
	if rep.CutAfter > 0 && rep.CutAfter < limit {
		limit = rep.CutAfter
	}
	if rep.StallAfter > 0 && rep.StallAfter < limit {
		limit = rep.StallAfter
	}
	var rng *rand.Rand
	if rep.Seed != 0 {
		rng = rand.New(rand.NewPCG(rep.Seed, 3))
	}
	perEvent := rng == nil && rep.PerEvent && ct == "text/event-stream"
	for off := 0; off < limit; {
		n := limit - off
		if rng != nil {
			n = min(n, 1+rng.IntN(64))
		} else if perEvent {
			if i := bytes.Index(data[off:limit], []byte("\n\n")); i >= 0 {
				n = i + 2
			}
		}
		if _, err := w.Write(data[off : off+n]); err != nil {
			b.cancel()
			return
		}
		off += n
		if err := rc.Flush(); err != nil || r.Context().Err() != nil {
			b.cancel()
			return
		}
	}
	switch {
	case rep.CutAfter > 0:
		// The server closes the connection with no clean end of the
		// chunked body.
		panic(http.ErrAbortHandler)
	case rep.StallAfter > 0:
		<-r.Context().Done()
		b.cancel()
	}
}

func (b *Backend) cancel() {
	b.mu.Lock()
	b.cancelled++
	b.mu.Unlock()
}

// JSONReply is a reply of one JSON body, written as it is whatever the
// request asked: a whole answer pushed explicitly.
func JSONReply(body []byte) Reply {
	return Reply{Body: body, ContentType: "application/json"}
}

// ChatSSE frames Chat Completions chunk payloads (one JSON a line, as
// vercel/ai records them) as an SSE body ending with data: [DONE].
func ChatSSE(lines ...[]byte) []byte {
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString("data: ")
		buf.Write(l)
		buf.WriteString("\n\n")
	}
	buf.WriteString("data: [DONE]\n\n")
	return buf.Bytes()
}

// GeminiSSE frames Gemini GenerateContentResponse payloads as the SSE
// body of streamGenerateContent?alt=sse: "data:" lines, no end marker.
func GeminiSSE(chunks ...[]byte) []byte {
	var buf bytes.Buffer
	for _, c := range chunks {
		buf.WriteString("data: ")
		buf.Write(c)
		buf.WriteString("\r\n\r\n")
	}
	return buf.Bytes()
}

// GeminiModel is the model a Gemini request's path names:
// "gemini-2.5-flash" for /v1beta/models/gemini-2.5-flash:streamGenerateContent
// (or :generateContent).
func GeminiModel(path string) string {
	_, m, ok := strings.Cut(path, "/models/")
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(m, ':'); i >= 0 {
		m = m[:i]
	}
	return m
}

// ErrorBody is an OpenAI-shaped error body.
func ErrorBody(typ, msg string) []byte {
	return []byte(`{"error":{"message":` + strconv.Quote(msg) + `,"type":` + strconv.Quote(typ) + `}}`)
}

// FrameChunks turns a vercel/ai .chunks.txt recording (one JSON payload a
// line, the SSE framing stripped) back into SSE bodies as the API sends
// them: "data:" lines and a final [DONE] for Chat Completions ("chat"),
// "event:" and "data:" lines for Messages and Responses (any other api).
// A file that recorded several responses back to back is split into one
// body each: at a new response id (Chat) or response.created (Responses).
// A line that is not JSON is an error.
func FrameChunks(api string, data []byte) ([][]byte, error) {
	var bodies [][]byte
	var cur bytes.Buffer
	lastID := ""
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		if api == "chat" {
			cur.WriteString("data: [DONE]\n\n")
		}
		bodies = append(bodies, bytes.Clone(cur.Bytes()))
		cur.Reset()
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var head struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return nil, fmt.Errorf("gatewaytest: line %d is not JSON", n+1)
		}
		switch {
		case api == "chat":
			if head.ID != lastID && lastID != "" {
				flush()
			}
			lastID = head.ID
		case head.Type == "response.created":
			flush()
		}
		if api != "chat" {
			fmt.Fprintf(&cur, "event: %s\n", head.Type)
		}
		fmt.Fprintf(&cur, "data: %s\n\n", line)
	}
	flush()
	return bodies, nil
}
