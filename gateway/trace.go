// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/internal/sse"
)

// tracerName is the instrumentation scope of the gateway's spans.
const tracerName = "github.com/toolgate/toolgate/gateway"

// maxModelAttr bounds the model name a backend reports, as a span
// attribute: it comes from the backend's stream.
const maxModelAttr = 256

var traceContext = propagation.TraceContext{}

// startSpan starts the span of one client request, a child of the
// client's traceparent, and returns r carrying it. The span is named and
// given its attributes when the request ends ([Handler.endSpan]).
func (h *Handler) startSpan(r *http.Request, s *served) *http.Request {
	if h.tracer == nil {
		return r
	}
	ctx := traceContext.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	op := operationName(s.front)
	ctx, s.span = h.tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", op), attribute.String("toolgate.front_door", string(s.front)),
			attribute.String("enduser.id", s.who.Principal.ID), attribute.String("toolgate.key_id", s.who.KeyID)))
	return r.WithContext(ctx)
}

// endSpan ends a request's span with what the request did: the GenAI
// conventions' model, provider, response model, usage and finish reason,
// and the error type of a failure: the HTTP status the client got, or
// the class of a failure after the first byte ([errorClass]). No prompt
// or answer content is recorded.
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
		sp.SetName(operationName(s.front) + " " + model)
		sp.SetAttributes(attribute.String("gen_ai.request.model", model))
	}
	if s.reqID != "" {
		// The id of the request's audit record, and the parent of its
		// calls' records and spans (toolgate.parent_id).
		sp.SetAttributes(attribute.String("toolgate.request_id", s.reqID))
	}
	p := h.providers[s.provider]
	if p != nil {
		sp.SetAttributes(attribute.String("toolgate.provider", s.provider), attribute.String("gen_ai.provider.name", providerName(p)))
	}
	if s.respModel != "" && p != nil {
		sp.SetAttributes(attribute.String("gen_ai.response.model", modelAttr(s.respModel, p)))
	}
	if s.status == http.StatusOK {
		setUsage(sp, s.usage)
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
		sp.SetAttributes(attribute.String("error.type", errorClass(s.err)))
		sp.SetStatus(codes.Error, failureText(s.err))
	case s.reported:
		sp.SetAttributes(attribute.String("error.type", errReported))
		sp.SetStatus(codes.Error, "the model backend reported an error")
	}
	sp.End()
}

// operationName is the gen_ai.operation.name of a request on api:
// generate_content for Gemini's generateContent, as the conventions'
// registry lists it, and chat for the chat APIs.
func operationName(api API) string {
	if api == APIGemini {
		return "generate_content"
	}
	return "chat"
}

// serverAttrs are the server.address and server.port of a provider's
// base URL, the port its scheme's default when the URL gives none; none
// for a URL that does not parse.
func serverAttrs(p *Provider) []attribute.KeyValue {
	u, err := url.Parse(p.BaseURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 80
		if u.Scheme == "https" {
			port = 443
		}
	}
	return []attribute.KeyValue{attribute.String("server.address", u.Hostname()), attribute.Int("server.port", port)}
}

// setUsage puts the known token counts of u on sp.
func setUsage(sp trace.Span, u Usage) {
	if u.InputTokens >= 0 {
		sp.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens))
	}
	if u.OutputTokens >= 0 {
		sp.SetAttributes(attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens))
	}
}

// modelAttr is a model name a backend reported, fit for a span: bounded,
// and without the provider's key should the backend echo it.
func modelAttr(model string, p *Provider) string {
	return clipUTF8(redactKey(model, p), maxModelAttr)
}

// errReported is the error.type of a backend that answered and then
// reported an error in its stream.
const errReported = "backend_error"

// errorClass is the error.type of a backend pass that failed: the
// backend's HTTP status code when it answered with an error status, else
// the class of the failure. The classes are stable values a dashboard
// can group by; [failureText] says the same in words.
func errorClass(err error) string {
	var be *backendError
	switch {
	case errors.As(err, &be):
		return strconv.Itoa(be.status)
	case errors.Is(err, errTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, ErrIncomplete), errors.Is(err, sse.ErrTruncated):
		return "truncated"
	case errors.Is(err, sse.ErrTooLarge):
		return "event_too_large"
	case errors.Is(err, ErrMalformed):
		return "malformed_stream"
	}
	return "connection"
}

