// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
)

var traceContext = propagation.TraceContext{}

// rpcIDHeader carries the JSON-RPC id of an HTTP request whose body is
// one message, as the envelope read it (raw JSON, a string or a
// number), to the call's span: the SDK hands a handler its request's
// header but not the message's id. The envelope drops a client's own.
const rpcIDHeader = "Toolgate-Jsonrpc-Request-Id"

// newCallID returns the id of one tools/call, which MCP does not give:
// "mcp_" and 24 hex digits, random. The kernel's execute_tool span and
// the audit record carry it, and the tools/call span too, which joins
// them; no two calls share one, whatever ids a client reuses, and it
// says nothing of the session or the client (the tools/call span has
// the session and request ids themselves).
func newCallID() string {
	var r [12]byte
	binary.LittleEndian.PutUint64(r[:8], rand.Uint64())
	binary.LittleEndian.PutUint32(r[8:], rand.Uint32())
	var b [4 + 24]byte
	copy(b[:], "mcp_")
	hex.Encode(b[4:], r[:])
	return string(b[:])
}

// traceCall starts the span of one tools/call, a child of the traceparent
// of the HTTP request that carried it, and returns the func that ends it
// with the result, the kernel's outcome (its call id) and the JSON-RPC
// error the client got instead of a result, if any.
//
// The span follows the MCP semantic conventions: named "tools/call
// TOOL" for a tool served here (a name the client made up is not
// repeated: it stays "tools/call"), with the session's and the request's
// ids.
func (s *Server) traceCall(ctx context.Context, req *mcp.CallToolRequest) (context.Context, func(*mcp.CallToolResult, *kernel.Outcome, error)) {
	tp := s.cfg.TracerProvider
	if tp == nil {
		return ctx, func(*mcp.CallToolResult, *kernel.Outcome, error) {}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		ctx = traceContext.Extract(ctx, propagation.HeaderCarrier(req.Extra.Header))
	}
	name := "tools/call"
	attrs := []attribute.KeyValue{attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.operation.name", "execute_tool")}
	if req.Params != nil && s.tools[req.Params.Name] {
		name += " " + req.Params.Name
		attrs = append(attrs, attribute.String("gen_ai.tool.name", req.Params.Name))
	}
	if req.Session != nil {
		if id := req.Session.ID(); id != "" {
			attrs = append(attrs, attribute.String("mcp.session.id", id))
		}
	}
	if id, ok := rpcID(req.Extra); ok {
		attrs = append(attrs, attribute.String("jsonrpc.request.id", id))
	}
	ctx, sp := tp.Tracer("github.com/toolgate/toolgate/mcpserver").Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, func(res *mcp.CallToolResult, out *kernel.Outcome, err error) {
		if out != nil && out.Result.CallID != "" {
			sp.SetAttributes(attribute.String("gen_ai.tool.call.id", out.Result.CallID))
		}
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			code := strconv.FormatInt(rpcErr.Code, 10)
			sp.SetAttributes(attribute.String("error.type", code), attribute.String("rpc.response.status_code", code))
			sp.SetStatus(codes.Error, "JSON-RPC error "+code)
		case res != nil && res.IsError:
			sp.SetAttributes(attribute.String("error.type", "tool_error"))
			sp.SetStatus(codes.Error, "tool error")
		}
		sp.End()
	}
}

// rpcID is the JSON-RPC id of the request extra came with, as a string,
// when the envelope could tell it.
func rpcID(extra *mcp.RequestExtra) (string, bool) {
	if extra == nil || extra.Header == nil {
		return "", false
	}
	raw := extra.Header.Get(rpcIDHeader)
	switch strictjson.KindOf([]byte(raw)) {
	case strictjson.Number:
		return raw, true
	case strictjson.String:
		id, err := strictjson.Unquote([]byte(raw))
		return id, err == nil
	}
	return "", false
}
