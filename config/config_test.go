// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// TestExample runs the shipped example config through each outcome a new
// user is meant to see.
func TestExample(t *testing.T) {
	if _, err := exec.LookPath("printf"); err != nil {
		t.Skip("printf not installed")
	}
	data, err := os.ReadFile("../examples/kernel/toolgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data, "toolgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := f.Build(ctx, &BuildOptions{AuditDB: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	tests := []struct {
		name      string
		principal string
		tool      string
		args      string
		just      string
		status    kernel.Status
		has       []string
		hasNot    []string
	}{
		{"allowed-and-redacted", "rita", "weather", `{"city":"Paris"}`, "", kernel.StatusOK,
			[]string{`"temp":21`, "[REDACTED:url-password]", "[REDACTED:openai-key]"}, []string{"hunter2-prod", "Ex4mpleKey0"}},
		{"pii-projected", "rita", "customer", `{"id":"c-42"}`, "", kernel.StatusOK,
			[]string{`{"id":"c-42","name":"Ada Lovelace","plan":"pro"}`}, []string{"ada@example.com", "4111"}},
		{"admin-sees-more-but-not-secrets", "ada", "customer", `{"id":"c-42"}`, "", kernel.StatusOK,
			[]string{`"card":"[REDACTED:card-number]"`, `"staff":"[REDACTED:employee-id]"`}, []string{"4111 1111"}},
		{"denied-role", "rita", "refund", `{"order":"o-1","amount":20}`, "customer was charged twice", kernel.StatusDenied,
			[]string{"role_required"}, nil},
		{"denied-justification", "will", "refund", `{"order":"o-1","amount":20}`, "", kernel.StatusDenied,
			[]string{"justification_required"}, nil},
		{"allowed-write", "will", "refund", `{"order":"o-1","amount":20}`, "customer was charged twice", kernel.StatusOK,
			[]string{"refunded 20 on order o-1"}, nil},
		{"approval-required", "will", "refund", `{"order":"o-1","amount":1500}`, "customer was charged twice", kernel.StatusDenied,
			[]string{"approval_required", "need a manager's approval"}, nil},
		{"invalid-argument", "will", "refund", `{"order":"o-1","amount":-5}`, "customer was charged twice", kernel.StatusInvalidArguments,
			[]string{"at /amount: must be > 0"}, nil},
		{"denied-by-rule", "ada", "delete_account", `{"account":"prod-7"}`, "customer asked to close the account", kernel.StatusDenied,
			[]string{"denied_by_rule", "change control"}, nil},
		{"unknown-principal", "mallory", "weather", `{"city":"Paris"}`, "", kernel.StatusDenied,
			[]string{"unknown_principal"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := b.Kernel.Call(ctx, &kernel.Request{Principal: kernel.Principal{ID: tt.principal}, Call: tool.Call{Name: tt.tool, Arguments: json.RawMessage(tt.args)}, Justification: tt.just})
			if err != nil {
				t.Fatal(err)
			}
			text := out.Result.Text()
			if out.Status != tt.status {
				t.Errorf("status %s, want %s: %s", out.Status, tt.status, text)
			}
			for _, h := range tt.has {
				if !strings.Contains(text, h) {
					t.Errorf("%q missing from %s", h, text)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(text, h) {
					t.Errorf("%q leaked in %s", h, text)
				}
			}
		})
	}
	if err := b.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := kernel.VerifyChain(ctx, b.Store, nil)
	if err != nil || !rep.OK() || rep.UnknownCount != 0 {
		t.Errorf("audit: %v %v", err, rep)
	}
	// One record a call, and an outcome after each that ran.
	calls := 0
	if err := b.Store.Scan(ctx, func(r *kernel.AuditRecord) error {
		if r.Kind != kernel.RecordOutcome {
			calls++
		}
		return nil
	}); err != nil || calls != len(tests) {
		t.Errorf("audit: %d records of calls, want %d (%v)", calls, len(tests), err)
	}
}

func TestParseErrorsNameLines(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
		path string
	}{
		{"unknown-key", "principals: []\nbogus: 1\n", `t.yaml:2:1: bogus: unknown key "bogus"`, "bogus"},
		{"bad-effect", "policy:\n  rules:\n    - name: r\n      effect: maybe\n", `t.yaml:4:15: policy.rules[0].effect: rule "r": effect "maybe"`, "policy.rules[0].effect"},
		{"bad-cel", "policy:\n  rules:\n    - name: r\n      effect: deny\n      when: 'args.x <'\n", "t.yaml:5:13: policy.rules[0].when: kernel: invalid policy: r: condition:", "policy.rules[0].when"},
		{"dup-principal", "principals:\n  - id: a\n  - id: a\n", `t.yaml:3:5: principals[1]: principal "a" listed twice`, "principals[1]"},
		{"bad-window", "limits:\n  window: soon\n", `t.yaml:2:11: limits.window: "soon" is not a duration`, "limits.window"},
		{"source-kinds", "sources:\n  - name: x\n", `t.yaml:2:5: sources[0]: source "x" needs exactly one of`, "sources[0]"},
		{"empty-argv", "sources:\n  - name: x\n    command:\n      argv: []\n", `t.yaml:4:7: sources[0].command.argv: source "x": argv is empty`, "sources[0].command.argv"},
		{"bad-safety", "sources:\n  - name: x\n    command:\n      argv: [echo]\n      safety: RISKY\n", `t.yaml:5:15: sources[0].command.safety: safety "RISKY"`, "sources[0].command.safety"},
		{"bad-output", "sources:\n  - name: x\n    command:\n      argv: [echo]\n      output: html\n", `t.yaml:5:15: sources[0].command.output: source "x": output "html" is not text or mcp`, "sources[0].command.output"},
		{"bad-pattern", "firewall:\n  patterns:\n    - name: p\n      regexp: '('\n", `t.yaml:4:15: firewall.patterns[0].regexp: redact: invalid config: pattern "p"`, "firewall.patterns[0].regexp"},
		{"bad-origin", "server:\n  allowed_origins: [https://ok.example, 'https://app.example/']\n", `t.yaml:2:41: server.allowed_origins[1]: "https://app.example/" is not an origin`, "server.allowed_origins[1]"},
		{"wrong-type", "limits:\n  read: lots\n", `t.yaml:2:9: limits.read: "lots" is not a whole number`, "limits.read"},
		{"not-a-list", "principals: {id: a}\n", `t.yaml:1:13: principals: want a list, not a mapping`, "principals"},
		{"bad-bool", "sources:\n  - name: x\n    openapi: {spec: s, allow_private: maybe}\n", `t.yaml:3:39: sources[0].openapi.allow_private: "maybe" is not true or false`, "sources[0].openapi.allow_private"},
		{"dup-key", "limits:\n  read: 1\n  read: 2\n", `t.yaml:3:3: limits.read: key given twice`, "limits.read"},
		{"schema-dup-key", "sources:\n  - name: x\n    command:\n      argv: [echo]\n      input_schema: {type: object, type: string}\n", `t.yaml:5:36: sources[0].command.input_schema: yaml: duplicate key "type"`, "sources[0].command.input_schema"},
		{"bad-schema", "sources:\n  - name: x\n    command:\n      argv: [echo]\n      input_schema: {type: object, $ref: 'https://example.com/s.json'}\n", `t.yaml:5:7: sources[0].command.input_schema: schema: remote $ref refused`, "sources[0].command.input_schema"},
		{"debug-addr-public", "server:\n  addr: 127.0.0.1:8686\n  debug_addr: 0.0.0.0:6060\n", `t.yaml:3:15: server.debug_addr: debug_addr "0.0.0.0:6060" is not a loopback address`, "server.debug_addr"},
		{"debug-addr-name", "server:\n  debug_addr: example.com:6060\n", `t.yaml:2:15: server.debug_addr: debug_addr "example.com:6060" is not a loopback address`, "server.debug_addr"},
		{"bad-log-level", "server:\n  log_level: verbose\n", `t.yaml:2:14: server.log_level: log_level "verbose" is not debug, info, warn or error`, "server.log_level"},
		{"unknown-source-key", "sources:\n  - name: a\n    mcp:\n      url: http://x\n      header: y\n", `t.yaml:5:7: sources[0].mcp.header: unknown key "header"`, "sources[0].mcp.header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "t.yaml")
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
			ce, ok := errors.AsType[*Error](err)
			if !ok || ce.Path != tt.path || ce.File != "t.yaml" || ce.Line == 0 {
				t.Errorf("got %#v, want an *Error at %s", err, tt.path)
			}
		})
	}
}

// TestMergeKeys checks that anchors and merge keys work in the file as
// YAML defines them: merged keys never override the mapping's own.
func TestMergeKeys(t *testing.T) {
	yml := `
x-cmd: &cmd {safety: READ, argv: [echo, hi], timeout: 5s}
sources:
  - name: a
    command: {<<: *cmd, description: first}
  - name: b
    command:
      <<: *cmd
      safety: WRITE
`
	_, err := Parse([]byte(yml), "t.yaml")
	if ce, ok := errors.AsType[*Error](err); !ok || ce.Path != "x-cmd" {
		t.Fatalf("got %v, want an unknown key x-cmd", err)
	}
	yml = strings.Replace(yml, "x-cmd: &cmd {safety: READ, argv: [echo, hi], timeout: 5s}\nsources:\n  - name: a\n    command: {<<: *cmd,", "sources:\n  - name: a\n    command: &cmd {safety: READ, argv: [echo, hi], timeout: 5s,", 1)
	f, err := Parse([]byte(yml), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b := f.Sources[0].Command, f.Sources[1].Command
	if a.Safety != kernel.SafetyRead || b.Safety != kernel.SafetyWrite || b.Timeout != 5*time.Second || len(b.Argv) != 2 || b.Description != "first" {
		t.Errorf("a = %+v, b = %+v", a, b)
	}
	_, err = Parse([]byte("limits: {<<: 3}\n"), "t.yaml")
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("merge of a scalar: %v", err)
	}
}

// TestExactSchemaNumbers checks that a command's input_schema keeps
// integers exact and reads 0x1F as YAML 1.2 does.
func TestExactSchemaNumbers(t *testing.T) {
	f, err := Parse([]byte("sources:\n  - name: x\n    command:\n      argv: [echo]\n      input_schema: {type: object, properties: {n: {type: integer, maximum: 9007199254740993, minimum: 0x1F}}}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993,"minimum":31}}}`
	if diff := cmp.Diff(want, string(f.Sources[0].Command.InputSchema)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCommandOutputMCP checks that a command source with output: mcp has
// its standard output read as an MCP CallToolResult, so a command can
// return an image and an embedded resource.
func TestCommandOutputMCP(t *testing.T) {
	if _, err := exec.LookPath("printf"); err != nil {
		t.Skip("printf not installed")
	}
	const result = `{"content":[{"type":"image","data":"iVBORw0K","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///r.txt","mimeType":"text/plain","text":"hi"}}]}`
	yml := "principals:\n  - id: p\n    roles: [reader]\nsources:\n  - name: chart\n    command:\n      safety: READ\n      output: mcp\n      argv: [printf, '%s', '" + result + "']\n"
	f, err := Parse([]byte(yml), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.Build(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close(context.Background())
	out, err := built.Kernel.Call(context.Background(), &kernel.Request{Principal: kernel.Principal{ID: "p"}, Call: tool.Call{Name: "chart", Arguments: json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.IsError || len(out.Result.Content) != 2 {
		t.Fatalf("result %+v: %s", out.Result, out.Result.Text())
	}
	img, ok := out.Result.Content[0].(*tool.Image)
	if !ok || img.MIMEType != "image/png" || len(img.Data) != 6 {
		t.Errorf("part 0 = %#v, want a 6-byte PNG", out.Result.Content[0])
	}
	if r, ok := out.Result.Content[1].(*tool.Resource); !ok || r.URI != "file:///r.txt" || r.Text != "hi" {
		t.Errorf("part 1 = %#v, want the embedded resource", out.Result.Content[1])
	}
}

// TestServerLimits checks that the server section's limits reach the MCP
// server's config and the log level its slog level.
func TestServerLimits(t *testing.T) {
	f, err := Parse([]byte("server:\n  max_sessions: 7\n  max_sessions_per_principal: 3\n  session_idle_timeout: 90s\n  read_timeout: 5s\n  idle_timeout: 1m\n  max_connections: 9\n  log_level: warn\n  debug_addr: 127.0.0.1:6060\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mc, err := f.mcpConfig(&Built{GeneratedTokens: map[string]string{}, UnsetTokens: map[string]string{}}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	got := []any{mc.MaxSessions, mc.MaxSessionsPerPrincipal, mc.SessionTimeout, f.Server.ReadTimeout, f.Server.IdleTimeout, f.Server.MaxConnections, f.Server.SlogLevel()}
	want := []any{7, 3, 90 * time.Second, 5 * time.Second, time.Minute, 9, slog.LevelWarn}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
