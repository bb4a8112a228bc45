// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ErrShutdown is the cause with which the server cancels the requests
// still running when the shutdown grace period ends (or at once on
// [Server.Close]). A streaming handler that sees it in
// context.Cause(r.Context()) ends its stream with its API's error event.
var ErrShutdown = errors.New("server: shutting down")

// Defaults for the [Config] fields left zero.
const (
	DefaultAddr              = "127.0.0.1:8686"
	DefaultReadTimeout       = 30 * time.Second
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultMaxConnections    = 1024
	DefaultShutdownTimeout   = 10 * time.Second
	// closeGrace is how long handlers get to write their last event
	// once their requests are cancelled.
	closeGrace = 2 * time.Second
)

// Route is one handler on the server's mux, with what it takes to reach
// it.
type Route struct {
	// Pattern is an [http.ServeMux] pattern: "/mcp", "POST /generate",
	// "/v1/".
	Pattern string
	// Handler serves the route. It reads the caller with
	// [PrincipalFrom].
	Handler http.Handler
	RouteAuth
}

// Config configures [New]. New copies it.
type Config struct {
	// Addr is where [Server.Run] listens. If empty, [DefaultAddr].
	Addr string
	// Auth authenticates every route. If nil, one that knows no token:
	// only Public and Optional routes can be reached.
	Auth *Auth
	// Routes are mounted in order on one ServeMux. /healthz is added
	// unless a route has that pattern.
	Routes []Route
	// Healthy, if set, is asked by GET /healthz: an error answers 503.
	Healthy func() error
	// Gatherer, if set, is served at GET /metrics in the Prometheus text
	// format.
	Gatherer prometheus.Gatherer
	// ReadTimeout is how long a request, headers and body, may take to
	// arrive; it does not bound the response. If zero,
	// [DefaultReadTimeout]; negative, none. ReadHeaderTimeout likewise,
	// [DefaultReadHeaderTimeout].
	ReadTimeout, ReadHeaderTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections. If zero,
	// [DefaultIdleTimeout]; negative, never.
	IdleTimeout time.Duration
	// MaxConnections bounds the connections held at once; more wait in
	// the listener's backlog. If zero, [DefaultMaxConnections];
	// negative, none.
	MaxConnections int
	// ShutdownTimeout is how long running requests get to finish once
	// shutdown begins. If zero, [DefaultShutdownTimeout].
	ShutdownTimeout time.Duration
	// OnShutdown are called, each in its own goroutine, when shutdown
	// begins, with a context that ends with the grace period: the MCP
	// server waits there for its running calls, then closes its
	// sessions' standing streams. Shutdown waits for them.
	OnShutdown []func(context.Context)
	// DebugAddr, if set, is a loopback address where Run also serves
	// net/http/pprof, without authentication: keep it on loopback.
	DebugAddr string
	// Logger receives the server's own problems. If nil, none.
	Logger *slog.Logger
}

// Server is the process edge. Create it with [New]; [Server.Run] serves.
type Server struct {
	// fixed at creation
	cfg  Config
	log  *slog.Logger
	mux  *http.ServeMux
	rts  *routes // serves through mux
	hs   *http.Server
	base context.Context
	stop context.CancelCauseFunc // cancels every request with ErrShutdown

	mu       sync.Mutex
	ln       net.Listener
	draining bool
	done     chan struct{} // closed when Serve has returned
	finished chan struct{} // closed when Run has returned
	once     sync.Once
}

