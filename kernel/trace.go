// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"

	"github.com/toolgate/toolgate/redact"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// startSpan starts a call's execute_tool span; it is named and described
// once the call's name has been masked ([Kernel.endSpan]).
func (k *Kernel) startSpan(ctx context.Context) (context.Context, trace.Span) {
	return k.tracer.Start(ctx, "execute_tool", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool")))
}

// endSpan ends a call's span with the GenAI conventions' tool name and
// call id and the kernel's decision: effect, rule, code and status, all
// as masked for the audit log; the arguments and result, redacted, only
// with TraceContent.
func (k *Kernel) endSpan(sp trace.Span, req *Request, out *Outcome, red *redact.Redactor) {
	if req.proposed {
		// A decision on a call the client runs, not a run.
		sp.SetName("review_tool " + out.Result.Name)
		sp.SetAttributes(attribute.Bool("toolgate.proposal", true))
	} else {
		sp.SetName("execute_tool " + out.Result.Name)
	}
	if out.Result.CallID != "" {
		// The id the audit record has too: a span and its record join on
		// it. A caller that gave none gets no empty attribute.
		sp.SetAttributes(attribute.String("gen_ai.tool.call.id", out.Result.CallID))
	}
	if req.Parent != "" {
		// The model request the call was made in, as the audit record's
		// Parent: a model's call ids are its own and may repeat across
		// requests, the pair does not.
		sp.SetAttributes(attribute.String("toolgate.parent_id", req.Parent))
	}
	sp.SetAttributes(
		attribute.String("gen_ai.tool.name", out.Result.Name),
		attribute.String("gen_ai.tool.type", "function"),
		attribute.String("toolgate.decision", string(out.Decision.Effect)),
		attribute.String("toolgate.rule", out.Decision.Rule),
		attribute.String("toolgate.code", string(out.Decision.Code)),
		attribute.String("toolgate.status", string(out.Status)),
	)
	if k.traceContent {
		sp.SetAttributes(
			attribute.String("gen_ai.tool.call.arguments", string(red.CheckedJSON(req.Call.Arguments))),
			attribute.String("gen_ai.tool.call.result", resultText(&out.Result)),
		)
	}
	if out.Status != StatusOK {
		sp.SetAttributes(attribute.String("error.type", string(out.Status)))
		sp.SetStatus(codes.Error, string(out.Decision.Code))
	}
	sp.End()
}

// traceGrant puts the call's grant id on its span: the id the grant's
// token carries, for finding a token a downstream service was given.
func traceGrant(ctx context.Context, payload []byte) {
	// The payload starts with the version and the id's length.
	if len(payload) > 2 && int(payload[1]) <= len(payload)-2 {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("toolgate.grant_id", string(payload[2:2+int(payload[1])])))
	}
}
