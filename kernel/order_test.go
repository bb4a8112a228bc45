// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"
)

// TestRateLimitBeforeValidation checks that calls with invalid arguments
// count against the rate limit: the limit is the first check after the
// tool is known, so a caller cannot flood the audit log with them.
func TestRateLimitBeforeValidation(t *testing.T) {
	k := newTestKernel(t, func(c *Config) { c.Limits = RateLimits{Read: 2} })
	tests := []struct {
		name, args string
		want       Status
	}{
		{"invalid-1", `{"city":1}`, StatusInvalidArguments},
		{"not-json", `{`, StatusInvalidJSON},
		{"valid-third", `{"city":"Oslo"}`, StatusDenied},
		{"invalid-fourth", `{"city":1}`, StatusDenied},
	}
	for _, tt := range tests {
		out := k.run(t, reader, "weather", tt.args, "")
		if out.Status != tt.want {
			t.Errorf("%s: status %s, want %s: %s", tt.name, out.Status, tt.want, out.Result.Text())
		}
		if tt.want == StatusDenied && out.Decision.Code != CodeRateLimited {
			t.Errorf("%s: code %s, want %s", tt.name, out.Decision.Code, CodeRateLimited)
		}
	}
}

// TestAuditArgsCap checks that arguments longer than MaxArgsBytes are
// stored as a TruncatedArgs within the limit, committing to the whole by
// its SHA-256.
func TestAuditArgsCap(t *testing.T) {
	big := `{"s":"` + strings.Repeat("é", 40000) + `"}`
	ctrl := `{"s":"` + strings.Repeat(`\u0001`, 20000) + `"}`
	tests := []struct {
		name  string
		limit int
		args  string
		cut   bool
		bound int
	}{
		{"under", 0, `{"a":1}`, false, 0},
		{"default", 0, big, true, DefaultAuditMaxArgsBytes},
		{"small", 1000, big, true, 1000},
		{"tiny", 10, big, true, 200},
		{"escapes", 1000, ctrl, true, 1000},
		{"off", -1, big, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := NewMemoryAuditStore()
			l, err := NewAuditLog(context.Background(), &AuditConfig{Store: store, MaxArgsBytes: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Append(context.Background(), &AuditRecord{Principal: "p", Tool: "t", Args: json.RawMessage(tt.args)}); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := store.Records()[0].Args
			if !tt.cut {
				if string(got) != tt.args {
					t.Fatalf("args changed: %.100s", got)
				}
				return
			}
			if len(got) > tt.bound {
				t.Errorf("stored %d bytes, limit %d", len(got), tt.bound)
			}
			var ta TruncatedArgs
			if err := json.Unmarshal(got, &ta); err != nil {
				t.Fatalf("stored args are not a TruncatedArgs: %v: %.200s", err, got)
			}
			sum := sha256.Sum256([]byte(tt.args))
			if !ta.Truncated || ta.Bytes != len(tt.args) || ta.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("got %+v, want %d bytes and sha256 %x", ta, len(tt.args), sum)
			}
			if !strings.HasPrefix(tt.args, ta.Head) || !utf8.ValidString(ta.Head) {
				t.Errorf("head is not a prefix of the arguments: %.100q", ta.Head)
			}
			if tt.bound >= 1000 && len(ta.Head) == 0 {
				t.Errorf("nothing of the arguments kept")
			}
		})
	}
}

// TestMemoryLimiterBounded checks that the limiter's memory follows the
// calls in the window, not the limit: a limit of 10^8 used to reserve
// 2.4 GB on the first call.
func TestMemoryLimiterBounded(t *testing.T) {
	// The window is waited out on synctest's clock.
	synctest.Test(t, func(t *testing.T) {
		m := NewMemoryLimiter()
		ctx := context.Background()
		for i := range 1000 {
			if ok, _, err := m.Allow(ctx, "p", "t", 100_000_000, time.Hour); !ok || err != nil {
				t.Fatalf("call %d refused: %v", i, err)
			}
		}
		l := m.logs[limitKey{"p", "t"}]
		if c := cap(l.times); c > 2048 {
			t.Errorf("1000 calls hold %d slots", c)
		}
		// A window that expires gives the memory back.
		for i := range 10 {
			if ok, _, _ := m.Allow(ctx, "q", "t", 10, 20*time.Millisecond); !ok {
				t.Fatalf("call %d of 10 refused", i)
			}
		}
		if ok, _, _ := m.Allow(ctx, "q", "t", 10, 20*time.Millisecond); ok {
			t.Fatal("the 11th call of 10 allowed")
		}
		time.Sleep(25 * time.Millisecond)
		if ok, _, _ := m.Allow(ctx, "q", "t", 10, 20*time.Millisecond); !ok {
			t.Fatal("a call after the window refused")
		}
		if n := m.logs[limitKey{"q", "t"}].len(); n != 1 {
			t.Errorf("%d calls kept after the window, want 1", n)
		}
	})
}
