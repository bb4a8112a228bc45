// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package admin_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/server/admin"
)

// An operator's token makes a key for a team through the API; the
// answer holds the secret, once.
func Example() {
	keys := kernel.NewMemoryKeyStore()
	h, _ := admin.New(&admin.Config{Keys: keys})
	auth, _ := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"ops-token": {ID: "ops", Roles: []string{"admin"}}}})
	edge, _ := server.New(&server.Config{Auth: auth, Routes: []server.Route{h.Route()}})
	hs := httptest.NewServer(edge.Handler())
	defer hs.Close()

	req, _ := http.NewRequest("POST", hs.URL+"/admin/v1/keys", strings.NewReader(`{"principal":"team-a","models":["gpt*"],"budget":{"usd":20,"period":"30d"}}`))
	req.Header.Set("Authorization", "Bearer ops-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	all, _ := keys.Keys(req.Context())
	fmt.Println(resp.StatusCode, strings.HasPrefix(string(b), `{"key":"tg-`), len(all), all[0].Principal, all[0].Budget.USD)
	// Output: 201 true 1 team-a 20
}
