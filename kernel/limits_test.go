// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/tool"
)

// TestLimitConvention pins issue 10's one limit convention: zero means
// the documented DefaultX, negative means no limit. A negative MaxArgBytes
// used to mean the default while its siblings treated negative as off.
func TestLimitConvention(t *testing.T) {
	big := `{"city":"` + strings.Repeat("x", DefaultMaxArgBytes) + `"}`
	deep := `{"city":"Oslo","lang":` + strings.Repeat("[", DefaultMaxArgDepth+1) + strings.Repeat("]", DefaultMaxArgDepth+1) + `}`
	tests := []struct {
		name   string
		mutate func(*Config)
		args   string
		want   Status
	}{
		{"bytes-default", nil, big, StatusInvalidJSON},
		{"bytes-off", func(c *Config) { c.MaxArgBytes = -1 }, big, StatusOK},
		{"bytes-set", func(c *Config) { c.MaxArgBytes = 8 }, `{"city":"Oslo"}`, StatusInvalidJSON},
		{"depth-default", nil, deep, StatusInvalidJSON},
		{"depth-off", func(c *Config) { c.MaxArgDepth = -1 }, deep, StatusInvalidArguments}, // read, then refused by the schema
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newTestKernel(t, tt.mutate)
			if out := k.run(t, reader, "weather", tt.args, ""); out.Status != tt.want {
				t.Errorf("status %s, want %s: %.200s", out.Status, tt.want, out.Result.Text())
			}
		})
	}
}

func TestLimitDefaults(t *testing.T) {
	k, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if k.timeout != DefaultTimeout || k.parallel != DefaultConcurrency || k.argOpts.MaxBytes != DefaultMaxArgBytes || k.argOpts.MaxDepth != DefaultMaxArgDepth {
		t.Errorf("defaults: timeout %s, parallel %d, args %+v", k.timeout, k.parallel, k.argOpts)
	}
	if l := k.limits; l.Read != DefaultReadLimit || l.Write != DefaultWriteLimit || l.Destructive != DefaultDestructiveLimit || l.Window != DefaultRateWindow {
		t.Errorf("rate limits: %+v", l)
	}
	off := (RateLimits{Window: -1}).withDefaults()
	if off.Read >= 0 || off.Write >= 0 || off.Destructive >= 0 {
		t.Errorf("a negative window should turn every limit off: %+v", off)
	}
	f := NewFirewall(&FirewallConfig{MaxBytes: -5})
	if f.maxBytes != -1 || f.maxRows != DefaultMaxResultRows || f.maxDepth != DefaultMaxResultDepth {
		t.Errorf("firewall: %+v", f)
	}
	p, err := NewPolicy(&PolicyConfig{MinJustification: -1})
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Principal: writer, Known: true, Capability: testCap("refund", SafetyWrite, SensitivityNone), Args: json.RawMessage(`{}`)}
	if d := p.Decide(&in, false); d.Code == CodeJustificationRequired {
		t.Errorf("MinJustification -1 still asks for a justification: %+v", d)
	}
	if _, err := NewGrants(&GrantConfig{Key: testKey, TTL: -time.Second}); !errors.Is(err, ErrInvalidGrantConfig) {
		t.Errorf("negative TTL: got %v, want ErrInvalidGrantConfig", err)
	}
	if _, err := NewGrants(&GrantConfig{Key: []byte("short")}); !errors.Is(err, ErrInvalidGrantConfig) {
		t.Errorf("short key: got %v, want ErrInvalidGrantConfig", err)
	}
}

// TestBatchUnbounded runs a batch with Concurrency -1: every call at
// once, where a bounded batch would deadlock on the barrier.
func TestBatchUnbounded(t *testing.T) {
	const n = 12
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	k := newTestKernel(t, func(c *Config) {
		c.Concurrency = -1
		c.Limits = RateLimits{Read: -1}
		c.Registry.Add(Capability{
			Definition: tool.Definition{Name: "barrier"},
			Safety:     SafetyRead,
			Executor: ExecutorFunc(func(ctx context.Context, call tool.Call) (tool.Result, error) {
				arrived <- struct{}{}
				select {
				case <-release:
				case <-ctx.Done():
					return tool.Result{}, ctx.Err()
				}
				return tool.TextResult(call.ID, "ok"), nil
			}),
		})
	})
	go func() {
		for range n {
			<-arrived
		}
		close(release)
	}()
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Principal: *reader, Call: tool.Call{ID: "c", Name: "barrier"}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	outs, err := k.CallBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if o.Status != StatusOK {
			t.Errorf("call %d: %s %s", i, o.Status, o.Result.Text())
		}
	}
}

func TestAuditUnbounded(t *testing.T) {
	store := NewMemoryAuditStore()
	l, err := NewAuditLog(context.Background(), &AuditConfig{Store: store, MaxBatch: -1, MaxPending: -1})
	if err != nil {
		t.Fatal(err)
	}
	for range 3000 {
		if err := l.Append(context.Background(), &AuditRecord{Principal: "p", Tool: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(store.Records()); n != 3000 {
		t.Errorf("%d records stored, want 3000", n)
	}
}

func TestCommandOutputUnbounded(t *testing.T) {
	if _, err := exec.LookPath("head"); err != nil {
		t.Skip("head not installed")
	}
	n := DefaultMaxOutput + 100
	for _, tt := range []struct {
		name string
		max  int
		cut  bool
	}{{"default", 0, true}, {"off", -1, false}} {
		t.Run(tt.name, func(t *testing.T) {
			c := &Command{Argv: []string{"head", "-c", "1048676", "/dev/zero"}, MaxOutput: tt.max}
			res, err := c.Execute(context.Background(), tool.Call{Arguments: json.RawMessage(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			got := len(res.Content[0].(*tool.Text).Text)
			if cut := len(res.Content) > 1; cut != tt.cut || (!tt.cut && got != n) {
				t.Errorf("cut %v, %d bytes kept of %d", cut, got, n)
			}
		})
	}
}

func TestArgumentsError(t *testing.T) {
	tests := []struct {
		name string
		in   string
		msg  string
	}{
		{"not-object", `[1]`, "arguments are a JSON array, not an object"},
		{"justification", `{"_justification":1}`, "_justification must be a string"},
		{"duplicate", `{"a":1,"a":2}`, `strictjson: duplicate name: "a" at /a (offset 7)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeArguments(json.RawMessage(tt.in), nil)
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("err = %v, want ErrInvalidArguments", err)
			}
			ae, ok := errors.AsType[*ArgumentsError](err)
			if !ok {
				t.Fatalf("err = %T, want *ArgumentsError", err)
			}
			if ae.Msg != tt.msg {
				t.Errorf("Msg = %q, want %q", ae.Msg, tt.msg)
			}
		})
	}
}
