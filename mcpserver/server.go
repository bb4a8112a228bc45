// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
)

// ErrShutdown is the tool error a call gets when it arrives after
// [Server.Shutdown] has begun.
var ErrShutdown = errors.New("mcpserver: server shutting down")

// ErrInvalidConfig reports a Config that New cannot use.
var ErrInvalidConfig = errors.New("mcpserver: invalid config")

// Defaults for the [Config] fields left zero.
const (
	// DefaultMaxRequestBytes bounds an HTTP request body.
	DefaultMaxRequestBytes = 1 << 20
	// DefaultSessionTimeout closes idle HTTP sessions.
	DefaultSessionTimeout = 30 * time.Minute
)

// Config configures a Server. Kernel is required; every other field is
// optional.
type Config struct {
	// Kernel runs every call. Its registry, as it is when New is called,
	// is the set of tools served.
	Kernel *kernel.Kernel
	// Name and Version describe the server to clients. If empty,
	// "toolgate" and "dev".
	Name    string
	Version string
	// Instructions are sent to clients at initialization.
	Instructions string
	// Local is the principal of connections that carry no HTTP request:
	// stdio and in-memory transports. If its ID is empty, "local".
	Local kernel.Principal
	// AllowedOrigins are browser origins ("https://app.example.com", a
	// scheme and host with no path or trailing slash) allowed to make
	// cross-origin requests; New refuses a malformed one. Same-origin and
	// non-browser requests are always allowed.
	AllowedOrigins []string
	// DisableLocalhostProtection turns off the check that a request
	// arriving on a loopback address names a loopback Host, which stops
	// DNS rebinding. Only for servers behind a trusted proxy.
	DisableLocalhostProtection bool
	// MaxRequestBytes bounds an HTTP request body. If zero,
	// [DefaultMaxRequestBytes]; negative means no limit.
	MaxRequestBytes int64
	// SessionTimeout closes HTTP sessions idle this long. If zero,
	// [DefaultSessionTimeout]; negative means never.
	SessionTimeout time.Duration
	// MaxSessions bounds the HTTP sessions open at once; opening one more
	// closes the least recently used idle session. If zero,
	// [DefaultMaxSessions]; negative means no limit.
	MaxSessions int
	// MaxSessionsPerPrincipal bounds one principal's HTTP sessions, in the
	// same way. If zero, [DefaultMaxSessionsPerPrincipal]; negative means
	// no limit.
	MaxSessionsPerPrincipal int
	// Logger receives one record per call and the server's own problems.
	// If nil, nothing is logged.
	Logger *slog.Logger
	// Metrics, if set, counts calls.
	Metrics *Metrics
	// TracerProvider, when set, traces tools/call: a server span per call,
	// a child of the traceparent the HTTP request carried, with the
	// kernel's execute_tool span under it.
	TracerProvider trace.TracerProvider
}

// Server serves a kernel's tools over MCP. Every tools/call runs through
// [kernel.Kernel.Call] as the connection's principal; whatever the kernel
// decides — a denial, invalid arguments, a failed executor — goes back as
// a result with isError set, which the model can read. A call to a tool
// that is not listed is a protocol error (invalid params), as the MCP
// specification asks, and is still recorded by the kernel's audit log.
//
// A Server is safe for concurrent use by any number of connections.
type Server struct {
	// fixed at creation
	k       *kernel.Kernel
	cfg     Config
	log     *slog.Logger
	mcp     *mcp.Server
	cop     *http.CrossOriginProtection
	tools   map[string]bool
	listed  []*mcp.Tool
	skipped []error

	sessions *sessions

	mu       sync.Mutex
	closing  bool
	inflight int
	idle     chan struct{} // closed when closing and inflight reaches zero
}

