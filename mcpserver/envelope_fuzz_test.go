// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// FuzzEnvelope checks that the envelope check never panics, answers a
// body it refuses with 400 or 413 and a JSON-RPC error, and passes on
// only strict JSON, with a session id unless it is an initialize.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		initBody,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`,
		"{\"x\":\"\xff\"}",
		`{"id":` + strings.Repeat("9", 400) + `}`,
		`[]`, `null`, ``,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	fx := newFixture(f, func(c *fixtureConfig) { c.MaxRequestBytes = 4096 })
	f.Fuzz(func(t *testing.T, body string, session bool) {
		var got []byte
		passed := false
		h := fx.srv.envelope(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			passed = true
			got, _ = io.ReadAll(r.Body)
		}))
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if session {
			req.Header.Set(sessionIDHeader, "s")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !passed {
			if rec.Code != http.StatusBadRequest && rec.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("refused with %d", rec.Code)
			}
			if rec.Code == http.StatusBadRequest && strictjson.Check(rec.Body.Bytes(), nil) != nil {
				t.Fatalf("refusal is not JSON: %q", rec.Body.Bytes())
			}
			return
		}
		if string(got) != body {
			t.Fatalf("body changed: %q -> %q", body, got)
		}
		if err := strictjson.Check(got, nil); err != nil {
			t.Fatalf("passed a body strictjson refuses: %v", err)
		}
		if !session {
			if init, _, _ := inspect(got); !init {
				t.Fatalf("passed a non-initialize without a session id: %q", got)
			}
		}
	})
}
