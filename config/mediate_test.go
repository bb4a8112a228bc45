// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/kernel"
)

// demoFile is the demo of `toolgate serve` without a config: the tracker,
// the demo model, and the gateway running the tracker's tools for it.
func demoFile(db string) *File {
	return &File{
		Principals: []Principal{{ID: "anonymous", Roles: []string{"reader", "writer"}}},
		Auth:       Auth{Anonymous: "anonymous"},
		Sources:    []Source{{Name: "tasks", Demo: &Demo{}}},
		Providers:  []Provider{{Name: "demo", ModelName: "demo", ProviderBackend: "demo"}},
		Gateway:    Gateway{MediateTools: true, Tools: []string{"tasks"}, AllowAnonymous: true},
		Audit:      Audit{DB: db},
		Server:     Server{Addr: "127.0.0.1:0"},
	}
}

func TestDemoModel(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	f := demoFile(filepath.Join(t.TempDir(), "audit.db"))
	s, err := f.BuildServing(ctx, &BuildOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Server.Listen()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	ask := func(q string) string {
		t.Helper()
		body := `{"model":"demo","messages":[{"role":"user","content":` + jsonQuote(q) + `}]}`
		resp, err := http.Post("http://"+addr.String()+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%q: status %d: %s", q, resp.StatusCode, b)
		}
		var out struct {
			Choices []struct {
				Message struct {
					Content   string            `json:"content"`
					ToolCalls []json.RawMessage `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(b, &out); err != nil || len(out.Choices) != 1 {
			t.Fatalf("%q: %s", q, b)
		}
		if len(out.Choices[0].Message.ToolCalls) > 0 {
			t.Errorf("%q: the client got the gateway's own calls: %s", q, b)
		}
		return out.Choices[0].Message.Content
	}
	if got := ask("What tasks are open?"); !strings.Contains(got, "Rotate the staging API keys") {
		t.Errorf("the demo model did not list the tasks: %q", got)
	}
	if got := ask("Add a task called Buy milk"); !strings.Contains(got, "justification") || !strings.Contains(got, "denied") {
		t.Errorf("the demo model did not say its write was denied: %q", got)
	}
	if err := s.Built.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var recs []string
	parents := map[string]bool{}
	err = s.Built.Store.Scan(ctx, func(r *kernel.AuditRecord) error {
		if r.Kind == kernel.RecordModel {
			parents[r.CallID] = true
		}
		recs = append(recs, string(r.Kind)+" "+r.Tool+" "+string(r.Status)+" "+r.Parent)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var created, listed bool
	for _, r := range recs {
		f := strings.Fields(r + " -")
		if strings.HasPrefix(r, "model ") {
			continue
		}
		if !parents[f[len(f)-2]] {
			t.Errorf("record %q is under no request", r)
		}
		listed = listed || strings.Contains(r, "listTasks ok")
		created = created || strings.Contains(r, "createTask denied")
	}
	if !listed || !created || len(parents) != 2 {
		t.Errorf("records:\n%s", strings.Join(recs, "\n"))
	}
	rep, err := kernel.VerifyChain(ctx, s.Built.Store, nil)
	if err != nil || !rep.OK() {
		t.Errorf("verify: %v %v", err, rep)
	}
	stop()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestMediationConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(f *File)
		want string
	}{
		{"tools without mediation", func(f *File) { f.Gateway.MediateTools = false }, "gateway.tools: needs gateway.mediate_tools: true"},
		{"unknown source", func(f *File) { f.Gateway.Tools = []string{"nope"} }, `gateway.tools[0]: "nope" is not a source`},
		{"client tool safety", func(f *File) { f.Gateway.ClientTools = []ClientTool{{Name: "Bash", Safety: "SCARY"}} }, `gateway.client_tools[0].safety: "SCARY" is not READ, WRITE or DESTRUCTIVE`},
		{"client tool glob", func(f *File) { f.Gateway.ClientTools = []ClientTool{{Name: "[", Safety: "READ"}} }, `gateway.client_tools[0].name: "[" is not a valid glob`},
		{"default safety", func(f *File) { f.Gateway.DefaultClientSafety = "read" }, `gateway.default_client_safety: "read" is not READ`},
		{"negative steps", func(f *File) { f.Gateway.MaxToolSteps = -1 }, "gateway.max_tool_steps: is negative"},
		{"mcp server URL", func(f *File) { f.Gateway.MCPServersAllowed = []string{"ftp://x/"} }, "gateway.mcp_servers_allowed[0]: must be an http(s) URL"},
		{"demo with a URL", func(f *File) { f.Providers[0].APIConfig.BaseURL = "http://127.0.0.1:1/v1" }, "demo is the built-in model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := demoFile("")
			tt.mod(f)
			err := f.checkGateway()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
