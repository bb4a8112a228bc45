// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fixedTexts holds every refusal's words; a fuzzed value found in them
// is not an echo.
const fixedTexts = "the Authorization header is not a bearer token\ninvalid API key\nthe console session has ended; log in again\n" +
	"this route takes a bearer token, x-api-key, x-goog-api-key, a console session, not \nauthentication required: send \n" +
	"too many failed authentications; try again later\n"

// FuzzIdentify sends any credentials, in any header, to routes taking
// each kind: a request is let in only as the one token's principal (or
// as anonymous when it carried nothing), never panics, and a refusal
// never echoes what was sent.
func FuzzIdentify(f *testing.F) {
	for _, seed := range [][4]string{
		{"Bearer agent-token", "", "", ""},
		{"bearer  agent-token ", "", "", ""},
		{"Basic YWdlbnQ6eA==", "", "", ""},
		{"", "agent-token", "", ""},
		{"", "", "agent-token", ""},
		{"", "", "", "deadbeef"},
		{"Bearer", "x", "y", "z"},
		{"Bearer \x00\xff", "\u2028", "", ";;="},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	a := testAuth(f, true, nil)
	routes := []RouteAuth{{Accept: Bearer, Anonymous: true}, {Accept: Keys}, {Accept: Cookie, Optional: true}}
	f.Fuzz(func(t *testing.T, authz, apiKey, googKey, cookie string) {
		for _, ra := range routes {
			var got *Identity
			h := a.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if id, ok := IdentityFrom(r.Context()); ok {
					got = &id
				}
			}), ra)
			req := httptest.NewRequest("GET", "/x", nil)
			req.RemoteAddr = "192.0.2.7:1" // the fuzzer's guesses slow only this address
			for k, v := range map[string]string{"Authorization": authz, "X-Api-Key": apiKey, "X-Goog-Api-Key": googKey} {
				if v != "" {
					req.Header[k] = []string{v}
				}
			}
			if cookie != "" {
				req.Header.Set("Cookie", DefaultCookieName+"="+cookie)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if got != nil && !got.Anonymous && got.Principal.ID != "agent" && got.Principal.ID != "admin" {
				t.Fatalf("let in as %+v", got)
			}
			if got != nil && got.Principal.ID == "agent" && !strings.Contains(authz+apiKey+googKey, "agent-token") {
				t.Fatalf("let in as agent without its token: %q %q %q", authz, apiKey, googKey)
			}
			if rec.Code != 200 {
				body := rec.Body.String()
				for _, v := range []string{authz, apiKey, googKey, cookie} {
					if len(v) > 3 && strings.Contains(body, v) && !strings.Contains(fixedTexts, v) {
						t.Fatalf("refusal %q echoes %q", body, v)
					}
				}
			}
		}
	})
}
