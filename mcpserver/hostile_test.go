// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

// Hostile clients on loopback: each test is one way a client that is
// not authenticated, or not honest, tries to hold resources or confuse
// the server. Every test is bounded in requests and in time.

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/kernel"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// post sends one MCP POST and returns the status, the session id and the
// body.
func post(t *testing.T, c *http.Client, url, body string, header ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(sessionIDHeader), string(b)
}

// TestAbandonedSessions opens 10,000 sessions and abandons them: the
// server keeps at most the cap, and goroutines and heap stay bounded.
func TestAbandonedSessions(t *testing.T) {
	const opened, maxSessions = 10000, 1000
	n := opened
	if testing.Short() {
		n = 2000
	}
	f := newFixture(t, func(c *fixtureConfig) { c.MaxSessions = maxSessions; c.MaxSessionsPerPrincipal = -1 })
	hs := httptest.NewServer(f.handler())
	defer hs.Close()
	hc := hs.Client()
	hc.Transport.(*http.Transport).MaxIdleConnsPerHost = 8

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	start := time.Now()

	var wg sync.WaitGroup
	var bad atomic.Int64
	next := atomic.Int64{}
	for range 8 {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				code, id, _ := post(t, hc, hs.URL, initBody)
				if code != http.StatusOK || id == "" {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(start)

	if b := bad.Load(); b != 0 {
		t.Errorf("%d of %d initializes failed", b, n)
	}
	live := 0
	for range f.srv.MCP().Sessions() {
		live++
	}
	if live > maxSessions || f.srv.sessions.Len() > maxSessions {
		t.Errorf("%d sessions live, %d tracked, want at most %d", live, f.srv.sessions.Len(), maxSessions)
	}
	if live < maxSessions/2 {
		t.Errorf("%d sessions live, want the newest up to the cap kept", live)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	g1 := runtime.NumGoroutine()
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d sessions in %v: %d live, goroutines %d -> %d, heap %+d KiB", n, el, live, g0, g1, heap>>10)
	if g1-g0 > 3*maxSessions {
		t.Errorf("goroutines grew by %d, want at most %d (3 per capped session)", g1-g0, 3*maxSessions)
	}
	if heap > 32<<20 {
		t.Errorf("heap grew by %d MiB, want under 32", heap>>20)
	}
}

// TestSessionCapsCloseOldestIdle checks the per-principal and total caps:
// the least recently used session is closed, the others keep working.
func TestSessionCapsCloseOldestIdle(t *testing.T) {
	f := newFixture(t, func(c *fixtureConfig) {
		c.MaxSessions = 3
		c.MaxSessionsPerPrincipal = 2
		c.Tokens = map[string]kernel.Principal{"admin-token": {ID: "admin"}, "local-token": {ID: "local"}}
	})
	hs := httptest.NewServer(f.handler())
	defer hs.Close()
	c := hs.Client()
	open := func(tok string) string {
		t.Helper()
		code, id, _ := post(t, c, hs.URL, initBody, "Authorization", "Bearer "+tok)
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %q", code, id)
		}
		return id
	}
	alive := func(tok, id string) bool {
		t.Helper()
		code, _, _ := post(t, c, hs.URL, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Authorization", "Bearer "+tok, sessionIDHeader, id, "Mcp-Protocol-Version", "2025-06-18")
		return code == http.StatusOK
	}
	a1 := open("admin-token")
	a2 := open("admin-token")
	if !alive("admin-token", a1) { // a1 is now more recent than a2
		t.Fatal("a1 not alive")
	}
	a3 := open("admin-token") // over admin's cap of 2: a2, the least recently used, goes
	got := []bool{alive("admin-token", a1), alive("admin-token", a2), alive("admin-token", a3)}
	if diff := cmp.Diff([]bool{true, false, true}, got); diff != "" {
		t.Errorf("per principal (-want +got):\n%s", diff)
	}
	l1 := open("local-token") // 3 open: at the total cap
	l2 := open("local-token") // over it: a1 is now the least recently used
	got = []bool{alive("admin-token", a1), alive("admin-token", a3), alive("local-token", l1), alive("local-token", l2)}
	if diff := cmp.Diff([]bool{false, true, true, true}, got); diff != "" {
		t.Errorf("total (-want +got):\n%s", diff)
	}
}

// TestRefusalsCounted checks that each kind of refusal is counted by
// status code and logged at debug, and that the per-call line is debug.
func TestRefusalsCounted(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	f := newFixture(t, func(c *fixtureConfig) {
		c.Anonymous = nil
		c.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	h := f.handler()
	send := func(body, ctype string, header ...string) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	admin := []string{"Authorization", "Bearer admin-token"}
	got := []int{
		send(initBody, "application/json"),
		send(initBody, "application/json", "Authorization", "Bearer wrong"),
		send(initBody, "application/json", append(admin, "Origin", "https://evil.example")...),
		send(`{"x":"`+strings.Repeat("a", 2<<20)+`"}`, "application/json", admin...),
		send(initBody, "text/plain", admin...),
		send(`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, "application/json", admin...),
		send(initBody, "application/json", admin...),
	}
	want := []int{401, 401, 403, 413, 415, 400, 200}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	counts := map[string]float64{}
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "toolgate_http_refused_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			counts[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	if diff := cmp.Diff(map[string]float64{"400": 1, "401": 2, "403": 1, "413": 1, "415": 1}, counts); diff != "" {
		t.Errorf("toolgate_http_refused_total (-want +got):\n%s", diff)
	}
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	if n := strings.Count(out, "level=DEBUG msg=\"request refused\""); n != 6 {
		t.Errorf("%d refusals logged at debug, want 6:\n%s", n, out)
	}
	if strings.Contains(out, "wrong") || strings.Contains(out, "admin-token") {
		t.Errorf("a token was logged:\n%s", out)
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestEnvelope checks that bodies a lenient decoder would read one way
// and a proxy another are refused with a parse error before the SDK
// sees them, and that a request without a session id gets 400.
func TestEnvelope(t *testing.T) {
	f := newFixture(t, nil)
	hs := httptest.NewServer(f.handler())
	defer hs.Close()
	c := hs.Client()
	code, sid, _ := post(t, c, hs.URL, initBody)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d", code)
	}
	ver := "2025-06-18"
	tests := []struct {
		name     string
		body     string
		session  bool
		wantCode int
		wantRPC  string
	}{
		{name: "duplicate_name", session: true, body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","name":"drop_note","arguments":{"id":1}}}`, wantCode: 400, wantRPC: `"code":-32700`},
		{name: "duplicate_method", session: true, body: `{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/call"}`, wantCode: 400, wantRPC: `"code":-32700`},
		{name: "invalid_utf8", session: true, body: "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", wantCode: 400, wantRPC: `"code":-32700`},
		{name: "oversize_method", session: true, body: `{"jsonrpc":"2.0","id":3,"method":"` + strings.Repeat("m", 300) + `"}`, wantCode: 400, wantRPC: `"code":-32700`},
		{name: "oversize_id", session: true, body: `{"jsonrpc":"2.0","id":"` + strings.Repeat("9", 300) + `","method":"ping"}`, wantCode: 400, wantRPC: `"code":-32700`},
		{name: "too_deep", session: true, body: `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}`, wantCode: 400, wantRPC: `"code":-32700`},
		{name: "not_json", session: true, body: `{"jsonrpc":`, wantCode: 400, wantRPC: `"code":-32700`},
		{name: "no_session", body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"id":1}}}`, wantCode: 400, wantRPC: `{"jsonrpc":"2.0","id":3,"error":{"code":-32600`},
		{name: "valid", session: true, body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"id":1}}}`, wantCode: 200, wantRPC: `hello`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := []string{"Mcp-Protocol-Version", ver}
			if tt.session {
				h = append(h, sessionIDHeader, sid)
			}
			code, _, body := post(t, c, hs.URL, tt.body, h...)
			if code != tt.wantCode || !strings.Contains(body, tt.wantRPC) {
				t.Errorf("got %d %s, want %d with %s", code, body, tt.wantCode, tt.wantRPC)
			}
		})
	}
	for _, r := range f.records(t) {
		if r.Tool == "drop_note" {
			t.Errorf("drop_note ran: %+v", r)
		}
	}
}
