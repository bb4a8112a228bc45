// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/kernel"
)

// Observation is one thing the process did for a caller: a tool call
// (Call) or a model request (Request), with who asked. It holds no
// prompt, answer, key or unredacted argument.
type Observation struct {
	// Principal and KeyID are the caller's ([Identity]); KeyID is empty
	// for anonymous and local callers.
	Principal string `json:"principal"`
	KeyID     string `json:"key_id,omitempty"`
	// TraceID is the W3C trace id of the request, when it was traced or
	// carried a traceparent.
	TraceID string `json:"trace_id,omitempty"`
	// Exactly one of Call and Request is set.
	Call    *kernel.Observation `json:"call,omitempty"`
	Request *Request            `json:"request,omitempty"`
}

// Request is a model request as the gateway answered it.
type Request struct {
	// ID names the request in the audit log, where the calls its model
	// made are recorded under it; empty without an audit log or
	// mediation.
	ID       string        `json:"id,omitempty"`
	Time     time.Time     `json:"time"`
	Front    string        `json:"front"`
	Model    string        `json:"model"`
	Provider string        `json:"provider"`
	Status   int           `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	TTFT     time.Duration `json:"ttft_ns"`
	Usage    Usage         `json:"usage"`
	// CostUSD is what Usage cost at the configured price of the model
	// (or provider) when Priced; a request without a price is counted
	// in tokens only.
	CostUSD float64 `json:"cost_usd,omitempty"`
	Priced  bool    `json:"priced,omitempty"`
	Finish  string  `json:"finish"`
	// Error says what failed, in words that hold nothing of the stream;
	// empty when nothing did.
	Error string `json:"error,omitempty"`
}

// Usage counts a request's tokens; a negative count is unknown.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	ReasoningTokens  int64 `json:"reasoning_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
}

// Observer is told of every observation. Observe runs on the request's
// goroutine: it must be quick and must not block.
type Observer interface {
	Observe(Observation)
}

// ObserverFunc is a func as an [Observer].
type ObserverFunc func(Observation)

// Observe calls f.
func (f ObserverFunc) Observe(o Observation) { f(o) }

// Fanout is an [Observer] that tells each of its observers in turn: the
// one hook that the kernel and the gateway are given, feeding logs, the
// console's feed and, later, the audit log.
type Fanout []Observer

// Observe tells every observer.
func (f Fanout) Observe(o Observation) {
	for _, x := range f {
		x.Observe(o)
	}
}

// Stamp fills in o's caller from ctx (the request's [Identity]) and its
// trace id from ctx's span, where o leaves them empty.
func Stamp(ctx context.Context, o *Observation) {
	if id, ok := IdentityFrom(ctx); ok {
		if o.Principal == "" {
			o.Principal = id.Principal.ID
		}
		if o.KeyID == "" {
			o.KeyID = id.KeyID
		}
	}
	if o.TraceID == "" {
		if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
			o.TraceID = sc.TraceID().String()
		}
	}
}

// KernelObserver returns a func for kernel.Config.Observe that tells obs
// of every call, stamped with its caller's key and trace from the call's
// context.
func KernelObserver(obs Observer) func(context.Context, kernel.Observation) {
	return func(ctx context.Context, o kernel.Observation) {
		ob := Observation{Principal: o.Principal, Call: &o}
		Stamp(ctx, &ob)
		obs.Observe(ob)
	}
}
