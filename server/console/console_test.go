// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

func testConsole(t *testing.T) (*httptest.Server, *Feed, *kernel.Kernel) {
	t.Helper()
	feed := NewFeed(8, 2)
	k, err := kernel.New(&kernel.Config{Observe: feed.ObserveCall})
	if err != nil {
		t.Fatal(err)
	}
	k.Registry().Add(kernel.Capability{Definition: tool.Definition{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, Safety: kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(ctx context.Context, c tool.Call) (tool.Result, error) {
			return tool.TextResult(c.ID, "echoed"), nil
		})})
	c, err := New(&Config{Kernel: k, Feed: feed, SourceOf: map[string]string{"echo": "demo"},
		Login: func(tok string) (kernel.Principal, bool) {
			switch tok {
			case "admin-token":
				return kernel.Principal{ID: "ops", Roles: []string{"admin"}}, true
			case "reader-token":
				return kernel.Principal{ID: "agent", Roles: []string{"reader"}}, true
			}
			return kernel.Principal{}, false
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return srv, feed, k
}

func client(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func login(t *testing.T, c *http.Client, base, tok string) int {
	t.Helper()
	resp, err := c.PostForm(base+"/ui/login", url.Values{"token": {tok}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestConsoleAuth: only a principal with the role logs in; the API
// refuses anyone without a session, and a POST without the CSRF header.
func TestConsoleAuth(t *testing.T) {
	srv, _, _ := testConsole(t)
	tests := []struct {
		name, token string
		status      int
	}{
		{"no-token", "", http.StatusUnauthorized},
		{"wrong-token", "guess", http.StatusUnauthorized},
		{"without-role", "reader-token", http.StatusUnauthorized},
		{"admin", "admin-token", http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t)
			if got := login(t, c, srv.URL, tt.token); got != tt.status {
				t.Errorf("login status %d, want %d", got, tt.status)
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
	// Guessing is throttled.
	for range maxFailedLogins + 1 {
		login(t, client(t), srv.URL, "guess")
	}
	if got := login(t, client(t), srv.URL, "admin-token"); got != http.StatusTooManyRequests {
		t.Errorf("after %d failures: %d, want 429", maxFailedLogins+1, got)
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
	feed.ObserveRequest(gateway.Observation{Time: time.Now(), Model: "qwen3", Provider: "local", Status: 200, Duration: 5 * time.Millisecond})
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
			if e.Kind == "call" && (e.Call.Principal != "ops" || e.Call.Tool != "echo" || string(e.Call.Args) != `{"x":1}`) {
				t.Errorf("call event %+v", e.Call)
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
		feed.ObserveRequest(gateway.Observation{Provider: "local"})
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
