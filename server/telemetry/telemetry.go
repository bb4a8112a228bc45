// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package telemetry builds the OpenTelemetry tracer provider of toolgate
// serve: spans exported over OTLP/HTTP in batches, sampled by ratio under
// the caller's sampling decision, W3C trace context in and out.
//
// The gateway, the kernel and the MCP server take a trace.TracerProvider
// and write spans following the OpenTelemetry GenAI semantic conventions
// (chat spans for model requests and backend passes, execute_tool spans
// for tool calls); without one they create none.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"go.opentelemetry.io/otel/attribute"
)

// Config says where spans go.
type Config struct {
	// Endpoint is the OTLP/HTTP traces URL, such as
	// http://127.0.0.1:4318/v1/traces. Required.
	Endpoint string
	// ServiceName is the service.name resource attribute. If empty,
	// "toolgate".
	ServiceName string
	// SampleRatio is the share of new traces sampled, 0 to 1; a trace a
	// caller sampled (its traceparent says so) is always sampled. If zero,
	// 1.
	SampleRatio float64
	// Headers are sent with every export (an API key of the collector).
	Headers map[string]string
}

// Propagator reads and writes W3C traceparent and tracestate headers.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// New returns a tracer provider exporting to cfg.Endpoint, and the func
// that flushes and stops it.
func New(ctx context.Context, cfg Config) (trace.TracerProvider, func(context.Context) error, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, errors.New("telemetry: the OTLP endpoint must be an http(s) URL such as http://127.0.0.1:4318/v1/traces")
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(cfg.Endpoint)}
	if len(cfg.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: %w", err)
	}
	name := cfg.ServiceName
	if name == "" {
		name = "toolgate"
	}
	ratio := cfg.SampleRatio
	if ratio == 0 {
		ratio = 1
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", name))),
	)
	return tp, tp.Shutdown, nil
}
