// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/kernel"
)

func TestServeConfigErrors(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{name: "unknown_field", config: "server:\n  adr: x\n", want: "cfg:2: field adr not found"},
		{name: "no_kind", config: "sources:\n  - name: a\n", want: "cfg:2: source \"a\" needs exactly one of"},
		{name: "two_kinds", config: "sources:\n  - name: a\n    demo: {}\n    mcp: {url: http://x}\n", want: "cfg:2: source \"a\" needs exactly one of"},
		{name: "dup_name", config: "sources:\n  - name: a\n    demo: {}\n  - name: a\n    demo: {}\n", want: "cfg:4: source name \"a\" used twice"},
		{name: "unknown_anonymous", config: "principals:\n  - id: x\nauth:\n  anonymous: y\n", want: "cfg:4: auth.anonymous names \"y\""},
		{name: "unknown_source_field", config: "sources:\n  - name: a\n    mcp:\n      url: http://x\n      header: y\n", want: "cfg:5: field header not found"},
		{name: "mcp_without_target", config: "sources:\n  - name: a\n    mcp: {prefix: p}\n", want: "cfg:3: source \"a\": mcp needs exactly one of command and url"},
		{name: "token_without_value", config: "auth:\n  tokens:\n    - principal: x\n", want: "needs token or token_env"},
		{name: "not_yaml", config: "server: [\n", want: "cfg: yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseServeConfig([]byte(tt.config), "cfg")
			if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a usage error containing %q", err, tt.want)
			}
		})
	}
}

func TestPrintConfig(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"serve", "--print-config"}, nil, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	cfg, err := parseServeConfig(out.Bytes(), "printed")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Addr != "127.0.0.1:8686" || cfg.Auth.Anonymous != "anonymous" || len(cfg.Sources) != 1 || cfg.Sources[0].Demo == nil || cfg.file.Audit.DB != "./toolgate-audit.db" {
		t.Errorf("printed config is not the demo's: %+v", cfg)
	}
}

// TestServeSources builds a server from a config whose sources include
// ones that cannot start: they are left out, the others served.
func TestServeSources(t *testing.T) {
	dir := t.TempDir()
	config := `
principals:
  - id: local
    roles: [reader, writer]
auth:
  local: local
audit:
  db: ` + filepath.Join(dir, "audit.db") + `
sources:
  - name: tasks
    demo: {}
  - name: missing_spec
    openapi:
      spec: ` + filepath.Join(dir, "nope.yaml") + `
  - name: dead_upstream
    mcp:
      command: [` + filepath.Join(dir, "no-such-server") + `]
  - name: echo
    command:
      description: Echo a word
      input_schema:
        type: object
        properties:
          word: {type: string, maxLength: 20}
        required: [word]
      safety: READ
      argv: [echo, "{word}"]
`
	cfg, err := parseServeConfig([]byte(config), "cfg")
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := build(context.Background(), cfg, "", slog.New(slog.NewTextHandler(&logs, nil)), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer s.close(context.Background())
	var names []string
	for _, tl := range s.srv.Tools() {
		names = append(names, tl.Name)
	}
	want := []string{"createTask", "deleteTask", "echo", "getTask", "listTasks", "updateTask"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, src := range []string{"source=missing_spec line=14", "source=dead_upstream line=17"} {
		if !strings.Contains(logs.String(), src) {
			t.Errorf("log does not report %s:\n%s", src, logs.String())
		}
	}

	// Over stdio, as the local principal.
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.srv.Run(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"word": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || strings.TrimSpace(res.Content[0].(*mcp.TextContent).Text) != "hi" {
		t.Errorf("echo: %+v", res.Content[0])
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "createTask", Arguments: map[string]any{"title": "t", "_justification": "a test needs a task to exist"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Errorf("createTask: %+v", res.Content[0])
	}
	cs.Close()
	cancel()
	<-done

	if err := s.built.Audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.built.Store.Scan(context.Background(), func(r *kernel.AuditRecord) error {
		got = append(got, r.Principal+" "+r.Tool+" "+string(r.Status)+" "+r.Justification)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"local echo ok ", "local createTask ok a test needs a task to exist"}, got); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
}

// TestServeReadsKernelExample checks that the kernel's example file, which
// `toolgate call` reads, is a serve config too.
func TestServeReadsKernelExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "kernel", "toolgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseServeConfig(data, "toolgate.yaml"); err != nil {
		t.Fatal(err)
	}
}
