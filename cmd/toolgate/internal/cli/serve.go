// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/server/console"
	"github.com/toolgate/toolgate/server/telemetry"
	"github.com/toolgate/toolgate/mcpserver"
)

// defaultServeConfig is what `toolgate serve` runs without --config, and
// what --print-config prints: the built-in demo tracker, reads open to
// anyone, writes with a justification, deletes for the admin token.
//
//go:embed serve.yaml
var defaultServeConfig []byte

func runServe(e *env, args []string) error {
	fs := newFlags(e, "serve", "[--config FILE] [--stdio] [--addr HOST:PORT] [--print-config]",
		"Serve tools over MCP, every call through the kernel: streamable HTTP at http://ADDR/mcp\n"+
			"by default, stdio with --stdio. Without --config it serves the built-in demo task\n"+
			"tracker. /healthz and /metrics (Prometheus) are served beside /mcp. A config with\n"+
			"providers also serves the model gateway on the same listener: POST /v1/chat/completions,\n"+
			"/v1/responses and /v1/messages, and GET /v1/models.")
	configPath := fs.String("config", "", "the YAML config `FILE`; without it, the built-in demo")
	stdio := fs.Bool("stdio", false, "serve one client on stdin/stdout instead of HTTP")
	addr := fs.String("addr", "", "listen on `HOST:PORT` instead of the config's address")
	printConfig := fs.Bool("print-config", false, "print the config in effect (the demo's without --config) and exit")
	dbPath := fs.String("db", "", "the audit log SQLite `FILE` instead of the config's")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	data, name := defaultServeConfig, "builtin:demo-config"
	if *configPath != "" {
		var err error
		if data, name, err = readInput(e, *configPath); err != nil {
			return err
		}
	}
	f, err := config.Parse(data, name)
	if err != nil {
		return err
	}
	if *printConfig { // checked first, so what is printed would run
		_, err := e.stdout.Write(data)
		return err
	}
	if *addr != "" {
		f.Server.Addr = *addr
	}
	mcpserver.TuneGC(e.getenv)
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: f.Server.SlogLevel()}))
	s, err := build(e.ctx, f, &config.BuildOptions{Getenv: e.getenv, AuditDB: *dbPath, Logger: log})
	if err != nil {
		return err
	}
	if *stdio {
		log.Info("serving over stdio", "tools", len(s.srv.Tools()), "principal", f.Auth.Local)
		err := s.srv.Run(e.ctx, &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
		if cerr := s.shutdown(e.ctx, f.Server.ShutdownTimeout, nil); err == nil || errors.Is(err, context.Canceled) {
			err = cerr
		}
		return err
	}
	return s.serveHTTP(e, f)
}

// served is what serve runs: the parts config built and the MCP server.
type served struct {
	built *config.Built
	srv   *mcpserver.Server
	gw    *gateway.Handler // nil without providers
	ui    *console.Console // nil without server.ui
	reg   *prometheus.Registry
	log   *slog.Logger
	// stopCheckpoints ends the audit checkpoint loop with a last one.
	stopCheckpoints func()
	// stopTracing flushes and stops the span exporter; nil without one.
	stopTracing func(context.Context) error
}

