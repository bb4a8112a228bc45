// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/kernel"
)

// TestUpstream proxies one toolgate server through another: the front
// kernel polices the namespaced tools with its own principals, the back
// one sees the front's admin token.
func TestUpstream(t *testing.T) {
	back := newFixture(t, nil)
	hs := httptest.NewServer(back.srv.Handler())
	defer hs.Close()
	ctx := context.Background()
	up, err := Connect(ctx, &UpstreamConfig{Prefix: "notes", URL: hs.URL, Header: http.Header{"Authorization": {"Bearer admin-token"}}})
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
	front, err := New(&Config{Kernel: k})
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
	f := &fixture{srv: front}
	cs := f.inMemory(t)

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
		got = append(got, r.Tool+" "+string(r.Status))
	}
	if diff := cmp.Diff([]string{"notes_get_note ok", "notes_drop_note denied", "notes_edit_note ok"}, got); diff != "" {
		t.Errorf("front audit (-want +got):\n%s", diff)
	}
	got = nil
	for _, r := range back.records(t) {
		got = append(got, r.Principal+" "+r.Tool+" "+string(r.Status)+" "+r.Justification)
	}
	if diff := cmp.Diff([]string{"admin get_note ok ", "admin edit_note ok " + justification}, got); diff != "" {
		t.Errorf("back audit (-want +got):\n%s", diff)
	}
}

func TestUpstreamFails(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	tests := []struct {
		name string
		cfg  UpstreamConfig
	}{
		{name: "http_404", cfg: UpstreamConfig{Prefix: "x", URL: hs.URL}},
		{name: "missing_command", cfg: UpstreamConfig{Prefix: "x", Command: []string{"/nonexistent/toolgate-upstream"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Connect(context.Background(), &tt.cfg)
			if !errors.Is(err, ErrUpstream) {
				t.Errorf("got %v, want ErrUpstream", err)
			}
		})
	}
}
