// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"sort"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/source"
)

// checkMediation checks gateway.mediate_tools and the keys that go with
// it.
func (f *File) checkMediation() error {
	g := &f.Gateway
	// client_tools, default_client_safety, max_tool_steps and
	// mcp_servers_allowed only refine the mediation, and are checked
	// whether it is on or not; tools
	// without it would offer tools nobody runs.
	if !g.MediateTools && len(g.Tools) > 0 {
		return f.errf("gateway.tools", "needs gateway.mediate_tools: true")
	}
	for i, s := range g.MCPServersAllowed {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return f.errf(at("gateway.mcp_servers_allowed", i), "must be an http(s) URL without credentials, such as https://mcp.example.com/")
		}
	}
	safety := func(s string) bool {
		switch kernel.Safety(s) {
		case kernel.SafetyRead, kernel.SafetyWrite, kernel.SafetyDestructive:
			return true
		}
		return false
	}
	for i, c := range g.ClientTools {
		p := at("gateway.client_tools", i)
		if c.Name == "" {
			return f.errf(p+".name", "is required")
		}
		if _, err := path.Match(c.Name, ""); err != nil {
			return f.errf(p+".name", "%q is not a valid glob", c.Name)
		}
		if !safety(c.Safety) {
			return f.errf(p+".safety", "%q is not READ, WRITE or DESTRUCTIVE", c.Safety)
		}
	}
	if g.DefaultClientSafety != "" && !safety(g.DefaultClientSafety) {
		return f.errf("gateway.default_client_safety", "%q is not READ, WRITE or DESTRUCTIVE", g.DefaultClientSafety)
	}
	if g.MaxToolSteps < 0 {
		return f.errf("gateway.max_tool_steps", "is negative")
	}
	sources := map[string]bool{}
	for _, s := range f.Sources {
		sources[s.Name] = true
	}
	for i, name := range g.Tools {
		if !sources[name] {
			return f.errf(at("gateway.tools", i), "%q is not a source", name)
		}
	}
	return nil
}

// mediation is the gateway's mediation of tool calls: nil unless
// gateway.mediate_tools is on. The served tools are those of the sources
// gateway.tools names, in name order.
func (f *File) mediation(b *Built) (*gateway.Mediation, error) {
	g := &f.Gateway
	if !g.MediateTools {
		return nil, nil
	}
	m := &gateway.Mediation{Kernel: b.Kernel, DefaultClientSafety: kernel.Safety(g.DefaultClientSafety), MaxToolSteps: g.MaxToolSteps}
	for _, c := range g.ClientTools {
		m.ClientTools = append(m.ClientTools, gateway.ClientTool{Name: c.Name, Safety: kernel.Safety(c.Safety)})
	}
	want := map[string]bool{}
	for _, s := range g.Tools {
		want[s] = true
	}
	for _, c := range b.Kernel.Registry().List() {
		if src := b.SourceOf[c.Definition.Name]; want[src] {
			m.Served = append(m.Served, gateway.ServedTool{Definition: c.Definition, Source: src})
		}
	}
	sort.Slice(m.Served, func(i, j int) bool { return m.Served[i].Definition.Name < m.Served[j].Definition.Name })
	if len(g.MCPServersAllowed) > 0 {
		m.MCPServersAllowed = append([]string(nil), g.MCPServersAllowed...)
		m.Connect = func(ctx context.Context, u, label string, header http.Header) (*kernel.Kernel, func() error, error) {
			up, err := source.ConnectMCP(ctx, &source.MCPConfig{Prefix: label, URL: u, Header: header})
			if err != nil {
				return nil, nil, err
			}
			kc := *b.kernelConfig
			kc.Registry = kernel.NewRegistry()
			for _, c := range up.Capabilities() {
				if err := kc.Registry.Add(c); err != nil {
					up.Close()
					return nil, nil, err
				}
			}
			k, err := kernel.New(&kc)
			if err != nil {
				up.Close()
				return nil, nil, err
			}
			return k, up.Close, nil
		}
	}
	return m, nil
}
