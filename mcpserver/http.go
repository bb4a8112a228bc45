// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"context"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/server"
)

// Handler returns the streamable HTTP handler for the server, to mount
// at the MCP endpoint ("/mcp") behind the server's authentication
// ([server.Auth.Require] taking bearer tokens): it reads the caller from
// the request's context ([server.IdentityFrom]) and refuses a request
// that has none with 401. Around the SDK's handler it checks, outermost
// first: cross-origin browser requests (refused unless their origin is
// in AllowedOrigins, for every method, as the MCP specification asks),
// the body (size, strict JSON, a session id on all but initialize) and
// the session caps. The SDK adds its own DNS-rebinding check for
// loopback connections, and binds each session to the principal that
// opened it.
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
	// The SDK learns the caller only from auth.RequireBearerToken's
	// TokenInfo; the token was checked already, so the verifier takes
	// the identity from the context, whatever the header says.
	withInfo := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		id, ok := server.IdentityFrom(r.Context())
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return tokenInfo(id), nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	identified := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := server.IdentityFrom(r.Context()); !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			// An anonymous caller: the middleware above needs a header
			// to hand the SDK its TokenInfo.
			r.Header.Set("Authorization", "Bearer anonymous")
		}
		withInfo.ServeHTTP(w, r)
	})
	cop := s.cop
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	return s.checkOrigin(cop.Handler(identified))
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

// ShutdownHTTP stops the server for [server.Config.OnShutdown]: it refuses
// new calls, waits for those running (or for ctx), then closes every
// session, and with them their standing GET streams, which would
// otherwise hold the HTTP server's shutdown for its whole grace period.
func (s *Server) ShutdownHTTP(ctx context.Context) {
	if err := s.Shutdown(ctx); err != nil {
		s.log.Warn("calls still running at shutdown", "err", err)
	}
	s.CloseSessions()
}
