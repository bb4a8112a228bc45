// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

// Hostile clients on loopback: each test is one way a client that is
// not authenticated, or not honest, tries to hold resources or confuse
// the server. Every test is bounded in requests and in time.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
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

// serveLimited serves h on a loopback listener behind the listener
// limits, as toolgate serve does.
func serveLimited(t *testing.T, h http.Handler, l *HTTPLimits, maxConns int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := NewHTTPServer(h, l)
	go hs.Serve(LimitListener(ln, maxConns))
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

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

// TestSlowBody checks that a body sent a byte at a time is cut off at the
// read timeout, while a handler that answers slowly after reading its
// body (a long tool call) keeps its context and its connection.
func TestSlowBody(t *testing.T) {
	const timeout = 300 * time.Millisecond
	var slowOK atomic.Bool
	mux := http.NewServeMux()
	f := newFixture(t, nil)
	mux.Handle("/mcp", f.srv.Handler())
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		select {
		case <-time.After(3 * timeout):
			slowOK.Store(true)
			io.WriteString(w, "done")
		case <-r.Context().Done():
		}
	})
	addr := serveLimited(t, mux, &HTTPLimits{ReadTimeout: timeout, ReadHeaderTimeout: time.Second, IdleTimeout: time.Minute}, 0)

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", addr, len(initBody))
	start := time.Now()
	cut := false
	for i := 0; i < len(initBody) && time.Since(start) < 5*time.Second; i++ {
		if _, err := c.Write([]byte{initBody[i]}); err != nil {
			cut = true
			break
		}
		time.Sleep(50 * time.Millisecond)
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		var one [1]byte
		if _, err := c.Read(one[:]); err != nil && !isTimeout(err) || err == nil {
			cut = true // an answer or a closed connection
			break
		}
	}
	if el := time.Since(start); !cut || el > 8*timeout {
		t.Errorf("slow body: cut=%v after %v, want cut within %v", cut, el, 8*timeout)
	}

	resp, err := http.Post("http://"+addr+"/slow", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "done" || !slowOK.Load() {
		t.Errorf("slow handler after a fast body: %q, want done", b)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestIdleConnectionsClosed checks that a keep-alive connection left idle
// is closed at the idle timeout.
func TestIdleConnectionsClosed(t *testing.T) {
	f := newFixture(t, nil)
	addr := serveLimited(t, f.srv.Mux("/mcp", nil, nil), &HTTPLimits{IdleTimeout: 200 * time.Millisecond, ReadHeaderTimeout: time.Minute}, 0)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: read %v, want EOF", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("idle connection closed after %v, want about 200ms", el)
	}
}

// TestConnectionCap checks that connections beyond the cap wait in the
// backlog until one is closed.
func TestConnectionCap(t *testing.T) {
	f := newFixture(t, nil)
	addr := serveLimited(t, f.srv.Mux("/mcp", nil, nil), &HTTPLimits{ReadHeaderTimeout: time.Minute}, 2)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// An answer proves the server accepted it; keep-alive holds it.
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		held = append(held, c)
	}
	c, err := net.Dial("tcp", addr) // the kernel's backlog accepts it
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var one [1]byte
	if _, err := c.Read(one[:]); !isTimeout(err) {
		t.Fatalf("third connection answered while two are held: %v", err)
	}
	held[0].Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("third connection after one closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d, want 200", resp.StatusCode)
	}
}

// TestLimitListenerReleasesOnce checks that closing a connection twice
// gives back one slot, not two.
func TestLimitListenerReleasesOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := LimitListener(ln, 1).(*limitListener)
	defer l.Close()
	go func() {
		for range 2 {
			if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
				defer c.Close()
			}
		}
		time.Sleep(time.Second)
	}()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	c.Close()
	if n := len(l.sem); n != 0 {
		t.Errorf("%d slots taken after closing twice, want 0", n)
	}
	c, err = l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l.sem); n != 1 {
		t.Errorf("%d slots taken with one open, want 1", n)
	}
	c.Close()
	l.Close()
	if _, err := l.Accept(); err == nil {
		t.Error("Accept after Close succeeded")
	}
}

