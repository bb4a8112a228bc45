// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// accessCatcher is an AccessHandler that keeps the lines it is handed
// and writes every record, Handle's and HandleAccess's, as a
// TextHandler does, without times.
type accessCatcher struct {
	lines []AccessLine
	text  bytes.Buffer
}

func (c *accessCatcher) Enabled(context.Context, slog.Level) bool { return true }
func (c *accessCatcher) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *accessCatcher) WithGroup(string) slog.Handler            { return c }

func (c *accessCatcher) Handle(ctx context.Context, r slog.Record) error {
	r.Time = time.Time{}
	return slog.NewTextHandler(&c.text, &slog.HandlerOptions{Level: slog.LevelDebug}).Handle(ctx, r)
}

func (c *accessCatcher) HandleAccess(ctx context.Context, a AccessLine) error {
	c.lines = append(c.lines, a)
	return c.Handle(ctx, a.Record())
}

// recordCatcher is accessCatcher without HandleAccess: a handler the
// gateway gives the record.
type recordCatcher struct{ c *accessCatcher }

func (r recordCatcher) Enabled(ctx context.Context, l slog.Level) bool { return r.c.Enabled(ctx, l) }
func (r recordCatcher) WithAttrs([]slog.Attr) slog.Handler             { return r }
func (r recordCatcher) WithGroup(string) slog.Handler                  { return r }
func (r recordCatcher) Handle(ctx context.Context, rec slog.Record) error {
	return r.c.Handle(ctx, rec)
}

// statusBackend answers every request with its status and a short error
// body.
type statusBackend int

func (s statusBackend) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Body.Close()
	return &http.Response{StatusCode: int(s), Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"error":{"message":"no"}}`)), Request: r}, nil
}

// TestAccessLog checks that a handler that takes access lines gets
// them, and that the line is the record another handler gets: for an
// answer and for a failure.
func TestAccessLog(t *testing.T) {
	whole := []byte(`{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"hi","role":"assistant"}}],"created":1,"id":"c","model":"gen","object":"chat.completion","usage":{"completion_tokens":1,"prompt_tokens":2,"total_tokens":3}}`)
	serve := func(lh slog.Handler, body string) {
		h, err := New(&Config{
			Providers: []Provider{{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "gen"},
				{Name: "down", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "gen"}},
			Models: map[string]string{"m": "p", "d": "down"},
			Clients: map[string]*http.Client{"p": {Transport: wholeBackend{whole}},
				"down": {Transport: statusBackend(400)}},
			Logger: slog.New(lh),
			Now:    func() time.Time { return time.Unix(0, 0) }, // every duration 0s
		})
		if err != nil {
			t.Fatal(err)
		}
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
	}
	for _, tt := range []struct {
		name, body string
		status     int
	}{
		{"answer", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 200},
		{"unknown-model", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`, 404},
		{"backend-refuses", `{"model":"d","messages":[{"role":"user","content":"hi"}]}`, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var direct, records accessCatcher
			serve(&direct, tt.body)
			serve(recordCatcher{&records}, tt.body)
			if len(direct.lines) != 1 {
				t.Fatalf("HandleAccess got %d lines, want 1; log:\n%s", len(direct.lines), direct.text.String())
			}
			if a := direct.lines[0]; a.Status != tt.status || a.Front != "openai-chat" || a.Time.IsZero() {
				t.Errorf("line %+v, want status %d, front openai-chat and a time", a, tt.status)
			}
			if tt.status == 400 && direct.lines[0].Error == "" {
				t.Errorf("line %+v has no error", direct.lines[0])
			}
			if got, want := direct.text.String(), records.text.String(); got != want || !strings.Contains(got, `msg="gateway request"`) {
				t.Errorf("through HandleAccess:\n%s\nthrough Handle:\n%s", got, want)
			}
		})
	}
}
