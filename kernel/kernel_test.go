// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/tool"
)

// canary is a secret assembled at run time; no result, error or audit
// record may ever contain it.
var canary = "sk-" + "proj-" + strings.Repeat("C4nary9x", 5)

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"units":{"enum":["c","f"]},"days":{"type":"integer","minimum":1,"maximum":7},"detail":{"type":"boolean"},"lang":{"type":"string"}},"required":["city"],"additionalProperties":false}`

func jsonResult(v string) tool.Result {
	return tool.Result{Content: []tool.Content{&tool.JSON{Value: json.RawMessage(v)}}}
}

func staticExec(r tool.Result) Executor {
	return ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return r, nil })
}

type testKernel struct {
	*Kernel
	store *MemoryAuditStore
	audit *AuditLog
}

func newTestKernel(t testing.TB, mutate func(*Config)) *testKernel {
	t.Helper()
	reg := NewRegistry()
	add := func(c Capability) {
		if err := reg.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	add(Capability{
		Definition: tool.Definition{Name: "weather", Description: "Current weather for a city", InputSchema: json.RawMessage(weatherSchema)},
		Safety:     SafetyRead,
		Executor: ExecutorFunc(func(_ context.Context, c tool.Call) (tool.Result, error) {
			return jsonResult(`{"city":"Paris","temp_c":21,"debug":{"upstream":"https://svc:` + "hunter22" + `@api.internal/v1","key":"` + canary + `"}}`), nil
		}),
	})
	add(Capability{
		Definition: tool.Definition{Name: "refund", Description: "Refund an order", InputSchema: json.RawMessage(`{"type":"object","properties":{"order":{"type":"string"},"amount":{"type":"number"}},"required":["order","amount"]}`)},
		Safety:     SafetyWrite,
		Executor:   staticExec(tool.TextResult("", "refunded")),
	})
	add(Capability{
		Definition: tool.Definition{Name: "delete_account", Description: "Delete a customer account"},
		Safety:     SafetyDestructive,
		Executor:   staticExec(tool.TextResult("", "deleted")),
	})
	add(Capability{
		Definition:    tool.Definition{Name: "customer", Description: "Look up a customer"},
		Safety:        SafetyRead,
		Sensitivity:   SensitivityPII,
		AllowedFields: []string{"name", "orders.id"},
		Executor:      staticExec(jsonResult(`{"name":"Ada","email":"ada@example.com","orders":[{"id":1,"card":"4111111111111111","total":9},{"id":2,"total":5}]}`)),
	})
	add(Capability{
		Definition: tool.Definition{Name: "failing", Description: "Fails with a secret in its error"},
		Safety:     SafetyRead,
		Executor: ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			return tool.Result{}, errors.New("upstream said 401 for key " + canary)
		}),
	})
	add(Capability{
		Definition: tool.Definition{Name: "tool_error", Description: "Returns a tool error with a secret"},
		Safety:     SafetyRead,
		Executor:   staticExec(tool.ErrorResult("", "bad token "+canary)),
	})
	add(Capability{
		Definition: tool.Definition{Name: "panics"},
		Safety:     SafetyRead,
		Executor: ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			panic("boom " + canary)
		}),
	})
	add(Capability{
		Definition: tool.Definition{Name: "slow"},
		Safety:     SafetyRead,
		Timeout:    20 * time.Millisecond,
		Executor: ExecutorFunc(func(ctx context.Context, _ tool.Call) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}),
	})
	store := NewMemoryAuditStore()
	audit, err := NewAuditLog(context.Background(), &AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Registry: reg,
		Principals: []Principal{
			*reader, *writer, *admin, *piiRead,
		},
		Audit: audit,
	}
	if mutate != nil {
		mutate(cfg)
	}
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close(context.Background()) })
	return &testKernel{Kernel: k, store: store, audit: audit}
}

func (k *testKernel) run(t *testing.T, pr *Principal, name, args, just string) Outcome {
	t.Helper()
	out, err := k.Call(context.Background(), &Request{Principal: *pr, Call: tool.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(args)}, Justification: just})
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	return out
}

func TestPipelineOutcomes(t *testing.T) {
	k := newTestKernel(t, nil)
	tests := []struct {
		name     string
		pr       *Principal
		tool     string
		args     string
		just     string
		status   Status
		contains []string
	}{
		{"allowed-redacted", reader, "weather", `{"city":"Paris"}`, "", StatusOK, []string{`"temp_c":21`, "[REDACTED:url-password]", `"key":"[REDACTED:openai-key]"`}},
		{"unknown-tool", reader, "wether", `{}`, "", StatusUnknownTool, []string{`unknown tool "wether"`, "available tools: weather"}},
		{"invalid-json", reader, "weather", `{"city":"a","city":"b"}`, "", StatusInvalidJSON, []string{"duplicate name", "/city"}},
		{"not-an-object", reader, "weather", `["Paris"]`, "", StatusInvalidJSON, []string{"not an object"}},
		{"invalid-arguments", reader, "weather", `{"city":"Paris","units":"kelvin","days":"` + canary + `"}`, "", StatusInvalidArguments, []string{"at /units: must be one of 2 allowed values", "at /days: expected integer, got string"}},
		{"missing-required", reader, "weather", `{}`, "", StatusInvalidArguments, []string{`missing required property "city"`}},
		{"unknown-principal", &Principal{ID: "mallory", Roles: []string{"admin"}}, "weather", `{"city":"x"}`, "", StatusDenied, []string{"unknown_principal"}},
		{"write-needs-role", reader, "refund", `{"order":"o1","amount":5}`, goodWhy, StatusDenied, []string{"role_required", "writer or admin"}},
		{"write-needs-justification", writer, "refund", `{"order":"o1","amount":5}`, "", StatusDenied, []string{"justification_required"}},
		{"write-ok", writer, "refund", `{"order":"o1","amount":5}`, goodWhy, StatusOK, []string{"refunded"}},
		{"justification-argument", writer, "refund", `{"order":"o1","amount":5,"_justification":"` + goodWhy + `"}`, "", StatusOK, []string{"refunded"}},
		{"justification-argument-not-string", writer, "refund", `{"order":"o1","amount":5,"_justification":7}`, "", StatusInvalidJSON, []string{"_justification must be a string"}},
		{"destructive-needs-admin", writer, "delete_account", `{}`, goodWhy, StatusDenied, []string{"builtin.destructive"}},
		{"pii-projected", reader, "customer", `{}`, "", StatusOK, []string{`{"name":"Ada","orders":[{"id":1},{"id":2}]}`}},
		{"pii-reader-sees-all-but-secrets", piiRead, "customer", `{}`, "", StatusOK, []string{`"email":"ada@example.com"`, `"card":"[REDACTED:card-number]"`}},
		{"executor-error-redacted", reader, "failing", `{}`, "", StatusExecutorError, []string{"the tool could not run", "[REDACTED:openai-key]"}},
		{"tool-error-redacted", reader, "tool_error", `{}`, "", StatusToolError, []string{"bad token [REDACTED:openai-key]"}},
		{"panic-contained", reader, "panics", `{}`, "", StatusExecutorError, []string{"panicked", "[REDACTED:openai-key]"}},
		{"timeout", reader, "slow", `{}`, "", StatusExecutorError, []string{"timed out after 20ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := k.run(t, tt.pr, tt.tool, tt.args, tt.just)
			text := out.Result.Text()
			if out.Status != tt.status {
				t.Errorf("status = %s, want %s; result: %s", out.Status, tt.status, text)
			}
			if (tt.status != StatusOK) != out.Result.IsError {
				t.Errorf("IsError = %v for status %s", out.Result.IsError, out.Status)
			}
			for _, c := range tt.contains {
				if !strings.Contains(text, c) {
					t.Errorf("result %q does not contain %q", text, c)
				}
			}
			if strings.Contains(text, canary) || strings.Contains(text, "hunter22") || strings.Contains(text, "ada@example.com") && tt.pr != piiRead {
				t.Errorf("secret leaked: %s", text)
			}
			if out.Result.CallID != "call_1" || out.Result.Name != tt.tool {
				t.Errorf("result names call %q tool %q", out.Result.CallID, out.Result.Name)
			}
		})
	}
	// Every call is in the audit log, redacted.
	if err := k.audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := k.store.Records()
	calls := 0 // a call that ran has an intent and an outcome
	for _, r := range recs {
		if r.Kind != RecordOutcome {
			calls++
		}
	}
	if calls != len(tests) {
		t.Errorf("%d audit records of calls, want %d", calls, len(tests))
	}
	for _, r := range recs {
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), canary) || strings.Contains(string(b), "hunter22") {
			t.Errorf("audit record leaks a secret: %s", b)
		}
	}
	if p := problems(t, k.store, nil); len(p) != 0 {
		t.Errorf("audit chain: %v", p)
	}
}

func TestApproval(t *testing.T) {
	rules := []Rule{{Name: "big-refund", Tools: []string{"refund"}, When: "args.amount >= 1000", Effect: EffectRequireApproval, Reason: "refunds of 1000 or more need a manager"}}
	policy, err := NewPolicy(&PolicyConfig{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	big := `{"order":"o1","amount":1500}`
	t.Run("no-approver", func(t *testing.T) {
		k := newTestKernel(t, func(c *Config) { c.Policy = policy })
		out := k.run(t, writer, "refund", big, goodWhy)
		if out.Status != StatusDenied || out.Decision.Code != CodeApprovalRequired || !strings.Contains(out.Result.Text(), "approval required") {
			t.Errorf("got %s %s: %s", out.Status, out.Decision.Code, out.Result.Text())
		}
	})
	for _, verdict := range []bool{true, false} {
		name := map[bool]string{true: "approved", false: "declined"}[verdict]
		t.Run(name, func(t *testing.T) {
			var seen *ApprovalRequest
			k := newTestKernel(t, func(c *Config) {
				c.Policy = policy
				c.Approve = func(_ context.Context, r *ApprovalRequest) (bool, error) { seen = r; return verdict, nil }
			})
			out := k.run(t, writer, "refund", big, goodWhy)
			if seen == nil || seen.Decision.Rule != "big-refund" || seen.Justification != goodWhy {
				t.Fatalf("approver saw %+v", seen)
			}
			want := map[bool]Status{true: StatusOK, false: StatusDenied}[verdict]
			if out.Status != want {
				t.Errorf("status %s, want %s: %s", out.Status, want, out.Result.Text())
			}
			if !verdict && out.Decision.Code != CodeApprovalDenied {
				t.Errorf("code %s", out.Decision.Code)
			}
			small := k.run(t, writer, "refund", `{"order":"o1","amount":10}`, goodWhy)
			if small.Status != StatusOK {
				t.Errorf("small refund: %s", small.Result.Text())
			}
		})
	}
}

// TestApproverErrorRedacted checks an approver's failure, which may quote
// anything, reaches neither the model nor the audit log unredacted.
func TestApproverErrorRedacted(t *testing.T) {
	policy, err := NewPolicy(&PolicyConfig{Rules: []Rule{{Name: "ask", Tools: []string{"weather"}, Effect: EffectRequireApproval}}})
	if err != nil {
		t.Fatal(err)
	}
	k := newTestKernel(t, func(c *Config) {
		c.Policy = policy
		c.Approve = func(context.Context, *ApprovalRequest) (bool, error) {
			return false, errors.New("approval service rejected key " + canary)
		}
	})
	out := k.run(t, reader, "weather", `{"city":"Oslo"}`, "")
	if out.Status != StatusDenied || out.Decision.Code != CodeApprovalDenied || strings.Contains(out.Result.Text(), canary) || strings.Contains(out.Decision.Reason, canary) {
		t.Errorf("%s %s %s", out.Status, out.Decision.Code, out.Result.Text())
	}
	if err := k.audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, r := range k.store.Records() {
		if b, _ := json.Marshal(r); strings.Contains(string(b), canary) {
			t.Errorf("audit leaks: %s", b)
		}
	}
}

func TestHooks(t *testing.T) {
	var order []string
	k := newTestKernel(t, func(c *Config) {
		c.Before = []BeforeHook{
			func(_ context.Context, hc *HookCall) error {
				order = append(order, "before1")
				if hc.Call.Name == "refund" && hc.Justification == "" {
					hc.Justification = "ticket SUP-1234 approved by support lead"
				}
				return nil
			},
			func(_ context.Context, hc *HookCall) error {
				order = append(order, "before2")
				if strings.Contains(string(hc.Call.Arguments), "blocked") {
					return errors.New("city is on the block list, key " + canary)
				}
				if strings.Contains(string(hc.Call.Arguments), "rewrite") {
					hc.Call.Arguments = json.RawMessage(`{"city":"Rome"}`)
				}
				if strings.Contains(string(hc.Call.Arguments), "broken") {
					hc.Call.Arguments = json.RawMessage(`{"city":`)
				}
				return nil
			},
		}
		c.After = []AfterHook{
			func(_ context.Context, hc *HookCall, res *tool.Result) error {
				order = append(order, "after1")
				if string(hc.Call.Arguments) == `{"city":"Rome"}` {
					*res = tool.TextResult("", "replaced by hook")
				}
				return nil
			},
			func(_ context.Context, hc *HookCall, _ *tool.Result) error {
				order = append(order, "after2")
				if hc.Call.Name == "delete_account" {
					panic("after hook panics")
				}
				return nil
			},
		}
	})
	out := k.run(t, writer, "refund", `{"order":"o1","amount":5}`, "")
	if out.Status != StatusOK {
		t.Errorf("hook justification: %s %s", out.Status, out.Result.Text())
	}
	if got := strings.Join(order, ","); got != "before1,before2,after1,after2" {
		t.Errorf("hook order %s", got)
	}
	out = k.run(t, reader, "weather", `{"city":"blocked"}`, "")
	if out.Status != StatusHookError || !strings.Contains(out.Result.Text(), "aborted by a hook") || strings.Contains(out.Result.Text(), canary) {
		t.Errorf("abort: %s %s", out.Status, out.Result.Text())
	}
	out = k.run(t, reader, "weather", `{"city":"rewrite"}`, "")
	if out.Result.Text() != "replaced by hook" {
		t.Errorf("rewrite + replace: %s", out.Result.Text())
	}
	out = k.run(t, reader, "weather", `{"city":"broken"}`, "")
	if out.Status != StatusHookError {
		t.Errorf("broken args from hook: %s %s", out.Status, out.Result.Text())
	}
	out = k.run(t, admin, "delete_account", `{}`, goodWhy)
	if out.Status != StatusHookError || !strings.Contains(out.Result.Text(), "panicked") {
		t.Errorf("panicking after hook: %s %s", out.Status, out.Result.Text())
	}
}

func TestRateLimit(t *testing.T) {
	k := newTestKernel(t, func(c *Config) { c.Limits = RateLimits{Destructive: 2} })
	for i := 0; i < 2; i++ {
		if out := k.run(t, admin, "delete_account", `{}`, goodWhy); out.Status != StatusOK {
			t.Fatalf("call %d: %s", i, out.Result.Text())
		}
	}
	out := k.run(t, admin, "delete_account", `{}`, goodWhy)
	if out.Status != StatusDenied || out.Decision.Code != CodeRateLimited || out.Decision.Rule != RuleRateLimit {
		t.Errorf("third call: %s %s %s", out.Status, out.Decision.Code, out.Result.Text())
	}
}

func TestRawMode(t *testing.T) {
	k := newTestKernel(t, func(c *Config) { c.Firewall = NewFirewall(&FirewallConfig{MaxBytes: 20}) })
	for _, tt := range []struct {
		pr   *Principal
		note bool
	}{{reader, true}, {admin, false}} {
		out, err := k.Call(context.Background(), &Request{Principal: *tt.pr, Call: tool.Call{Name: "weather", Arguments: json.RawMessage(`{"city":"x"}`)}, Mode: ModeRaw})
		if err != nil {
			t.Fatal(err)
		}
		text := out.Result.Text()
		if got := strings.Contains(text, "raw mode needs the admin role"); got != tt.note {
			t.Errorf("%s: note %v: %s", tt.pr.ID, got, text)
		}
		if cut := strings.Contains(text, "over the 20-byte budget"); cut != tt.note {
			t.Errorf("%s: budget applied %v: %s", tt.pr.ID, cut, text)
		}
		if strings.Contains(text, canary) {
			t.Errorf("raw mode leaked: %s", text)
		}
	}
}

// TestBatchParallel runs many calls in parallel batches (run with -race)
// and cancels one batch midway.
func TestBatchParallel(t *testing.T) {
	var running, peak atomic.Int32
	k := newTestKernel(t, func(c *Config) {
		c.Concurrency = 4
		c.Limits = RateLimits{Read: -1}
		c.Registry.Add(Capability{
			Definition: tool.Definition{Name: "count"},
			Safety:     SafetyRead,
			Executor: ExecutorFunc(func(ctx context.Context, call tool.Call) (tool.Result, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(time.Millisecond)
				return tool.TextResult(call.ID, call.ID), nil
			}),
		})
	})
	reqs := make([]Request, 64)
	for i := range reqs {
		reqs[i] = Request{Principal: *reader, Call: tool.Call{ID: string(rune('A' + i%26)), Name: "count"}}
		if i%5 == 0 {
			reqs[i].Call.Name = "weather"
			reqs[i].Call.Arguments = json.RawMessage(`{"city":"Oslo"}`)
		}
	}
	outs, err := k.CallBatch(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if o.Status != StatusOK || o.Result.CallID != reqs[i].Call.ID {
			t.Errorf("call %d: %s %s", i, o.Status, o.Result.Text())
		}
	}
	if p := peak.Load(); p > 4 {
		t.Errorf("peak concurrency %d, bound 4", p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	outs, _ = k.CallBatch(ctx, reqs[:8])
	for _, o := range outs {
		if o.Status != StatusExecutorError || !strings.Contains(o.Result.Text(), "cancelled") {
			t.Errorf("cancelled batch: %s %s", o.Status, o.Result.Text())
		}
	}
}

// TestPassGrant checks that an executor asking for the grant gets a token
// that verifies for exactly this call, on any holder of the key.
func TestPassGrant(t *testing.T) {
	var tok string
	k := newTestKernel(t, func(c *Config) {
		c.Registry.Add(Capability{
			Definition: tool.Definition{Name: "forward"},
			Safety:     SafetyRead,
			PassGrant:  true,
			Executor: ExecutorFunc(func(ctx context.Context, call tool.Call) (tool.Result, error) {
				tok, _ = GrantFromContext(ctx)
				return tool.TextResult(call.ID, "ok"), nil
			}),
		})
	})
	if out := k.run(t, reader, "forward", `{"x":1}`, ""); out.Status != StatusOK {
		t.Fatalf("%s %s", out.Status, out.Result.Text())
	}
	ctx := context.Background()
	if _, err := k.Grants().Redeem(ctx, tok, reader.ID, "forward", []byte(`{"x":1}`)); err != nil {
		t.Fatalf("token from the pipeline: %v", err)
	}
	if _, err := k.Grants().Verify(ctx, tok, reader.ID, "forward", []byte(`{"x":2}`)); !errors.Is(err, ErrWrongArguments) {
		t.Fatalf("other arguments: %v", err)
	}
}
