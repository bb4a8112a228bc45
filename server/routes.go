// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// routes serves a request as its mux does, remembering for each path the
// route the mux chose, so that the next request to the same host,
// method and path goes there without the mux's lookup: its tree walk,
// path cleaning and trailing-slash check are code every request to the
// gateway ran, and at a few hundred requests a second each line of it
// comes from memory.
//
// A route is remembered only by the route itself, when the mux has
// handed it a request: so never for a redirect, a 404 or a 405, which
// call no route. It is remembered only for a pattern with no wildcard
// (a request it serves has no path values the mux would have set), a
// path the mux took as it was (no cleaning, no escapes) and a method
// other than CONNECT, which the mux matches differently. The mux must
// not change once requests come.
type routes struct {
	mux  *http.ServeMux
	mu   sync.Mutex // serializes writers of seen
	seen atomic.Pointer[map[string]routeHit]
}

// routeHit is the route a path went to, and the host and method it went
// there with: another host or method asks the mux again.
type routeHit struct {
	host, method string
	rm           *remembered
}

// maxRouteHits bounds what routes remembers: paths are the client's to
// choose, so when they fill it, it starts again.
const maxRouteHits = 64

func (rs *routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m := rs.seen.Load(); m != nil && r.URL.RawPath == "" {
		if hit, ok := (*m)[r.URL.Path]; ok && hit.host == r.Host && hit.method == r.Method && r.RequestURI != "*" {
			r.Pattern = hit.rm.pattern
			hit.rm.h.ServeHTTP(w, r)
			return
		}
	}
	rs.mux.ServeHTTP(w, r)
}

// handle registers h at pattern on the mux, wrapped so that it
// remembers the paths the mux hands it.
func (rs *routes) handle(pattern string, h http.Handler) error {
	if strings.Contains(pattern, "{") {
		return mount(rs.mux, pattern, h)
	}
	return mount(rs.mux, pattern, &remembered{rs: rs, pattern: pattern, h: h})
}

// remembered is a route that notes each path it is handed.
type remembered struct {
	rs      *routes
	pattern string
	h       http.Handler
}

func (rm *remembered) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// r.Pattern is rm's when the mux chose rm for r (under the Go 1.21
	// mux, which sets none, nothing is remembered). RawPath empty and an
	// escaped path equal to the path: the mux matched the path as it is.
	if r.Pattern == rm.pattern && r.Method != http.MethodConnect && r.URL.RawPath == "" {
		if m := rm.rs.seen.Load(); m == nil || (*m)[r.URL.Path].rm == nil {
			if r.URL.EscapedPath() == r.URL.Path {
				rm.rs.remember(r, rm)
			}
		}
	}
	rm.h.ServeHTTP(w, r)
}

// remember notes that r's host, method and path go to rm, unless the
// path is noted already: the first host and method a path came with
// keep it.
func (rs *routes) remember(r *http.Request, rm *remembered) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	old := rs.seen.Load()
	if old != nil {
		if _, ok := (*old)[r.URL.Path]; ok {
			return
		}
	}
	m := make(map[string]routeHit, maxRouteHits)
	if old != nil && len(*old) < maxRouteHits {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[r.URL.Path] = routeHit{host: r.Host, method: r.Method, rm: rm}
	rs.seen.Store(&m)
}
