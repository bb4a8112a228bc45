// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler returns the streamable HTTP handler for the server, to mount at
// the MCP endpoint ("/mcp"). Around the SDK's handler it checks, outermost
// first: the client address's failed authentications (429 with
// Retry-After once it has used up [AuthFailureBurst]), cross-origin
// browser requests (refused unless their origin is in AllowedOrigins), the
// bearer token (mapped to a principal; a request without one runs as
// Anonymous or gets 401, always with WWW-Authenticate), the body (size,
// strict JSON, a session id on all but initialize) and the session caps.
// Refusals are logged at debug and counted in toolgate_http_refused_total.
// The SDK adds its own DNS-rebinding check for loopback connections.
func (s *Server) Handler() http.Handler {
	// New applied the defaults. A negative body limit means none to the
	// SDK too; a session timeout of 0 is the SDK's "never".
	timeout := max(s.cfg.SessionTimeout, 0)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:                     s.log,
		SessionTimeout:             timeout,
		DisableLocalhostProtection: s.cfg.DisableLocalhostProtection,
		MaxRequestBodyBytes:        s.cfg.MaxRequestBytes,
	})
	h = s.envelope(s.sessions.wrap(h, s.principalOf))
	withToken := auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	var authed http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			withToken.ServeHTTP(w, r)
			return
		}
		if s.cfg.Anonymous == nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
	cop := s.cop
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	return s.guard(s.checkOrigin(cop.Handler(authed)))
}

// checkOrigin refuses a request whose Origin header names neither the
// request's own host nor an allowed origin, for any method: the MCP
// specification asks servers to validate Origin on every connection,
// GET streams included, which CrossOriginProtection leaves alone.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := r.Header.Get("Origin")
		if o != "" && o != "null" {
			host := strings.TrimPrefix(strings.TrimPrefix(o, "http://"), "https://")
			ok := host == r.Host
			for _, a := range s.cfg.AllowedOrigins {
				ok = ok || o == a
			}
			if !ok {
				http.Error(w, "origin not allowed", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// verify maps a bearer token to its principal. Tokens are compared in
// constant time so that response timing does not reveal a prefix.
func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	for tok, p := range s.cfg.Tokens {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(token)) == 1 {
			return tokenInfo(p), nil
		}
	}
	return nil, auth.ErrInvalidToken
}

// Mux returns a mux serving the MCP endpoint at path ([Server.Handler]),
// GET /healthz ("ok", or 503 while healthy returns an error; healthy may
// be nil) and, when g is not nil, GET /metrics from g in the Prometheus
// text format.
func (s *Server) Mux(path string, healthy func() error, g prometheus.Gatherer) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(path, s.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if healthy != nil && healthy() != nil {
			http.Error(w, "unhealthy", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	if g != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	}
	return mux
}
