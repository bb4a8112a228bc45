// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// TestKeys makes a key with the CLI, uses it against a running gateway
// built from the same config, and revokes it with the CLI: the gateway
// takes it for its principal, refuses a model its globs do not allow,
// and refuses it within a second of the revocation. Bad flags are usage
// errors; an unknown key is a problem (exit 1).
func TestKeys(t *testing.T) {
	back := gatewaytest.NewBackend()
	back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":4}}}`))}
	}
	bs := httptest.NewServer(back)
	defer bs.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "toolgate.yaml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf(`server: {addr: "127.0.0.1:0"}
principals: [{id: team-a}]
audit: {db: %s}
providers:
  - {name: local, model_name: m, provider_backend: openai_compat, api_config: {base_url: "%s/v1"}}
models: {gpt-mini: local, claude: local}
pricing: {gpt-mini: {input: 1, cached_input: 0.5, output: 2}}
`, filepath.Join(dir, "audit.db"), bs.URL)), 0o600)

	for _, bad := range [][]string{
		{"keys", "create", "--config", cfgPath},
		{"keys", "create", "--config", cfgPath, "--principal", "nobody"},
		{"keys", "create", "--config", cfgPath, "--principal", "team-a", "--rpm", "-1"},
		{"keys", "create", "--config", cfgPath, "--principal", "team-a", "--expires", "soon"},
		{"keys", "create", "--config", cfgPath, "--principal", "team-a", "--meta", "novalue"},
		{"keys", "create", "--config", cfgPath, "--principal", "team-a", "--budget-usd", "-5"},
		{"keys", "create", "--config", cfgPath, "--principal", "team-a", "--period", "2026-11-26T00:00:00Z"},
		{"keys", "revoke", "--config", cfgPath},
		{"keys", "frobnicate"},
	} {
		if _, _, err := runCLI(t, bad...); ExitCode(err) != 2 {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
	out, _, err := runCLI(t, "keys", "create", "--config", cfgPath, "--principal", "team-a", "--models", "gpt*", "--rpm", "100", "--expires", "30d", "--meta", "team=a",
		"--tpm", "100000", "--budget-usd", "20", "--period", "1d")
	if err != nil {
		t.Fatal(err)
	}
	var made struct {
		Key, ID, Principal string
		Models             []string
		RPM                int
		Expires            time.Time
		Metadata           map[string]string
	}
	if err := json.Unmarshal([]byte(out), &made); err != nil || !strings.HasPrefix(made.Key, "tg-") || !strings.HasPrefix(made.ID, "key_") ||
		made.Principal != "team-a" || made.RPM != 100 || made.Metadata["team"] != "a" || time.Until(made.Expires) < 29*24*time.Hour {
		t.Fatalf("create: %v\n%s", err, out)
	}
	list, _, err := runCLI(t, "keys", "list", "--config", cfgPath)
	if err != nil || !strings.Contains(list, made.ID) || !strings.Contains(list, "gpt*") || !strings.Contains(list, "$20/1d") || strings.Contains(list, made.Key) {
		t.Errorf("list: %v\n%s", err, list)
	}

	f, err := config.Parse(mustRead(t, cfgPath), cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s, err := f.BuildServing(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Server.Listen()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	chat := func(model string) int {
		req, _ := http.NewRequest("POST", "http://"+addr.String()+"/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Authorization", "Bearer "+made.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := chat("gpt-mini"); c != 200 {
		t.Errorf("the new key: %d, want 200", c)
	}
	if c := chat("claude"); c != 403 {
		t.Errorf("a model the key may not use: %d, want 403", c)
	}
	if _, _, err := runCLI(t, "keys", "revoke", "--config", cfgPath, made.ID); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for chat("gpt-mini") == 200 {
		if time.Since(revoked) > 3*time.Second {
			t.Fatal("the revoked key still works after 3 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(revoked); d > 1500*time.Millisecond {
		t.Errorf("the revocation took %v to be seen, want about 1 s", d)
	}
	stop()
	if err := <-done; err != nil {
		t.Error(err)
	}

	// What the key's requests used, priced: 16 input tokens at 1, 4
	// cached at 0.5, 5 output at 2, per million, a request.
	spend, _, err := runCLI(t, "spend", "--config", cfgPath, "--by", "key", "--json")
	var report struct {
		Rows []struct {
			Group    string
			Requests int64   `json:"requests"`
			CostUSD  float64 `json:"cost_usd"`
		}
	}
	if err != nil || json.Unmarshal([]byte(spend), &report) != nil || len(report.Rows) != 1 || report.Rows[0].Group != made.ID || report.Rows[0].Requests < 1 {
		t.Fatalf("spend: %v\n%s", err, spend)
	}
	if r := report.Rows[0]; math.Abs(r.CostUSD-float64(r.Requests)*(16*1+4*0.5+5*2)/1e6) > 1e-12 {
		t.Errorf("spend: %d requests cost %v, want %v each", r.Requests, r.CostUSD, (16*1+4*0.5+5*2)/1e6)
	}
	table, _, err := runCLI(t, "spend", "--config", cfgPath, "--by", "model")
	if err != nil || !strings.Contains(table, "gpt-mini") || !strings.Contains(table, "total") {
		t.Errorf("spend table: %v\n%s", err, table)
	}
	if _, _, err := runCLI(t, "spend", "--config", cfgPath, "--by", "colour"); ExitCode(err) != 2 {
		t.Errorf("--by colour: %v", err)
	}

	show, _, err := runCLI(t, "keys", "show", "--config", cfgPath, "--json", made.ID)
	if err != nil || !strings.Contains(show, `"revoked"`) {
		t.Errorf("show after revoke: %v\n%s", err, show)
	}
	if _, _, err := runCLI(t, "keys", "revoke", "--config", cfgPath, "key_0000000000000000"); !errors.Is(err, ErrProblem) {
		t.Errorf("revoke an unknown key: %v, want a problem (exit 1)", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKeyBudgetOutlivesRestart: with limits in memory (serve's default),
// a key's budget is counted in the keys' file, so a restarted serve
// still refuses a key that spent it.
func TestKeyBudgetOutlivesRestart(t *testing.T) {
	back := gatewaytest.NewBackend()
	back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":20}}`))}
	}
	bs := httptest.NewServer(back)
	defer bs.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "toolgate.yaml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf(`server: {addr: "127.0.0.1:0"}
