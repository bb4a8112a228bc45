// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/internal/demo"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/config"
	"github.com/toolgate/toolgate/mcpserver"
	"github.com/toolgate/toolgate/openapi"
	"github.com/toolgate/toolgate/source"
)

// defaultServeConfig is what `toolgate serve` runs without --config, and
// what --print-config prints: the built-in demo tracker, reads open to
// anyone, writes with a justification, deletes for the admin token.
const defaultServeConfig = `# toolgate serve configuration. Run: toolgate serve --config FILE
server:
  # Loopback only; another address exposes the tools to the network.
  addr: 127.0.0.1:8686
  path: /mcp
  # Browser origins allowed to call the server (none by default).
  allowed_origins: []
  max_request_bytes: 1048576

audit:
  # SQLite file; read it with: toolgate audit list --db FILE
  db: ./toolgate-audit.db

principals:
  - id: anonymous
    roles: [reader, writer]
  - id: local
    roles: [reader, writer]
  - id: admin
    roles: [reader, writer, admin]

auth:
  # HTTP requests without a bearer token run as this principal; remove the
  # line to require a token.
  anonymous: anonymous
  # stdio connections run as this principal.
  local: local
  tokens:
    # The token is read from the variable; when it is unset a random one is
    # made and printed at start-up.
    - principal: admin
      token_env: TOOLGATE_ADMIN_TOKEN
      generate: true

policy:
  # WRITE and DESTRUCTIVE calls need a justification this long: send it as
  # the _justification argument.
  min_justification: 15
  rules: []

# Calls per principal and tool per window, by safety class.
limits:
  read: 60
  write: 10
  destructive: 2
  window: 1m

sources:
  # The built-in task tracker: a REST API running in-process, exposed
  # through its OpenAPI spec.
  - name: tasks
    demo: {}
  # An OpenAPI spec:
  # - name: petstore
  #   openapi:
  #     spec: ./petstore.yaml
  #     server: https://petstore.example.com/v1
  #     auth:
  #       bearer_token_env: PETSTORE_TOKEN
  # A local command as a tool:
  # - name: disk
  #   command:
  #     description: Disk usage of a directory
  #     input_schema: {type: object, properties: {dir: {type: string}}, required: [dir]}
  #     safety: READ
  #     argv: [du, -sh, --, "{dir}"]
  #     # output: mcp  reads stdout as an MCP CallToolResult, for images and resources
  # Another MCP server, its tools served as files_<name>:
  # - name: files
  #   mcp:
  #     command: [npx, -y, "@modelcontextprotocol/server-filesystem", /tmp]
  # - name: remote
  #   mcp:
  #     url: https://mcp.example.com/mcp
  #     bearer_token_env: REMOTE_MCP_TOKEN
`

// serveConfig is the YAML config of `toolgate serve`: the kernel's file
// (kernel/config), whose server, auth and non-command sources are read
// here.
type serveConfig struct {
	file    *config.File
	Server  serverSection
	Auth    authSection
	Sources []sourceConfig // the kinds the kernel leaves to serve
}

type serverSection struct {
	Addr            string   `yaml:"addr"`
	Path            string   `yaml:"path"`
	AllowedOrigins  []string `yaml:"allowed_origins"`
	MaxRequestBytes int64    `yaml:"max_request_bytes"`
	ShutdownTimeout string   `yaml:"shutdown_timeout"`
}

type authSection struct {
	Anonymous string         `yaml:"anonymous"`
	Local     string         `yaml:"local"`
	Tokens    []tokenSection `yaml:"tokens"`
}

type tokenSection struct {
	Principal string `yaml:"principal"`
	Token     string `yaml:"token"`
	TokenEnv  string `yaml:"token_env"`
	Generate  bool   `yaml:"generate"`
}

// sourceConfig is a demo, openapi or mcp source.
type sourceConfig struct {
	Name    string
	Demo    *struct{}
	OpenAPI *openapiSource
	MCP     *mcpSource
	line    int
}

