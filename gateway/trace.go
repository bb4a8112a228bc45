// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the gateway's spans.
const tracerName = "github.com/toolgate/toolgate/gateway"

var traceContext = propagation.TraceContext{}

// startSpan starts the span of one client request, a child of the
// client's traceparent, and returns r carrying it. The span is named and
// given its attributes when the request ends ([Handler.endSpan]).
func (h *Handler) startSpan(r *http.Request, s *served) *http.Request {
	if h.tracer == nil {
		return r
	}
	ctx := traceContext.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, s.span = h.tracer.Start(ctx, "chat", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat"), attribute.String("toolgate.front_door", string(s.front)),
			attribute.String("enduser.id", s.who.Principal.ID), attribute.String("toolgate.key_id", s.who.KeyID)))
	return r.WithContext(ctx)
}

// endSpan ends a request's span with what the request did: the GenAI
// conventions' model, provider, usage and finish reason, and the error
// type of a failure. No prompt or answer content is recorded.
func (h *Handler) endSpan(s *served) {
	if s.span == nil {
		return
	}
	sp := s.span
	if s.model != "" {
		model := s.model
		if !s.known {
			model = unknownModel
		}
		sp.SetName("chat " + model)
		sp.SetAttributes(attribute.String("gen_ai.request.model", model))
	}
	if s.provider != "" {
		sp.SetAttributes(attribute.String("toolgate.provider", s.provider), attribute.String("gen_ai.provider.name", providerName(s.backend)))
	}
	if s.usage.InputTokens >= 0 && s.status == http.StatusOK {
		sp.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", s.usage.InputTokens))
	}
	if s.usage.OutputTokens >= 0 && s.status == http.StatusOK {
		sp.SetAttributes(attribute.Int64("gen_ai.usage.output_tokens", s.usage.OutputTokens))
	}
	if s.finish != "" {
		sp.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(s.finish)}))
	}
	sp.SetAttributes(attribute.Int("http.response.status_code", s.status))
	switch {
	case s.status >= 400:
		sp.SetAttributes(attribute.String("error.type", strconv.Itoa(s.status)))
		sp.SetStatus(codes.Error, http.StatusText(s.status))
	case s.err != nil:
		sp.SetAttributes(attribute.String("error.type", failureText(s.err)))
		sp.SetStatus(codes.Error, failureText(s.err))
	}
	sp.End()
}

// providerName is the gen_ai.provider.name of a backend kind: the
// registry's names where it has one.
func providerName(b Backend) string {
	switch b {
	case BackendOpenAI, BackendAnthropic:
		return string(b)
	case BackendVLLM:
		return "vllm"
	case BackendLlamaCpp:
		return "llama.cpp"
	case BackendOllama:
		return "ollama"
	}
	return "openai_compatible"
}

// passSpan starts the span of one backend pass (1, or 2 of two passes)
// and returns its context, whose traceparent the backend request carries,
// and the func that ends it.
func (h *Handler) passSpan(ctx context.Context, p *Provider, n int) (context.Context, func(error)) {
	if h.tracer == nil {
		return ctx, func(error) {}
	}
	ctx, sp := h.tracer.Start(ctx, "chat "+p.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", providerName(p.Backend)),
		attribute.String("gen_ai.request.model", p.Model),
		attribute.String("toolgate.provider", p.Name),
		attribute.Int("toolgate.pass", n),
	))
	return ctx, func(err error) {
		if err != nil {
			sp.SetAttributes(attribute.String("error.type", failureText(err)))
			sp.SetStatus(codes.Error, failureText(err))
		}
		sp.End()
	}
}

// injectTrace writes ctx's traceparent on a backend request.
func injectTrace(ctx context.Context, r *http.Request) {
	if trace.SpanContextFromContext(ctx).IsValid() {
		traceContext.Inject(ctx, propagation.HeaderCarrier(r.Header))
	}
}
