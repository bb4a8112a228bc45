// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

var traceContext = propagation.TraceContext{}

// traceCall starts the span of one tools/call, a child of the traceparent
// of the HTTP request that carried it, and returns the func that ends it
// with the result.
func (s *Server) traceCall(ctx context.Context, req *mcp.CallToolRequest) (context.Context, func(*mcp.CallToolResult)) {
	tp := s.cfg.TracerProvider
	if tp == nil {
		return ctx, func(*mcp.CallToolResult) {}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		ctx = traceContext.Extract(ctx, propagation.HeaderCarrier(req.Extra.Header))
	}
	// The span is named by the method only: the tool name the client sent
	// is not masked yet (the kernel's execute_tool span carries it
	// masked).
	ctx, sp := tp.Tracer("github.com/toolgate/toolgate/mcpserver").Start(ctx, "tools/call", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.operation.name", "execute_tool")))
	return ctx, func(res *mcp.CallToolResult) {
		if res != nil && res.IsError {
			sp.SetAttributes(attribute.String("error.type", "tool_error"))
			sp.SetStatus(codes.Error, "tool error")
		}
		sp.End()
	}
}
