// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

func ExampleKernel_Call() {
	ctx := context.Background()
	reg := kernel.NewRegistry()
	type order struct {
		ID     string  `json:"id"`
		Amount float64 `json:"amount"`
	}
	refund, err := kernel.Func("refund", "Refund an order", func(_ context.Context, in order) (string, error) {
		return fmt.Sprintf("refunded %.2f on %s", in.Amount, in.ID), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	refund.Safety = kernel.SafetyWrite
	if err := reg.Add(refund); err != nil {
		log.Fatal(err)
	}
	policy, err := kernel.NewPolicy(&kernel.PolicyConfig{Rules: []kernel.Rule{{
		Name: "big-refunds", Tools: []string{"refund"}, When: "args.amount >= 1000",
		Effect: kernel.EffectRequireApproval, Reason: "refunds of 1000 or more need a manager",
	}}})
	if err != nil {
		log.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{
		Registry:   reg,
		Policy:     policy,
		Principals: []kernel.Principal{{ID: "will", Roles: []string{"writer"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, args := range []string{
		`{"id":"o-1","amount":20,"_justification":"customer was charged twice"}`,
		`{"id":"o-1","amount":20}`,
		`{"id":"o-1","amount":"twenty","_justification":"customer was charged twice"}`,
		`{"id":"o-1","amount":5000,"_justification":"customer was charged twice"}`,
	} {
		out, err := k.Call(ctx, &kernel.Request{
			Principal: kernel.Principal{ID: "will"},
			Call:      tool.Call{ID: "c1", Name: "refund", Arguments: json.RawMessage(args)},
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", out.Status, out.Result.Text())
	}
	// Output:
	// ok: refunded 20.00 on o-1
	// denied: call denied (justification_required, rule builtin.write): a tool that changes data needs a justification of at least 15 characters saying why; retry with one
	// invalid_arguments: invalid arguments: at /amount: expected number, got string; fix the arguments and call again
	// denied: call denied (approval_required, rule big-refunds): approval required, and no approver is configured: refunds of 1000 or more need a manager
}

func ExampleFirewall_Apply() {
	fw := kernel.NewFirewall(&kernel.FirewallConfig{MaxRows: 2})
	fields, err := kernel.NewFieldSet([]string{"name", "orders.id"})
	if err != nil {
		log.Fatal(err)
	}
	res := tool.Result{Content: []tool.Content{&tool.JSON{Value: json.RawMessage(
		`{"name":"Ada","email":"ada@example.com","orders":[{"id":1,"card":"4111111111111111"},{"id":2},{"id":3}]}`)}}}
	out := fw.Apply(res, fields, kernel.ModeDefault)
	fmt.Println(out.Text())
	out = fw.Apply(tool.TextResult("", "token=ghp_"+"0123456789abcdefghijABCDEFGHIJ012345"), nil, kernel.ModeDefault)
	fmt.Println(out.Text())
	// Output:
	// {"name":"Ada","orders":[{"id":1},{"id":2}]}
	// [toolgate: 1 array items cut beyond 2 per array (first at /orders)]
	// token=[REDACTED:github-token]
}

func ExampleVerifyChain() {
	ctx := context.Background()
	store := kernel.NewMemoryAuditStore()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: store})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range []string{"ada", "bob", "cy"} {
		l.Append(ctx, &kernel.AuditRecord{Principal: p, Tool: "get", Status: kernel.StatusOK})
	}
	l.Close(ctx)
	recs := store.Records()
	recs[1].Principal = "mallory" // edited by hand
	store.SetRecords(recs)
	rep, err := kernel.VerifyChain(ctx, store, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep)
	// Output:
	// audit log damaged: 3 records, head 3
	//   record 2 edited: content does not match its hash
}

// A capability's own credential, echoed back by the service it calls, is
// masked by value in the result and the audit log.
func ExampleCapability_secrets() {
	const token = "svc-7f3a-opaque-credential"
	reg := kernel.NewRegistry()
	err := reg.Add(kernel.Capability{
		Definition: tool.Definition{Name: "status", Description: "Service status"},
		Safety:     kernel.SafetyRead,
		Secrets:    []string{token},
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			return tool.TextResult("", "authenticated with "+token+"; all systems up"), nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{Registry: reg})
	if err != nil {
		log.Fatal(err)
	}
	out, err := k.Call(context.Background(), &kernel.Request{
		Principal: kernel.Principal{ID: "rita", Roles: []string{"reader"}},
		Call:      tool.Call{ID: "c1", Name: "status"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Result.Text())
	// Output:
	// authenticated with [REDACTED:credential]; all systems up
}
