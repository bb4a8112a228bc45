// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestTotalTimeout pins that --timeout bounds an attempt and TotalTimeout
// the call: a slow GET with retries stops at the total deadline.
func TestTotalTimeout(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	x := executor(t, api, ExecConfig{Timeout: 5 * time.Second, TotalTimeout: 150 * time.Millisecond})
	start := time.Now()
	res := call(t, x, context.Background(), "echo", `{"what":"slow"}`)
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("call took %v, want about the 150ms total deadline", el)
	}
	if !res.IsError || res.Text() != "request timed out" {
		t.Errorf("result %q, want a timeout", res.Text())
	}
	// With one attempt (no retries) the two are one deadline, the
	// shorter, whichever it is.
	for _, cfg := range []ExecConfig{
		{Timeout: 5 * time.Second, TotalTimeout: 150 * time.Millisecond, MaxRetries: -1},
		{Timeout: 150 * time.Millisecond, TotalTimeout: 5 * time.Second, MaxRetries: -1},
	} {
		x := executor(t, api, cfg)
		start := time.Now()
		res := call(t, x, context.Background(), "echo", `{"what":"slow"}`)
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("timeout %v, total %v, one attempt: call took %v, want about 150ms", cfg.Timeout, cfg.TotalTimeout, el)
		}
		if !res.IsError || res.Text() != "request timed out" {
			t.Errorf("timeout %v, total %v, one attempt: result %q, want a timeout", cfg.Timeout, cfg.TotalTimeout, res.Text())
		}
	}
	x2 := executor(t, api, ExecConfig{})
	if x2.cfg.TotalTimeout != DefaultTotalTimeout || x2.cfg.Timeout != DefaultTimeout || x2.cfg.MaxResultTokens != DefaultMaxResultTokens {
		t.Errorf("defaults not applied: %+v", x2.cfg)
	}
}

// TestRedirectConfinement pins that redirects stay within the spec's
// servers unless AllowRedirectsAnywhere: another origin, or a path
// outside the server's base path, is refused with its own message.
func TestRedirectConfinement(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("landed elsewhere"))
	}))
	t.Cleanup(other.Close)
	s.elsewhere = other.URL + "/x"
	ctx := context.Background()
	tests := []struct {
		name     string
		anywhere bool
		what     string
		want     string
		isErr    bool
	}{
		{"same-server-followed", false, "redirect", `"path":"/api/v1/echo/landed"`, false},
		{"other-origin-refused", false, "elsewhere", "redirect outside the API's servers: " + other.URL + "/x", true},
		{"outside-base-path-refused", false, "outside-base", "redirect outside the API's servers", true},
		{"other-origin-opt-out", true, "elsewhere", "landed elsewhere", false},
		{"guard-still-applies-with-opt-out", true, "metadata", "refused by the address guard", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := executor(t, api, ExecConfig{AllowRedirectsAnywhere: tt.anywhere})
			res := call(t, x, ctx, "echo", `{"what":"`+tt.what+`"}`)
			if res.IsError != tt.isErr || !strings.Contains(res.Text(), tt.want) {
				t.Errorf("result %q (error %v), want %q (error %v)", res.Text(), res.IsError, tt.want, tt.isErr)
			}
		})
	}
}

// TestGuardEmbeddedIPv4 pins that IPv6 forms carrying an internal IPv4
// address are refused like the address itself.
func TestGuardEmbeddedIPv4(t *testing.T) {
	g := &guard{}
	tests := []struct {
		addr    string
		allowed bool
	}{
		{"::127.0.0.1", false},        // IPv4-compatible
		{"::ffff:127.0.0.1", false},   // IPv4-mapped
		{"::ffff:0:127.0.0.1", false}, // IPv4-translated
		{"::ffff:169.254.169.254", false},
		{"::10.0.0.1", false},
		{"::8.8.8.8", false},           // deprecated form, refused whatever it holds
		{"64:ff9b::7f00:1", false},     // NAT64
		{"2002:7f00:1::", false},       // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false},   // 6to4 of 169.254.169.254
		{"2002:808:808::1", true},      // 6to4 of 8.8.8.8
		{"2001:0:4136:e378::1", false}, // Teredo
		{"fe80::1%eth0", false},
		{"2606:4700:4700::1111", true},
		{"8.8.8.8", true},
	}
	for _, tt := range tests {
		t.Run(strings.NewReplacer(":", "_", "%", "_").Replace(tt.addr), func(t *testing.T) {
			ip := netip.MustParseAddr(tt.addr)
			if got := g.allowedIP(ip); got != tt.allowed {
				t.Errorf("allowedIP(%s) = %v, want %v", tt.addr, got, tt.allowed)
			}
			if !tt.allowed && !strings.Contains(tt.addr, "%") {
				if err := g.checkHost(tt.addr); !errors.Is(err, ErrBlockedAddress) {
					t.Errorf("checkHost(%s) = %v, want ErrBlockedAddress", tt.addr, err)
				}
			}
		})
	}
	// The literal in a server URL is refused before any dial.
	s := newStore(t)
	api := s.load(t, nil)
	x, err := NewExecutor(api, &ExecConfig{Server: "http://[::127.0.0.1]:1/api/v1", AllowOtherServers: true})
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, x, context.Background(), "twin", `{"id":"1"}`)
	if !res.IsError || !strings.Contains(res.Text(), "destination address not allowed") {
		t.Errorf("result %q, want a refusal", res.Text())
	}
}