// New returns a server for cfg's kernel. Tools whose schemas MCP cannot
// carry (an input schema that is not an object) are left out; [Server.Skipped]
// says which and why.
func New(cfg *Config) (*Server, error) {
	if cfg == nil || cfg.Kernel == nil {
		return nil, fmt.Errorf("%w: no kernel", ErrInvalidConfig)
	}
	s := &Server{k: cfg.Kernel, cfg: *cfg, tools: map[string]bool{}, idle: make(chan struct{})}
	if s.cfg.Local.ID == "" {
		s.cfg.Local.ID = "local"
	}
	if s.cfg.MaxRequestBytes == 0 {
		s.cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if s.cfg.SessionTimeout == 0 {
		s.cfg.SessionTimeout = DefaultSessionTimeout
	}
	if s.cfg.MaxSessions == 0 {
		s.cfg.MaxSessions = DefaultMaxSessions
	}
	if s.cfg.MaxSessionsPerPrincipal == 0 {
		s.cfg.MaxSessionsPerPrincipal = DefaultMaxSessionsPerPrincipal
	}
	s.cfg.AllowedOrigins = append([]string(nil), cfg.AllowedOrigins...)
	s.cop = http.NewCrossOriginProtection()
	for _, o := range s.cfg.AllowedOrigins {
		if err := s.cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("%w: allowed origin: %w", ErrInvalidConfig, err)
		}
	}
	if s.cfg.Name == "" {
		s.cfg.Name = "toolgate"
	}
	if s.cfg.Version == "" {
		s.cfg.Version = "dev"
	}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: s.cfg.Name, Version: s.cfg.Version}, &mcp.ServerOptions{
		Instructions: s.cfg.Instructions,
		// A tools-only server: no logging capability, tools advertised
		// even when the registry is empty.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, c := range s.k.Registry().List() {
		t, err := listTool(&c)
		if err != nil {
			s.skipped = append(s.skipped, err)
			s.log.Warn("tool not served", "tool", c.Definition.Name, "err", err)
			continue
		}
		s.tools[t.Name] = true
		s.listed = append(s.listed, t)
		s.mcp.AddTool(t, s.callTool)
	}
	s.mcp.AddReceivingMiddleware(s.unknownTools)
	s.sessions = newSessions(s.mcp, s.cfg.MaxSessions, s.cfg.MaxSessionsPerPrincipal)
	return s, nil
}

// MCP returns the SDK server, to connect transports to with
// [mcp.Server.Run] or [mcp.Server.Connect]. Connections made this way run
// as the Local principal.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Tools returns the tools as listed to clients, in order. The caller
// must not modify them.
func (s *Server) Tools() []*mcp.Tool { return s.listed }

// Skipped returns why each tool left out by New was left out.
func (s *Server) Skipped() []error { return s.skipped }

// Run serves one connection over t (stdio, say) as the Local principal
// until the client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Shutdown refuses new calls and waits for those running to finish, or
// for ctx to be done, whichever comes first.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		if s.inflight == 0 {
			close(s.idle)
		}
	}
	s.mu.Unlock()
	var err error
	select {
	case <-s.idle:
	case <-ctx.Done():
		err = fmt.Errorf("mcpserver: calls still running: %w", ctx.Err())
	}
	return err
}

// CloseSessions ends every session, and with them their long-lived HTTP
// streams, which http.Server.Shutdown would otherwise wait for. Call it
// after Shutdown, once the last results have been written.
func (s *Server) CloseSessions() {
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
}

func (s *Server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.inflight++
	return true
}

func (s *Server) end() {
	s.mu.Lock()
	s.inflight--
	if s.closing && s.inflight == 0 {
		close(s.idle)
	}
	s.mu.Unlock()
}

// principal is who a request runs as: the principal the server found
// for its HTTP request, or the local principal for connections without
// HTTP.
func (s *Server) principal(extra *mcp.RequestExtra) kernel.Principal {
	if extra != nil {
		if ti := extra.TokenInfo; ti != nil {
			if p, ok := ti.Extra[principalKey].(kernel.Principal); ok {
				return p
			}
		}
		if extra.Header != nil {
			// Handler refuses an HTTP request without an identity, so
			// this is defence in depth: no principal, no policy match.
			return kernel.Principal{}
		}
	}
	return s.cfg.Local
}

func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, end := s.traceCall(ctx, req)
	res, out := s.run(ctx, req.Params.Name, req.Params.Arguments, req.Extra)
	end(res, &out, nil)
	return res, nil
}

