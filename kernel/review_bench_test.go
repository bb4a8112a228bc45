// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/tool"
)

// BenchmarkReview is the decision on one call a model proposed for a
// client's tool, as the gateway holds it: strict decoding of its
// arguments, a CEL rule over them, and its audit record queued. The rule
// does not match, so the call is allowed.
func BenchmarkReview(b *testing.B) {
	for _, audited := range []bool{false, true} {
		name := "no-audit"
		if audited {
			name = "audit"
		}
		b.Run(name, func(b *testing.B) {
			pol, err := NewPolicy(&PolicyConfig{Rules: []Rule{{Name: "no-rm", Tools: []string{"Bash"}, When: `args.command.matches("rm\\s+-rf")`, Effect: EffectDeny, Reason: "no"}}})
			if err != nil {
				b.Fatal(err)
			}
			cfg := &Config{Policy: pol, Limits: RateLimits{Read: -1, Write: -1, Destructive: -1}}
			if audited {
				log, err := NewAuditLog(context.Background(), &AuditConfig{Store: &discardStore{}})
				if err != nil {
					b.Fatal(err)
				}
				defer log.Close(context.Background())
				cfg.Audit = log
			}
			k, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			req := &ReviewRequest{Principal: Principal{ID: "dev", Roles: []string{"writer"}}, Safety: SafetyWrite, Parent: "req_0123456789abcdef01234567",
				Call: tool.Call{ID: "call_1", Name: "Bash", Arguments: json.RawMessage(`{"command":"go test ./... -run TestReview -count=1","timeout":120000}`)}}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				out, err := k.Review(ctx, req)
				if err != nil || out.Status != StatusOK {
					b.Fatal(err, out.Status)
				}
			}
		})
	}
}
