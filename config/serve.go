// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/mcpserver"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/server/admin"
	"github.com/toolgate/toolgate/server/console"
	"github.com/toolgate/toolgate/server/telemetry"
)

// Serving is everything `toolgate serve` runs, built from a File by
// [File.BuildServing]: the kernel and its sources, the MCP server, the
// model gateway, the web console, their metrics and traces, and the
// process edge that authenticates every request and mounts them all on
// one mux. Run it with [Serving.Run], or serve MCP over stdio with
// MCP.Run and Close it.
type Serving struct {
	// Built are the kernel, sources and stores; Close closes them.
	Built *Built
	// Server is the process edge, its routes mounted.
	Server *server.Server
	// MCP serves the tools; mounted at server.path.
	MCP *mcpserver.Server
	// Gateway fronts the providers; nil without providers.
	Gateway *gateway.Handler
	// Console is the web console; nil without server.ui.
	Console *console.Console
	// Registry holds every metric served at /metrics.
	Registry *prometheus.Registry
	// Notices are what the server tells its operator at start: the audit
	// log it writes (or that calls are not recorded), and who can reach
	// what when that is more than the loopback's token holders.
	Notices []Notice

	stopCheckpoints func()
	stopTracing     func(context.Context) error
	spend           *gateway.SpendRecorder
}

// Notice is a line for the operator.
type Notice struct {
	// Warn marks a notice that is a risk, not a fact.
	Warn bool
	Text string
}

// BuildServing builds f and everything serve runs around it (see
// [Serving]). opts are those of [File.Build], with two differences: a
// source that cannot be built is logged to opts.Logger and left out
// unless opts.SourceFailed says otherwise, and traces are exported as
// the telemetry section says unless opts.TracerProvider is set. The
// listener is not opened until Run (or Server.Listen).
func (f *File) BuildServing(ctx context.Context, opts *BuildOptions) (*Serving, error) {
	var o BuildOptions
	if opts != nil {
		o = *opts
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
		o.Logger = log
	}
	if o.SourceFailed == nil {
		o.SourceFailed = func(se *SourceError) error {
			if se.Tool != "" {
				log.Warn("tool not served", "source", se.Source, "tool", se.Tool, "err", se.Err)
			} else {
				log.Error("source not served", "source", se.Source, "line", se.Line, "err", se.Err)
			}
			return nil
		}
	}
	s := &Serving{Registry: prometheus.NewRegistry()}
	var feed *console.Feed
	if f.Server.UI {
		feed = console.NewFeed(0, 0)
		o.Observers = append(o.Observers[:len(o.Observers):len(o.Observers)], feed)
	}
	if t := f.Telemetry; t.OTLPEndpoint != "" && o.TracerProvider == nil {
		tp, stop, err := telemetry.New(ctx, telemetry.Config{Endpoint: t.OTLPEndpoint, ServiceName: t.ServiceName, SampleRatio: t.SampleRatio})
		if err != nil {
			return nil, err
		}
		o.TracerProvider, s.stopTracing = tp, stop
	}
	b, err := f.Build(ctx, &o)
	if err != nil {
		s.Close(ctx)
		return nil, err
	}
	s.Built = b
	if err := s.build(ctx, f, &o, feed); err != nil {
		s.Close(ctx)
		return nil, err
	}
	return s, nil
}