// run sends one call through the kernel, under a call id of its own
// ([newCallID]), and returns the MCP result.
func (s *Server) run(ctx context.Context, name string, args []byte, extra *mcp.RequestExtra) (*mcp.CallToolResult, kernel.Outcome) {
	if !s.begin() {
		return errorResult(ErrShutdown.Error()), kernel.Outcome{}
	}
	defer s.end()
	p := s.principal(extra)
	// The kernel's observers read the caller, and its key, from ctx.
	id := server.Identity{Principal: p}
	if extra != nil && extra.TokenInfo != nil {
		id.KeyID, _ = extra.TokenInfo.Extra[keyIDKey].(string)
	}
	ctx = server.WithIdentity(ctx, id)
	if string(args) == "null" {
		// Clients send null for a call without arguments.
		args = nil
	}
	if bytes.Contains(args, []byte(`"`+kernel.JustificationArg+`"`)) {
		// Kept for executors that pass it on (an upstream toolgate).
		if _, j, err := kernel.DecodeArguments(args, nil); err == nil && j != "" {
			ctx = context.WithValue(ctx, justificationKey{}, j)
		}
	}
	start := time.Now()
	out, err := s.k.Call(ctx, &kernel.Request{Principal: p, Call: tool.Call{ID: newCallID(), Name: name, Arguments: args}})
	d := time.Since(start)
	if err != nil {
		// The kernel could not record the call; the model gets a short
		// message, the log the cause.
		s.log.Error("kernel failure", "tool", name, "principal", p.ID, "err", err)
		// A call that ran must not be retried on our word: the kernel's
		// message says it ran.
		if !errors.Is(err, kernel.ErrOutcomeNotRecorded) {
			out.Result = tool.Result{IsError: true, Content: []tool.Content{&tool.Text{Text: "toolgate could not record this call in its audit log, so it did not run; try again later"}}}
			out.Status = kernel.StatusAuditError
		}
	}
	known := s.tools[name]
	if s.cfg.Metrics != nil {
		s.cfg.Metrics.observe(name, known, &out, d)
	}
	s.log.Debug("call", "tool", name, "principal", p.ID, "status", out.Status, "rule", out.Decision.Rule, "code", out.Decision.Code, "duration", d)
	return toResult(&out.Result, known && s.hasOutput(name)), out
}

func (s *Server) hasOutput(name string) bool {
	for _, t := range s.listed {
		if t.Name == name {
			return t.OutputSchema != nil
		}
	}
	return false
}

// unknownTools intercepts calls to tools that are not listed, so that the
// kernel records them before the client gets the protocol error.
func (s *Server) unknownTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		ctr, ok := req.(*mcp.CallToolRequest)
		if !ok || ctr.Params == nil || s.tools[ctr.Params.Name] {
			return next(ctx, method, req)
		}
		ctx, end := s.traceCall(ctx, ctr)
		_, out := s.run(ctx, ctr.Params.Name, ctr.Params.Arguments, ctr.Extra)
		err := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: out.Result.Text()}
		end(nil, &out, err)
		return nil, err
	}
}

type justificationKey struct{}

// JustificationFromContext returns the justification a client sent with
// the call an executor is running, for executors that forward it.
func JustificationFromContext(ctx context.Context) string {
	j, _ := ctx.Value(justificationKey{}).(string)
	return j
}

// principalKey and keyIDKey are the TokenInfo.Extra keys under which the
// HTTP middleware leaves the request's principal and its key's id.
const (
	principalKey = "toolgate/principal"
	keyIDKey     = "toolgate/key"
)

// tokenInfo is what the SDK's bearer-token middleware attaches to a
// request: the caller the server authenticated.
func tokenInfo(id server.Identity) *auth.TokenInfo {
	return &auth.TokenInfo{UserID: id.Principal.ID, Extra: map[string]any{principalKey: id.Principal, keyIDKey: id.KeyID}}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// toResult converts a kernel result to MCP. JSON content is sent as text
// (what every client shows the model) and, for a tool with an output
// schema, as structuredContent too.
func toResult(r *tool.Result, structured bool) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Content))}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *tool.Text:
			out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
		case *tool.JSON:
			out.Content = append(out.Content, &mcp.TextContent{Text: string(c.Value)})
			if structured && !r.IsError && out.StructuredContent == nil {
				out.StructuredContent = jsonValue(c.Value)
			}
		case *tool.Image:
			out.Content = append(out.Content, &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType})
		case *tool.Audio:
			out.Content = append(out.Content, &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType})
		case *tool.Resource:
			if c.Link {
				out.Content = append(out.Content, &mcp.ResourceLink{URI: c.URI, Name: c.URI, MIMEType: c.MIMEType})
				continue
			}
			out.Content = append(out.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}})
		}
	}
	if len(r.StructuredContent) > 0 && structured && !r.IsError {
		out.StructuredContent = jsonValue(r.StructuredContent)
	}
	return out
}

// jsonRaw marshals as the bytes it holds; it keeps structured content
// byte-for-byte as the firewall produced it.
type jsonRaw []byte

func (j jsonRaw) MarshalJSON() ([]byte, error) { return j, nil }

func jsonValue(b []byte) any {
	if strictjson.KindOf(b) != strictjson.Object {
		// MCP clients validate structuredContent against the output
		// schema; schemas of non-object outputs are not listed, so
		// neither is their content.
		return nil
	}
	return jsonRaw(b)
}
