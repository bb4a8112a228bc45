// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

// Hostile clients on loopback: each test is one way a client that is not
// authenticated, or not honest, tries to hold resources, borrow another
// route's credentials or lock others out. Every test is bounded in
// requests and in time.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/kernel"
)

// whoami answers with the caller's principal and key id.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	id, ok := IdentityFrom(r.Context())
	if !ok {
		io.WriteString(w, "nobody")
		return
	}
	fmt.Fprintf(w, "%s %s %v", id.Principal.ID, id.KeyID, id.Anonymous)
})

// shaped refuses in a shape of its own, so that a test can tell the
// route's refusal from the default one.
func shaped(tag string) RefuseFunc {
	return func(w http.ResponseWriter, _ *http.Request, status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"%s":%q}`, tag, msg)
	}
}

func testAuth(t testing.TB, anon bool, reg prometheus.Registerer) *Auth {
	t.Helper()
	c := &AuthConfig{Tokens: map[string]kernel.Principal{"admin-token": {ID: "admin", Roles: []string{"admin"}}, "agent-token": {ID: "agent"}},
		KeyIDs: map[string]string{"agent-token": "agent#1"}, Registerer: reg}
	if anon {
		c.Anonymous = &kernel.Principal{ID: "anonymous"}
	}
	a, err := NewAuth(c)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// testRoutes are the routes of toolgate serve in miniature: MCP (bearer,
// anonymous allowed), the gateway (keys, anonymous refused), the console
// (its cookie, optional for the login page) and /healthz.
func testRoutes() []Route {
	return []Route{
		{Pattern: "/mcp", Handler: whoami, RouteAuth: RouteAuth{Accept: Bearer, Anonymous: true}},
		{Pattern: "/v1/", Handler: whoami, RouteAuth: RouteAuth{Accept: Keys, Refuse: shaped("openai")}},
		{Pattern: "/ui/", Handler: whoami, RouteAuth: RouteAuth{Accept: Cookie, Optional: true, Refuse: shaped("console")}},
		{Pattern: "POST /login", Handler: http.NotFoundHandler(), RouteAuth: RouteAuth{Public: true}},
	}
}

func TestCredentialsPerRoute(t *testing.T) {
	a := testAuth(t, true, nil)
	srv, err := New(&Config{Auth: a, Routes: testRoutes()})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	sess, err := a.Login(rec, httptest.NewRequest("POST", "/ui/login", nil), "admin-token", nil)
	if err != nil {
		t.Fatal(err)
	}
	cookie := rec.Result().Cookies()[0]
	// The admin's token has no id: it gets one that holds nothing of it.
	adminID, _ := a.Verify("admin-token")
	admin, agent := adminID.KeyID, "agent#1"
	if !regexp.MustCompile(`^tok_[0-9a-f]{12}$`).MatchString(admin) {
		t.Errorf("key id %q", admin)
	}
	if again := testAuth(t, true, nil); func() string { id, _ := again.Verify("admin-token"); return id.KeyID }() == admin {
		t.Errorf("the derived key id %q does not depend on a per-process key: a weak token could be found from it", admin)
	}
	tests := []struct {
		name, path string
		header     []string
		cookie     bool
		status     int
		body       string
	}{
		{name: "mcp_bearer", path: "/mcp", header: []string{"Authorization", "Bearer agent-token"}, status: 200, body: "agent " + agent + " false"},
		{name: "mcp_bearer_lowercase_scheme", path: "/mcp", header: []string{"Authorization", "bearer agent-token"}, status: 200, body: "agent " + agent + " false"},
		{name: "mcp_anonymous", path: "/mcp", status: 200, body: "anonymous  true"},
		{name: "mcp_wrong_token", path: "/mcp", header: []string{"Authorization", "Bearer nope"}, status: 401},
		{name: "mcp_basic", path: "/mcp", header: []string{"Authorization", "Basic YTpi"}, status: 401},
		{name: "mcp_x_api_key", path: "/mcp", header: []string{"X-Api-Key", "agent-token"}, status: 401},
		{name: "mcp_cookie", path: "/mcp", cookie: true, status: 401},
		{name: "gateway_bearer", path: "/v1/chat/completions", header: []string{"Authorization", "Bearer admin-token"}, status: 200, body: "admin " + admin + " false"},
		{name: "gateway_x_api_key", path: "/v1/messages", header: []string{"X-Api-Key", "agent-token"}, status: 200, body: "agent " + agent + " false"},
		{name: "gateway_x_goog_api_key", path: "/v1/models", header: []string{"X-Goog-Api-Key", "agent-token"}, status: 200, body: "agent " + agent + " false"},
		{name: "gateway_anonymous_refused", path: "/v1/chat/completions", status: 401, body: `{"openai":"authentication required: send a bearer token, x-api-key, x-goog-api-key"}`},
		{name: "gateway_cookie_refused", path: "/v1/chat/completions", cookie: true, status: 401, body: `{"openai":"this route takes a bearer token, x-api-key, x-goog-api-key, not a console session"}`},
		{name: "gateway_wrong_key", path: "/v1/messages", header: []string{"X-Api-Key", "nope"}, status: 401, body: `{"openai":"invalid API key"}`},
		{name: "console_cookie", path: "/ui/api/me", cookie: true, status: 200, body: "admin " + admin + " false"},
		{name: "console_login_page", path: "/ui/", status: 200, body: "nobody"},
		{name: "console_bearer_refused", path: "/ui/api/me", header: []string{"Authorization", "Bearer admin-token"}, status: 401, body: `{"console":"this route takes a console session, not a bearer token"}`},
		{name: "console_key_refused", path: "/ui/api/me", header: []string{"X-Api-Key", "admin-token"}, status: 401, body: `{"console":"this route takes a console session, not x-api-key"}`},
		{name: "healthz_public", path: "/healthz", header: []string{"Authorization", "Bearer nope"}, status: 200, body: "ok\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tt.path, nil)
			for i := 0; i+1 < len(tt.header); i += 2 {
				req.Header.Set(tt.header[i], tt.header[i+1])
			}
			if tt.cookie {
				req.AddCookie(cookie)
			}
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d (%s)", rec.Code, tt.status, rec.Body)
			}
			if tt.body != "" && rec.Body.String() != tt.body {
				t.Errorf("body %q, want %q", rec.Body, tt.body)
			}
			if rec.Code == 401 && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge")
			}
			if strings.Contains(rec.Body.String(), "-token") {
				t.Errorf("a token echoed: %s", rec.Body)
			}
		})
	}
	if sess.Principal.ID != "admin" || sess.KeyID != admin {
		t.Errorf("session identity %+v, want the token's key id %s", sess, admin)
	}
}

// TestSessionKeyID: a console session acts with the key it was opened
// with, so its calls name that key's id — a key made at run time's, or a
// config token's — never a generic "session".
func TestSessionKeyID(t *testing.T) {
	ctx := context.Background()
	keys := kernel.NewMemoryKeyStore()
	secret, k := kernel.NewKey("ops")
	if err := keys.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	a, err := NewAuth(&AuthConfig{Tokens: map[string]kernel.Principal{"admin-token": {ID: "admin"}}, KeyIDs: map[string]string{"admin-token": "admin#1"}, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, tok, want string }{
		{"runtime_key", secret, k.ID},
		{"config_token", "admin-token", "admin#1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			sess, err := a.Login(rec, httptest.NewRequest("POST", "/ui/login", nil), tt.tok, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sess.KeyID != tt.want {
				t.Errorf("session key id %q, want %q", sess.KeyID, tt.want)
			}
			req := httptest.NewRequest("GET", "/ui/api/me", nil)
			req.AddCookie(rec.Result().Cookies()[0])
			var got Identity
			a.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got, _ = IdentityFrom(r.Context()) }),
				RouteAuth{Accept: Cookie}).ServeHTTP(httptest.NewRecorder(), req)
			if got.KeyID != tt.want {
				t.Errorf("a request of the session names key %q, want %q", got.KeyID, tt.want)
			}
		})
	}
}

// TestThrottlePerAddress: eleven wrong tokens from one address, spread
// over the gateway, MCP and the console's login, slow that address on
// every route, for the right token too, and never another address.
func TestThrottlePerAddress(t *testing.T) {
	a := testAuth(t, false, nil)
	now := time.Unix(1e9, 0)
	a.backoff.now = func() time.Time { return now }
	srv, err := New(&Config{Auth: a, Routes: testRoutes()})
	if err != nil {
		t.Fatal(err)
	}
	send := func(addr, path, hdr, tok string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, nil)
		req.RemoteAddr = addr + ":40000"
		req.Header.Set(hdr, tok)
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	login := func(addr, tok string) error {
		req := httptest.NewRequest("POST", "/ui/login", nil)
		req.RemoteAddr = addr + ":40001"
		_, err := a.Login(httptest.NewRecorder(), req, tok, nil)
		return err
	}
	for i := range AuthFailureBurst {
		var err error
		switch i % 3 {
		case 0:
			if c := send("192.0.2.1", "/v1/chat/completions", "Authorization", fmt.Sprint("Bearer guess", i)).Code; c != 401 {
				err = fmt.Errorf("status %d", c)
			}
		case 1:
			if c := send("192.0.2.1", "/mcp", "Authorization", fmt.Sprint("Bearer guess", i)).Code; c != 401 {
				err = fmt.Errorf("status %d", c)
			}
		case 2:
			if e := login("192.0.2.1", fmt.Sprint("guess", i)); !errors.Is(e, ErrUnknownToken) {
				err = fmt.Errorf("login: %v", e)
			}
		}
		if err != nil {
			t.Fatalf("guess %d: %v, want a refusal", i, err)
		}
	}
	// The eleventh, and the right token, are slowed on every route.
	if err := login("192.0.2.1", "admin-token"); !errors.Is(err, ErrThrottled) {
		t.Errorf("login after %d failures: %v, want ErrThrottled", AuthFailureBurst, err)
	}
	for _, path := range []string{"/mcp", "/v1/chat/completions"} {
		rec := send("192.0.2.1", path, "Authorization", "Bearer admin-token")
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "6" {
			t.Errorf("%s after %d failures: %d Retry-After %q, want 429 and 6", path, AuthFailureBurst, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	if rec := send("192.0.2.1", "/v1/chat/completions", "Authorization", "Bearer admin-token"); !strings.Contains(rec.Body.String(), `"openai"`) {
		t.Errorf("429 not in the route's shape: %s", rec.Body)
	}
	// Another address is not affected, on any route.
	if err := login("192.0.2.2", "admin-token"); err != nil {
		t.Errorf("login from another address: %v", err)
	}
	if c := send("192.0.2.2", "/v1/chat/completions", "Authorization", "Bearer admin-token").Code; c != 200 {
		t.Errorf("gateway from another address: %d, want 200", c)
	}
	now = now.Add(AuthFailureRefill)
	if err := login("192.0.2.1", "admin-token"); err != nil {
		t.Errorf("login after one refill period: %v", err)
	}
	if c := send("192.0.2.1", "/mcp", "Authorization", "Bearer guess-again").Code; c != 401 {
		t.Errorf("one more guess: %d, want 401", c)
	}
	if c := send("192.0.2.1", "/mcp", "Authorization", "Bearer guess-again").Code; c != 429 {
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

// TestAuthBackoffForgetsFull checks that an address whose bucket is full
// again is forgotten, and that the count requests read without the lock
// follows: a request then looks at no address until one fails again,
// and the address starts over as a new one would.
func TestAuthBackoffForgetsFull(t *testing.T) {
	now := time.Unix(1e9, 0)
	b := newAuthBackoff(func() time.Time { return now })
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "192.0.2.9:1234"
	if d := b.waitFor(req); d != 0 || b.n.Load() != 0 {
		t.Fatalf("no failures: wait %v, %d addresses", d, b.n.Load())
	}
	for range AuthFailureBurst {
		b.fail("192.0.2.9")
	}
	if d := b.waitFor(req); d != AuthFailureRefill || b.n.Load() != 1 {
		t.Fatalf("after %d failures: wait %v, %d addresses; want %v, 1", AuthFailureBurst, d, b.n.Load(), AuthFailureRefill)
	}
	now = now.Add(AuthFailureBurst * AuthFailureRefill)
	if d := b.waitFor(req); d != 0 || b.n.Load() != 0 || b.lru.Len() != 0 || len(b.addrs) != 0 {
		t.Fatalf("refilled: wait %v, %d addresses (%d, %d); want 0 and none", d, b.n.Load(), b.lru.Len(), len(b.addrs))
	}
	for range AuthFailureBurst {
		b.fail("192.0.2.9")
	}
	if d := b.waitFor(req); d != AuthFailureRefill {
		t.Errorf("after %d more failures: wait %v, want %v", AuthFailureBurst, d, AuthFailureRefill)
	}
}

// TestRefusalsCountedNotLogged checks that refusals are counted by status
// and logged at debug without the token.
func TestRefusalsCountedNotLogged(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	reg := prometheus.NewRegistry()
	a, err := NewAuth(&AuthConfig{Tokens: map[string]kernel.Principal{"admin-token": {ID: "admin"}}, Registerer: reg,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(&Config{Auth: a, Routes: testRoutes()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"wrong-secret", "", "admin-token"} {
		req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}
	mfs, _ := reg.Gather()
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			got[mf.GetName()+"/"+m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	if diff := cmp.Diff(map[string]float64{"toolgate_http_refused_total/401": 2}, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	if n := strings.Count(out, `msg="request refused"`); n != 2 || strings.Contains(out, "secret") || strings.Contains(out, "admin-token") {
		t.Errorf("log:\n%s", out)
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

// run starts srv on a loopback port and returns its address and a func
// that stops it and returns Run's error.
func run(t *testing.T, srv *Server) (string, func() error) {
	t.Helper()
	addr, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	var once sync.Once
	var rerr error
	stop := func() error {
		once.Do(func() { cancel(); rerr = <-done })
		return rerr
	}
	t.Cleanup(func() { stop() })
	return addr.String(), stop
}

// TestSlowBody checks that a body sent a byte at a time is cut off at the
// read timeout, while a handler that answers slowly after reading its
// body (a long tool call) keeps its context and its connection.
func TestSlowBody(t *testing.T) {
	const timeout = 300 * time.Millisecond
	var slowOK atomic.Bool
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		select {
		case <-time.After(3 * timeout):
			slowOK.Store(true)
			io.WriteString(w, "done")
		case <-r.Context().Done():
		}
	})
	srv, err := New(&Config{Addr: "127.0.0.1:0", ReadTimeout: timeout, ReadHeaderTimeout: time.Second, IdleTimeout: time.Minute,
		Routes: []Route{{Pattern: "/slow", Handler: slow, RouteAuth: RouteAuth{Public: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := run(t, srv)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const body = `{"jsonrpc":"2.0","id":1,"method":"initialize"}`
	fmt.Fprintf(c, "POST /slow HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n", addr, len(body))
	start := time.Now()
	cut := false
	for i := 0; i < len(body) && time.Since(start) < 5*time.Second; i++ {
		if _, err := c.Write([]byte{body[i]}); err != nil {
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
	srv, err := New(&Config{Addr: "127.0.0.1:0", IdleTimeout: 200 * time.Millisecond, ReadHeaderTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := run(t, srv)
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
	srv, err := New(&Config{Addr: "127.0.0.1:0", MaxConnections: 2, ReadHeaderTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := run(t, srv)
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

// streamer streams "tick" events until its request ends: naturally after
// n ticks, or with an error event when the server cancels it to shut
// down. It counts the streams it ended each way.
type streamer struct {
	n             int
	natural, shut atomic.Int64
	started       chan struct{}
}

func (s *streamer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	s.started <- struct{}{}
	for i := 0; i < s.n; i++ {
		select {
		case <-r.Context().Done():
			if errors.Is(context.Cause(r.Context()), ErrShutdown) {
				io.WriteString(w, "event: error\ndata: {\"error\":\"shutting down\"}\n\n")
				rc.Flush()
				s.shut.Add(1)
			}
			return
		case <-time.After(20 * time.Millisecond):
		}
		io.WriteString(w, "data: tick\n\n")
		rc.Flush()
	}
	io.WriteString(w, "data: [DONE]\n\n")
	s.natural.Add(1)
}

// TestShutdownEndsStreams: three streams open at shutdown. With a grace
// period longer than they need, each ends naturally; with a shorter one,
// or when Close ends the grace period at once (a second SIGTERM), each
// ends with an error event. Run returns nil either way.
func TestShutdownEndsStreams(t *testing.T) {
	tests := []struct {
		name        string
		ticks       int
		grace       time.Duration
		close       bool
		natural     int64
		shut        int64
		maxDuration time.Duration
	}{
		{name: "finish_within_grace", ticks: 10, grace: 5 * time.Second, natural: 3},
		{name: "grace_ends", ticks: 1000, grace: 300 * time.Millisecond, shut: 3, maxDuration: 3 * time.Second},
		{name: "second_signal", ticks: 1000, grace: time.Minute, close: true, shut: 3, maxDuration: 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &streamer{n: tt.ticks, started: make(chan struct{}, 3)}
			srv, err := New(&Config{Addr: "127.0.0.1:0", ShutdownTimeout: tt.grace, Auth: testAuth(t, false, nil),
				Routes: []Route{{Pattern: "/v1/stream", Handler: st, RouteAuth: RouteAuth{Accept: Keys}}}})
			if err != nil {
				t.Fatal(err)
			}
			addr, stop := run(t, srv)
			bodies := make([]string, 3)
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Go(func() {
					req, _ := http.NewRequest("POST", "http://"+addr+"/v1/stream", nil)
					req.Header.Set("Authorization", "Bearer agent-token")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						bodies[i] = err.Error()
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					bodies[i] = string(b)
				})
			}
			for range 3 {
				<-st.started
			}
			start := time.Now()
			stopped := make(chan error, 1)
			go func() { stopped <- stop() }()
			if tt.close {
				time.Sleep(100 * time.Millisecond)
				srv.Close()
			}
			if err := <-stopped; err != nil {
				t.Errorf("Run: %v, want nil", err)
			}
			wg.Wait()
			if tt.maxDuration > 0 && time.Since(start) > tt.maxDuration {
				t.Errorf("shutdown took %v, want under %v", time.Since(start), tt.maxDuration)
			}
			if st.natural.Load() != tt.natural || st.shut.Load() != tt.shut {
				t.Errorf("%d natural ends and %d error events, want %d and %d", st.natural.Load(), st.shut.Load(), tt.natural, tt.shut)
			}
			for i, b := range bodies {
				if !strings.HasSuffix(b, "data: [DONE]\n\n") && !strings.HasSuffix(b, "event: error\ndata: {\"error\":\"shutting down\"}\n\n") {
					t.Errorf("stream %d ended with neither [DONE] nor an error event: %q", i, b[max(0, len(b)-60):])
				}
			}
		})
	}
}

// TestDrainingHealth: /healthz says 503 once shutdown has begun, so that
// a load balancer stops sending new requests.
func TestDrainingHealth(t *testing.T) {
	hold := make(chan struct{})
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { close(entered); <-hold })
	srv, err := New(&Config{Addr: "127.0.0.1:0", Routes: []Route{{Pattern: "/hold", Handler: h, RouteAuth: RouteAuth{Public: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := run(t, srv)
	go http.Get("http://" + addr + "/hold")
	<-entered
	go stop()
	for !srv.Draining() {
		time.Sleep(time.Millisecond)
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("healthz while draining: %d, want 503", rec.Code)
	}
	close(hold)
}

func TestNewRefusesBadRoutes(t *testing.T) {
	tests := []struct {
		name   string
		routes []Route
	}{
		{name: "no_handler", routes: []Route{{Pattern: "/x"}}},
		{name: "bad_pattern", routes: []Route{{Pattern: "GET", Handler: whoami}}},
		{name: "twice", routes: []Route{{Pattern: "/x", Handler: whoami}, {Pattern: "/x", Handler: whoami}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(&Config{Routes: tt.routes}); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("New: %v, want ErrInvalidConfig", err)
			}
		})
	}
	if _, err := NewAuth(&AuthConfig{Tokens: map[string]kernel.Principal{"": {ID: "x"}}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("empty token: %v", err)
	}
	if _, err := NewAuth(&AuthConfig{Tokens: map[string]kernel.Principal{"t": {}}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("principal without id: %v", err)
	}
}

// BenchmarkRequire is the cost authentication adds to a request: a
// bearer token found, and an anonymous request let in.
func BenchmarkRequire(b *testing.B) {
	a := testAuth(b, true, prometheus.NewRegistry())
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, bb := range []struct {
		name string
		h    http.Handler
		tok  string
	}{
		{name: "bare", h: noop},
		{name: "bearer", h: a.Require(noop, RouteAuth{Accept: Keys}), tok: "Bearer agent-token-0123456789abcdef"},
		{name: "anonymous", h: a.Require(noop, RouteAuth{Accept: Keys, Anonymous: true})},
	} {
		b.Run(bb.name, func(b *testing.B) {
			if bb.tok != "" {
				a.keys[sha256Sum(bb.tok[len("Bearer "):])] = &Identity{Principal: kernel.Principal{ID: "agent"}}
			}
			req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
			if bb.tok != "" {
				req.Header.Set("Authorization", bb.tok)
			}
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				bb.h.ServeHTTP(w, req)
			}
		})
	}
}

func sha256Sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }
