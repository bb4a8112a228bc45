// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/kernel"
)

func TestServeConfigErrors(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{name: "unknown_field", config: "server:\n  adr: x\n", want: "cfg:2:3: server.adr: unknown key \"adr\""},
		{name: "no_kind", config: "sources:\n  - name: a\n", want: "cfg:2:5: sources[0]: source \"a\" needs exactly one of"},
		{name: "two_kinds", config: "sources:\n  - name: a\n    demo: {}\n    mcp: {url: http://x}\n", want: "cfg:2:5: sources[0]: source \"a\" needs exactly one of"},
		{name: "dup_name", config: "sources:\n  - name: a\n    demo: {}\n  - name: a\n    demo: {}\n", want: "cfg:4:5: sources[1]: source name \"a\" used twice"},
		{name: "unknown_anonymous", config: "principals:\n  - id: x\nauth:\n  anonymous: y\n", want: "cfg:4:14: auth.anonymous: auth.anonymous names \"y\""},
		{name: "unknown_source_field", config: "sources:\n  - name: a\n    mcp:\n      url: http://x\n      header: y\n", want: "cfg:5:7: sources[0].mcp.header: unknown key \"header\""},
		{name: "mcp_without_target", config: "sources:\n  - name: a\n    mcp: {prefix: p}\n", want: "cfg:3:5: sources[0].mcp: source \"a\": mcp needs exactly one of command and url"},
		{name: "token_without_value", config: "auth:\n  tokens:\n    - principal: x\n", want: "needs token or token_env"},
		{name: "not_yaml", config: "server: [\n", want: "cfg: not YAML: yaml: line"},
		{name: "bad_origin", config: "server:\n  allowed_origins: ['https://app.example/']\n", want: "cfg:2:21: server.allowed_origins[0]: \"https://app.example/\" is not an origin"},
		{name: "bad_shutdown_timeout", config: "server:\n  shutdown_timeout: soon\n", want: "cfg:2:21: server.shutdown_timeout: \"soon\" is not a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cfg")
			if err := os.WriteFile(path, []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			_, stderr, err := runCLI(t, "serve", "--config", path)
			want := strings.Replace(tt.want, "cfg", path, 1)
			if !errors.Is(err, config.ErrInvalid) || ExitCode(err) != 2 || !strings.Contains(stderr, want) {
				t.Errorf("got %v (exit %d), stderr %q; want an invalid config containing %q", err, ExitCode(err), stderr, want)
			}
		})
	}
}

// TestServeExitCodes checks that runtime failures exit 1: a listen on an
// address in use, an audit database that cannot be opened.
func TestServeExitCodes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "address_in_use", args: []string{"--addr", ln.Addr().String(), "--db", filepath.Join(dir, "a.db")}, want: "listen"},
		{name: "database_cannot_open", args: []string{"--db", filepath.Join(dir, "no", "such", "dir", "a.db")}, want: "audit log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runCLI(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
			if !errors.Is(err, ErrRuntime) || ExitCode(err) != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("got %v (exit %d), stderr %q; want a runtime failure naming %q", err, ExitCode(err), stderr, tt.want)
			}
		})
	}
}

func TestPrintConfig(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"serve", "--print-config"}, nil, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	cfg, err := config.Parse(out.Bytes(), "printed")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Addr != "127.0.0.1:8686" || cfg.Auth.Anonymous != "anonymous" || len(cfg.Sources) != 1 || cfg.Sources[0].Demo == nil || cfg.Audit.DB != "./toolgate-audit.db" {
		t.Errorf("printed config is not the demo's: %+v", cfg)
	}
	// It builds, too: the demo's tools behind an MCP server.
	s, err := cfg.BuildServing(context.Background(), &config.BuildOptions{AuditDB: filepath.Join(t.TempDir(), "a.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if n := len(s.MCP.Tools()); n != 5 {
		t.Errorf("%d tools, want the demo's 5", n)
	}
}

// TestServeSources builds a server from a config whose sources include
// ones that cannot start: they are left out, the others served.
func TestServeSources(t *testing.T) {
	dir := t.TempDir()
	file := `
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
	cfg, err := config.Parse([]byte(file), "cfg")
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := cfg.BuildServing(context.Background(), &config.BuildOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var names []string
	for _, tl := range s.MCP.Tools() {
		names = append(names, tl.Name)
	}
	want := []string{"createTask", "deleteTask", "echo", "getTask", "listTasks", "updateTask"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, src := range []string{"source=missing_spec line=13", "source=dead_upstream line=16"} {
		if !strings.Contains(logs.String(), src) {
			t.Errorf("log does not report %s:\n%s", src, logs.String())
		}
	}

	// Over stdio, as the local principal.
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.MCP.Run(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}) }()
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

	if err := s.Built.Audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.Built.Store.Scan(context.Background(), func(r *kernel.AuditRecord) error {
		if r.Kind == "" {
			// A call whose intent and outcome reached the database in
			// one batch is one record: listed here as the two.
			got = append(got, "intent "+r.Principal+" "+r.Tool+"  "+r.Justification, "outcome "+r.Principal+" "+r.Tool+" "+string(r.Status)+" ")
			return nil
		}
		got = append(got, string(r.Kind)+" "+r.Principal+" "+r.Tool+" "+string(r.Status)+" "+r.Justification)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"intent local echo  ", "outcome local echo ok ", "intent local createTask  a test needs a task to exist", "outcome local createTask ok "}, got); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
}

// TestServeReadsKernelExample checks that the kernel's example file, which
// `toolgate call` reads, is a serve config too.
func TestServeReadsKernelExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "examples", "kernel", "toolgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Parse(data, "toolgate.yaml"); err != nil {
		t.Fatal(err)
	}
}

// TestPrintConfigChecks checks that --print-config refuses a config that
// would not run instead of printing it.
func TestPrintConfigChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("limits:\n  window: soon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "serve", "--config", path, "--print-config")
	if !errors.Is(err, config.ErrInvalid) || out != "" {
		t.Errorf("got %v, printed %q; want an invalid config and nothing printed", err, out)
	}
}
