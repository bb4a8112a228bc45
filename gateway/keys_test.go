// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
