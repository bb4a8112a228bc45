// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
)

func testConsole(t *testing.T) (*httptest.Server, *Feed, *kernel.Kernel) {
	t.Helper()
	return testConsoleWith(t, nil)
}

// testConsoleWith is testConsole with edit applied to its config; the
// console's clock is then the one edit sets in now, if any.
func testConsoleWith(t *testing.T, edit func(cfg *Config, now *func() time.Time)) (*httptest.Server, *Feed, *kernel.Kernel) {
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
	cfg := &Config{Kernel: k, Feed: feed, SourceOf: map[string]string{"echo": "demo"}, Auth: auth}
	now := time.Now
	if edit != nil {
		edit(cfg, &now)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.now = now
	edge, err := server.New(&server.Config{Auth: cfg.Auth, Routes: c.Routes()})
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
		{"no-token", "", http.StatusUnauthorized, "Unknown token or key."},
		{"wrong-token", "guess", http.StatusUnauthorized, "Unknown token or key."},
		{"without-role", "reader-token", http.StatusForbidden, "The principal of that token or key, agent, does not have the console role (admin)."},
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

// TestConsoleLoginKeys: a key made at run time (toolgate keys create)
// logs in like a config token when its principal has the console role;
// a refused one says why: unknown, revoked, expired, or a principal
// without the role. A session opened with a key ends once the key is
// revoked (seen within the key cache's half second), and one opened with a
// config token does not look at the key store.
func TestConsoleLoginKeys(t *testing.T) {
	ctx := context.Background()
	store := kernel.NewMemoryKeyStore()
	now := time.Now()
	clock := func() time.Time { return now }
	mk := func(principal string, edit func(*kernel.Key)) string {
		secret, k := kernel.NewKey(principal)
		if edit != nil {
			edit(k)
		}
		if err := store.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		return secret
	}
	admin := mk("ops", nil)
	reader := mk("agent", nil)
	revoked := mk("ops", func(k *kernel.Key) { k.Revoked = now.Add(-time.Minute) })
	expired := mk("ops", func(k *kernel.Key) { k.Expires = now.Add(-time.Minute) })
	roles := map[string][]string{"ops": {"admin"}, "agent": {"reader"}}
	srv, _, _ := testConsoleWith(t, func(cfg *Config, _ *func() time.Time) {
		auth, err := server.NewAuth(&server.AuthConfig{
			Tokens: map[string]kernel.Principal{"admin-token": {ID: "ops", Roles: []string{"admin"}}},
			Keys:   store, Now: clock,
			Directory: func(id string) kernel.Principal { return kernel.Principal{ID: id, Roles: roles[id]} },
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Auth = auth
	})
	_, k, _ := strings.Cut(admin, "tg-")
	keyOf := "tg-" + strings.Repeat("A", len(k)) // the right form, no such key
	tests := []struct {
		name, token string
		status      int
		msg         string
	}{
		{"key", admin, http.StatusSeeOther, ""},
		{"unknown-key", keyOf, http.StatusUnauthorized, "Unknown token or key."},
		{"revoked-key", revoked, http.StatusUnauthorized, "That key was revoked."},
		{"expired-key", expired, http.StatusUnauthorized, "That key has expired."},
		{"key-without-role", reader, http.StatusForbidden, "The principal of that token or key, agent, does not have the console role (admin)."},
		{"config-token", "admin-token", http.StatusSeeOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t)
			if got, msg := loginFrom(t, c, srv.URL, tt.token, ""); got != tt.status || msg != tt.msg {
				t.Errorf("login: %d %q, want %d %q", got, msg, tt.status, tt.msg)
			}
			resp, err := c.Get(srv.URL + "/ui/api/me")
			if err != nil {
				t.Fatal(err)
			}
			var me struct{ Principal string }
			json.NewDecoder(resp.Body).Decode(&me)
			resp.Body.Close()
			if ok := tt.status == http.StatusSeeOther; ok != (resp.StatusCode == 200) || (ok && me.Principal != "ops") {
				t.Errorf("me: %d %+v", resp.StatusCode, me)
			}
		})
	}

	// Revoking the key ends its session once the cache has looked again;
	// the config token's session stays.
	byKey, byToken := client(t), client(t)
	login(t, byKey, srv.URL, admin)
	login(t, byToken, srv.URL, "admin-token")
	status := func(c *http.Client) int {
		resp, err := c.Get(srv.URL + "/ui/api/me")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status(byKey) != 200 || status(byToken) != 200 {
		t.Fatal("not logged in")
	}
	keys, _ := store.Keys(ctx)
	for _, k := range keys {
		if k.Hash == kernel.HashKey(admin) {
			store.RevokeKey(ctx, k.ID, now)
		}
	}
	now = now.Add(2 * server.DefaultKeyCacheTTL)
	if got := status(byKey); got != http.StatusUnauthorized {
		t.Errorf("the revoked key's session: %d, want 401", got)
	}
	if got := status(byToken); got != 200 {
		t.Errorf("the config token's session: %d, want 200", got)
	}
	if code, msg := loginFrom(t, client(t), srv.URL, admin, ""); code != http.StatusUnauthorized || msg != "That key was revoked." {
		t.Errorf("logging in again with the revoked key: %d %q", code, msg)
	}
}

// downKeys is a key store that cannot be reached.
type downKeys struct{ kernel.KeyStore }

func (downKeys) KeyByHash(context.Context, [32]byte) (*kernel.Key, error) {
	return nil, fmt.Errorf("dial tcp 127.0.0.1:5432: connection refused")
}

// TestConsoleLoginKeyStoreDown: with the key store unreachable, a key's
// login is refused with 503 saying so, and does not count as a failed
// guess; config tokens still log in.
func TestConsoleLoginKeyStoreDown(t *testing.T) {
	srv, _, _ := testConsoleWith(t, func(cfg *Config, _ *func() time.Time) {
		auth, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"admin-token": {ID: "ops", Roles: []string{"admin"}}},
			Keys: downKeys{kernel.NewMemoryKeyStore()}})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Auth = auth
	})
	for range server.AuthFailureBurst + 2 {
		if code, msg := loginFrom(t, client(t), srv.URL, "tg-"+strings.Repeat("A", 43), ""); code != http.StatusServiceUnavailable || msg != "The key store cannot be reached; try again later." {
			t.Fatalf("login with the store down: %d %q", code, msg)
		}
	}
	if code := login(t, client(t), srv.URL, "admin-token"); code != http.StatusSeeOther {
		t.Errorf("a config token with the key store down: %d", code)
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
			if e.Kind == "call" && (e.Principal != "ops" || !strings.HasPrefix(e.KeyID, "tok_") || e.Call.Tool != "echo" || string(e.Call.Args) != `{"x":1}`) {
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

// spendStore is a [kernel.SpendStore] in memory that also notes the
// since it was asked for.
type spendStore struct {
	mu    sync.Mutex
	rows  []kernel.Spend
	since time.Time
}

func (s *spendStore) AddSpend(_ context.Context, rows []kernel.Spend) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, rows...)
	return nil
}

func (s *spendStore) Spend(_ context.Context, since time.Time) ([]kernel.Spend, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.since = since
	var out []kernel.Spend
	for _, r := range s.rows {
		if !r.Day.Before(since.UTC().Truncate(24 * time.Hour)) {
			out = append(out, r)
		}
	}
	return out, nil
}

// spendNow is the spend tests' clock: a Tuesday afternoon, UTC.
var spendNow = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

func spendDay(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }

// spendConsole serves a console with store and keys, logged in.
func spendConsole(t *testing.T, store kernel.SpendStore, keys kernel.KeyStore) func(query string, v any) int {
	t.Helper()
	srv, _, _ := testConsoleWith(t, func(cfg *Config, now *func() time.Time) {
		cfg.Spend, cfg.Keys = store, keys
		*now = func() time.Time { return spendNow }
	})
	c := client(t)
	login(t, c, srv.URL, "admin-token")
	return func(query string, v any) int {
		t.Helper()
		resp, err := c.Get(srv.URL + "/ui/api/spend" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return resp.StatusCode
	}
}

// addKey adds a key with id to ks.
func addKey(t *testing.T, ks kernel.KeyStore, id, principal string, b kernel.Budget, revoked time.Time) {
	t.Helper()
	_, k := kernel.NewKey(principal)
	k.ID, k.Budget, k.Revoked = id, b, revoked
	if err := ks.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
}

// TestConsoleSpend: the spend API sums the store's rows per UTC day and
// per key, principal or model, largest cost first, with each key's
// principal, budget and revocation from the key store; rows of days
// outside the period are left out, and a request without a key is the
// group "(none)".
func TestConsoleSpend(t *testing.T) {
	store := &spendStore{rows: []kernel.Spend{
		{Day: spendDay(1).AddDate(0, -1, 0), KeyID: "key_a", Principal: "ops", Model: "gpt", Provider: "openai", Requests: 9, CostUSD: 9}, // too old
		{Day: spendDay(9), KeyID: "key_a", Principal: "ops", Model: "claude", Provider: "anthropic", Requests: 1, InputTokens: 1000, OutputTokens: 100, CostUSD: 0.25},
		{Day: spendDay(9), KeyID: "key_b", Principal: "agent", Model: "gpt", Provider: "openai", Requests: 5, InputTokens: 500, OutputTokens: 200, CostUSD: 1},
		{Day: spendDay(10), KeyID: "key_a", Principal: "ops", Model: "gpt", Provider: "openai", Requests: 3, InputTokens: 300, CachedTokens: 100, CacheWriteTokens: 7,
			OutputTokens: 60, ReasoningTokens: 20, CostUSD: 0.5},
		{Day: spendDay(10), Principal: "anon", Model: "qwen", Provider: "local", Requests: 2, InputTokens: 50, OutputTokens: 10, Unpriced: 2},
		{Day: spendDay(11), KeyID: "key_a", Principal: "ops", Model: "gpt", Provider: "openai", Requests: 4, CostUSD: 4}, // a clock ahead
	}}
	keys := kernel.NewMemoryKeyStore()
	addKey(t, keys, "key_a", "ops", kernel.Budget{USD: 1, Period: 24 * time.Hour}, time.Time{})
	addKey(t, keys, "key_b", "agent", kernel.Budget{Tokens: 10_000}, spendNow.Add(-time.Hour))
	addKey(t, keys, "key_idle", "ops", kernel.Budget{USD: 5, Period: 24 * time.Hour}, time.Time{}) // spent nothing: no group
	get := spendConsole(t, store, keys)

	days := []string{"2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"}
	on := func(v9, v10 float64) []float64 { return []float64{0, 0, 0, 0, 0, 0, v9, v10} }
	tok := func(v9, v10 int64) []int64 { return []int64{0, 0, 0, 0, 0, 0, v9, v10} }
	want := spendAnswer{By: "key", Since: "2026-03-03", Days: days, Groups: []spendGroup{
		{Group: "key_b", Principal: "agent", Revoked: true, Budget: &spendBudget{Tokens: 10_000},
			Total:        spendSums{Requests: 5, InputTokens: 500, OutputTokens: 200, CostUSD: 1},
			DailyCostUSD: on(1, 0), DailyTokens: tok(700, 0)},
		{Group: "key_a", Principal: "ops", Budget: &spendBudget{USD: 1, PeriodSeconds: 86400},
			Total:        spendSums{Requests: 4, InputTokens: 1300, CachedTokens: 100, CacheWriteTokens: 7, OutputTokens: 160, ReasoningTokens: 20, CostUSD: 0.75},
			DailyCostUSD: on(0.25, 0.5), DailyTokens: tok(1100, 360)},
		{Group: "(none)", Total: spendSums{Requests: 2, InputTokens: 50, OutputTokens: 10, Unpriced: 2},
			DailyCostUSD: on(0, 0), DailyTokens: tok(0, 60)},
	}, Total: spendSums{Requests: 11, InputTokens: 1850, CachedTokens: 100, CacheWriteTokens: 7, OutputTokens: 370, ReasoningTokens: 20, CostUSD: 1.75, Unpriced: 2}}
	var got spendAnswer
	if code := get("?since=7d&by=key", &got); code != http.StatusOK {
		t.Fatalf("status %d: %+v", code, got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("by key (-want +got):\n%s", diff)
	}
	if !store.since.Equal(spendDay(3)) {
		t.Errorf("the store was asked from %v, want the first day", store.since)
	}

	tests := []struct {
		name, query string
		groups      []string
		costs       []float64
	}{
		{"principal", "?since=7d&by=principal", []string{"agent", "ops", "anon"}, []float64{1, 0.75, 0}},
		{"model", "?since=7d&by=model", []string{"gpt", "claude", "qwen"}, []float64{1.5, 0.25, 0}},
		{"provider", "?since=1d&by=provider", []string{"openai", "anthropic", "local"}, []float64{1.5, 0.25, 0}},
		{"today-only", "?since=2026-03-10&by=model", []string{"gpt", "qwen"}, []float64{0.5, 0}},
		{"default-by-key", "", []string{"key_b", "key_a", "(none)"}, []float64{1, 0.75, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a spendAnswer
			if code := get(tt.query, &a); code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			var groups []string
			var costs []float64
			for _, g := range a.Groups {
				groups, costs = append(groups, g.Group), append(costs, g.Total.CostUSD)
				if a.By != "key" && (g.Budget != nil || g.Principal != "") {
					t.Errorf("%s: a key's principal or budget on a %s group", g.Group, a.By)
				}
			}
			if diff := cmp.Diff(tt.groups, groups); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.costs, costs); diff != "" {
				t.Errorf("costs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConsoleSpendBounds: an answer covers at most maxSpendDays days and
// maxSpendGroups groups, the smallest summed into the last, "other";
// a since or by the API does not know is a 400.
func TestConsoleSpendBounds(t *testing.T) {
	store := &spendStore{}
	const n = 60
	for i := range n {
		store.rows = append(store.rows, kernel.Spend{Day: spendDay(10).AddDate(0, 0, -i), KeyID: fmt.Sprintf("key_%02d", i), Principal: "p",
			Requests: 1, InputTokens: 10, OutputTokens: 1, CostUSD: float64(i + 1)})
	}
	get := spendConsole(t, store, nil)
	var a spendAnswer
	if code := get("?since=365d", &a); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if len(a.Days) != maxSpendDays || a.Since != "2025-12-11" || a.Days[0] != a.Since || a.Days[len(a.Days)-1] != "2026-03-10" {
		t.Errorf("since 365d: %d days from %s to %s, want %d to today", len(a.Days), a.Since, a.Days[len(a.Days)-1], maxSpendDays)
	}
	if len(a.Groups) != maxSpendGroups {
		t.Fatalf("%d groups, want %d", len(a.Groups), maxSpendGroups)
	}
	if first := a.Groups[0]; first.Group != "key_59" || first.Merged != 0 {
		t.Errorf("first group %s, want the costliest, key_59", first.Group)
	}
	other := a.Groups[len(a.Groups)-1]
	// key_00 … key_10 cost 1 … 11 and spent on the last eleven days.
	wantDaily := make([]float64, maxSpendDays)
	for i := range 11 {
		wantDaily[maxSpendDays-1-i] = float64(i + 1)
	}
	if diff := cmp.Diff(spendGroup{Group: "other", Merged: 11, Total: spendSums{Requests: 11, InputTokens: 110, OutputTokens: 11, CostUSD: 66}}, other,
		cmpIgnoreDaily); diff != "" {
		t.Errorf("other (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantDaily, other.DailyCostUSD); diff != "" {
		t.Errorf("other's daily cost (-want +got):\n%s", diff)
	}
	var sum float64
	for _, g := range a.Groups {
		sum += g.Total.CostUSD
		if len(g.DailyCostUSD) != maxSpendDays || len(g.DailyTokens) != maxSpendDays {
			t.Errorf("%s: %d daily costs and %d daily tokens, want %d", g.Group, len(g.DailyCostUSD), len(g.DailyTokens), maxSpendDays)
		}
	}
	if sum != a.Total.CostUSD || a.Total.CostUSD != n*(n+1)/2 || a.Total.Requests != n {
		t.Errorf("groups sum to %v, total %+v, want %d", sum, a.Total, n*(n+1)/2)
	}

	if get("?since=2026-04-01", &a); len(a.Days) != 1 || a.Since != "2026-03-10" {
		t.Errorf("a since after today: %v, want today alone", a.Days)
	}
	for _, q := range []string{"?since=yesterday", "?since=-3d", "?since=0d", "?by=day", "?by=tool"} {
		var e map[string]string
		if code := get(q, &e); code != http.StatusBadRequest || e["error"] == "" {
			t.Errorf("%s: %d %v, want 400 saying why", q, code, e)
		}
	}
}

var cmpIgnoreDaily = cmp.FilterPath(func(p cmp.Path) bool {
	name := p.Last().String()
	return name == ".DailyCostUSD" || name == ".DailyTokens"
}, cmp.Ignore())

// TestConsoleWithoutSpend: a server that keeps no spend says so, as a
// JSON error the page shows instead of a report.
func TestConsoleWithoutSpend(t *testing.T) {
	get := spendConsole(t, nil, kernel.NewMemoryKeyStore())
	var e map[string]string
	if code := get("?since=30d", &e); code != http.StatusNotFound || e["error"] != "this server keeps no spend" {
		t.Errorf("spend: %d %v, want 404 this server keeps no spend", code, e)
	}
}