principals: [{id: team-a}]
audit: {db: %s}
providers:
  - {name: local, model_name: m, provider_backend: openai_compat, api_config: {base_url: "%s/v1"}}
`, filepath.Join(dir, "audit.db"), bs.URL)), 0o600)
	out, _, err := runCLI(t, "keys", "create", "--config", cfgPath, "--principal", "team-a", "--budget-tokens", "100")
	if err != nil {
		t.Fatal(err)
	}
	var made struct{ Key string }
	json.Unmarshal([]byte(out), &made)
	f, err := config.Parse(mustRead(t, cfgPath), cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	serveOnce := func(requests int) []int {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		s, err := f.BuildServing(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		addr, err := s.Server.Listen()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		var codes []int
		for range requests {
			req, _ := http.NewRequest("POST", "http://"+addr.String()+"/v1/chat/completions", strings.NewReader(`{"model":"local","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`))
			req.Header.Set("Authorization", "Bearer "+made.Key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			codes = append(codes, resp.StatusCode)
		}
		stop()
		<-done
		return codes
	}
	// 40 tokens used a request, 28 reserved: 200, 200, then 80 + 28 > 100.
	if got := serveOnce(3); fmt.Sprint(got) != "[200 200 429]" {
		t.Errorf("first serve: %v", got)
	}
	if got := serveOnce(1); fmt.Sprint(got) != "[429]" {
		t.Errorf("after a restart: %v, want the budget still spent", got)
	}
}

// TestAdminOpenAPI: the admin API's shipped OpenAPI document turns into
// tools, one per operation.
func TestAdminOpenAPI(t *testing.T) {
	out, errOut, err := runCLI(t, "openapi", "tools", "../../../../server/admin/openapi.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, op := range []string{"listKeys", "createKey", "getKey", "revokeKey", "getSpend"} {
		if !strings.Contains(out, `"`+op+`"`) {
			t.Errorf("no tool %s in:\n%.400s", op, out)
		}
	}
}

// TestAdminThroughServe: serve mounts the admin API beside the gateway
// when keys are kept: an operator makes a key over HTTP, the key
// reaches the model, the spend report counts it, and a DELETE revokes it
// within a second.
func TestAdminThroughServe(t *testing.T) {
	back := gatewaytest.NewBackend()
	back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}`))}
	}
	bs := httptest.NewServer(back)
	defer bs.Close()
	dir := t.TempDir()
	f, err := config.Parse([]byte(fmt.Sprintf(`server: {addr: "127.0.0.1:0"}
principals: [{id: ops, roles: [admin]}, {id: team-a}]
auth: {tokens: [{principal: ops, token: ops-secret-token}]}
audit: {db: %s}
providers:
  - {name: local, model_name: m, provider_backend: openai_compat, api_config: {base_url: "%s/v1"}}
`, filepath.Join(dir, "audit.db"), bs.URL)), "admin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s, err := f.BuildServing(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Server.Listen()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	base := "http://" + addr.String()
	call := func(method, path, tok, body string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	code, body := call("POST", "/admin/v1/keys", "ops-secret-token", `{"principal":"team-a"}`)
	var made struct{ Key, ID string }
	if json.Unmarshal([]byte(body), &made); code != 201 || made.Key == "" {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := call("POST", "/admin/v1/keys", made.Key, `{"principal":"team-a"}`); code != 403 {
		t.Errorf("a team's key on the admin API: %d %s, want 403", code, body)
	}
	chat := `{"model":"local","messages":[{"role":"user","content":"hi"}]}`
	if code, body := call("POST", "/v1/chat/completions", made.Key, chat); code != 200 {
		t.Fatalf("chat with the new key: %d %s", code, body)
	}
	time.Sleep(1200 * time.Millisecond) // spend is written every second
	if code, body := call("GET", "/admin/v1/spend?by=key", "ops-secret-token", ""); code != 200 || !strings.Contains(body, `"group":"`+made.ID+`","requests":1`) {
		t.Errorf("spend: %d %s", code, body)
	}
	if code, _ := call("DELETE", "/admin/v1/keys/"+made.ID, "ops-secret-token", ""); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	revoked := time.Now()
	for {
		code, _ := call("POST", "/v1/chat/completions", made.Key, chat)
		if code == 401 {
			break
		}
		if time.Since(revoked) > 3*time.Second {
			t.Fatal("the revoked key still works after 3 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		t.Error(err)
	}
}
