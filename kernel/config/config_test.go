// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// TestExample runs the shipped example config through each outcome a new
// user is meant to see.
func TestExample(t *testing.T) {
	if _, err := exec.LookPath("printf"); err != nil {
		t.Skip("printf not installed")
	}
	data, err := os.ReadFile("../../examples/kernel/toolgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data, "toolgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := f.Build(ctx, &Options{AuditDB: filepath.Join(t.TempDir(), "audit.db")})
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
	if err != nil || !rep.OK() || rep.Records != int64(len(tests)) {
		t.Errorf("audit: %v %v", err, rep)
	}
}

func TestParseErrorsNameLines(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"unknown-key", "principals: []\nbogus: 1\n", "t.yaml:2: field bogus not found"},
		{"bad-effect", "policy:\n  rules:\n    - name: r\n      effect: maybe\n", "t.yaml:4: rule \"r\": effect \"maybe\""},
		{"bad-cel", "policy:\n  rules:\n    - name: r\n      effect: deny\n      when: 'args.x <'\n", "t.yaml:3: r: condition:"},
		{"dup-principal", "principals:\n  - id: a\n  - id: a\n", "t.yaml:3: principal \"a\" listed twice"},
		{"bad-window", "limits:\n  window: soon\n", "t.yaml:2: \"soon\" is not a duration"},
		{"source-kinds", "sources:\n  - name: x\n", "t.yaml:2: source \"x\" needs exactly one of"},
		{"empty-argv", "sources:\n  - name: x\n    command:\n      argv: []\n", "t.yaml:3: source \"x\": argv is empty"},
		{"bad-safety", "sources:\n  - name: x\n    command:\n      argv: [echo]\n      safety: RISKY\n", "t.yaml:5: safety \"RISKY\""},
		{"bad-output", "sources:\n  - name: x\n    command:\n      argv: [echo]\n      output: html\n", "t.yaml:5: source \"x\": output \"html\" is not text or mcp"},
		{"bad-pattern", "firewall:\n  patterns:\n    - name: p\n      regexp: '('\n", "t.yaml:1: redact: invalid config: pattern \"p\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "t.yaml")
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
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