// build builds the servers over s.Built.
func (s *Serving) build(ctx context.Context, f *File, o *BuildOptions, feed *console.Feed) error {
	b, getenv := s.Built, o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	s.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var err error
	if b.MCP.Metrics, err = mcpserver.NewMetrics(s.Registry); err != nil {
		return err
	}
	b.MCP.Logger = o.Logger
	if s.MCP, err = mcpserver.New(b.MCP); err != nil {
		return err
	}
	ac := *b.Auth
	ac.Logger, ac.Registerer = o.Logger, s.Registry
	auth, err := server.NewAuth(&ac)
	if err != nil {
		return err
	}
	path := f.Server.Path
	if path == "" {
		path = DefaultPath
	}
	routes := []server.Route{{Pattern: path, Handler: s.MCP.Handler(), RouteAuth: server.RouteAuth{Accept: server.Bearer, Anonymous: true}}}
	if gc := b.Gateway; gc != nil {
		gc.Logger = o.Logger
		observers := o.Observers[:len(o.Observers):len(o.Observers)]
		if b.Spend != nil {
			prices := map[string]gateway.Price{}
			for name, p := range f.Pricing {
				prices[name] = gateway.Price(p)
			}
			if s.spend, err = gateway.NewSpendRecorder(&gateway.SpendConfig{Store: b.Spend, Prices: prices, Logger: o.Logger}); err != nil {
				return err
			}
			observers = append(observers, s.spend)
		}
		if len(observers) > 0 {
			gc.Observe = server.Fanout(observers).Observe
		}
		if gc.Metrics, err = gateway.NewMetrics(s.Registry); err != nil {
			return err
		}
		if s.Gateway, err = gateway.New(gc); err != nil {
			return err
		}
		// Two passes on a template that drops the continued block
		// would answer nonsense: refuse to start, naming the provider.
		if err := s.Gateway.Probe(ctx); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		// Browsers on other origins are refused unless allowed, as on
		// the MCP endpoint.
		cop := http.NewCrossOriginProtection()
		for _, o := range f.Server.AllowedOrigins {
			cop.AddTrustedOrigin(o) // checked by Check
		}
		ra := server.RouteAuth{Accept: server.Keys, Anonymous: f.Gateway.AllowAnonymous, Refuse: gateway.Refuse}
		gw := cop.Handler(s.Gateway)
		routes = append(routes, server.Route{Pattern: "/v1/", Handler: gw, RouteAuth: ra}, server.Route{Pattern: "POST /generate", Handler: gw, RouteAuth: ra},
			server.Route{Pattern: "/v1beta/", Handler: gw, RouteAuth: ra})
	}
	if f.Server.UI {
		cc := &console.Config{Kernel: b.Kernel, SourceOf: b.SourceOf, Feed: feed, Role: f.Server.UIRole, Auth: auth,
			Directory: func(id string) (kernel.Principal, bool) {
				p := f.principal(id)
				return p, len(p.Roles) > 0 || p.Attributes != nil
			}}
		switch {
		case b.Store != nil:
			cc.Audit = b.Store
		case b.Postgres != nil:
			cc.Audit = b.Postgres
		}
		if cc.Audit != nil {
			if cc.AuditKey, err = f.AuditKey(getenv); err != nil {
				return err
			}
		}
		if b.Spend != nil { // typed nils would read as stores
			cc.Spend = b.Spend
		}
		if b.Keys != nil {
			cc.Keys = b.Keys
		}
		if s.Console, err = console.New(cc); err != nil {
			return err
		}
		routes = append(append(routes, s.Console.Routes()...),
			server.Route{Pattern: "/ui", Handler: http.RedirectHandler("/ui/", http.StatusMovedPermanently), RouteAuth: server.RouteAuth{Public: true}})
	}
	if b.Keys != nil {
		ac := &admin.Config{Keys: b.Keys, Known: func(id string) bool {
			return id != "" && (len(f.Principals) == 0 || slices.ContainsFunc(f.Principals, func(p Principal) bool { return p.ID == id }))
		}}
		if b.Spend != nil {
			ac.Spend = b.Spend
		}
		ah, err := admin.New(ac)
		if err != nil {
			return err
		}
		routes = append(routes, ah.Route())
	}
	var healthy func() error // a failing audit log fails the health check
	if b.Audit != nil {
		healthy = b.Audit.Err
	}
	sv := &f.Server
	if s.Server, err = server.New(&server.Config{
		Addr: sv.Addr, Auth: auth, Routes: routes, Healthy: healthy, Gatherer: s.Registry, Logger: o.Logger,
		ReadTimeout: sv.ReadTimeout, IdleTimeout: sv.IdleTimeout, MaxConnections: sv.MaxConnections, ShutdownTimeout: sv.ShutdownTimeout,
		DebugAddr:  sv.DebugAddr,
		OnShutdown: []func(context.Context){s.MCP.ShutdownHTTP},
	}); err != nil {
		return err
	}
	if s.stopCheckpoints, err = startCheckpoints(f, b, getenv, o.Logger); err != nil {
		return err
	}
	s.Notices = f.notices(b, path)
	return nil
}

// notices says which audit log the server writes, and warns, naming the
// routes, when anonymous clients or other machines can reach anything.
func (f *File) notices(b *Built, path string) []Notice {
	var out []Notice
	switch {
	case b.AuditDB != "":
		out = append(out, Notice{Text: "audit log: SQLite " + b.AuditDB})
	case b.Postgres != nil:
		out = append(out, Notice{Text: "audit log: PostgreSQL (" + f.Audit.DSNEnv + ")"})
	default:
		out = append(out, Notice{Warn: true, Text: "calls are not recorded: the config has no audit section (add audit.db)"})
	}
	if a := f.Auth.Anonymous; a != "" {
		routes := path
		if len(f.Providers) > 0 && f.Gateway.AllowAnonymous {
			routes += ", /v1/ and /generate (spending the providers' keys)"
		}
		out = append(out, Notice{Warn: true, Text: fmt.Sprintf("clients without a token reach %s as principal %q", routes, a)})
	}
	addr := f.Server.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	if host, _, err := net.SplitHostPort(addr); err == nil && !loopbackHost(host) {
		routes := []string{path}
		if len(f.Providers) > 0 {
			routes = append(routes, "/v1/", "/generate")
		}
		if f.Server.UI {
			routes = append(routes, "/ui/")
		}
		routes = append(routes, "/metrics", "/healthz")
		out = append(out, Notice{Warn: true, Text: fmt.Sprintf("listening on %s beyond loopback without TLS: tokens cross the network in clear text to %s", addr, strings.Join(routes, ", "))})
	}
	return out
}

// Run serves until ctx is done, shuts the server down gracefully (see
// [server.Server.Run]) and closes everything. It returns nil after a
// shutdown.
func (s *Serving) Run(ctx context.Context) error {
	err := s.Server.Run(ctx)
	if cerr := s.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// Close stops the checkpoint loop with a last checkpoint, closes the
// sources and flushes the audit log, and stops the trace exporter. Call
// it once the servers have stopped; Run does.
func (s *Serving) Close(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	if s.stopCheckpoints != nil {
		s.stopCheckpoints()
		s.stopCheckpoints = nil
	}
	if s.spend != nil {
		errs = append(errs, s.spend.Close(ctx))
		s.spend = nil
	}
	if s.Gateway != nil {
		s.Gateway.Close() // the MCP servers requests named
	}
	if s.Built != nil {
		errs = append(errs, s.Built.Close(ctx))
		s.Built = nil
	}
	if s.stopTracing != nil {
		errs = append(errs, s.stopTracing(ctx))
		s.stopTracing = nil
	}
	return errors.Join(errs...)
}