type openapiSource struct {
	Spec         string   `yaml:"spec"`
	Server       string   `yaml:"server"`
	AllowPrivate bool     `yaml:"allow_private"`
	Tags         []string `yaml:"tags"`
	Operations   []string `yaml:"operations"`
	Timeout      string   `yaml:"timeout"`
	Auth         struct {
		BearerTokenEnv  string `yaml:"bearer_token_env"`
		APIKeyEnv       string `yaml:"api_key_env"`
		UsernameEnv     string `yaml:"username_env"`
		PasswordEnv     string `yaml:"password_env"`
		ClientIDEnv     string `yaml:"client_id_env"`
		ClientSecretEnv string `yaml:"client_secret_env"`
	} `yaml:"auth"`
}

type mcpSource struct {
	Command        []string `yaml:"command"`
	Env            []string `yaml:"env"`
	Dir            string   `yaml:"dir"`
	URL            string   `yaml:"url"`
	BearerTokenEnv string   `yaml:"bearer_token_env"`
	Prefix         string   `yaml:"prefix"`
}

// parseServeConfig reads a config through kernel/config, then the parts
// only serve reads. Unknown keys are errors; errors name the file and line.
func parseServeConfig(data []byte, name string) (*serveConfig, error) {
	f, err := config.Parse(data, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, strings.TrimPrefix(err.Error(), config.ErrInvalid.Error()+": "))
	}
	cfg := &serveConfig{file: f}
	if err := decodeStrict(&f.Server, &cfg.Server, name); err != nil {
		return nil, err
	}
	if err := decodeStrict(&f.Auth, &cfg.Auth, name); err != nil {
		return nil, err
	}
	if _, err := duration(cfg.Server.ShutdownTimeout, 0); err != nil {
		return nil, fmt.Errorf("%w: %s:%d: server.shutdown_timeout: %v", ErrUsage, name, f.Server.Line, err)
	}
	for i := range f.Sources {
		s := &f.Sources[i]
		src := sourceConfig{Name: s.Name}
		switch {
		case s.Demo.Kind != 0:
			src.Demo, src.line = &struct{}{}, s.Demo.Line
			if err := decodeStrict(&s.Demo, src.Demo, name); err != nil {
				return nil, err
			}
		case s.OpenAPI.Kind != 0:
			src.OpenAPI, src.line = &openapiSource{}, s.OpenAPI.Line
			if err := decodeStrict(&s.OpenAPI, src.OpenAPI, name); err != nil {
				return nil, err
			}
			if src.OpenAPI.Spec == "" {
				return nil, fmt.Errorf("%w: %s:%d: source %q: openapi.spec is required", ErrUsage, name, src.line, s.Name)
			}
		case s.MCP.Kind != 0:
			src.MCP, src.line = &mcpSource{}, s.MCP.Line
			if err := decodeStrict(&s.MCP, src.MCP, name); err != nil {
				return nil, err
			}
			if (len(src.MCP.Command) == 0) == (src.MCP.URL == "") {
				return nil, fmt.Errorf("%w: %s:%d: source %q: mcp needs exactly one of command and url", ErrUsage, name, src.line, s.Name)
			}
		default:
			continue
		}
		cfg.Sources = append(cfg.Sources, src)
	}
	ids := map[string]bool{}
	for _, p := range f.Principals {
		ids[p.ID] = true
	}
	known := func(id string) bool { return len(f.Principals) == 0 || ids[id] }
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrUsage, name, f.Auth.Line, fmt.Sprintf(format, args...))
	}
	if a := cfg.Auth.Anonymous; a != "" && !known(a) {
		return nil, bad("auth.anonymous names %q, which is not in principals", a)
	}
	if l := cfg.Auth.Local; l != "" && !known(l) {
		return nil, bad("auth.local names %q, which is not in principals", l)
	}
	for _, t := range cfg.Auth.Tokens {
		if t.Principal == "" || !known(t.Principal) {
			return nil, bad("a token names principal %q, which is not in principals", t.Principal)
		}
		if t.Token == "" && t.TokenEnv == "" {
			return nil, bad("the token of %q needs token or token_env", t.Principal)
		}
	}
	return cfg, nil
}

