// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// MCPConnector connects an MCP server a request names (Anthropic
// mcp_servers, a Responses mcp tool) once its URL is allowed: it returns
// a kernel whose registry holds the server's tools, named LABEL_TOOL, and
// a function that closes the connection. The gateway keeps connections by
// URL, label and credentials, up to [MaxMCPConnections].
type MCPConnector func(ctx context.Context, url, label string, header http.Header) (k *kernel.Kernel, close func() error, err error)

// MaxMCPConnections bounds the MCP servers the gateway keeps connected
// for requests that name them; the least recently used is closed first.
const MaxMCPConnections = 32

// requestServer is an MCP server a request names.
type requestServer struct {
	ptr     string // of the member that names it
	url     string
	label   string
	header  http.Header
	allowed []string // tool names without the label; nil: all
}

var labelRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// requestServers reads the MCP servers r names, removing them from what
// the backend gets: Anthropic's mcp_servers member, Responses mcp tools.
func requestServers(r *Request) ([]requestServer, error) {
	var out []requestServer
	if raw, ok := r.Extra["mcp_servers"]; ok {
		var list []struct {
			Type               string `json:"type"`
			URL                string `json:"url"`
			Name               string `json:"name"`
			AuthorizationToken string `json:"authorization_token"`
			ToolConfiguration  *struct {
				Enabled      *bool    `json:"enabled"`
				AllowedTools []string `json:"allowed_tools"`
			} `json:"tool_configuration"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, badRequest("/mcp_servers", "must be an array of MCP server objects")
		}
		for i, s := range list {
			ptr := fmt.Sprintf("/mcp_servers/%d", i)
			rs := requestServer{ptr: ptr, url: s.URL, label: s.Name}
			if s.AuthorizationToken != "" {
				rs.header = http.Header{"Authorization": {"Bearer " + s.AuthorizationToken}}
			}
			if c := s.ToolConfiguration; c != nil {
				if c.Enabled != nil && !*c.Enabled {
					continue
				}
				if c.AllowedTools != nil {
					rs.allowed = append([]string{}, c.AllowedTools...)
				}
			}
			out = append(out, rs)
		}
		delete(r.Extra, "mcp_servers")
	}
	kept := r.front.hosted[:0:0]
	for _, h := range r.front.hosted {
		if h.Type != "mcp" {
			kept = append(kept, h)
			continue
		}
		var t struct {
			ServerLabel   string            `json:"server_label"`
			ServerURL     string            `json:"server_url"`
			Authorization string            `json:"authorization"`
			Headers       map[string]string `json:"headers"`
			AllowedTools  json.RawMessage   `json:"allowed_tools"`
		}
		if err := json.Unmarshal(h.Raw, &t); err != nil {
			return nil, badRequest(h.Ptr, "is not an mcp tool object")
		}
		rs := requestServer{ptr: h.Ptr, url: t.ServerURL, label: t.ServerLabel}
		if len(t.Headers) > 0 || t.Authorization != "" {
			rs.header = http.Header{}
			for k, v := range t.Headers {
				rs.header.Set(k, v)
			}
			if t.Authorization != "" {
				rs.header.Set("Authorization", "Bearer "+t.Authorization)
			}
		}
		if len(t.AllowedTools) > 0 && string(t.AllowedTools) != "null" {
			var names []string
			var filter struct {
				ToolNames []string `json:"tool_names"`
			}
			switch {
			case json.Unmarshal(t.AllowedTools, &names) == nil:
			case json.Unmarshal(t.AllowedTools, &filter) == nil:
				names = filter.ToolNames
			default:
				return nil, badRequest(h.Ptr+"/allowed_tools", "must be a list of tool names or {\"tool_names\": [...]}")
			}
			rs.allowed = append([]string{}, names...)
		}
		out = append(out, rs)
	}
	r.front.hosted = kept
	return out, nil
}

// mcpAllowed reports whether u is one of the allowed URLs: equal to one,
// or under one that ends in "/".
func mcpAllowed(allowed []string, u string) bool {
	for _, a := range allowed {
		if u == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(u, a)) {
			return true
		}
	}
	return false
}

// mcpPool keeps the connections to the MCP servers requests name.
type mcpPool struct {
	connect MCPConnector
	mu      sync.Mutex
	conns   map[string]*mcpConn
	tick    uint64
}

type mcpConn struct {
	k     *kernel.Kernel
	close func() error
	used  uint64
	ready chan struct{}
	err   error
}

// get returns the kernel of the server s, connecting it when needed.
func (p *mcpPool) get(ctx context.Context, s *requestServer) (*kernel.Kernel, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", s.url, s.label)
	for _, k := range []string{"Authorization"} {
		fmt.Fprintf(h, "%s\x00", s.header.Get(k))
	}
	for k, v := range s.header {
		fmt.Fprintf(h, "%s=%q\x00", k, v)
	}
	key := string(h.Sum(nil))
	p.mu.Lock()
	p.tick++
	c, ok := p.conns[key]
	if ok {
		c.used = p.tick
		p.mu.Unlock()
		select {
		case <-c.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return c.k, c.err
	}
	if len(p.conns) >= MaxMCPConnections {
		var oldKey string
		var old *mcpConn
		for k, c := range p.conns {
			select {
			case <-c.ready:
			default:
				continue // still connecting
			}
			if old == nil || c.used < old.used {
				oldKey, old = k, c
			}
		}
		if old != nil {
			delete(p.conns, oldKey)
			if old.close != nil {
				go old.close()
			}
		}
	}
	c = &mcpConn{used: p.tick, ready: make(chan struct{})}
	p.conns[key] = c
	p.mu.Unlock()
	c.k, c.close, c.err = p.connect(context.WithoutCancel(ctx), s.url, s.label, s.header)
	if c.err != nil {
		p.mu.Lock()
		if p.conns[key] == c {
			delete(p.conns, key) // the next request tries again
		}
		p.mu.Unlock()
	}
	close(c.ready)
	return c.k, c.err
}

// Close closes every connection.
func (p *mcpPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, c := range p.conns {
		select {
		case <-c.ready:
			if c.close != nil {
				c.close()
			}
		default:
		}
		delete(p.conns, k)
	}
}

// offerServers connects the MCP servers r names and offers their tools
// beside the others, run through the kernel each server's connector
// made. A server whose URL is not allowed is a 400 naming it.
func (md *mediation) offerServers(ctx context.Context, r *Request, s *served) (*Request, error) {
	servers, err := requestServers(r)
	if err != nil || len(servers) == 0 {
		return r, err
	}
	labels := map[string]bool{}
	for _, srv := range servers {
		u, err := url.Parse(srv.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, badRequest(srv.ptr, "the MCP server URL %q is not an http(s) URL", clip(srv.url))
		}
		if !mcpAllowed(md.MCPServersAllowed, srv.url) || md.pool == nil {
			return nil, badRequest(srv.ptr, "the MCP server %q is not one this gateway may connect to (gateway.mcp_servers_allowed)", clip(srv.url))
		}
		if !labelRE.MatchString(srv.label) || labels[srv.label] {
			return nil, badRequest(srv.ptr, "the MCP server's name must be unique, 1 to 64 letters, digits, _ or -")
		}
		labels[srv.label] = true
	}
	c := *r
	c.Tools = append([]tool.Definition(nil), r.Tools...)
	if s.extraServed == nil {
		s.extraServed = map[string]*ServedTool{}
	}
	for i := range servers {
		srv := &servers[i]
		k, err := md.pool.get(ctx, srv)
		if err != nil {
			return nil, &RequestError{Pointer: srv.ptr, Status: http.StatusBadGateway, Reason: fmt.Sprintf("the MCP server %q could not be reached", clip(srv.url))}
		}
		for _, cp := range k.Registry().List() {
			name := cp.Definition.Name
			if srv.allowed != nil && !contains(srv.allowed, strings.TrimPrefix(name, srv.label+"_")) {
				continue
			}
			if clientTool(r.Tools, name) != nil || md.served[name] != nil || s.extraServed[name] != nil {
				continue
			}
			st := &ServedTool{Definition: cp.Definition, Source: srv.label, Kernel: k}
			s.extraServed[name] = st
			c.Tools = append(c.Tools, cp.Definition)
		}
	}
	return &c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
