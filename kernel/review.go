// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/tool"
	"go.opentelemetry.io/otel/trace"
)

// ReviewRequest is a call a model proposed for a tool the kernel does not
// run — one of the client's own, such as a coding agent's Bash — to be
// decided before the client sees it.
type ReviewRequest struct {
	Principal Principal
	Call      tool.Call
	// Definition is the tool as the client declared it, when known; its
	// name is the call's.
	Definition tool.Definition
	// Safety is the tool's safety class; if empty, inferred from the
	// definition as for a capability.
	Safety Safety
	// Justification says why, for a call whose arguments carry no
	// "_justification".
	Justification string
	// Parent is the CallID of the model request that proposed the call.
	Parent string
	// Explain lists every failed policy condition in the decision.
	Explain bool
	// Unknown says the tool is nobody's: neither the client's nor one
	// served. The call is refused as unknown, and recorded.
	Unknown bool
}

// Review decides a proposed call the way [Kernel.Call] decides one it
// runs — the rate limit of its safety class, strict decoding of its
// arguments, policy (CEL over args), approval — and commits the decision
// to the audit log as a [RecordProposal] under its parent before it
// returns ([AuditLog.Commit]). Nothing runs.
//
// An allowed call's Outcome has StatusOK and an empty Result: the client
// runs it. Every other Outcome's Result is a tool error saying why, for
// the model. The error is non-nil only when the audit log cannot be
// written, and then the call must not be passed on.
func (k *Kernel) Review(ctx context.Context, req *ReviewRequest) (Outcome, error) {
	var start time.Time
	if k.observe != nil {
		start = time.Now()
	}
	var span trace.Span
	if k.tracer != nil {
		ctx, span = k.tracer.Start(ctx, "review_tool", trace.WithSpanKind(trace.SpanKindInternal))
	}
	red := k.redactor()
	out, args, just := k.review(ctx, req)
	memo := k.red.Load()
	out.Result.CallID = red.String(req.Call.ID)
	out.Result.Name = memo.masked(red, req.Call.Name)
	out.Decision = k.redactDecision(red, out.Decision)
	if out.Result.IsError {
		for i, c := range out.Result.Content {
			if t, ok := c.(*tool.Text); ok {
				out.Result.Content[i] = &tool.Text{Text: red.String(t.Text)}
			}
		}
	}
	seen := &Request{Principal: req.Principal, Call: req.Call, Parent: req.Parent, proposed: true}
	if span != nil {
		defer k.endSpan(span, seen, &out, red)
	}
	if k.observe != nil {
		defer k.observeCall(ctx, seen, &out, red, start)
	}
	if k.audit == nil {
		return out, nil
	}
	if err := k.audit.Err(); err != nil {
		// A decision that cannot be recorded is not passed on.
		d := out.Decision
		if d.Effect == EffectAllow {
			d = Decision{}
		}
		return k.fail(red, StatusExecutorError, d, "the audit log cannot be written, so no call may be passed on"), err
	}
	rec := AuditRecord{
		Time:          time.Now(),
		Kind:          RecordProposal,
		Parent:        red.String(req.Parent),
		Principal:     memo.masked(red, req.Principal.ID),
		Tool:          out.Result.Name,
		CallID:        out.Result.CallID,
		Status:        out.Status,
		Effect:        out.Decision.Effect,
		Rule:          out.Decision.Rule,
		Code:          out.Decision.Code,
		Reason:        out.Decision.Reason,
		Justification: red.String(just),
		Args:          red.CheckedJSON(args),
		Result:        red.String(resultText(&out.Result)),
		IsError:       out.Result.IsError,
	}
	// Committed before the call is passed on, as an intent is before a
	// call runs: the client runs it on the strength of this record.
	if _, err := k.commit(ctx, &rec); err != nil {
		d := out.Decision
		if d.Effect == EffectAllow {
			d = Decision{}
		}
		return k.fail(red, StatusExecutorError, d, "the audit log cannot be written, so no call may be passed on"), err
	}
	return out, nil
}

// review decides req, returning the outcome and the decoded arguments
// and justification (nil and empty when they could not be read).
func (k *Kernel) review(ctx context.Context, req *ReviewRequest) (Outcome, []byte, string) {
	red := k.redactor()
	if req.Unknown {
		args, just, _ := DecodeArguments(req.Call.Arguments, &k.argOpts)
		return k.fail(red, StatusUnknownTool, Decision{}, "unknown tool "+strconv.Quote(req.Call.Name)+
			": it is neither one of the client's tools nor one served here; call only the tools you were given"), args, just
	}
	pr, known := k.principal(&req.Principal)
	c := Capability{Definition: req.Definition, Safety: req.Safety}
	c.Definition.Name = req.Call.Name
	if c.Safety == "" {
		c.Safety = InferSafety(&c.Definition)
	}
	if ok, retry, err := k.limiter.Allow(ctx, pr.ID, c.Definition.Name, k.limits.of(c.Safety), k.limits.Window); err != nil || !ok {
		d := Decision{Effect: EffectDeny, Rule: RuleRateLimit, Code: CodeRateLimited}
		if err != nil {
			d.Reason = "the rate limiter is unavailable; try again later"
		} else {
			d.Reason = fmt.Sprintf("rate limit of %d calls per %s reached for this tool; retry in %s", k.limits.of(c.Safety), k.limits.Window, retry.Round(time.Second))
		}
		return k.fail(red, StatusDenied, d, denialText(&d)), nil, ""
	}
	args, just, err := DecodeArguments(req.Call.Arguments, &k.argOpts)
	if err != nil {
		return k.fail(red, StatusInvalidJSON, Decision{}, "invalid arguments: "+argMessage(red, err)+"; send one JSON object"), nil, ""
	}
	if just == "" {
		just = req.Justification
	}
	in := Input{Principal: pr, Known: known, Capability: &c, Args: args, Justification: just, ClientTool: true}
	d := k.policy.Decide(&in, req.Explain)
	switch d.Effect {
	case EffectDeny:
		return k.fail(red, StatusDenied, d, denialText(&d)), args, just
	case EffectRequireApproval:
		if k.approve == nil {
			d.Effect, d.Code = EffectDeny, CodeApprovalRequired
			d.Reason = "approval required, and no approver is configured: " + d.Reason
			return k.fail(red, StatusDenied, d, denialText(&d)), args, just
		}
		call := req.Call
		call.Arguments = args
		ok, err := k.approve(ctx, &ApprovalRequest{Principal: *pr, Capability: c, Call: call, Justification: just, Decision: d})
		if err != nil || !ok {
			d.Effect, d.Code = EffectDeny, CodeApprovalDenied
			if err != nil {
				d.Reason = red.String("approval could not be obtained: " + err.Error())
			} else {
				d.Reason = "the approver declined this call"
			}
			return k.fail(red, StatusDenied, d, denialText(&d)), args, just
		}
		d.Effect, d.Code, d.Reason = EffectAllow, CodeAllowed, "allowed after approval"
	}
	return Outcome{Status: StatusOK, Decision: d}, args, just
}