// providerName is a provider's gen_ai.provider.name: the value the GenAI
// conventions' registry has for the vendor its base URL names (Azure
// OpenAI, Bedrock, Gemini, Groq, …), else the one of its backend kind.
func providerName(p *Provider) string {
	if name := vendorName(p.BaseURL); name != "" {
		return name
	}
	switch p.Backend {
	case BackendOpenAI:
		return "openai"
	case BackendAnthropic:
		return "anthropic"
	case BackendGemini:
		return "gcp.gemini"
	// Self-hosted servers have no value in the registry: their own
	// names, lowercase, as the conventions ask of custom values.
	case BackendVLLM:
		return "vllm"
	case BackendLlamaCpp:
		return "llama.cpp"
	case BackendOllama:
		return "ollama"
	case "":
		// The kinds an empty Backend stands for.
		if p.API == APIMessages {
			return "anthropic"
		}
		if !p.Compat {
			return "openai"
		}
	}
	// An OpenAI-compatible server of no known vendor: no registry value.
	return "openai_compatible"
}

// vendorName is the registry's gen_ai.provider.name of the vendor whose
// API host baseURL names, or "" for a host it does not know.
func vendorName(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	under := func(domain string) bool { return host == domain || strings.HasSuffix(host, "."+domain) }
	switch {
	case host == "api.openai.com":
		return "openai"
	case under("openai.azure.com"):
		return "azure.ai.openai"
	case host == "api.anthropic.com":
		return "anthropic"
	case strings.HasPrefix(host, "bedrock") && under("amazonaws.com"):
		return "aws.bedrock"
	case host == "generativelanguage.googleapis.com":
		return "gcp.gemini"
	case strings.HasSuffix(host, "aiplatform.googleapis.com"):
		// aiplatform.googleapis.com and REGION-aiplatform.googleapis.com.
		return "gcp.vertex_ai"
	case host == "api.deepseek.com":
		return "deepseek"
	case host == "api.groq.com":
		return "groq"
	case host == "api.mistral.ai":
		return "mistral_ai"
	case host == "api.perplexity.ai":
		return "perplexity"
	case host == "api.x.ai":
		return "x_ai"
	case host == "api.cohere.com", host == "api.cohere.ai":
		return "cohere"
	case under("ml.cloud.ibm.com"):
		return "ibm.watsonx.ai"
	}
	return ""
}

// passAnswer is what one backend pass answered, for its span.
type passAnswer struct {
	model    string // the model the backend named, else the one requested
	usage    Usage
	finish   Finish
	reported bool // the backend reported an error in its stream
}

// passSpan starts the span of one backend pass (1, or 2 of two passes)
// as s.pass and returns its context, whose traceparent the backend
// request carries. [Handler.endPass] ends it.
func (h *Handler) passSpan(ctx context.Context, p *Provider, n int, s *served) context.Context {
	if h.tracer == nil {
		return ctx
	}
	op := operationName(p.API)
	ctx, s.pass = h.tracer.Start(ctx, op+" "+p.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", op),
		attribute.String("gen_ai.provider.name", providerName(p)),
		attribute.String("gen_ai.request.model", p.Model),
		attribute.String("toolgate.provider", p.Name),
		attribute.Int("toolgate.pass", n),
	), trace.WithAttributes(serverAttrs(p)...))
	return ctx
}

// endPass ends the pass span s.pass, if one is open, with what the
// backend answered (nil when it did not) and err, the pass's failure:
// the response model, usage and finish reason the conventions ask for,
// and error.type, the backend's status code or the failure's class.
func (h *Handler) endPass(s *served, p *Provider, a *passAnswer, err error) {
	sp := s.pass
	if sp == nil {
		return
	}
	s.pass = nil
	if a != nil {
		sp.SetAttributes(attribute.String("gen_ai.response.model", modelAttr(a.model, p)))
		setUsage(sp, a.usage)
		if a.finish != "" {
			sp.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(a.finish)}))
		}
	}
	var be *backendError
	if errors.As(err, &be) {
		sp.SetAttributes(attribute.Int("http.response.status_code", be.status))
	}
	switch {
	case err != nil:
		sp.SetAttributes(attribute.String("error.type", errorClass(err)))
		sp.SetStatus(codes.Error, failureText(err))
	case a != nil && a.reported:
		sp.SetAttributes(attribute.String("error.type", errReported))
		sp.SetStatus(codes.Error, "the model backend reported an error")
	}
	sp.End()
}

// traced reports whether ctx carries a span that a backend request
// passes on.
func traced(ctx context.Context) bool { return trace.SpanContextFromContext(ctx).IsValid() }

// injectTrace writes ctx's traceparent on a backend request.
func injectTrace(ctx context.Context, r *http.Request) {
	if traced(ctx) {
		traceContext.Inject(ctx, propagation.HeaderCarrier(r.Header))
	}
}
