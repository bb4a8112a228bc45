// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package admin_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/server/admin"
)

type memSpend []kernel.Spend

func (m memSpend) AddSpend(context.Context, []kernel.Spend) error { return nil }
func (m memSpend) Spend(_ context.Context, since time.Time) ([]kernel.Spend, error) {
	var out []kernel.Spend
	for _, s := range m {
		if !s.Day.Before(since.Truncate(24 * time.Hour)) {
			out = append(out, s)
		}
	}
	return out, nil
}

func newAdmin(t *testing.T) (*httptest.Server, kernel.KeyStore) {
	t.Helper()
	keys := kernel.NewMemoryKeyStore()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	spend := memSpend{
		{Day: today, KeyID: "key_a", Principal: "team-a", Model: "gpt", Provider: "openai", Requests: 2, InputTokens: 100, OutputTokens: 10, CostUSD: 0.5},
		{Day: today, KeyID: "key_b", Principal: "team-a", Model: "claude", Provider: "anthropic", Requests: 1, InputTokens: 50, OutputTokens: 5, CostUSD: 0.25},
		{Day: today.Add(-60 * 24 * time.Hour), KeyID: "key_a", Principal: "team-a", Model: "gpt", Provider: "openai", Requests: 9},
	}
	h, err := admin.New(&admin.Config{Keys: keys, Spend: spend, Known: func(id string) bool { return id == "team-a" }})
	if err != nil {
		t.Fatal(err)
	}
	auth, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{
		"admin-token": {ID: "ops", Roles: []string{"admin"}}, "agent-token": {ID: "agent"}}})
	if err != nil {
		t.Fatal(err)
	}
	edge, err := server.New(&server.Config{Auth: auth, Routes: []server.Route{h.Route()}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(edge.Handler())
	t.Cleanup(hs.Close)
	return hs, keys
}

func do(t *testing.T, hs *httptest.Server, tok, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAdminKeys makes, lists, shows and revokes a key through the API;
// the key it returns authenticates with the server's Auth until revoked.
func TestAdminKeys(t *testing.T) {
	hs, keys := newAdmin(t)
	code, body := do(t, hs, "admin-token", "POST", "/admin/v1/keys",
		`{"principal":"team-a","models":["gpt*"],"rpm":60,"tpm":1000,"budget":{"usd":20,"period":"1d"},"expires":"30d","metadata":{"team":"a"}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var made struct {
		Key, ID string
		Budget  struct {
			USD    float64
			Period string
		}
	}
	json.Unmarshal([]byte(body), &made)
	if !strings.HasPrefix(made.Key, kernel.KeyPrefix) || made.Budget.Period != "1d" || made.Budget.USD != 20 {
		t.Fatalf("create answered %s", body)
	}
	auth, _ := server.NewAuth(&server.AuthConfig{Keys: keys})
	if id, ok := auth.Verify(made.Key); ok {
		t.Errorf("a runtime key is not a config token: %+v", id)
	}
	code, body = do(t, hs, "admin-token", "GET", "/admin/v1/keys", "")
	if code != 200 || !strings.Contains(body, made.ID) || strings.Contains(body, made.Key) || strings.Contains(body, "hash") {
		t.Errorf("list: %d %s", code, body)
	}
	if code, body = do(t, hs, "admin-token", "GET", "/admin/v1/keys/"+made.ID, ""); code != 200 || !strings.Contains(body, `"rpm":60`) {
		t.Errorf("show: %d %s", code, body)
	}
	if code, body = do(t, hs, "admin-token", "DELETE", "/admin/v1/keys/"+made.ID, ""); code != 200 || !strings.Contains(body, `"revoked"`) {
		t.Errorf("revoke: %d %s", code, body)
	}
	k, _ := keys.KeyByID(context.Background(), made.ID)
	if k.Check(time.Now()) == nil {
		t.Error("the key still works after DELETE")
	}
	if code, _ = do(t, hs, "admin-token", "DELETE", "/admin/v1/keys/key_0000000000000000", ""); code != 404 {
		t.Errorf("revoke unknown: %d", code)
	}
}

// TestAdminRefusals: no token, a principal without the role, and bodies
// that are not a key, each refused with a JSON error that echoes
// nothing of the body.
func TestAdminRefusals(t *testing.T) {
	hs, _ := newAdmin(t)
	tests := []struct {
		name, tok, method, path, body string
		status                        int
	}{
		{"no_token", "", "GET", "/admin/v1/keys", "", 401},
		{"not_admin", "agent-token", "GET", "/admin/v1/keys", "", 403},
		{"unknown_principal", "admin-token", "POST", "/admin/v1/keys", `{"principal":"mallory"}`, 400},
		{"unknown_member", "admin-token", "POST", "/admin/v1/keys", `{"principal":"team-a","is_admin":true}`, 400},
		{"duplicate_member", "admin-token", "POST", "/admin/v1/keys", `{"principal":"x","principal":"team-a"}`, 400},
		{"negative_rpm", "admin-token", "POST", "/admin/v1/keys", `{"principal":"team-a","rpm":-1}`, 400},
		{"bad_period", "admin-token", "POST", "/admin/v1/keys", `{"principal":"team-a","budget":{"usd":1,"period":"fortnight"}}`, 400},
		{"bad_glob", "admin-token", "POST", "/admin/v1/keys", `{"principal":"team-a","models":["["]}`, 400},
		{"wrong_type", "admin-token", "POST", "/admin/v1/keys", `{"principal":"team-a","rpm":"sixty"}`, 400},
		{"too_large", "admin-token", "POST", "/admin/v1/keys", `{"principal":"team-a","metadata":{"x":"` + strings.Repeat("a", 20<<10) + `"}}`, 400},
		{"bad_by", "admin-token", "GET", "/admin/v1/spend?by=colour", "", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := do(t, hs, tt.tok, tt.method, tt.path, tt.body)
			if code != tt.status || !strings.HasPrefix(body, `{"error":`) {
				t.Errorf("%d %s, want %d with a JSON error", code, body, tt.status)
			}
			if strings.Contains(body, "mallory") || strings.Contains(body, "is_admin") && tt.name != "unknown_member" || strings.Contains(body, "aaaa") {
				t.Errorf("the refusal echoes the body: %s", body)
			}
		})
	}
}

func TestAdminSpend(t *testing.T) {
	hs, _ := newAdmin(t)
	code, body := do(t, hs, "admin-token", "GET", "/admin/v1/spend?by=key&since=7d", "")
	var out struct {
		Rows []struct {
			Group    string
			Requests int64
			CostUSD  float64 `json:"cost_usd"`
		}
		Total struct{ Requests int64 }
	}
	if code != 200 || json.Unmarshal([]byte(body), &out) != nil || len(out.Rows) != 2 || out.Rows[0].Group != "key_a" || out.Rows[0].Requests != 2 || out.Total.Requests != 3 {
		t.Errorf("spend: %d %s", code, body)
	}
	if code, body = do(t, hs, "admin-token", "GET", "/admin/v1/openapi.yaml", ""); code != 200 || !strings.Contains(body, "operationId: createKey") {
		t.Errorf("openapi: %d", code)
	}
}