// New returns a server for cfg, its routes mounted.
func New(cfg *Config) (*Server, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	s := &Server{cfg: *cfg, mux: http.NewServeMux(), done: make(chan struct{}), finished: make(chan struct{})}
	s.rts = &routes{mux: s.mux}
	s.cfg.Routes = append([]Route(nil), cfg.Routes...)
	s.cfg.OnShutdown = append([]func(context.Context){}, cfg.OnShutdown...)
	if s.cfg.Auth == nil {
		a, err := NewAuth(nil)
		if err != nil {
			return nil, err
		}
		s.cfg.Auth = a
	}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	health := true
	for _, rt := range s.cfg.Routes {
		if rt.Pattern == "" || rt.Handler == nil {
			return nil, fmt.Errorf("%w: a route needs a pattern and a handler", ErrInvalidConfig)
		}
		if rt.Pattern == "GET /healthz" || rt.Pattern == "/healthz" {
			health = false
		}
		if err := s.rts.handle(rt.Pattern, s.cfg.Auth.Require(rt.Handler, rt.RouteAuth)); err != nil {
			return nil, err
		}
	}
	if health {
		s.mux.HandleFunc("GET /healthz", s.healthz)
	}
	if s.cfg.Gatherer != nil {
		s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.cfg.Gatherer, promhttp.HandlerOpts{}))
	}
	s.base, s.stop = context.WithCancelCause(context.Background())
	s.hs = &http.Server{
		Handler:           s.rts,
		ReadTimeout:       limit(s.cfg.ReadTimeout, DefaultReadTimeout),
		ReadHeaderTimeout: limit(s.cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		IdleTimeout:       limit(s.cfg.IdleTimeout, DefaultIdleTimeout),
		BaseContext:       func(net.Listener) context.Context { return s.base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	if s.hs.IdleTimeout == 0 {
		// http.Server reads zero as "ReadTimeout's"; negative is none.
		s.hs.IdleTimeout = -1
	}
	return s, nil
}

// mount registers h at pattern, turning the mux's panic on a bad or
// conflicting pattern into an error.
func mount(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: route %q: %v", ErrInvalidConfig, pattern, r)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	switch {
	case draining:
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
	case s.cfg.Healthy != nil && s.cfg.Healthy() != nil:
		http.Error(w, "unhealthy", http.StatusServiceUnavailable)
	default:
		io.WriteString(w, "ok\n")
	}
}

// Handler returns the server's routes (its mux), every route behind its
// authentication: for tests, and for programs that run their own
// http.Server.
func (s *Server) Handler() http.Handler { return s.rts }

// Listen opens the listener of [Config.Addr] (bounded by
// MaxConnections) without serving yet, so that a caller can print the
// address before [Server.Run]. Run calls it when it was not called.
func (s *Server) Listen() (net.Addr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return s.ln.Addr(), nil
	}
	addr := s.cfg.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen: %w", err)
	}
	s.ln = LimitListener(ln, limit(s.cfg.MaxConnections, DefaultMaxConnections))
	return s.ln.Addr(), nil
}

// Run serves until ctx is done, then shuts down gracefully: it stops
// accepting, lets running requests finish within ShutdownTimeout, then
// cancels those still running with [ErrShutdown] and gives them a moment
// to write their last event. It returns nil after a shutdown, or the
// error that stopped the listener.
func (s *Server) Run(ctx context.Context) error {
	defer s.once.Do(func() { close(s.finished) })
	if _, err := s.Listen(); err != nil {
		return err
	}
	if s.cfg.DebugAddr != "" {
		stop, err := s.serveDebug()
		if err != nil {
			return err
		}
		defer stop()
	}
	s.mu.Lock()
	ln := s.ln
	s.mu.Unlock()
	errc := make(chan error, 1)
	go func() {
		defer close(s.done)
		if err := s.hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	select {
	case <-ctx.Done():
	case err := <-errc:
		s.stop(ErrShutdown)
		return fmt.Errorf("server: %w", err)
	}
	s.shutdown()
	<-s.done
	return nil
}

// shutdown drains the server; see [Server.Run].
func (s *Server) shutdown() {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	grace := s.cfg.ShutdownTimeout
	if grace <= 0 {
		grace = DefaultShutdownTimeout
	}
	// The grace period ends early when Close cancels the base context.
	gctx, cancel := context.WithTimeout(s.base, grace)
	defer cancel()
	var hooks sync.WaitGroup
	for _, f := range s.cfg.OnShutdown {
		hooks.Go(func() { f(gctx) })
	}
	if err := s.hs.Shutdown(gctx); err != nil {
		// Requests still running: cancel them, so that each stream ends
		// with its API's error event, and give them a moment to write it.
		s.stop(ErrShutdown)
		cctx, ccancel := context.WithTimeout(context.Background(), closeGrace)
		if s.hs.Shutdown(cctx) != nil {
			s.log.Warn("requests still running after shutdown; closing their connections")
			s.hs.Close()
		}
		ccancel()
	}
	s.stop(ErrShutdown)
	hooks.Wait()
}

// Close ends the grace period at once: every running request is
// cancelled with [ErrShutdown] and [Server.Run] returns once they have
// written their last event (at most a couple of seconds). toolgate serve
// calls it on a second SIGTERM.
func (s *Server) Close() {
	s.stop(ErrShutdown)
}

// Done is closed when Run has returned.
func (s *Server) Done() <-chan struct{} { return s.finished }

// Draining reports whether shutdown has begun.
func (s *Server) Draining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

// serveDebug serves net/http/pprof at DebugAddr until stop is called.
func (s *Server) serveDebug() (stop func(), err error) {
	ln, err := net.Listen("tcp", s.cfg.DebugAddr)
	if err != nil {
		return nil, fmt.Errorf("server: debug listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: DefaultReadHeaderTimeout}
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("debug server stopped", "err", err)
		}
	}()
	return func() { hs.Close() }, nil
}

// limit is v, d if v is zero, and zero (none) if v is negative.
func limit[T int | time.Duration](v, d T) T {
	switch {
	case v == 0:
		return d
	case v < 0:
		return 0
	}
	return v
}
