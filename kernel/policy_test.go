// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

func testCap(name string, s Safety, sens Sensitivity) *Capability {
	return &Capability{Definition: tool.Definition{Name: name}, Safety: s, Sensitivity: sens}
}

var (
	reader  = &Principal{ID: "rita", Roles: []string{"reader"}, Attributes: map[string]string{"tenant": "acme"}}
	writer  = &Principal{ID: "will", Roles: []string{"writer"}, Attributes: map[string]string{"tenant": "acme"}}
	admin   = &Principal{ID: "ada", Roles: []string{"admin"}, Attributes: map[string]string{"tenant": "acme"}}
	noTen   = &Principal{ID: "nina", Roles: []string{"writer"}}
	piiRead = &Principal{ID: "pia", Roles: []string{"pii_reader"}, Attributes: map[string]string{"tenant": "acme"}}
	secRead = &Principal{ID: "sam", Roles: []string{"secrets_reader"}}
)

const goodWhy = "customer asked for a refund on order 42"

// TestBuiltinRules covers every built-in rule, each way it passes and
// fails.
func TestBuiltinRules(t *testing.T) {
	p, err := NewPolicy(nil)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		Effect     Effect
		Rule       string
		Code       Code
		Restricted bool
	}
	tests := []struct {
		name  string
		pr    *Principal
		known bool
		cap   *Capability
		just  string
		want  want
	}{
		{"read-known", reader, true, testCap("get", SafetyRead, SensitivityNone), "", want{EffectAllow, "builtin.read", CodeAllowed, false}},
		{"read-unknown", reader, false, testCap("get", SafetyRead, SensitivityNone), "", want{EffectDeny, RulePrincipal, CodeUnknownPrincipal, false}},
		{"read-empty-id", &Principal{}, true, testCap("get", SafetyRead, SensitivityNone), "", want{EffectDeny, RulePrincipal, CodeUnknownPrincipal, false}},
		{"write-writer", writer, true, testCap("put", SafetyWrite, SensitivityNone), goodWhy, want{EffectAllow, "builtin.write", CodeAllowed, false}},
		{"write-admin", admin, true, testCap("put", SafetyWrite, SensitivityNone), goodWhy, want{EffectAllow, "builtin.write", CodeAllowed, false}},
		{"write-reader", reader, true, testCap("put", SafetyWrite, SensitivityNone), goodWhy, want{EffectDeny, RuleWrite, CodeRoleRequired, false}},
		{"write-no-justification", writer, true, testCap("put", SafetyWrite, SensitivityNone), "", want{EffectDeny, RuleWrite, CodeJustificationRequired, false}},
		{"write-short-justification", writer, true, testCap("put", SafetyWrite, SensitivityNone), "   because    ", want{EffectDeny, RuleWrite, CodeJustificationRequired, false}},
		{"write-justification-15", writer, true, testCap("put", SafetyWrite, SensitivityNone), "  exactly15chars!  ", want{EffectAllow, "builtin.write", CodeAllowed, false}},
		{"destructive-admin", admin, true, testCap("del", SafetyDestructive, SensitivityNone), goodWhy, want{EffectAllow, "builtin.destructive", CodeAllowed, false}},
		{"destructive-writer", writer, true, testCap("del", SafetyDestructive, SensitivityNone), goodWhy, want{EffectDeny, RuleDestructive, CodeRoleRequired, false}},
		{"destructive-no-justification", admin, true, testCap("del", SafetyDestructive, SensitivityNone), "", want{EffectDeny, RuleDestructive, CodeJustificationRequired, false}},
		{"pii-restricted", reader, true, testCap("cust", SafetyRead, SensitivityPII), "", want{EffectAllow, "builtin.read", CodeAllowed, true}},
		{"pii-reader-unrestricted", piiRead, true, testCap("cust", SafetyRead, SensitivityPII), "", want{EffectAllow, "builtin.read", CodeAllowed, false}},
		{"pii-no-tenant", noTen, true, testCap("cust", SafetyRead, SensitivityPII), "", want{EffectDeny, RuleSensitive, CodeTenantRequired, false}},
		{"pci-no-tenant", noTen, true, testCap("card", SafetyRead, SensitivityPCI), "", want{EffectDeny, RuleSensitive, CodeTenantRequired, false}},
		{"pci-restricted", reader, true, testCap("card", SafetyRead, SensitivityPCI), "", want{EffectAllow, "builtin.read", CodeAllowed, true}},
		{"secrets-admin", admin, true, testCap("vault", SafetyRead, SensitivitySecrets), goodWhy, want{EffectAllow, "builtin.read", CodeAllowed, false}},
		{"secrets-reader-role", secRead, true, testCap("vault", SafetyRead, SensitivitySecrets), goodWhy, want{EffectAllow, "builtin.read", CodeAllowed, false}},
		{"secrets-writer", writer, true, testCap("vault", SafetyRead, SensitivitySecrets), goodWhy, want{EffectDeny, RuleSecrets, CodeRoleRequired, false}},
		{"secrets-no-justification", admin, true, testCap("vault", SafetyRead, SensitivitySecrets), "", want{EffectDeny, RuleSecrets, CodeJustificationRequired, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(&Input{Principal: tt.pr, Known: tt.known, Capability: tt.cap, Justification: tt.just}, false)
			got := want{d.Effect, d.Rule, d.Code, d.Restricted}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s\nreason: %s", diff, d.Reason)
			}
			if d.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
}

// TestConfigRules covers each matcher and effect of configured rules and
// their precedence: deny beats approval beats allow.
func TestConfigRules(t *testing.T) {
	rules := []Rule{
		{Name: "no-prod-delete", Tools: []string{"prod_*"}, Safety: []Safety{SafetyDestructive}, Effect: EffectDeny, Reason: "production deletes go through change control"},
		{Name: "big-refunds", Tools: []string{"refund"}, When: "args.amount >= 1000", Effect: EffectRequireApproval},
		{Name: "refund-tenant", Tools: []string{"refund"}, Attributes: map[string]string{"tenant": "evil"}, Effect: EffectDeny},
		{Name: "refund-any-tenant", Tools: []string{"refund"}, Attributes: map[string]string{"tenant": "*"}, Effect: EffectAllow},
		{Name: "pii-for-admins-only", Sensitivity: []Sensitivity{SensitivityPII}, Roles: []string{"reader"}, Effect: EffectDeny, Reason: "readers may not see customer data"},
		{Name: "weekend", Tools: []string{"deploy"}, When: `principal.attributes.tenant == "acme" && justification.contains("hotfix")`, Effect: EffectRequireApproval},
		{Name: "missing-field", Tools: []string{"transfer"}, When: "args.limit > 5", Effect: EffectDeny},
		{Name: "missing-field-allow", Tools: []string{"lookup"}, When: "args.nope == 1", Effect: EffectAllow},
	}
	p, err := NewPolicy(&PolicyConfig{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pr   *Principal
		cap  *Capability
		args string
		just string
		want Effect
		rule string
		code Code
	}{
		{"glob-and-safety-deny", admin, testCap("prod_db_drop", SafetyDestructive, SensitivityNone), `{}`, goodWhy, EffectDeny, "no-prod-delete", CodeDeniedByRule},
		{"glob-other-safety", writer, testCap("prod_db_put", SafetyWrite, SensitivityNone), `{}`, goodWhy, EffectAllow, "builtin.write", CodeAllowed},
		{"cel-approval", writer, testCap("refund", SafetyWrite, SensitivityNone), `{"amount": 1500}`, goodWhy, EffectRequireApproval, "big-refunds", CodeApprovalRequired},
		{"cel-false-allow-rule", writer, testCap("refund", SafetyWrite, SensitivityNone), `{"amount": 15.5}`, goodWhy, EffectAllow, "refund-any-tenant", CodeAllowed},
		{"deny-beats-approval", &Principal{ID: "e", Roles: []string{"writer"}, Attributes: map[string]string{"tenant": "evil"}}, testCap("refund", SafetyWrite, SensitivityNone), `{"amount": 5000}`, goodWhy, EffectDeny, "refund-tenant", CodeDeniedByRule},
		{"role-and-sensitivity", reader, testCap("customers", SafetyRead, SensitivityPII), `{}`, "", EffectDeny, "pii-for-admins-only", CodeDeniedByRule},
		{"role-not-matching", piiRead, testCap("customers", SafetyRead, SensitivityPII), `{}`, "", EffectAllow, "builtin.read", CodeAllowed},
		{"cel-principal-justification", writer, testCap("deploy", SafetyWrite, SensitivityNone), `{}`, "hotfix for the login outage", EffectRequireApproval, "weekend", CodeApprovalRequired},
		{"cel-error-fails-closed-deny", writer, testCap("transfer", SafetyWrite, SensitivityNone), `{}`, goodWhy, EffectDeny, "missing-field", CodeDeniedByRule},
		{"cel-error-allow-skipped", reader, testCap("lookup", SafetyRead, SensitivityNone), `{}`, "", EffectAllow, "builtin.read", CodeAllowed},
		{"builtin-before-rules", reader, testCap("refund", SafetyWrite, SensitivityNone), `{"amount": 5}`, goodWhy, EffectDeny, RuleWrite, CodeRoleRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(&Input{Principal: tt.pr, Known: true, Capability: tt.cap, Args: []byte(tt.args), Justification: tt.just}, false)
			if d.Effect != tt.want || d.Rule != tt.rule || d.Code != tt.code {
				t.Errorf("got %s/%s/%s (%s), want %s/%s/%s", d.Effect, d.Rule, d.Code, d.Reason, tt.want, tt.rule, tt.code)
			}
		})
	}
}

// TestExplain lists every failed condition, not only the first.
func TestExplain(t *testing.T) {
	p, err := NewPolicy(&PolicyConfig{Rules: []Rule{
		{Name: "never-vault", Tools: []string{"vault_*"}, Effect: EffectDeny, Reason: "the vault is closed"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	in := &Input{Principal: &Principal{ID: "x"}, Known: false, Capability: testCap("vault_wipe", SafetyDestructive, SensitivitySecrets)}
	d := p.Decide(in, true)
	var got []string
	for _, f := range d.Failed {
		got = append(got, f.Rule+"/"+string(f.Code))
	}
	want := []string{
		"builtin.principal/unknown_principal",
		"builtin.destructive/role_required",
		"builtin.destructive/justification_required",
		"builtin.secrets/role_required",
		"builtin.secrets/justification_required",
		"never-vault/denied_by_rule",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failed conditions (-want +got):\n%s", diff)
	}
	if d.Effect != EffectDeny || d.Rule != RulePrincipal {
		t.Errorf("decision = %s by %s, want deny by %s", d.Effect, d.Rule, RulePrincipal)
	}
	if quick := p.Decide(in, false); len(quick.Failed) != 0 || quick.Rule != d.Rule {
		t.Errorf("without explain: %+v", quick)
	}
}

func TestPolicyErrors(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
	}{
		{"bad-effect", Rule{Name: "r", Effect: "maybe"}},
		{"bad-glob", Rule{Name: "r", Effect: EffectAllow, Tools: []string{"[x"}}},
		{"bad-cel", Rule{Name: "r", Effect: EffectAllow, When: "args.amount <"}},
		{"non-bool-cel", Rule{Name: "r", Effect: EffectAllow, When: "1 + 2"}},
		{"unknown-variable", Rule{Name: "r", Effect: EffectAllow, When: "request.size > 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewPolicy(&PolicyConfig{Rules: []Rule{tt.rule}}); !errors.Is(err, ErrInvalidPolicy) {
				t.Errorf("got %v, want ErrInvalidPolicy", err)
			}
		})
	}
}