// build builds f and an MCP server over its kernel. A source that cannot
// be built is logged and left out; the others are served.
func build(ctx context.Context, f *config.File, o *config.BuildOptions) (*served, error) {
	o.SourceFailed = func(se *config.SourceError) error {
		if se.Tool != "" {
			o.Logger.Warn("tool not served", "source", se.Source, "tool", se.Tool, "err", se.Err)
		} else {
			o.Logger.Error("source not served", "source", se.Source, "line", se.Line, "err", se.Err)
		}
		return nil
	}
	var feed *console.Feed
	if f.Server.UI {
		feed = console.NewFeed(0, 0)
		o.ObserveCalls = feed.ObserveCall
	}
	var stopTracing func(context.Context) error
	if t := f.Telemetry; t.OTLPEndpoint != "" {
		tp, stop, err := telemetry.New(ctx, telemetry.Config{Endpoint: t.OTLPEndpoint, ServiceName: t.ServiceName, SampleRatio: t.SampleRatio})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		o.TracerProvider, stopTracing = tp, stop
	}
	b, err := f.Build(ctx, o)
	if err != nil {
		if stopTracing != nil {
			stopTracing(ctx)
		}
		return nil, buildError(err)
	}
	for p, env := range b.UnsetTokens {
		o.Logger.Warn("token not set; its principal cannot connect over HTTP", "principal", p, "env", env)
	}
	s := &served{built: b, reg: prometheus.NewRegistry(), log: o.Logger, stopTracing: stopTracing}
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if b.MCP.Metrics, err = mcpserver.NewMetrics(s.reg); err == nil {
		s.srv, err = mcpserver.New(b.MCP)
	}
	if err == nil {
		s.ui, err = newConsole(f, b, feed, o.Getenv)
	}
	if gc := b.Gateway; err == nil && gc != nil {
		gc.Logger = o.Logger
		if feed != nil {
			gc.Observe = feed.ObserveRequest
		}
		if gc.Metrics, err = gateway.NewMetrics(s.reg); err == nil {
			s.gw, err = gateway.New(gc)
		}
		if err == nil {
			// Two passes on a template that drops the continued block
			// would answer nonsense: refuse to start, naming the provider.
			if perr := s.gw.Probe(ctx); perr != nil {
				b.Close(ctx)
				return nil, fmt.Errorf("%w: %w", config.ErrInvalid, perr)
			}
		}
	}
	if err != nil {
		b.Close(ctx)
		return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	if s.stopCheckpoints, err = startCheckpoints(f, b, o.Getenv, o.Logger); err != nil {
		b.Close(ctx)
		return nil, err
	}
	return s, nil
}

// shutdown lets running calls finish within the grace period, closes
// sessions and the HTTP server (if any), then the sources and audit log.
func (s *served) shutdown(ctx context.Context, grace time.Duration, hs *http.Server) error {
	grace = cmp.Or(grace, config.DefaultShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	serr := s.srv.Shutdown(sctx)
	if hs != nil {
		// Responses are written within moments; open streams (a client's
		// standalone GET) would hold Shutdown for the whole grace period,
		// so after a second the sessions are closed.
		hctx, hcancel := context.WithTimeout(sctx, time.Second)
		if hs.Shutdown(hctx) != nil {
			s.srv.CloseSessions()
			if hs.Shutdown(sctx) != nil {
				hs.Close()
			}
		}
		hcancel()
	}
	if serr != nil {
		s.log.Warn("calls still running at shutdown", "err", serr)
	}
	if s.stopCheckpoints != nil {
		s.stopCheckpoints()
	}
	err := s.built.Close(sctx)
	if s.stopTracing != nil {
		s.stopTracing(sctx)
	}
	return err
}

func (s *served) serveHTTP(e *env, f *config.File) error {
	addr, path := f.Server.Addr, f.Server.Path
	if addr == "" {
		addr = config.DefaultAddr
	}
	if path == "" {
		path = config.DefaultPath
	}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			s.log.Warn("listening beyond loopback: anyone who can reach this address can call the tools the anonymous principal may", "addr", addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.stopCheckpoints()
		s.built.Close(e.ctx)
		return fmt.Errorf("%w: listen: %w", ErrRuntime, err)
	}
	var healthy func() error // a failing audit log fails the health check
	if s.built.Audit != nil {
		healthy = s.built.Audit.Err
	}
	mux := s.srv.Mux(path, healthy, s.reg)
	if s.gw != nil {
		// The same origin rules as the MCP endpoint: browsers on other
		// origins are refused unless allowed.
		cop := http.NewCrossOriginProtection()
		for _, o := range f.Server.AllowedOrigins {
			cop.AddTrustedOrigin(o) // checked by config
		}
		gw := s.srv.Guard(cop.Handler(s.gw))
		mux.Handle("/v1/", gw)
		mux.Handle("POST /generate", gw)
		fmt.Fprintf(e.stderr, "toolgate: model gateway at http://%s/v1 (%d models)\n", ln.Addr(), len(s.gw.Models()))
	}
	if s.ui != nil {
		// Its own login (a session cookie), not the bearer guard.
		mux.Handle("/ui/", s.ui)
		mux.Handle("/ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently))
		fmt.Fprintf(e.stderr, "toolgate: console at http://%s/ui/\n", ln.Addr())
	}
	// Limits for the whole listener, the gateway's routes included.
	ln = mcpserver.LimitListener(ln, limit(f.Server.MaxConnections, config.DefaultMaxConnections))
	hs := mcpserver.NewHTTPServer(mux, &mcpserver.HTTPLimits{
		ReadTimeout:       limit(f.Server.ReadTimeout, config.DefaultReadTimeout),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       limit(f.Server.IdleTimeout, config.DefaultIdleTimeout),
	})
	if f.Server.DebugAddr != "" {
		stop, err := serveDebug(f.Server.DebugAddr, s.log)
		if err != nil {
			ln.Close()
			s.stopCheckpoints()
			s.built.Close(e.ctx)
			return err
		}
		defer stop()
		fmt.Fprintf(e.stderr, "toolgate: pprof at http://%s/debug/pprof/\n", f.Server.DebugAddr)
	}
	for p, tok := range s.built.GeneratedTokens {
		fmt.Fprintf(e.stderr, "toolgate: bearer token for principal %q: %s\n", p, tok)
	}
	if s.built.AuditDB != "" {
		fmt.Fprintf(e.stderr, "toolgate: audit log: %s\n", s.built.AuditDB)
	}
	// Last, so that whoever waits for this line has the rest.
	fmt.Fprintf(e.stderr, "toolgate: serving %d tools over MCP at http://%s%s\n", len(s.srv.Tools()), ln.Addr(), path)
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	wg.Go(func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("%w: %w", ErrRuntime, err)
		}
	})
	select {
	case <-e.ctx.Done():
		s.log.Info("shutting down")
	case err = <-errc:
	}
	serr := s.shutdown(e.ctx, f.Server.ShutdownTimeout, hs)
	wg.Wait()
	if err == nil {
		err = serr
	}
	return err
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

// serveDebug serves net/http/pprof at addr (config checked it is
// loopback) until stop is called.
func serveDebug(addr string, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: debug listener: %w", ErrRuntime, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Warn("debug server stopped", "err", err)
		}
	}()
	return func() { hs.Close() }, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
