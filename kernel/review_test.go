// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

func TestReview(t *testing.T) {
	pol, err := kernel.NewPolicy(&kernel.PolicyConfig{Rules: []kernel.Rule{
		{Name: "no-rm", Tools: []string{"Bash"}, When: `args.command.matches("rm\\s+-rf")`, Effect: kernel.EffectDeny, Reason: "no recursive deletes"},
		{Name: "ask-push", Tools: []string{"Bash"}, When: `args.command.startsWith("git push")`, Effect: kernel.EffectRequireApproval, Reason: "pushes need a person"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	store := kernel.NewMemoryAuditStore()
	log, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{Policy: pol, Audit: log,
		Principals: []kernel.Principal{{ID: "dev", Roles: []string{"writer"}}, {ID: "guest", Roles: []string{"reader"}}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		principal string
		tool      string
		safety    kernel.Safety
		args      string
		unknown   bool
		status    kernel.Status
		rule      string
		say       string // in the model's result
	}{
		{name: "allowed", principal: "dev", tool: "Bash", safety: kernel.SafetyWrite, args: `{"command":"ls -la"}`, status: kernel.StatusOK},
		{name: "no justification needed", principal: "dev", tool: "Edit", safety: kernel.SafetyWrite, args: `{"file":"a.go"}`, status: kernel.StatusOK},
		{name: "rule denies", principal: "dev", tool: "Bash", safety: kernel.SafetyWrite, args: `{"command":"rm -rf /"}`, status: kernel.StatusDenied, rule: "no-rm", say: "no recursive deletes"},
		{name: "approval without approver", principal: "dev", tool: "Bash", safety: kernel.SafetyWrite, args: `{"command":"git push origin main"}`, status: kernel.StatusDenied, rule: "ask-push", say: "approval required"},
		{name: "role", principal: "guest", tool: "Bash", safety: kernel.SafetyWrite, args: `{"command":"ls"}`, status: kernel.StatusDenied, rule: kernel.RuleWrite, say: "writer"},
		{name: "destructive needs admin", principal: "dev", tool: "Shell", safety: kernel.SafetyDestructive, args: `{"command":"ls"}`, status: kernel.StatusDenied, rule: kernel.RuleDestructive, say: "admin"},
		{name: "unknown principal", principal: "mallory", tool: "Read", safety: kernel.SafetyRead, args: `{}`, status: kernel.StatusDenied, rule: kernel.RulePrincipal},
		{name: "not an object", principal: "dev", tool: "Bash", safety: kernel.SafetyWrite, args: `["rm"]`, status: kernel.StatusInvalidJSON, say: "JSON object"},
		{name: "unknown tool", principal: "dev", tool: "Nope", args: `{}`, unknown: true, status: kernel.StatusUnknownTool, say: "neither one of the client's tools"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "call_" + tt.name
			out, err := k.Review(context.Background(), &kernel.ReviewRequest{
				Principal: kernel.Principal{ID: tt.principal}, Safety: tt.safety, Unknown: tt.unknown, Parent: "req_1",
				Call: tool.Call{ID: id, Name: tt.tool, Arguments: json.RawMessage(tt.args)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.status || (tt.rule != "" && out.Decision.Rule != tt.rule) {
				t.Fatalf("status %s rule %q, want %s %q (%s)", out.Status, out.Decision.Rule, tt.status, tt.rule, out.Result.Text())
			}
			if tt.status == kernel.StatusOK {
				if out.Result.IsError || len(out.Result.Content) != 0 {
					t.Errorf("an allowed call has a result: %+v", out.Result)
				}
			} else if !out.Result.IsError || !strings.Contains(out.Result.Text(), tt.say) {
				t.Errorf("result %q (error %v), want an error saying %q", out.Result.Text(), out.Result.IsError, tt.say)
			}
			if err := log.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			recs := store.Records()
			if len(recs) != i+1 {
				t.Fatalf("%d records, want %d", len(recs), i+1)
			}
			r := recs[i]
			if r.Kind != kernel.RecordProposal || r.Parent != "req_1" || r.CallID != id || r.Tool != tt.tool || r.Status != tt.status {
				t.Errorf("record %+v", r)
			}
		})
	}
	rep, err := kernel.VerifyChain(context.Background(), store, nil)
	if err != nil || len(rep.Problems) > 0 {
		t.Errorf("verify: %v %v", err, rep)
	}
}

func TestReviewApproval(t *testing.T) {
	pol, err := kernel.NewPolicy(&kernel.PolicyConfig{Rules: []kernel.Rule{
		{Name: "ask-push", Tools: []string{"Bash"}, When: `args.command.startsWith("git push")`, Effect: kernel.EffectRequireApproval, Reason: "pushes need a person"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	k, err := kernel.New(&kernel.Config{Policy: pol, Principals: []kernel.Principal{{ID: "dev", Roles: []string{"writer"}}},
		Approve: func(_ context.Context, req *kernel.ApprovalRequest) (bool, error) {
			asked = append(asked, req.Decision.Rule+" "+string(req.Call.Arguments))
			return !strings.Contains(string(req.Call.Arguments), "--force"), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		command string
		status  kernel.Status
		code    kernel.Code
	}{
		{"git push origin main", kernel.StatusOK, kernel.CodeAllowed},
		{"git push --force", kernel.StatusDenied, kernel.CodeApprovalDenied},
		{"ls", kernel.StatusOK, ""},
	} {
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		out, err := k.Review(context.Background(), &kernel.ReviewRequest{Principal: kernel.Principal{ID: "dev"}, Safety: kernel.SafetyWrite,
			Call: tool.Call{ID: "c", Name: "Bash", Arguments: args}})
		if err != nil || out.Status != tt.status || (tt.code != "" && out.Decision.Code != tt.code) {
			t.Errorf("%s: %v %s %s, want %s %s", tt.command, err, out.Status, out.Decision.Code, tt.status, tt.code)
		}
	}
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "ask-push ") {
		t.Errorf("the approver was asked %q", asked)
	}
}
