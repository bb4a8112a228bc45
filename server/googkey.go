// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"net/http"
	"net/url"
	"strings"
)

// Google's APIs take their key in the key query parameter as well as in
// x-goog-api-key, and Google's clients (curl examples, Gemini CLI with
// some settings) use it. A key in a URL ends up in access logs and
// traces, so a route that takes [GoogAPIKey] reads it and then passes the
// request on with the parameter moved into the x-goog-api-key header:
// nothing downstream sees it in the URL.

// queryKey returns the key query parameter of r, "" when there is none.
func queryKey(r *http.Request) string {
	if !strings.Contains(r.URL.RawQuery, "key=") {
		return ""
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return ""
	}
	return q.Get("key")
}

// withoutQueryKey returns r with the key query parameter taken out of
// its URL and, unless r already has one, put in x-goog-api-key. r itself
// is not changed.
func withoutQueryKey(r *http.Request) *http.Request {
	if !strings.Contains(r.URL.RawQuery, "key=") {
		return r
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || !q.Has("key") {
		return r
	}
	key := q.Get("key")
	q.Del("key")
	r2 := r.Clone(r.Context())
	u := *r.URL
	u.RawQuery = q.Encode()
	r2.URL = &u
	r2.RequestURI = ""
	if r2.Header.Get("X-Goog-Api-Key") == "" {
		r2.Header.Set("X-Goog-Api-Key", key)
	}
	return r2
}
