// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
)

func testConsole(t *testing.T) (*httptest.Server, *Feed, *kernel.Kernel) {
	t.Helper()
	feed := NewFeed(8, 2)
	k, err := kernel.New(&kernel.Config{Observe: server.KernelObserver(feed)})
	if err != nil {
		t.Fatal(err)
	}
	k.Registry().Add(kernel.Capability{Definition: tool.Definition{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &tool.Annotations{Title: "Echo it"}}, Safety: kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(ctx context.Context, c tool.Call) (tool.Result, error) {
			return tool.TextResult(c.ID, "echoed"), nil
		})})
	auth, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{
		"admin-token": {ID: "ops", Roles: []string{"admin"}}, "reader-token": {ID: "agent", Roles: []string{"reader"}}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(&Config{Kernel: k, Feed: feed, SourceOf: map[string]string{"echo": "demo"}, Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	edge, err := server.New(&server.Config{Auth: auth, Routes: c.Routes()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(edge.Handler())
	t.Cleanup(srv.Close)
	return srv, feed, k
}

func client(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func login(t *testing.T, c *http.Client, base, tok string) int {
	t.Helper()
	code, _ := loginFrom(t, c, base, tok, "")
	return code
}

// loginFrom logs in from a client address (X-Forwarded-For is not
// trusted, so the test server's address is set by the dialer) and
// returns the status and the page's error message.
func loginFrom(t *testing.T, c *http.Client, base, tok, localIP string) (int, string) {
	t.Helper()
	if localIP != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
		c = &http.Client{Jar: c.Jar, CheckRedirect: c.CheckRedirect, Transport: &http.Transport{DialContext: d.DialContext}}
	}
	resp, err := c.PostForm(base+"/ui/login", url.Values{"token": {tok}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	msg := ""
	if _, after, ok := strings.Cut(string(b), `role="alert">`); ok {
		msg, _, _ = strings.Cut(after, "</p>")
	}
	return resp.StatusCode, msg
}

// TestConsoleAuth: only a principal with the role logs in; the API
// refuses anyone without a session, and a POST without the CSRF header.
func TestConsoleAuth(t *testing.T) {
	srv, _, _ := testConsole(t)
	tests := []struct {
		name, token string
		status      int
		msg         string
	}{
		{"no-token", "", http.StatusUnauthorized, "Unknown token."},
		{"wrong-token", "guess", http.StatusUnauthorized, "Unknown token."},
		{"without-role", "reader-token", http.StatusForbidden, "That token&#39;s principal does not have the console role (admin)."},
		{"admin", "admin-token", http.StatusSeeOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t)
			if got, msg := loginFrom(t, c, srv.URL, tt.token, ""); got != tt.status || msg != tt.msg {
				t.Errorf("login: %d %q, want %d %q", got, msg, tt.status, tt.msg)
			}
			resp, _ := c.Get(srv.URL + "/ui/api/tools")
			resp.Body.Close()
			if want := map[bool]int{true: 200, false: 401}[tt.status == http.StatusSeeOther]; resp.StatusCode != want {
				t.Errorf("tools: %d, want %d", resp.StatusCode, want)
			}
		})
	}
	c := client(t)
	login(t, c, srv.URL, "admin-token")
	resp, _ := c.Post(srv.URL+"/ui/api/call", "application/json", strings.NewReader(`{"tool":"echo"}`))
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("call without the CSRF header: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/ui/login", strings.NewReader("token=admin-token"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin login: %d", resp.StatusCode)
	}
}

// TestConsoleLoginThrottlePerAddress: eleven wrong logins from one
// address slow that address, and only it: an operator on another address
// still logs in.
func TestConsoleLoginThrottlePerAddress(t *testing.T) {
	srv, _, _ := testConsole(t)
	const attacker, operator = "127.0.0.2", "127.0.0.3"
	for i := range server.AuthFailureBurst + 1 {
		code, _ := loginFrom(t, client(t), srv.URL, "guess", attacker)
		if want := map[bool]int{true: 401, false: 429}[i < server.AuthFailureBurst]; code != want {
			t.Errorf("guess %d: %d, want %d", i, code, want)
		}
	}
	if code, msg := loginFrom(t, client(t), srv.URL, "admin-token", attacker); code != http.StatusTooManyRequests || !strings.Contains(msg, "Too many failed logins") {
		t.Errorf("the attacker's address with the right token: %d %q, want 429 saying why", code, msg)
	}
	if code, _ := loginFrom(t, client(t), srv.URL, "admin-token", operator); code != http.StatusSeeOther {
		t.Errorf("another address: %d, want 303", code)
	}
}

// TestConsoleCallAndFeed runs a try-it call as the logged-in principal and
// sees it, and a gateway request, in the live feed; a feed subscriber that
// never reads is dropped, not buffered without end.
func TestConsoleCallAndFeed(t *testing.T) {
	srv, feed, _ := testConsole(t)
	c := client(t)
	login(t, c, srv.URL, "admin-token")
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/ui/api/call", strings.NewReader(`{"tool":"echo","arguments":{"x":1}}`))
	req.Header.Set(csrfHeader, "1")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Status, Result string
	}
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if out.Status != "ok" || out.Result != "echoed" {
		t.Fatalf("call: %+v", out)
	}
	feed.Observe(server.Observation{Principal: "agent", KeyID: "tok_0123456789ab", Request: &server.Request{Time: time.Now(), Model: "qwen3", Provider: "local", Status: 200, Duration: 5 * time.Millisecond}})
	resp, err = c.Get(srv.URL + "/ui/api/feed")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	var kinds []string
	for sc.Scan() && len(kinds) < 2 {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e Event
			json.Unmarshal([]byte(data), &e)
			kinds = append(kinds, e.Kind)
			if e.Kind == "call" && (e.Principal != "ops" || e.KeyID != "session" || e.Call.Tool != "echo" || string(e.Call.Args) != `{"x":1}`) {
				t.Errorf("call event %+v %+v", e.Observation, e.Call)
			}
			if e.Kind == "request" && (e.Principal != "agent" || e.KeyID != "tok_0123456789ab") {
				t.Errorf("request event %+v", e.Observation)
			}
		}
	}
	resp.Body.Close()
	if strings.Join(kinds, ",") != "call,request" {
		t.Errorf("feed %v", kinds)
	}
	// A subscriber that never reads is dropped once it lags.
	_, ch, ok := feed.subscribe()
	if !ok {
		t.Fatal("no room for a subscriber")
	}
	for range subscriberBuffer + 10 {
		feed.Observe(server.Observation{Request: &server.Request{Provider: "local"}})
	}
	n := 0
	for range ch {
		n++
	}
	if n != subscriberBuffer {
		t.Errorf("a stuck subscriber got %d events, want its buffer of %d then a close", n, subscriberBuffer)
	}
	if len(feed.Events()) != 8 {
		t.Errorf("ring holds %d events, want its size 8", len(feed.Events()))
	}
	ps := feed.providers()
	if len(ps) != 1 || ps[0].Requests != 8 {
		t.Errorf("providers %+v", ps)
	}
}

// TestConsoleFeedSubscribersBounded: beyond MaxSubscribers live feeds the
// console says no.
func TestConsoleFeedSubscribersBounded(t *testing.T) {
	srv, _, _ := testConsole(t)
	c := client(t)
	login(t, c, srv.URL, "admin-token")
	var open []*http.Response
	for range 2 {
		resp, err := c.Get(srv.URL + "/ui/api/feed")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("feed: %v %v", err, resp)
		}
		open = append(open, resp)
	}
	resp, _ := c.Get(srv.URL + "/ui/api/feed")
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("third feed: %d, want 503", resp.StatusCode)
	}
	for _, r := range open {
		r.Body.Close()
	}
}

// TestConsoleProviders: per provider, in name order, the requests and
// failures kept, p50 and p95 of the successes only (a backend that
// refuses at once would otherwise look fast), the last failure, and the
// chart's points: the last maxProviderPoints, oldest first.
func TestConsoleProviders(t *testing.T) {
	feed := NewFeed(300, 1)
	t0 := time.UnixMilli(1_700_000_000_000)
	n := 0
	observe := func(provider string, status int, d time.Duration, failure string) {
		feed.Observe(server.Observation{Request: &server.Request{Time: t0.Add(time.Duration(n) * time.Second), Provider: provider, Status: status, Duration: d, Error: failure}})
		n++
	}
	observe("local", 200, 10*time.Millisecond, "")
	observe("local", 502, time.Millisecond, "the connection failed")
	observe("local", 200, 30*time.Millisecond, "")
	observe("local", 200, 500*time.Millisecond, "it ended early") // failed mid-stream
	observe("local", 200, 20*time.Millisecond, "")
	for i := range 150 {
		observe("busy", 200, time.Duration(i+1)*time.Millisecond, "")
	}
	feed.Observe(server.Observation{Call: &kernel.Observation{Tool: "echo"}}) // not a request
	feed.Observe(server.Observation{Request: &server.Request{Status: 401}})   // refused before a provider

	at := func(i int) int64 { return t0.Add(time.Duration(i) * time.Second).UnixMilli() }
	busy := providerStats{Provider: "busy", Requests: 150, P50MS: 76, P95MS: 143}
	for i := 50; i < 150; i++ {
		busy.Points = append(busy.Points, latencyPoint{T: at(5 + i), MS: float64(i + 1), OK: true, Status: 200})
	}
	want := []providerStats{busy, {
		Provider: "local", Requests: 5, Errors: 2, P50MS: 20, P95MS: 30,
		Points: []latencyPoint{
			{T: at(0), MS: 10, OK: true, Status: 200},
			{T: at(1), MS: 1, OK: false, Status: 502},
			{T: at(2), MS: 30, OK: true, Status: 200},
			{T: at(3), MS: 500, OK: false, Status: 200},
			{T: at(4), MS: 20, OK: true, Status: 200},
		},
		LastFailure: &providerFailure{T: at(3), Status: 200, Error: "it ended early"},
	}}
	if diff := cmp.Diff(want, feed.providers()); diff != "" {
		t.Errorf("providers (-want +got):\n%s", diff)
	}
}

// TestConsoleWithoutAudit: a server without an audit log says so, to the
// page (/ui/api/me) and as a JSON error from the audit API, which the
// page must not take for a list of records.
func TestConsoleWithoutAudit(t *testing.T) {
	srv, _, _ := testConsole(t)
	c := client(t)
	login(t, c, srv.URL, "admin-token")
	get := func(path string, v any) int {
		t.Helper()
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return resp.StatusCode
	}
	var me map[string]any
	get("/ui/api/me", &me)
	if diff := cmp.Diff(map[string]any{"principal": "ops", "roles": []any{"admin"}, "audit": false}, me); diff != "" {
		t.Errorf("me (-want +got):\n%s", diff)
	}
	var answer map[string]string
	if code := get("/ui/api/audit", &answer); code != http.StatusNotFound || answer["error"] != "this server keeps no audit log" {
		t.Errorf("audit: %d %v", code, answer)
	}
	var tools []toolInfo
	get("/ui/api/tools", &tools)
	if len(tools) != 1 || tools[0].Title != "Echo it" {
		t.Errorf("tools %+v, want echo titled by its annotations", tools)
	}
}
