// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	codecmcp "github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// ErrUpstream reports an upstream MCP server that could not be reached or
// listed, or that answered what MCP does not allow.
var ErrUpstream = errors.New("source: upstream MCP server failed")

// DefaultConnectTimeout bounds connecting to an upstream MCP server and
// listing its tools when [MCPConfig.ConnectTimeout] is zero.
const DefaultConnectTimeout = 30 * time.Second

// MCPConfig says how to reach another MCP server. Exactly one of
// Command and URL is set.
type MCPConfig struct {
	// Prefix namespaces the upstream's tools: tool "read" of an upstream
	// with prefix "files" is served as "files_read". Required.
	Prefix string
	// Command runs the server as a child process speaking MCP on stdio:
	// the program and its arguments, without a shell.
	Command []string
	// Env is the child's environment. If nil, only PATH and HOME are
	// passed, so it does not inherit secrets.
	Env []string
	// Dir is the child's working directory.
	Dir string
	// URL is a streamable HTTP endpoint.
	URL string
	// Header is sent with every HTTP request (Authorization, say).
	Header http.Header
	// HTTPClient makes HTTP requests. If nil, a client with no overall
	// timeout (streams are long-lived).
	HTTPClient *http.Client
	// ConnectTimeout bounds connecting and listing tools. If zero,
	// [DefaultConnectTimeout]; negative means only ctx bounds it.
	ConnectTimeout time.Duration
	// Justification, if set, returns the justification the client sent
	// with the call being run (mcpserver.JustificationFromContext), which
	// is forwarded to upstream tools that declare a _justification
	// argument: the kernel takes it out of the arguments, and an upstream
	// toolgate asks for it again.
	Justification func(ctx context.Context) string
}

// MCP is a connection to another MCP server whose tools are proxied
// through the kernel, a [Source]. Its Execute forwards one call; it is safe
// for concurrent use. Close ends the connection (and the child process).
type MCP struct {
	// fixed at creation
	prefix  string
	justify func(context.Context) string
	session *mcp.ClientSession
	defs    []tool.Definition
	// justified names the upstream tools that declare _justification.
	justified map[string]bool
}

// ConnectMCP connects to the upstream server, initializes the session and
// lists its tools. Failing to connect or list is an [ErrUpstream].
func ConnectMCP(ctx context.Context, cfg *MCPConfig) (*MCP, error) {
	if cfg == nil || cfg.Prefix == "" {
		return nil, fmt.Errorf("%w: mcp: no prefix", ErrInvalidConfig)
	}
	var t mcp.Transport
	switch {
	case len(cfg.Command) > 0 && cfg.URL != "":
		return nil, fmt.Errorf("%w: upstream %q has both a command and a URL", ErrInvalidConfig, cfg.Prefix)
	case len(cfg.Command) > 0:
		// The child must outlive ctx, which only bounds the connection.
		cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
		cmd.Dir = cfg.Dir
		cmd.Env = cfg.Env
		if cmd.Env == nil {
			cmd.Env = minimalEnv()
		}
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	case cfg.URL != "":
		hc := cfg.HTTPClient
		if hc == nil {
			hc = &http.Client{}
		}
		if len(cfg.Header) > 0 {
			hc2 := *hc
			hc2.Transport = headerTransport{h: cfg.Header, next: transportOf(hc)}
			hc = &hc2
		}
		t = &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc, DisableStandaloneSSE: true}
	default:
		return nil, fmt.Errorf("%w: upstream %q has neither a command nor a URL", ErrInvalidConfig, cfg.Prefix)
	}
	timeout := cfg.ConnectTimeout
	if timeout == 0 {
		timeout = DefaultConnectTimeout
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolgate", Version: "dev"}, nil).Connect(cctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: connect: %w", ErrUpstream, cfg.Prefix, err)
	}
	u := &MCP{prefix: cfg.Prefix, justify: cfg.Justification, session: cs, justified: map[string]bool{}}
	for t, err := range cs.Tools(cctx, nil) {
		if err != nil {
			cs.Close()
			return nil, fmt.Errorf("%w: %s: tools/list: %w", ErrUpstream, cfg.Prefix, err)
		}
		d, err := definition(t)
		if err != nil {
			cs.Close()
			return nil, fmt.Errorf("%w: %s: tool %q: %w", ErrUpstream, cfg.Prefix, t.Name, err)
		}
		if props := strictjson.Get(d.InputSchema, "properties"); strictjson.KindOf(props) == strictjson.Object && strictjson.Get(props, kernel.JustificationArg) != nil {
			u.justified[d.Name] = true
		}
		d.Name = cfg.Prefix + "_" + d.Name
		u.defs = append(u.defs, d)
	}
	return u, nil
}

// definition converts a tool as the SDK client decoded it to the
// canonical model, through the MCP codec.
func definition(t *mcp.Tool) (tool.Definition, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return tool.Definition{}, err
	}
	ts, err := codecmcp.DecodeTools(b)
	if err != nil {
		return tool.Definition{}, err
	}
	if len(ts.Defs) != 1 {
		return tool.Definition{}, fmt.Errorf("decoded %d tools from one", len(ts.Defs))
	}
	return ts.Defs[0], nil
}

// Capabilities implements [Source]: a capability per upstream tool,
// executed by u. Their safety class comes from the upstream's annotations;
// a tool without them counts as one that writes.
func (u *MCP) Capabilities() []kernel.Capability {
	caps := make([]kernel.Capability, 0, len(u.defs))
	for _, d := range u.defs {
		caps = append(caps, kernel.Capability{Definition: d, Executor: u})
	}
	return caps
}

// Execute forwards call to the upstream under its own name. A protocol
// error from the upstream is a tool error, so the model can read it.
func (u *MCP) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	name, ok := strings.CutPrefix(call.Name, u.prefix+"_")
	if !ok {
		return tool.Result{}, fmt.Errorf("%w: %q is not a tool of upstream %q", ErrUpstream, call.Name, u.prefix)
	}
	args := []byte(call.Arguments)
	if j := u.justification(ctx); j != "" && u.justified[name] {
		// The kernel took the justification out; an upstream toolgate
		// asks for it again.
		if len(args) == 0 {
			args = []byte(`{}`)
		}
		args = strictjson.WithMember(args, kernel.JustificationArg, strictjson.AppendQuote(nil, j))
	}
	res, err := u.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, err
		}
		return tool.ErrorResult(call.ID, "upstream "+u.prefix+": "+err.Error()), nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return tool.Result{}, err
	}
	r, err := codecmcp.DecodeResult(b)
	if err != nil {
		return tool.Result{}, fmt.Errorf("%w: %s: result: %w", ErrUpstream, u.prefix, err)
	}
	return *r, nil
}

func (u *MCP) justification(ctx context.Context) string {
	if u.justify == nil {
		return ""
	}
	return u.justify(ctx)
}

// Close implements [Source]: it ends the session and, for a command, the
// child process.
func (u *MCP) Close() error { return u.session.Close() }

type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.next.RoundTrip(r)
}

func transportOf(hc *http.Client) http.RoundTripper {
	if hc.Transport != nil {
		return hc.Transport
	}
	return http.DefaultTransport
}

// minimalEnv is PATH and HOME of this process, the environment a child
// gets unless the config gives one.
func minimalEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
