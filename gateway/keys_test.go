// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// TestBudgetRace: fifty concurrent requests on one key race its budget,
// in USD and in tokens, through the handler. Each reserves its bound (18
// tokens of input by the estimate, 10 of output: 28) before it goes out
// and settles on the usage the backend reports, so that at most
// budget/28 are in flight at once. What the admitted requests used
// together passes the budget by at most what that many requests in
// flight used beyond their reservations — not at all when the usage is
// within the bound, never more when the backend reports more input than
// estimated — and never by more than their reservations.
func TestBudgetRace(t *testing.T) {
	const (
		requests = 50
		reserved = 18 + 10 // tokens each request reserves
	)
	tests := []struct {
		name   string
		budget kernel.Budget
		input  int64 // the input tokens the backend reports; 5 of output
	}{
		{"usd", kernel.Budget{USD: 2}, 20},
		{"tokens", kernel.Budget{Tokens: 200}, 20},
		{"usd_input_over_estimate", kernel.Budget{USD: 2}, 40},
		{"tokens_input_over_estimate", kernel.Budget{Tokens: 200, Period: 24 * time.Hour}, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			used := tt.input + 5
			var inFlight, maxInFlight, served atomic.Int64
			back := gatewaytest.NewBackend()
			back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
				n := inFlight.Add(1)
				for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
				}
				time.Sleep(30 * time.Millisecond)
				inFlight.Add(-1)
				served.Add(1)
				return gatewaytest.Reply{Body: gatewaytest.ChatSSE(
					[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
					[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":`+strconv.FormatInt(tt.input, 10)+`,"completion_tokens":5}}`))}
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
			secret, k := kernel.NewKey("team-a")
			k.Budget = tt.budget
			keys.CreateKey(context.Background(), k)
			auth, _ := server.NewAuth(&server.AuthConfig{Keys: keys})
			gw := httptest.NewServer(auth.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse}))
			defer gw.Close()

			start := make(chan struct{})
			codes := make([]int, requests)
			bodies := make([]string, requests)
			var wg sync.WaitGroup
			for i := range requests {
				wg.Go(func() {
					<-start
					req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(`{"model":"gpt","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`))
					req.Header.Set("Authorization", "Bearer "+secret)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					codes[i], bodies[i] = resp.StatusCode, string(b)
				})
			}
			close(start)
			wg.Wait()

			ok := 0
			for i, code := range codes {
				switch {
				case code == 200:
					ok++
				case code == 429 && strings.Contains(bodies[i], `"type":"budget_exceeded"`):
				default:
					t.Errorf("request %d: %d %s", i, code, bodies[i])
				}
			}
			// The budget in tokens: a dollar is 100 tokens at a cent.
			budget := tt.budget.Tokens
			if tt.budget.USD > 0 {
				budget = int64(tt.budget.USD * 100)
			}
			total := served.Load() * used
			t.Logf("%d answered, %d refused; %d tokens used of %d; at most %d at the backend at once", ok, requests-ok, total, budget, maxInFlight.Load())
			if int64(ok) != served.Load() || ok == 0 || ok == requests {
				t.Fatalf("%d answered, %d reached the backend: want some of %d, each answered", ok, served.Load(), requests)
			}
			if maxInFlight.Load() < 2 {
				t.Fatalf("at most %d request at the backend at once: the requests did not race", maxInFlight.Load())
			}
			// A request is admitted only when its reservation fits beside
			// those of the requests in flight (admitted, not yet settled),
			// so at most budget/reserved are ever in flight at once.
			flying := budget / reserved
			over := total - budget
			if slack := flying * max(used-reserved, 0); over > slack {
				t.Errorf("%d tokens used of a budget of %d: over by %d, more than the %d the %d requests in flight used beyond their reservations", total, budget, over, slack, flying)
			}
			if over > flying*reserved {
				t.Errorf("over by %d, more than the reservations of %d requests in flight (%d)", over, flying, flying*reserved)
			}
			if used <= reserved && over > 0 {
				t.Errorf("usage within each bound, yet the budget was passed by %d", over)
			}
		})
	}
}

// countingKeys is a key store that counts its lookups by hash.
type countingKeys struct {
	*kernel.MemoryKeyStore
	lookups atomic.Int64
}

func (c *countingKeys) KeyByHash(ctx context.Context, h [sha256.Size]byte) (*kernel.Key, error) {
	c.lookups.Add(1)
	return c.MemoryKeyStore.KeyByHash(ctx, h)
}

// TestMalformedKeySamePath: a key in the wrong form — not "tg-" and 43
// base64url characters — is refused on the same path as a wrong key in
// the right form, so that its answer's time says nothing of the form:
// each is looked up once by its hash in the key store, and all get the
// same 401, byte for byte and header for header. (Structural, not timed:
// wall-clock comparisons on a shared machine prove nothing.)
func TestMalformedKeySamePath(t *testing.T) {
	keys := &countingKeys{MemoryKeyStore: kernel.NewMemoryKeyStore()}
	good, k := kernel.NewKey("team-a")
	keys.CreateKey(context.Background(), k)
	back := gatewaytest.NewBackend()
	bs := httptest.NewServer(back)
	defer bs.Close()
	h, err := gateway.New(&gateway.Config{
		Providers: []gateway.Provider{{Name: "local", API: gateway.APIChat, BaseURL: bs.URL + "/v1", Model: "m", Compat: true}},
		Models:    map[string]string{"gpt": "local"},
	})
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := server.NewAuth(&server.AuthConfig{Keys: keys})
	gw := httptest.NewServer(auth.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse}))
	defer gw.Close()
	wrong, _ := kernel.NewKey("nobody") // the right form, in no store
	tests := []struct{ name, key string }{
		{"valid_form", wrong},
		{"one_char", "x"},
		{"ten_kilobytes", strings.Repeat("tg-A", 10<<10/4)},
		{"prefix_only", "tg-"},
		{"short_by_one", good[:len(good)-1]},
		{"long_by_one", good + "A"},
		{"not_base64url", "tg-" + strings.Repeat("*", len(good)-3)},
		{"other_vendor", "sk-proj-" + strings.Repeat("a", 40)},
	}
	type answer struct {
		Status int
		Header http.Header
		Body   string
	}
	var first *answer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := keys.lookups.Load()
			req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(`{"model":"gpt","messages":[{"role":"user","content":"hi"}]}`))
			req.Header.Set("Authorization", "Bearer "+tt.key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Header.Del("Date")
			got := &answer{resp.StatusCode, resp.Header, string(b)}
			if n := keys.lookups.Load() - before; n != 1 {
				t.Errorf("%d lookups in the key store, want 1, as for any key", n)
			}
			if got.Status != 401 || (len(tt.key) > 3 && strings.Contains(got.Body, tt.key)) {
				t.Errorf("%d %s", got.Status, got.Body)
			}
			if first == nil {
				first = got
				return
			}
			if diff := cmp.Diff(first, got); diff != "" {
				t.Errorf("answer differs from a wrong key in the right form (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(back.Requests()); n != 0 {
		t.Errorf("%d requests reached the backend", n)
	}
}
