// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
)

// Effect is what a policy decides.
type Effect string

// Effects. A deny beats an approval, which beats an allow.
const (
	EffectAllow           Effect = "allow"
	EffectDeny            Effect = "deny"
	EffectRequireApproval Effect = "require_approval"
)

// Code is a stable reason code for a decision, for programs and logs.
type Code string

// Decision codes.
const (
	CodeAllowed               Code = "allowed"
	CodeUnknownPrincipal      Code = "unknown_principal"
	CodeRoleRequired          Code = "role_required"
	CodeJustificationRequired Code = "justification_required"
	CodeTenantRequired        Code = "tenant_required"
	CodeDeniedByRule          Code = "denied_by_rule"
	CodeApprovalRequired      Code = "approval_required"
	CodeApprovalDenied        Code = "approval_denied"
	CodeRateLimited           Code = "rate_limited"
	CodeConditionError        Code = "condition_error"
)

// Built-in rule names, as they appear in [Decision.Rule].
const (
	RulePrincipal   = "builtin.principal"
	RuleWrite       = "builtin.write"
	RuleDestructive = "builtin.destructive"
	RuleSensitive   = "builtin.sensitive"
	RuleSecrets     = "builtin.secrets"
	RuleRateLimit   = "builtin.rate_limit"
	RuleApproval    = "builtin.approval"
)

// ErrInvalidPolicy reports a policy rule that cannot be compiled.
var ErrInvalidPolicy = errors.New("kernel: invalid policy")

// Decision is the outcome of policy for one call.
type Decision struct {
	Effect Effect `json:"effect"`
	// Rule names the rule that decided: a built-in rule or a config rule.
	Rule string `json:"rule"`
	// Code is the stable reason code.
	Code Code `json:"code"`
	// Reason says why, in words a model can act on.
	Reason string `json:"reason"`
	// Restricted means the output is limited to the capability's allowed
	// fields.
	Restricted bool `json:"restricted,omitempty"`
	// Failed lists every failed condition, in explain mode only.
	Failed []Failure `json:"failed,omitempty"`
}

// Failure is one failed condition in explain mode.
type Failure struct {
	Rule   string `json:"rule"`
	Code   Code   `json:"code"`
	Reason string `json:"reason"`
}

// Rule is a policy rule from configuration. A rule applies to a call when
// every non-empty matcher matches; its effect then counts.
type Rule struct {
	// Name identifies the rule in decisions and the audit log.
	Name string
	// Tools are glob patterns (path.Match syntax) over tool names.
	Tools []string
	// Roles: the principal has at least one of them.
	Roles []string
	// Attributes: the principal's attribute equals the value, or is set
	// at all when the value is "*".
	Attributes map[string]string
	// Safety: the capability's safety class is one of these.
	Safety []Safety
	// Sensitivity: the capability's sensitivity is one of these.
	Sensitivity []Sensitivity
	// When is a CEL condition over principal (id, roles, attributes),
	// capability (name, safety, sensitivity), args (the decoded
	// arguments) and justification, e.g. "args.amount < 1000". An error
	// while evaluating (a missing field) counts as a match for deny and
	// require_approval rules and as no match for allow rules: it fails
	// closed.
	When string
	// Effect is allow, deny or require_approval.
	Effect Effect
	// Reason is shown to the model when the rule denies or asks for
	// approval.
	Reason string
}

// PolicyConfig configures [NewPolicy].
type PolicyConfig struct {
	// Rules are checked after the built-in rules.
	Rules []Rule
	// MinJustification is the shortest justification, after trimming,
	// that WRITE, DESTRUCTIVE and SECRETS calls accept. If zero,
	// [DefaultMinJustification]; negative means any justification, even
	// an empty one, is accepted.
	MinJustification int
}

// DefaultMinJustification is [PolicyConfig.MinJustification] when it is
// zero.
const DefaultMinJustification = 15

// Policy decides whether a principal may make a call. Deny by default:
// built-in rules set the floor for each safety class and sensitivity,
// configured rules add denials, approvals and allows. It is immutable and
// safe for concurrent use.
type Policy struct {
	rules   []compiledRule
	minJust int
	hasCEL  bool
}

type compiledRule struct {
	Rule
	prg cel.Program
}

// celEnv declares the variables a condition may use.
func celEnv() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("principal", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("capability", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("args", cel.DynType),
		cel.Variable("justification", cel.StringType),
		cel.CrossTypeNumericComparisons(true),
	)
}