// decodeStrict decodes n into v, refusing keys v has no field for, as
// the kernel's parser does for the rest of the file.
func decodeStrict(n *yaml.Node, v any, name string) error {
	if n.Kind == 0 {
		return nil
	}
	if err := checkKeys(n, reflect.TypeOf(v)); err != nil {
		return fmt.Errorf("%w: %s:%v", ErrUsage, name, err)
	}
	if err := n.Decode(v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUsage, name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return nil
}

// checkKeys reports the first mapping key in n that t (a struct, or a
// pointer, slice or map of one) has no yaml field for.
func checkKeys(n *yaml.Node, t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			if err := checkKeys(c, t); err != nil {
				return err
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			var field *reflect.StructField
			for j := 0; j < t.NumField(); j++ {
				if f := t.Field(j); strings.Split(f.Tag.Get("yaml"), ",")[0] == key {
					field = &f
					break
				}
			}
			if field == nil {
				return fmt.Errorf("%d: field %s not found", n.Content[i].Line, key)
			}
			if err := checkKeys(n.Content[i+1], field.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

func duration(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	return time.ParseDuration(s)
}

// tuneGC applies mcpserver's garbage collector settings unless the user
// set GOGC or GOMEMLIMIT: the server's live heap is small and the SDK's
// per-message garbage large, so collecting less often doubles throughput.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpserver.GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(mcpserver.MemoryLimit)
	}
}

func runServe(e *env, args []string) error {
	fs := newFlags(e, "serve", "[--config FILE] [--stdio] [--addr HOST:PORT] [--print-config]",
		"Serve tools over MCP, every call through the kernel: streamable HTTP at http://ADDR/mcp\n"+
			"by default, stdio with --stdio. Without --config it serves the built-in demo task\n"+
			"tracker. /healthz and /metrics (Prometheus) are served beside /mcp.")
	configPath := fs.String("config", "", "the YAML config `FILE`; without it, the built-in demo")
	stdio := fs.Bool("stdio", false, "serve one client on stdin/stdout instead of HTTP")
	addr := fs.String("addr", "", "listen on `HOST:PORT` instead of the config's address")
	printConfig := fs.Bool("print-config", false, "print the config in effect (the demo's without --config) and exit")
	dbPath := fs.String("db", "", "the audit log SQLite `FILE` instead of the config's")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	data, name := []byte(defaultServeConfig), "builtin:demo-config"
	if *configPath != "" {
		var err error
		data, name, err = readInput(e, *configPath)
		if err != nil {
			return err
		}
	}
	if *printConfig {
		_, err := e.stdout.Write(data)
		return err
	}
	cfg, err := parseServeConfig(data, name)
	if err != nil {
		return err
	}
	tuneGC()
	if *addr != "" {
		cfg.Server.Addr = *addr
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, cfg, *stdio, *dbPath, log, e)
}

// served is what serve builds from a config: the kernel, the MCP server,
// and what must be closed afterwards.
type served struct {
	built   *config.Built
	srv     *mcpserver.Server
	closers []io.Closer
	tokens  map[string]string // principal -> generated token, to print
	reg     *prometheus.Registry
}

func (s *served) close(ctx context.Context) error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	if s.built != nil {
		errs = append(errs, s.built.Close(ctx))
	}
	return errors.Join(errs...)
}

// build turns cfg into a kernel and MCP server. A demo, openapi or mcp
// source that fails is logged and left out; the others are served.
func build(ctx context.Context, cfg *serveConfig, db string, log *slog.Logger, getenv func(string) string) (*served, error) {
	s := &served{tokens: map[string]string{}}
	ok := false
	defer func() {
		if !ok {
			s.close(ctx)
		}
	}()
	b, err := cfg.file.Build(ctx, &config.Options{Getenv: getenv, AuditDB: db})
	if err != nil {
		if errors.Is(err, config.ErrInvalid) {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		return nil, err
	}
	s.built = b
	k := b.Kernel
	for i := range cfg.Sources {
		src := &cfg.Sources[i]
		caps, closer, err := loadSource(ctx, src, getenv)
		if err != nil {
			log.Error("source not served", "source", src.Name, "line", src.line, "err", err)
			continue
		}
		if closer != nil {
			s.closers = append(s.closers, closer)
		}
		n := 0
		for _, c := range caps {
			if err := k.Registry().Add(c); err != nil {
				log.Warn("tool not served", "source", src.Name, "tool", c.Definition.Name, "err", err)
				continue
			}
			n++
		}
		log.Info("source ready", "source", src.Name, "tools", n)
	}

	mc := &mcpserver.Config{
		Kernel:          k,
		Name:            "toolgate",
		AllowedOrigins:  cfg.Server.AllowedOrigins,
		MaxRequestBytes: cfg.Server.MaxRequestBytes,
		Logger:          log,
		Tokens:          map[string]kernel.Principal{},
	}
	if cfg.Auth.Anonymous != "" {
		mc.Anonymous = &kernel.Principal{ID: cfg.Auth.Anonymous}
	}
	mc.Local.ID = cfg.Auth.Local
	for _, t := range cfg.Auth.Tokens {
		tok := t.Token
		if tok == "" {
			tok = getenv(t.TokenEnv)
		}
		if tok == "" && t.Generate {
			b := make([]byte, 24)
			rand.Read(b)
			tok = "tg_" + hex.EncodeToString(b)
			s.tokens[t.Principal] = tok
		}
		if tok == "" {
			log.Warn("token not set; its principal cannot connect over HTTP", "principal", t.Principal, "env", t.TokenEnv)
			continue
		}
		mc.Tokens[tok] = kernel.Principal{ID: t.Principal}
	}
	s.reg = prometheus.NewRegistry()
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := mcpserver.NewMetrics(s.reg)
	if err != nil {
		return nil, err
	}
	mc.Metrics = m
	srv, err := mcpserver.New(mc)
	if err != nil {
		return nil, err
	}
	s.srv = srv
	ok = true
	return s, nil
}

// loadSource returns the capabilities of one source and what to close
// when the server stops.
func loadSource(ctx context.Context, src *sourceConfig, getenv func(string) string) ([]kernel.Capability, io.Closer, error) {
	switch {
	case src.Demo != nil:
		src, err := source.NewDemo(ctx)
		if err != nil {
			return nil, nil, err
		}
		return src.Capabilities(), nil, nil
	case src.OpenAPI != nil:
		o := src.OpenAPI
		lc := &openapi.Config{Include: openapi.Filter{Tags: o.Tags, OperationIDs: o.Operations}}
		var api *openapi.API
		var err error
		switch {
		case o.Spec == demo.SpecLocation:
			api, err = openapi.Load(ctx, demo.Spec(), o.Spec, lc)
		case strings.HasPrefix(o.Spec, "https://") || strings.HasPrefix(o.Spec, "http://"):
			lc.AllowRemote = []string{o.Spec}
			lc.AllowPrivate = o.AllowPrivate
			api, err = openapi.LoadURL(ctx, o.Spec, lc)
		default:
			api, err = openapi.LoadFile(ctx, o.Spec, lc)
		}
		if err != nil {
			return nil, nil, err
		}
		timeout, err := duration(o.Timeout, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("timeout: %v", err)
		}
		a := o.Auth
		env := func(k string) string {
			if k == "" {
				return ""
			}
			return getenv(k)
		}
		creds := &openapi.Credentials{
			BearerToken: env(a.BearerTokenEnv), APIKey: env(a.APIKeyEnv),
			Username: env(a.UsernameEnv), Password: env(a.PasswordEnv),
			ClientID: env(a.ClientIDEnv), ClientSecret: env(a.ClientSecretEnv),
		}
		x, err := openapi.NewExecutor(api, &openapi.ExecConfig{
			SourceID: src.Name, Server: o.Server, AllowOtherServers: o.Server != "",
			AllowPrivate: o.AllowPrivate, Credentials: creds, Timeout: timeout,
		})
		if err != nil {
			return nil, nil, err
		}
		return source.NewOpenAPI(api, x).Capabilities(), nil, nil
	case src.MCP != nil:
		m := src.MCP
		uc := &source.MCPConfig{Justification: mcpserver.JustificationFromContext, Prefix: src.Name, Command: m.Command, Env: m.Env, Dir: m.Dir, URL: m.URL}
		if m.Prefix != "" {
			uc.Prefix = m.Prefix
		}
		if m.BearerTokenEnv != "" {
			uc.Header = http.Header{"Authorization": {"Bearer " + getenv(m.BearerTokenEnv)}}
		}
		up, err := source.ConnectMCP(ctx, uc)
		if err != nil {
			return nil, nil, err
		}
		return up.Capabilities(), up, nil
	}
	return nil, nil, errors.New("no source kind")
}

func serve(ctx context.Context, cfg *serveConfig, stdio bool, db string, log *slog.Logger, e *env) error {
	s, err := build(ctx, cfg, db, log, os.Getenv)
	if err != nil {
		return err
	}
	grace, err := duration(cfg.Server.ShutdownTimeout, 10*time.Second)
	if err != nil {
		s.close(ctx)
		return fmt.Errorf("%w: server.shutdown_timeout: %v", ErrUsage, err)
	}
	// shutdown lets running calls finish, within the grace period, then
	// flushes and closes the audit log.
	shutdown := func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer cancel()
		werr := s.srv.Shutdown(sctx)
		if werr != nil {
			log.Warn("shutting down with calls still running", "err", werr)
		}
		return s.close(sctx)
	}
	if stdio {
		log.Info("serving over stdio", "tools", len(s.srv.Tools()), "principal", cfg.Auth.Local)
		err := s.srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
		if cerr := shutdown(); err == nil || errors.Is(err, context.Canceled) {
			err = cerr
		}
		return err
	}

	addr := cfg.Server.Addr
	if addr == "" {
		addr = "127.0.0.1:8686"
	}
	path := cfg.Server.Path
	if path == "" {
		path = "/mcp"
	}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			log.Warn("listening beyond loopback: anyone who can reach this address can call the tools the anonymous principal may", "addr", addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.close(ctx)
		return fmt.Errorf("listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(path, s.srv.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if s.built.Audit != nil && s.built.Audit.Err() != nil {
			http.Error(w, "audit log failing", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	url := "http://" + ln.Addr().String() + path
	for p, tok := range s.tokens {
		fmt.Fprintf(e.stderr, "toolgate: bearer token for principal %q: %s\n", p, tok)
	}
	if db == "" {
		db = cfg.file.Audit.DB
	}
	if db != "" {
		fmt.Fprintf(e.stderr, "toolgate: audit log: %s\n", db)
	}
	// Last, so that whoever waits for this line has the rest.
	fmt.Fprintf(e.stderr, "toolgate: serving %d tools over MCP at %s\n", len(s.srv.Tools()), url)

	var wg sync.WaitGroup
	errc := make(chan error, 1)
	wg.Go(func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	})
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	// Stop accepting and wait for calls to finish; streams that outlive
	// the grace period are cut.
	serr := s.srv.Shutdown(sctx)
	// The calls' responses are written within moments; open streams
	// (a client's standalone GET) would hold Shutdown until the grace
	// period ends, so after a second the sessions are closed.
	hctx, hcancel := context.WithTimeout(sctx, time.Second)
	herr := hs.Shutdown(hctx)
	hcancel()
	if herr != nil {
		s.srv.CloseSessions()
		if hs.Shutdown(sctx) != nil {
			hs.Close()
		}
	}
	wg.Wait()
	if serr != nil {
		log.Warn("calls still running at shutdown", "err", serr)
	}
	if cerr := s.close(sctx); err == nil {
		err = cerr
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
