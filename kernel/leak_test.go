// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// Secrets for the leak tests, assembled at run time so that the
// repository holds no string a secret scanner would flag.
var (
	leakAWS    = "AK" + "IA" + "QWERTYUIOPASDFGH"
	leakGitHub = "gh" + "p_" + strings.Repeat("L3akT0k", 5)
	leakPEM    = "-----BEGIN " + "RSA PRIVATE KEY-----\n"
	leakBody   = "MIIEpAIBAAKCAQEAs3cr3tK3yB0dyCanary\nQWxsIHlvdXIgYmFzZQ==\n-----END RSA PRIVATE KEY-----"
)

// outputOf returns every byte a call let out: the outcome, as JSON, and
// every audit record so far, as JSON.
func outputOf(t *testing.T, k *testKernel, out Outcome) string {
	t.Helper()
	if err := k.audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	o, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(o)
	for _, r := range k.store.Records() {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
		b.Write(j)
	}
	return b.String()
}

// TestLeaks pins each leak of issue 14 that lives in the kernel: every
// case failed on the code before it, through the result, the audit log or
// both.
func TestLeaks(t *testing.T) {
	for _, p := range []string{"sh"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	rows := make([]string, 12)
	for i := range rows {
		rows[i] = "1"
	}
	tests := []struct {
		name    string
		cap     Capability
		tool    string // the name called, if not the capability's
		mutate  func(*Config)
		secrets []string
		want    string // a part of the result text that must be there
	}{{
		// "cut beyond 5 per array (first at /AKIA…)"
		name:    "field-name-in-rows-note",
		cap:     Capability{Executor: staticExec(jsonResult(`{"` + leakAWS + `":[` + strings.Join(rows, ",") + `]}`))},
		mutate:  func(c *Config) { c.Firewall = NewFirewall(&FirewallConfig{MaxRows: 5}) },
		secrets: []string{leakAWS},
		want:    "cut beyond 5 per array (first at /[REDACTED:aws-access-key])",
	}, {
		// "values cut beyond depth 3 (first at /ghp_…/…)"
		name:    "field-name-in-depth-note",
		cap:     Capability{Executor: staticExec(jsonResult(`{"` + leakGitHub + `":{"n1":{"n2":{"n3":{"n4":1}}}}}`))},
		mutate:  func(c *Config) { c.Firewall = NewFirewall(&FirewallConfig{MaxDepth: 3}) },
		secrets: []string{leakGitHub},
		want:    "first at /[REDACTED:github-token]/n1/n2",
	}, {
		name:    "key-split-across-parts",
		cap:     Capability{Executor: staticExec(tool.Result{Content: []tool.Content{&tool.Text{Text: "the key:\n" + leakPEM}, &tool.Text{Text: leakBody + "\nend"}}})},
		secrets: []string{"s3cr3tK3yB0dyCanary", "QWxsIHlvdXIgYmFzZQ==", "END RSA PRIVATE KEY"},
		want:    "[REDACTED:private-key]\nend",
	}, {
		name: "json-in-a-string-in-a-string",
		cap: Capability{Executor: staticExec(jsonResult(
			`{"payload":"{\"inner\": \"{\\\"password\\\": \\\"Tw0-l3vels-d33p\\\"}\"}"}`))},
		secrets: []string{"Tw0-l3vels-d33p"},
		want:    `\\\"password\\\": \\\"[REDACTED:secret]\\\"`,
	}, {
		name: "json-in-text-three-levels",
		cap: Capability{Executor: staticExec(tool.TextResult("", string(strictjson.AppendQuote(nil, string(strictjson.AppendQuote(nil,
			`{"config":{"client_secret":"thr33-l3vels-d33p"}}`))))))},
		secrets: []string{"thr33-l3vels-d33p"},
	}, {
		name: "command-echoes-its-credential",
		cap: Capability{Executor: &Command{
			Argv: []string{"sh", "-c", `echo "using $SVC_TOKEN"; echo "{\"echo\":\"$SVC_TOKEN\"}" >&2; exit 1`},
			Env:  []string{"PATH=/usr/bin:/bin", "SVC_TOKEN=opaque.svc.cred-7731"},
		}},
		secrets: []string{"opaque.svc.cred-7731"},
		want:    "[REDACTED:credential]",
	}, {
		name: "capability-secret-in-executor-error",
		cap: Capability{
			Executor: ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
				return tool.Result{}, &strictjson.Error{Err: strictjson.ErrSyntax, Detail: "upstream refused key zq-pl41n-c4nary-v4lue"}
			}),
			Secrets: []string{"zq-pl41n-c4nary-v4lue"},
		},
		secrets: []string{"zq-pl41n-c4nary-v4lue"},
		want:    "the tool could not run",
	}, {
		name:    "secret-as-tool-name",
		cap:     Capability{Executor: staticExec(tool.TextResult("", "ok"))},
		tool:    leakGitHub,
		secrets: []string{leakGitHub},
		want:    "unknown tool",
	}, {
		name:    "cookie-header",
		cap:     Capability{Executor: staticExec(tool.TextResult("", "HTTP/1.1 200 OK\r\nSet-Cookie: sid=c00k13-c4nary-31d4; HttpOnly\r\n\r\n{}"))},
		secrets: []string{"c00k13-c4nary-31d4"},
		want:    "Set-Cookie: [REDACTED:cookie]",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newTestKernel(t, func(c *Config) {
				tt.cap.Definition = tool.Definition{Name: "leaky"}
				tt.cap.Safety = SafetyRead
				if err := c.Registry.Add(tt.cap); err != nil {
					t.Fatal(err)
				}
				if tt.mutate != nil {
					tt.mutate(c)
				}
			})
			name := tt.tool
			if name == "" {
				name = "leaky"
			}
			out := k.run(t, reader, name, `{}`, "")
			all := outputOf(t, k, out)
			for _, s := range tt.secrets {
				if strings.Contains(all, s) {
					t.Errorf("%q leaked:\n%s", s, all)
				}
			}
			if tt.want != "" && !strings.Contains(out.Result.Text(), tt.want) {
				t.Errorf("result lacks %q:\n%s", tt.want, out.Result.Text())
			}
		})
	}
}

// TestCommandSecrets checks which environment entries a command declares
// as credentials.
func TestCommandSecrets(t *testing.T) {
	c := &Command{Env: []string{"PATH=/usr/bin", "HOME=/tmp", "SVC_TOKEN=t0k3n", "DB_PASSWORD=pw-1234", "STRIPE_KEY=sk", "OPENAI_API_KEY=k3y-v4lue", "LANG=C", "EMPTY_TOKEN=", "NOEQUALS"}}
	got := strings.Join(c.Secrets(), ",")
	if want := "t0k3n,pw-1234,sk,k3y-v4lue"; got != want {
		t.Errorf("Secrets() = %q, want %q", got, want)
	}
}