// TestDNSFailureIsNotARefusal pins that a name that does not resolve is
// reported as a DNS failure (ErrResolve), not as the guard's refusal.
func TestDNSFailureIsNotARefusal(t *testing.T) {
	d := dialResolving(newTestDialer())
	_, err := d(context.Background(), "tcp", "no-such-host.invalid:80")
	if !errors.Is(err, ErrResolve) || errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("dial error %v, want ErrResolve and not ErrBlockedAddress", err)
	}
	msg := describeError(err)
	if !strings.Contains(msg, "DNS lookup failed (not a refusal)") || strings.Contains(msg, "refused by") {
		t.Errorf("message %q does not say it was DNS", msg)
	}
	if msg := describeError(ErrBlockedAddress); !strings.HasPrefix(msg, "request refused by the address guard") {
		t.Errorf("refusal message %q", msg)
	}
}

// TestResultCap pins what reaches the model: text over the token cap is
// cut with a note of how much, binary bodies (NUL bytes included, which
// JSON would escape six times over) are summarized, not escaped.
func TestResultCap(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	ctx := context.Background()
	t.Run("text-over-token-cap", func(t *testing.T) {
		x := executor(t, api, ExecConfig{MaxResultTokens: 10})
		res := call(t, x, ctx, "echo", `{"what":"big"}`)
		want := strings.Repeat("0123456789", 4) + "\n[response cut for the model: showing 40 of 5000 bytes, about 10 of 1250 tokens; ask for less, with filters or paging]"
		if res.Text() != want {
			t.Errorf("result %q, want %q", res.Text(), want)
		}
	})
	t.Run("json-over-token-cap-is-not-structured", func(t *testing.T) {
		x := executor(t, api, ExecConfig{MaxResultTokens: 5})
		res := call(t, x, ctx, "echo", `{"what":"plain"}`)
		if res.StructuredContent != nil || !strings.Contains(res.Text(), "[response cut for the model: showing 20 of") {
			t.Errorf("result %q (structured %s), want a cut text", res.Text(), res.StructuredContent)
		}
	})
	t.Run("cap-off", func(t *testing.T) {
		x := executor(t, api, ExecConfig{MaxResultTokens: -1})
		if res := call(t, x, ctx, "echo", `{"what":"big"}`); len(res.Text()) != 5000 {
			t.Errorf("result of %d bytes, want all 5000", len(res.Text()))
		}
	})
	t.Run("zeros-summarized", func(t *testing.T) {
		x := executor(t, api, ExecConfig{})
		res := call(t, x, ctx, "echo", `{"what":"zeros"}`)
		want := "binary response: application/octet-stream, 3000 bytes, sha256 "
		if !strings.HasPrefix(res.Text(), want) || len(res.Text()) > 200 {
			t.Errorf("result %q, want a summary starting %q", res.Text(), want)
		}
	})
	t.Run("zeros-as-text-summarized", func(t *testing.T) {
		x := executor(t, api, ExecConfig{})
		res := call(t, x, ctx, "echo", `{"what":"zeros-text"}`)
		want := "binary response: text/plain, 3000 bytes, sha256 "
		if !strings.HasPrefix(res.Text(), want) || len(res.Text()) > 200 {
			t.Errorf("result %q, want a summary starting %q", res.Text(), want)
		}
	})
	t.Run("binary-summarized", func(t *testing.T) {
		x := executor(t, api, ExecConfig{})
		res := call(t, x, ctx, "echo", `{"what":"binary"}`)
		if want := "binary response: image/png, 10 bytes, sha256 "; !strings.HasPrefix(res.Text(), want) {
			t.Errorf("result %q, want %q…", res.Text(), want)
		}
	})
}

func newTestDialer() *net.Dialer { return &net.Dialer{Timeout: 5 * time.Second} }