// TestAbandonedSessions opens 10,000 sessions and abandons them: the
// server keeps at most the cap, and goroutines and heap stay bounded.
func TestAbandonedSessions(t *testing.T) {
	const opened, maxSessions = 10000, 1000
	n := opened
	if testing.Short() {
		n = 2000
	}
	f := newFixture(t, func(c *Config) { c.MaxSessions = maxSessions; c.MaxSessionsPerPrincipal = -1 })
	hs := httptest.NewServer(f.srv.Handler())
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
	f := newFixture(t, func(c *Config) {
		c.MaxSessions = 3
		c.MaxSessionsPerPrincipal = 2
		c.Tokens = map[string]kernel.Principal{"admin-token": {ID: "admin"}, "local-token": {ID: "local"}}
	})
	hs := httptest.NewServer(f.srv.Handler())
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

// TestUnauthorizedHeader checks that every 401 names the scheme, for a
// missing token and for a wrong one.
func TestUnauthorizedHeader(t *testing.T) {
	tests := []struct {
		name   string
		header []string
	}{
		{name: "missing"},
		{name: "wrong", header: []string{"Authorization", "Bearer nope"}},
		{name: "not_bearer", header: []string{"Authorization", "Basic YTpi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.Anonymous = nil })
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "/mcp", strings.NewReader(initBody))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(tt.header); i += 2 {
				req.Header.Set(tt.header[i], tt.header[i+1])
			}
			f.srv.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusUnauthorized || !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", rec.Code, rec.Header().Get("WWW-Authenticate"))
			}
		})
	}
}

// TestRefusalsCounted checks that each kind of refusal is counted by
// status code and logged at debug, and that the per-call line is debug.
func TestRefusalsCounted(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	f := newFixture(t, func(c *Config) {
		c.Anonymous = nil
		c.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	h := f.srv.Handler()
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
	for _, code := range []string{"400", "401", "403", "413", "415"} {
		counts[code] = counter(t, f.srv.cfg.Metrics.refused.WithLabelValues(code))
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

// TestAuthBackoff checks that an address that keeps failing
// authentication gets 429 with Retry-After — for the right token too —
// until its bucket refills, and that other addresses are not affected.
func TestAuthBackoff(t *testing.T) {
	f := newFixture(t, nil)
	now := time.Unix(1e9, 0)
	f.srv.backoff.now = func() time.Time { return now }
	h := f.srv.Handler()
	send := func(addr, tok string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(initBody))
		req.RemoteAddr = addr + ":40000"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := range AuthFailureBurst {
		if c := send("192.0.2.1", fmt.Sprint("guess", i)).Code; c != http.StatusUnauthorized {
			t.Fatalf("guess %d: status %d, want 401", i, c)
		}
	}
	for _, tok := range []string{"guess-more", "admin-token"} {
		rec := send("192.0.2.1", tok)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "6" {
			t.Errorf("%s after %d failures: %d Retry-After %q, want 429 and 6", tok, AuthFailureBurst, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	if c := send("192.0.2.2", "admin-token").Code; c != http.StatusOK {
		t.Errorf("another address: %d, want 200", c)
	}
	now = now.Add(AuthFailureRefill)
	if c := send("192.0.2.1", "admin-token").Code; c != http.StatusOK {
		t.Errorf("after one refill period: %d, want 200", c)
	}
	if c := send("192.0.2.1", "guess-again").Code; c != http.StatusUnauthorized {
		t.Errorf("one more guess: %d, want 401", c)
	}
	if c := send("192.0.2.1", "guess-again").Code; c != http.StatusTooManyRequests {
		t.Errorf("a guess over the refill: %d, want 429", c)
	}
}

// TestAuthBackoffBounded checks that the addresses remembered are capped.
func TestAuthBackoffBounded(t *testing.T) {
	b := newAuthBackoff(time.Now)
	for i := range authAddrs + 500 {
		b.fail(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	}
	if n, m := b.lru.Len(), len(b.addrs); n != authAddrs || m != authAddrs {
		t.Errorf("%d addresses in the list, %d in the map; want %d", n, m, authAddrs)
	}
}

// TestEnvelope checks that bodies a lenient decoder would read one way
// and a proxy another are refused with a parse error before the SDK
// sees them, and that a request without a session id gets 400.
func TestEnvelope(t *testing.T) {
	f := newFixture(t, nil)
	hs := httptest.NewServer(f.srv.Handler())
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

// TestGuardSharedWithGateway: failed authentications at another route on
// the listener (the model gateway, wrapped with Guard) count toward the
// same per-address backoff as /mcp, and its 401s get WWW-Authenticate.
func TestGuardSharedWithGateway(t *testing.T) {
	f := newFixture(t, nil)
	now := time.Unix(1e9, 0)
	f.srv.backoff.now = func() time.Time { return now }
	gw := f.srv.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer gw-token" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	for i := range AuthFailureBurst {
		req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
		req.RemoteAddr = "192.0.2.9:40000"
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" {
			t.Fatalf("guess %d: %d %q", i, rec.Code, rec.Header().Get("WWW-Authenticate"))
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(initBody))
	req.RemoteAddr = "192.0.2.9:40001"
	req.Header.Set("Authorization", "Bearer admin-token")
	f.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusTooManyRequests {
		t.Errorf("/mcp after %d failures at the gateway: %d, want 429", AuthFailureBurst, rec.Code)
	}
}
