// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/mcpserver"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
)

const justification = "the user asked for this change in the ticket"

// backServer is a toolgate MCP server with four tools, its admin reached
// with the bearer token "admin-token".
type backServer struct {
	srv   *mcpserver.Server
	store *kernel.MemoryAuditStore
	audit *kernel.AuditLog
	// handler is srv's behind the server's authentication.
	handler http.Handler
}

func newBack(t *testing.T) *backServer {
	t.Helper()
	reg := kernel.NewRegistry()
	add := func(c kernel.Capability) {
		if err := reg.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	add(kernel.Capability{
		Definition: tool.Definition{
			Name:         "get_note",
			Description:  "Read a note",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"text":{"type":"string"}}}`),
		},
		Safety: kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(_ context.Context, c tool.Call) (tool.Result, error) {
			var in struct{ ID int }
			if err := json.Unmarshal(c.Arguments, &in); err != nil {
				return tool.Result{}, err
			}
			v, _ := json.Marshal(map[string]any{"id": in.ID, "text": "hello"})
			return tool.Result{Content: []tool.Content{&tool.JSON{Value: v}}}, nil
		}),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "edit_note", Description: "Change a note", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"text":{"type":"string"}},"required":["id","text"],"additionalProperties":false}`)},
		Safety:     kernel.SafetyWrite,
		Executor:   kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return tool.TextResult("", "edited"), nil }),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "drop_note", Description: "Delete a note"},
		Safety:     kernel.SafetyDestructive,
		Executor:   kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return tool.TextResult("", "dropped"), nil }),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "broken", Description: "Always fails", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Safety:     kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			return tool.Result{}, context.DeadlineExceeded
		}),
	})
	store := kernel.NewMemoryAuditStore()
	audit, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{
		Registry: reg,
		Audit:    audit,
		Principals: []kernel.Principal{
			{ID: "admin", Roles: []string{"reader", "writer", "admin"}},
		},
		Limits: kernel.RateLimits{Read: -1, Write: -1, Destructive: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(&mcpserver.Config{Kernel: k})
	if err != nil {
		t.Fatal(err)
	}
	auth, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"admin-token": {ID: "admin"}}})
	if err != nil {
		t.Fatal(err)
	}
	return &backServer{srv: srv, store: store, audit: audit, handler: auth.Require(srv.Handler(), server.RouteAuth{Accept: server.Bearer})}
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// TestUpstream proxies one toolgate server through another: the front
// kernel polices the namespaced tools with its own principals, the back
// one sees the front's admin token.
func TestUpstream(t *testing.T) {
	back := newBack(t)
	hs := httptest.NewServer(back.handler)
	defer hs.Close()
	ctx := context.Background()
	up, err := ConnectMCP(ctx, &MCPConfig{Prefix: "notes", URL: hs.URL, Header: http.Header{"Authorization": {"Bearer admin-token"}}, Justification: mcpserver.JustificationFromContext})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()

	store := kernel.NewMemoryAuditStore()
	audit, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{Audit: audit, Principals: []kernel.Principal{{ID: "local", Roles: []string{"writer"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range up.Capabilities() {
		if err := k.Registry().Add(c); err != nil {
			t.Fatal(err)
		}
	}
	front, err := mcpserver.New(&mcpserver.Config{Kernel: k})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range front.Tools() {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"notes_broken", "notes_drop_note", "notes_edit_note", "notes_get_note"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := front.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes_get_note", Arguments: map[string]any{"id": 5}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(resultText(res), `"id":5`) {
		t.Errorf("read through upstream: %q", resultText(res))
	}
	// The front's policy denies the delete (local is no admin) before it
	// reaches the back, whose admin token would have allowed it.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes_drop_note", Arguments: map[string]any{"_justification": justification}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(resultText(res), "admin") {
		t.Errorf("delete through upstream: %q, want a denial", resultText(res))
	}
	// A write passes both kernels: the justification is forwarded to the
	// back, which asks for it too.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes_edit_note", Arguments: map[string]any{"id": 1, "text": "x", "_justification": justification}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || resultText(res) != "edited" {
		t.Errorf("write through upstream: %q", resultText(res))
	}
	if err := audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range store.Records() {
		got = append(got, string(r.Kind)+" "+r.Tool+" "+string(r.Status))
	}
	// A call that ran is an intent and an outcome; the denied one a record.
	if diff := cmp.Diff([]string{"intent notes_get_note ", "outcome notes_get_note ok", " notes_drop_note denied",
		"intent notes_edit_note ", "outcome notes_edit_note ok"}, got); diff != "" {
		t.Errorf("front audit (-want +got):\n%s", diff)
	}
	got = nil
	if err := back.audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range back.store.Records() {
		got = append(got, string(r.Kind)+" "+r.Principal+" "+r.Tool+" "+string(r.Status)+" "+r.Justification)
	}
	if diff := cmp.Diff([]string{"intent admin get_note  ", "outcome admin get_note ok ",
		"intent admin edit_note  " + justification, "outcome admin edit_note ok "}, got); diff != "" {
		t.Errorf("back audit (-want +got):\n%s", diff)
	}
}

func TestUpstreamFails(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	tests := []struct {
		name string
		cfg  MCPConfig
	}{
		{name: "http_404", cfg: MCPConfig{Prefix: "x", URL: hs.URL}},
		{name: "missing_command", cfg: MCPConfig{Prefix: "x", Command: []string{"/nonexistent/toolgate-upstream"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ConnectMCP(context.Background(), &tt.cfg)
			if !errors.Is(err, ErrUpstream) {
				t.Errorf("got %v, want ErrUpstream", err)
			}
		})
	}
}
