// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRoutesAsTheMux checks that routes answers every request as a
// ServeMux with the same patterns does, the first time (the mux) and
// the times after (from what it remembered): status, body (the
// pattern, path value and path the handler saw), Location and Allow.
func TestRoutesAsTheMux(t *testing.T) {
	patterns := []string{"/v1/", "POST /generate", "GET /healthz", "/items/{id}", "example.com/h/", "/exact", "/v1/models"}
	echo := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s pattern=%q id=%q method=%s path=%q", name, r.Pattern, r.PathValue("id"), r.Method, r.URL.Path)
		})
	}
	rs := &routes{mux: http.NewServeMux()}
	ref := http.NewServeMux()
	for _, p := range patterns {
		if err := rs.handle(p, echo(p)); err != nil {
			t.Fatal(err)
		}
		ref.Handle(p, echo(p))
	}
	reqs := []struct{ method, target, host string }{
		{"POST", "/v1/chat/completions", ""},
		{"GET", "/v1/chat/completions", ""},
		{"POST", "/v1/chat/completions", "other.example:8080"},
		{"POST", "/v1/models", ""},
		{"POST", "/v1", ""},
		{"POST", "/v1//chat/completions", ""},
		{"POST", "/v1/./chat", ""},
		{"POST", "/v1/../generate", ""},
		{"POST", "/v1/a%2Fb", ""},
		{"POST", "/v1/a%20b", ""},
		{"POST", "/v1/é", ""},
		{"POST", "/generate", ""},
		{"PUT", "/generate", ""},
		{"GET", "/healthz", ""},
		{"HEAD", "/healthz", ""},
		{"GET", "/items/7", ""},
		{"GET", "/items/8", ""},
		{"GET", "/h/x", "example.com"},
		{"GET", "/h/x", "example.com:443"},
		{"GET", "/h/x", ""},
		{"GET", "/exact", ""},
		{"GET", "/exact/", ""},
		{"GET", "/nope", ""},
		{"CONNECT", "/v1/x", ""},
		{"OPTIONS", "*", ""},
	}
	serve := func(h http.Handler, m, target, host string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(m, "http://example.org"+target, nil)
		if target == "*" {
			r = httptest.NewRequest(m, "*", nil)
		}
		if host != "" {
			r.Host = host
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for round := range 3 {
		for _, q := range reqs {
			got, want := serve(rs, q.method, q.target, q.host), serve(ref, q.method, q.target, q.host)
			if got.Code != want.Code || got.Body.String() != want.Body.String() ||
				got.Header().Get("Location") != want.Header().Get("Location") || got.Header().Get("Allow") != want.Header().Get("Allow") {
				t.Errorf("round %d, %s %s (host %q): routes %d %q (Location %q, Allow %q), mux %d %q (Location %q, Allow %q)", round, q.method, q.target, q.host,
					got.Code, got.Body.String(), got.Header().Get("Location"), got.Header().Get("Allow"),
					want.Code, want.Body.String(), want.Header().Get("Location"), want.Header().Get("Allow"))
			}
		}
	}
	m := rs.seen.Load()
	if m == nil || (*m)["/v1/chat/completions"].rm == nil || (*m)["/v1/chat/completions"].rm.pattern != "/v1/" {
		t.Fatalf("routes did not remember /v1/chat/completions: %v", m)
	}
	for _, p := range []string{"/items/7", "/v1", "/nope", "/v1/a%2Fb", "/v1/a/b"} {
		if _, ok := (*m)[p]; ok {
			t.Errorf("routes remembered %s", p)
		}
	}
}

// TestRoutesBounded checks that paths a client makes up do not grow
// what routes remembers past maxRouteHits.
func TestRoutesBounded(t *testing.T) {
	rs := &routes{mux: http.NewServeMux()}
	if err := rs.handle("/v1/", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})); err != nil {
		t.Fatal(err)
	}
	for i := range 10 * maxRouteHits {
		rs.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/v1/%d", i), nil))
		if n := len(*rs.seen.Load()); n > maxRouteHits {
			t.Fatalf("after %d paths routes remembers %d", i+1, n)
		}
	}
}
