// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gateway"
)

// countingWriter counts the writes a handler makes to its ResponseWriter.
type countingWriter struct {
	*httptest.ResponseRecorder
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.ResponseRecorder.Write(p)
}

// pipeBackend answers with the stream written to its pipe, as it comes.
type pipeBackend struct{ r *io.PipeReader }

func (p pipeBackend) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: p.r, Request: r}, nil
}

func streamHandler(t *testing.T, rt http.RoundTripper) http.Handler {
	t.Helper()
	h, err := gateway.New(&gateway.Config{
		Providers: []gateway.Provider{{Name: "p", API: gateway.APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: gateway.ParsingReasoningField}},
		Models:    map[string]string{"m": "p"},
		Clients:   map[string]*http.Client{"p": {Transport: rt}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

const streamBody = `{"model":"m","stream":true,"messages":[{"role":"user","content":"Say hi."}]}`

// TestStreamBatchOneWrite: the events of one read of the backend's stream
// reach the client's connection in one write, not one each (net/http's
// buffers of 2 and 4 KiB would make a write(2) of every few of them).
func TestStreamBatchOneWrite(t *testing.T) {
	h := streamHandler(t, memBackend{body: chunks(40)})
	w := &countingWriter{ResponseRecorder: httptest.NewRecorder()}
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(streamBody)))
	body := w.Body.String()
	if w.Code != 200 || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("status %d, body %q", w.Code, body)
	}
	for i := range 40 {
		if !strings.Contains(body, fmt.Sprintf(`" tok%d"`, i)) {
			t.Fatalf("chunk %d missing from %q", i, body)
		}
	}
	// One write for the events read together, one for the end.
	if w.writes > 2 {
		t.Errorf("%d writes for 42 events read at once, want at most 2", w.writes)
	}
}

// TestStreamNotHeld: an event the backend sent reaches the client while
// the backend's stream is still open, whatever the gateway buffers.
func TestStreamNotHeld(t *testing.T) {
	pr, pw := io.Pipe()
	srv := httptest.NewServer(streamHandler(t, pipeBackend{pr}))
	defer srv.Close()
	defer pw.Close()
	lines := strings.Split(strings.TrimSuffix(string(chunks(3)), "\n\n"), "\n\n")
	go func() {
		// The role chunk and the first text chunk, then nothing until
		// the client has seen the text.
		io.WriteString(pw, lines[0]+"\n\n"+lines[1]+"\n\n")
	}()
	resp, err := srv.Client().Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	seen := make(chan error, 1)
	br := bufio.NewReader(resp.Body)
	go func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				seen <- err
				return
			}
			if strings.Contains(line, `" tok0"`) {
				seen <- nil
				return
			}
		}
	}()
	select {
	case err := <-seen:
		if err != nil {
			t.Fatalf("stream ended before the first text: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first text chunk did not reach the client while the backend's stream stayed open")
	}
	io.WriteString(pw, strings.Join(lines[2:], "\n\n")+"\n\n")
	pw.Close()
	rest, err := io.ReadAll(br)
	if err != nil || !strings.Contains(string(rest), `" tok2"`) || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Errorf("rest of the stream %q, %v", rest, err)
	}
}