// NewPolicy compiles cfg; nil means the built-in rules only. Every CEL
// condition is compiled here, once.
func NewPolicy(cfg *PolicyConfig) (*Policy, error) {
	var c PolicyConfig
	if cfg != nil {
		c = *cfg
	}
	p := &Policy{minJust: orDefault(c.MinJustification, DefaultMinJustification)}
	var env *cel.Env
	for i, r := range c.Rules {
		name := r.Name
		if name == "" {
			name = fmt.Sprintf("rule %d", i)
		}
		switch r.Effect {
		case EffectAllow, EffectDeny, EffectRequireApproval:
		default:
			return nil, fmt.Errorf("%w: %s: effect %q is not allow, deny or require_approval", ErrInvalidPolicy, name, r.Effect)
		}
		for _, g := range r.Tools {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("%w: %s: tool pattern %q: %w", ErrInvalidPolicy, name, g, err)
			}
		}
		cr := compiledRule{Rule: r}
		cr.Name = name
		if strings.TrimSpace(r.When) != "" {
			if env == nil {
				var err error
				if env, err = celEnv(); err != nil {
					return nil, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
				}
			}
			ast, iss := env.Compile(r.When)
			if iss.Err() != nil {
				return nil, fmt.Errorf("%w: %s: condition: %w", ErrInvalidPolicy, name, iss.Err())
			}
			if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
				return nil, fmt.Errorf("%w: %s: condition is %v, not bool", ErrInvalidPolicy, name, ast.OutputType())
			}
			prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
			if err != nil {
				return nil, fmt.Errorf("%w: %s: condition: %w", ErrInvalidPolicy, name, err)
			}
			cr.prg = prg
			p.hasCEL = true
		}
		p.rules = append(p.rules, cr)
	}
	return p, nil
}

// Input is what policy sees of a call.
type Input struct {
	Principal *Principal
	// Known is whether the principal is one the kernel knows.
	Known         bool
	Capability    *Capability
	Args          json.RawMessage
	Justification string
	// ClientTool says the call is one a client runs itself, proposed by a
	// model through the gateway: its arguments are the client's tool's
	// and cannot carry a justification, so the built-in rules ask none.
	ClientTool bool
}

// Decide returns the decision for in. With explain set, every failed
// condition is listed in [Decision.Failed] rather than stopping at the
// first.
func (p *Policy) Decide(in *Input, explain bool) Decision {
	var d Decision
	var first *Failure
	fail := func(rule string, code Code, reason string) bool {
		f := Failure{Rule: rule, Code: code, Reason: reason}
		if first == nil {
			first = &f
		}
		if explain {
			d.Failed = append(d.Failed, f)
		}
		return !explain // stop now unless explaining
	}
	if p.builtins(in, &d, fail) {
		return denial(d, first)
	}
	approval := -1
	allowRule := ""
	var act map[string]any
	for i := range p.rules {
		r := &p.rules[i]
		if !r.matches(in) {
			continue
		}
		if r.prg != nil {
			if act == nil {
				act = activation(in)
			}
			ok, err := evalBool(r.prg, act)
			if err != nil {
				if r.Effect == EffectAllow {
					continue
				}
				ok = true // fail closed
			}
			if !ok {
				continue
			}
		}
		switch r.Effect {
		case EffectDeny:
			reason := r.Reason
			if reason == "" {
				reason = "denied by policy rule " + r.Name
			}
			if fail(r.Name, CodeDeniedByRule, reason) {
				return denial(d, first)
			}
		case EffectRequireApproval:
			if approval < 0 {
				approval = i
			}
		case EffectAllow:
			if allowRule == "" {
				allowRule = r.Name
			}
		}
	}
	if first != nil {
		return denial(d, first)
	}
	if approval >= 0 {
		r := &p.rules[approval]
		reason := r.Reason
		if reason == "" {
			reason = "this call needs approval (rule " + r.Name + ")"
		}
		d.Effect, d.Rule, d.Code, d.Reason = EffectRequireApproval, r.Name, CodeApprovalRequired, reason
		return d
	}
	d.Effect, d.Code = EffectAllow, CodeAllowed
	d.Rule = allowRule
	if d.Rule == "" {
		switch in.Capability.Safety {
		case SafetyRead:
			d.Rule = "builtin.read"
		case SafetyWrite:
			d.Rule = "builtin.write"
		default:
			d.Rule = "builtin.destructive"
		}
	}
	d.Reason = "allowed"
	return d
}

