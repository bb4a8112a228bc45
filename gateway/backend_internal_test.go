// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBackendRequest checks the request send makes from the URL parsed
// once and the provider's transport called directly: what the backend
// receives is what http.NewRequest and Client.Do sent, a URL's user and
// password as basic authentication included.
func TestBackendRequest(t *testing.T) {
	type seen struct {
		method, path, query, auth, ctype, accept, body string
		length                                         int64
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("Accept"), string(b), r.ContentLength}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	body := `{"model":"b","messages":[]}`
	for _, tc := range []struct {
		name, base, key string
		whole, direct   bool
		want            seen
	}{
		{"key", srv.URL + "/v1/", "sk-1", true, true, seen{"POST", "/v1/chat/completions", "", "Bearer sk-1", "application/json", "application/json", body, int64(len(body))}},
		{"stream", srv.URL + "/v1", "sk-1", false, true, seen{"POST", "/v1/chat/completions", "", "Bearer sk-1", "application/json", "text/event-stream", body, int64(len(body))}},
		{"userinfo", "http://u:p%40ss@" + host + "/v1", "", true, false, seen{"POST", "/v1/chat/completions", "", "Basic dTpwQHNz", "application/json", "application/json", body, int64(len(body))}},
		// A query in the base URL is the user's: the path is appended to
		// the string, as before.
		{"query", "http://" + host + "/v1?x=1", "sk-1", true, true, seen{"POST", "/v1", "x=1/chat/completions", "Bearer sk-1", "application/json", "application/json", body, int64(len(body))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := New(&Config{Providers: []Provider{{Name: "p", API: APIChat, BaseURL: tc.base, APIKey: tc.key, Model: "b"}}})
			if err != nil {
				t.Fatal(err)
			}
			p := h.providers["p"]
			if (p.rt != nil) != tc.direct {
				t.Errorf("transport called directly: %v, want %v", p.rt != nil, tc.direct)
			}
			resp, cancel, err := h.send(context.Background(), p, &Outbound{Body: []byte(body), whole: tc.whole})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			cancel()
			s := <-got
			if s != tc.want {
				t.Errorf("backend saw\n%+v\nwant\n%+v", s, tc.want)
			}
		})
	}
}

// TestBackendRequestBody checks that the body can be read again, as the
// transport does to resend a request on a kept-alive connection that
// turned out closed.
func TestBackendRequestBody(t *testing.T) {
	p := &Provider{Name: "p", API: APIChat, BaseURL: "http://127.0.0.1:1/v1"}
	parseEndpoints(p)
	req, err := backendRequest(context.Background(), p, &Outbound{Body: []byte("abc")})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b, _ := io.ReadAll(req.Body)
		if string(b) != "abc" || req.ContentLength != 3 {
			t.Fatalf("body %q, length %d", b, req.ContentLength)
		}
		if req.Body, err = req.GetBody(); err != nil {
			t.Fatal(err)
		}
	}
	if req.URL == p.urls[0] || req.URL.String() != "http://127.0.0.1:1/v1/chat/completions" || req.Host != "127.0.0.1:1" {
		t.Errorf("URL %v (shared: %v), host %q", req.URL, req.URL == p.urls[0], req.Host)
	}
	empty, err := backendRequest(context.Background(), p, &Outbound{})
	if err != nil || empty.Body != nil || empty.ContentLength != 0 {
		t.Errorf("empty body: %v, %v, %d", err, empty.Body, empty.ContentLength)
	}
}
