// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// TestKeyLimits: a key made at run time reaches only the models its
// globs allow (403 in the front door's shape), at most rpm requests a
// minute and max_parallel at once (429 with Retry-After and the API's
// rate-limit headers); a config token has no such bounds.
func TestKeyLimits(t *testing.T) {
	ctx := context.Background()
	back := gatewaytest.NewBackend()
	release := make(chan struct{})
	back.Respond = func(r gatewaytest.Request) gatewaytest.Reply {
		if strings.Contains(string(r.Body), "slow") {
			<-release
		}
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`))}
	}
	bs := httptest.NewServer(back)
	defer bs.Close()
	h, err := gateway.New(&gateway.Config{
		Providers: []gateway.Provider{{Name: "local", API: gateway.APIChat, BaseURL: bs.URL + "/v1", Model: "m", Compat: true}},
		Models:    map[string]string{"gpt-mini": "local", "claude": "local"},
	})
	if err != nil {
		t.Fatal(err)
	}
	keys := kernel.NewMemoryKeyStore()
	limited, k := kernel.NewKey("team-a")
	k.Models, k.RPM = []string{"gpt*"}, 3
	keys.CreateKey(ctx, k)
	narrow, nk := kernel.NewKey("team-b")
	nk.MaxParallel = 1
	keys.CreateKey(ctx, nk)
	auth, err := server.NewAuth(&server.AuthConfig{Keys: keys, Tokens: map[string]kernel.Principal{"config-token": {ID: "ops"}}})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(auth.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse}))
	defer gw.Close()
	send := func(front gateway.API, tok, model, content string) (int, http.Header, string) {
		path, body := "/v1/chat/completions", `{"model":"`+model+`","messages":[{"role":"user","content":"`+content+`"}]}`
		if front == gateway.APIMessages {
			path, body = "/v1/messages", `{"model":"`+model+`","max_tokens":16,"messages":[{"role":"user","content":"`+content+`"}]}`
		}
		req, _ := http.NewRequest("POST", gw.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header, string(b)
	}

	if code, _, body := send(gateway.APIChat, limited, "claude", "hi"); code != 403 || !strings.Contains(body, `"type":"permission_error"`) || !strings.Contains(body, `may not use model \"claude\"`) {
		t.Errorf("a model the key may not use: %d %s", code, body)
	}
	if code, _, body := send(gateway.APIMessages, limited, "claude", "hi"); code != 403 || !strings.HasPrefix(body, `{"type":"error","error":{"type":"permission_error"`) {
		t.Errorf("the same on Messages: %d %s", code, body)
	}
	for i := range 3 {
		if code, _, body := send(gateway.APIChat, limited, "gpt-mini", "hi"); code != 200 {
			t.Fatalf("request %d: %d %s", i, code, body)
		}
	}
	code, hd, body := send(gateway.APIChat, limited, "gpt-mini", "hi")
	if code != 429 || hd.Get("Retry-After") == "" || hd.Get("X-Ratelimit-Limit-Requests") != "3" || hd.Get("X-Ratelimit-Remaining-Requests") != "0" || !strings.Contains(body, `"type":"rate_limit_error"`) {
		t.Errorf("over rpm on Chat: %d %v %s", code, hd, body)
	}
	code, hd, _ = send(gateway.APIMessages, limited, "gpt-mini", "hi")
	if code != 429 || hd.Get("Anthropic-Ratelimit-Requests-Limit") != "3" || hd.Get("Retry-After") == "" {
		t.Errorf("over rpm on Messages: %d %v", code, hd)
	}
	for i := range 6 {
		if code, _, _ := send(gateway.APIChat, "config-token", "claude", "hi"); code != 200 {
			t.Fatalf("config token, request %d: %d", i, code)
		}
	}

	// max_parallel 1: a second request while the first is in flight.
	var wg sync.WaitGroup
	wg.Go(func() {
		if code, _, body := send(gateway.APIChat, narrow, "claude", "slow"); code != 200 {
			t.Errorf("the first: %d %s", code, body)
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for len(back.Requests()) < 3+6+1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if code, hd, _ := send(gateway.APIChat, narrow, "claude", "hi"); code != 429 || hd.Get("Retry-After") == "" {
		t.Errorf("a second in flight: %d", code)
	}
	close(release)
	wg.Wait()
	if code, _, _ := send(gateway.APIChat, narrow, "claude", "hi"); code != 200 {
		t.Errorf("after the first ended: %d", code)
	}
}

// TestKeyBudgets: a key's tokens per minute refuse a request whose bound
// alone is over them (429 with the token rate-limit headers); token and
// USD budgets reserve each request's bound, settle on the usage the
// backend reported, and refuse with 429 budget_exceeded once the next
// bound no longer fits; a refused request reserves nothing.
func TestKeyBudgets(t *testing.T) {
	ctx := context.Background()
	back := gatewaytest.NewBackend()
	back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE(
			[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5}}`))}
	}
	bs := httptest.NewServer(back)
	defer bs.Close()
	h, err := gateway.New(&gateway.Config{
		Providers: []gateway.Provider{{Name: "local", API: gateway.APIChat, BaseURL: bs.URL + "/v1", Model: "m", Compat: true}},
		Models:    map[string]string{"gpt": "local"},
		Prices:    map[string]gateway.Price{"gpt": {Input: 10_000, Output: 10_000}}, // a cent a token
	})
	if err != nil {
		t.Fatal(err)
	}
	keys := kernel.NewMemoryKeyStore()
	mk := func(edit func(*kernel.Key)) string {
		secret, k := kernel.NewKey("team-a")
		edit(k)
		keys.CreateKey(ctx, k)
		return secret
	}
	tpm := mk(func(k *kernel.Key) { k.TPM = 5000 })
	tokens := mk(func(k *kernel.Key) { k.Budget = kernel.Budget{Tokens: 100, Period: 24 * time.Hour} })
	usd := mk(func(k *kernel.Key) { k.Budget = kernel.Budget{USD: 1} })
	auth, _ := server.NewAuth(&server.AuthConfig{Keys: keys})
	gw := httptest.NewServer(auth.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse}))
	defer gw.Close()
	send := func(tok string, maxTokens int) (int, http.Header, string) {
		// The body is about 75 bytes: 18 tokens of input by the estimate.
		body := `{"model":"gpt","max_tokens":` + strconv.Itoa(maxTokens) + `,"messages":[{"role":"user","content":"hi"}]}`
		req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header, string(b)
	}

	if code, hd, body := send(tpm, 6000); code != 429 || hd.Get("X-Ratelimit-Limit-Tokens") != "5000" || !strings.Contains(body, "tokens per minute") {
		t.Errorf("a bound over the tpm: %d %v %s", code, hd, body)
	}
	for i := range 3 {
		if code, _, body := send(tpm, 2000); code != 200 {
			t.Errorf("tpm request %d within bounds (settled at 25 tokens each): %d %s", i, code, body)
		}
	}

	// 25 tokens used per request, 18 + 10 reserved: after 3 (75), the
	// next reservation (28) does not fit in 100.
	n := 0
	for ; n < 10; n++ {
		code, hd, body := send(tokens, 10)
		if code == 429 {
			if !strings.Contains(body, `"type":"budget_exceeded"`) || hd.Get("Retry-After") == "" {
				t.Errorf("a spent token budget: %s %v", body, hd)
			}
			break
		}
		if code != 200 {
			t.Fatalf("token budget request %d: %d %s", n, code, body)
		}
	}
	if n != 3 {
		t.Errorf("%d requests of 25 tokens went through a budget of 100 with the next bound reserved, want 3", n)
	}

	// $0.25 used a request (25 tokens at a cent), $0.28 reserved: after 3
	// ($0.75), the next does not fit in $1.
	for n = 0; n < 10; n++ {
		code, _, body := send(usd, 10)
		if code == 429 {
			if !strings.Contains(body, `"type":"budget_exceeded"`) || !strings.Contains(body, "$1.00") {
				t.Errorf("a spent USD budget: %s", body)
			}
			break
		}
		if code != 200 {
			t.Fatalf("usd budget request %d: %d %s", n, code, body)
		}
	}
	if n != 3 {
		t.Errorf("%d requests of $0.25 went through a budget of $1 with the next reserved, want 3", n)
	}
}

// TestPrincipalBudget: a principal's budget holds across all its tokens
// together, config tokens included, and is refused in its own words.
func TestPrincipalBudget(t *testing.T) {
	back := gatewaytest.NewBackend()
	back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE(
			[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5}}`))}
	}
	bs := httptest.NewServer(back)
	defer bs.Close()
	h, err := gateway.New(&gateway.Config{
		Providers:        []gateway.Provider{{Name: "local", API: gateway.APIChat, BaseURL: bs.URL + "/v1", Model: "m", Compat: true}},
		PrincipalBudgets: map[string]kernel.Budget{"team-a": {Tokens: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"tok-1": {ID: "team-a"}, "tok-2": {ID: "team-a"}, "tok-b": {ID: "team-b"}}})
	gw := httptest.NewServer(auth.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse}))
	defer gw.Close()
	send := func(tok string) (int, string) {
		req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(`{"model":"local","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	var codes []int
	for _, tok := range []string{"tok-1", "tok-2", "tok-1", "tok-2"} {
		code, body := send(tok)
		codes = append(codes, code)
		if code == 429 && (!strings.Contains(body, "principal team-a's budget of 100 tokens is spent") || !strings.Contains(body, `"budget_exceeded"`)) {
			t.Errorf("refusal: %s", body)
		}
	}
	if fmt.Sprint(codes) != "[200 200 200 429]" {
		t.Errorf("team-a's two tokens: %v, want three requests of 25 tokens within 100, the fourth's reservation over it", codes)
	}
	for range 4 {
		if code, body := send("tok-b"); code != 200 {
			t.Fatalf("another principal, no budget: %d %s", code, body)
		}
	}
}