func denial(d Decision, f *Failure) Decision {
	d.Effect, d.Rule, d.Code, d.Reason = EffectDeny, f.Rule, f.Code, f.Reason
	return d
}

// builtins applies the built-in rules; it returns true when fail asked to
// stop.
func (p *Policy) builtins(in *Input, d *Decision, fail func(rule string, code Code, reason string) bool) bool {
	pr, c := in.Principal, in.Capability
	if !in.Known || pr == nil || pr.ID == "" {
		if fail(RulePrincipal, CodeUnknownPrincipal, "the caller is not a known principal; no tool may be called") {
			return true
		}
		pr = &Principal{}
	}
	just := utf8.RuneCountInString(strings.TrimSpace(in.Justification))
	needJust := func(rule, what string) bool {
		if just >= p.minJust || in.ClientTool {
			return false
		}
		return fail(rule, CodeJustificationRequired, fmt.Sprintf("%s needs a justification of at least %d characters saying why; retry with one", what, p.minJust))
	}
	switch c.Safety {
	case SafetyWrite:
		if !pr.HasAnyRole("writer", "admin") {
			if fail(RuleWrite, CodeRoleRequired, "this tool changes data and needs the role writer or admin, which the caller lacks") {
				return true
			}
		}
		if needJust(RuleWrite, "a tool that changes data") {
			return true
		}
	case SafetyDestructive:
		if !pr.HasRole("admin") {
			if fail(RuleDestructive, CodeRoleRequired, "this tool cannot be undone and needs the role admin, which the caller lacks") {
				return true
			}
		}
		if needJust(RuleDestructive, "a tool that cannot be undone") {
			return true
		}
	}
	switch c.Sensitivity {
	case SensitivityPII, SensitivityPCI:
		if pr.Attributes["tenant"] == "" {
			if fail(RuleSensitive, CodeTenantRequired, "this tool returns "+string(c.Sensitivity)+" data and the caller has no tenant attribute") {
				return true
			}
		}
		if !pr.HasRole("pii_reader") {
			d.Restricted = true
		}
	case SensitivitySecrets:
		if !pr.HasAnyRole("admin", "secrets_reader") {
			if fail(RuleSecrets, CodeRoleRequired, "this tool returns secrets and needs the role admin or secrets_reader, which the caller lacks") {
				return true
			}
		}
		if needJust(RuleSecrets, "a tool that returns secrets") {
			return true
		}
	}
	return false
}

func (r *compiledRule) matches(in *Input) bool {
	c := in.Capability
	if len(r.Tools) > 0 {
		ok := false
		for _, g := range r.Tools {
			if m, _ := path.Match(g, c.Definition.Name); m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	pr := in.Principal
	if pr == nil {
		pr = &Principal{}
	}
	if len(r.Roles) > 0 && !pr.HasAnyRole(r.Roles...) {
		return false
	}
	for k, want := range r.Attributes {
		got, ok := pr.Attributes[k]
		if !ok || (want != "*" && got != want) {
			return false
		}
	}
	if len(r.Safety) > 0 && !contains(r.Safety, c.Safety) {
		return false
	}
	if len(r.Sensitivity) > 0 && !contains(r.Sensitivity, c.Sensitivity) {
		return false
	}
	return true
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func activation(in *Input) map[string]any {
	pr := in.Principal
	if pr == nil {
		pr = &Principal{}
	}
	roles := pr.Roles
	if roles == nil {
		roles = []string{}
	}
	attrs := pr.Attributes
	if attrs == nil {
		attrs = map[string]string{}
	}
	var args any = map[string]any{}
	if len(in.Args) > 0 {
		var v any
		if json.Unmarshal(in.Args, &v) == nil && v != nil {
			args = v
		}
	}
	return map[string]any{
		"principal": map[string]any{"id": pr.ID, "roles": roles, "attributes": attrs},
		"capability": map[string]any{
			"name":        in.Capability.Definition.Name,
			"safety":      string(in.Capability.Safety),
			"sensitivity": string(in.Capability.Sensitivity),
		},
		"args":          args,
		"justification": in.Justification,
	}
}

func evalBool(prg cel.Program, act map[string]any) (bool, error) {
	out, _, err := prg.Eval(act)
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("condition returned %T, not bool", out.Value())
	}
	return b, nil
}
