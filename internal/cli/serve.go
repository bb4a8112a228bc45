// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
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
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/mcpserver"
	"github.com/toolgate/toolgate/openapi"
	"github.com/toolgate/toolgate/tool"
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
  # Another MCP server, its tools served as files_<name>:
  # - name: files
  #   mcp:
  #     command: [npx, -y, "@modelcontextprotocol/server-filesystem", /tmp]
  # - name: remote
  #   mcp:
  #     url: https://mcp.example.com/mcp
  #     bearer_token_env: REMOTE_MCP_TOKEN
`

// serveConfig is the YAML config of `toolgate serve`.
type serveConfig struct {
	Server struct {
		Addr            string   `yaml:"addr"`
		Path            string   `yaml:"path"`
		AllowedOrigins  []string `yaml:"allowed_origins"`
		MaxRequestBytes int64    `yaml:"max_request_bytes"`
		ShutdownTimeout string   `yaml:"shutdown_timeout"`
	} `yaml:"server"`
	Audit struct {
		DB string `yaml:"db"`
	} `yaml:"audit"`
	Principals []kernel.Principal `yaml:"principals"`
	Auth       struct {
		Anonymous string `yaml:"anonymous"`
		Local     string `yaml:"local"`
		Tokens    []struct {
			Principal string `yaml:"principal"`
			Token     string `yaml:"token"`
			TokenEnv  string `yaml:"token_env"`
			Generate  bool   `yaml:"generate"`
		} `yaml:"tokens"`
	} `yaml:"auth"`
	Policy struct {
		MinJustification int `yaml:"min_justification"`
		Rules            []struct {
			Name        string               `yaml:"name"`
			Tools       []string             `yaml:"tools"`
			Roles       []string             `yaml:"roles"`
			Attributes  map[string]string    `yaml:"attributes"`
			Safety      []kernel.Safety      `yaml:"safety"`
			Sensitivity []kernel.Sensitivity `yaml:"sensitivity"`
			When        string               `yaml:"when"`
			Effect      kernel.Effect        `yaml:"effect"`
			Reason      string               `yaml:"reason"`
		} `yaml:"rules"`
	} `yaml:"policy"`
	Limits struct {
		Read        int    `yaml:"read"`
		Write       int    `yaml:"write"`
		Destructive int    `yaml:"destructive"`
		Window      string `yaml:"window"`
	} `yaml:"limits"`
	Sources []sourceConfig `yaml:"sources"`
}

// sourceConfig is one entry of sources: exactly one of its kinds is set.
type sourceConfig struct {
	Name    string         `yaml:"name"`
	Demo    *struct{}      `yaml:"demo"`
	OpenAPI *openapiSource `yaml:"openapi"`
	Command *commandSource `yaml:"command"`
	MCP     *mcpSource     `yaml:"mcp"`
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

type commandSource struct {
	Description string        `yaml:"description"`
	InputSchema yaml.Node     `yaml:"input_schema"`
	Safety      kernel.Safety `yaml:"safety"`
	Argv        []string      `yaml:"argv"`
	Dir         string        `yaml:"dir"`
	Env         []string      `yaml:"env"`
	Timeout     string        `yaml:"timeout"`
}

type mcpSource struct {
	Command        []string `yaml:"command"`
	Env            []string `yaml:"env"`
	Dir            string   `yaml:"dir"`
	URL            string   `yaml:"url"`
	BearerTokenEnv string   `yaml:"bearer_token_env"`
	Prefix         string   `yaml:"prefix"`
}

// errConfig marks a config problem; its message names the file and line.
var errConfig = errors.New("config")

// parseServeConfig reads a config, rejecting unknown fields. Errors name
// the file and line.
func parseServeConfig(data []byte, name string) (*serveConfig, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, name, err)
	}
	var cfg serveConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, name, err)
	}
	// Record each source's line, for messages about it.
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "sources" && m.Content[i+1].Kind == yaml.SequenceNode {
				for j, n := range m.Content[i+1].Content {
					if j < len(cfg.Sources) {
						cfg.Sources[j].line = n.Line
					}
				}
			}
		}
	}
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrUsage, name, line, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	for _, s := range cfg.Sources {
		kinds := 0
		for _, set := range []bool{s.Demo != nil, s.OpenAPI != nil, s.Command != nil, s.MCP != nil} {
			if set {
				kinds++
			}
		}
		switch {
		case s.Name == "":
			return nil, bad(s.line, "source has no name")
		case seen[s.Name]:
			return nil, bad(s.line, "source name %q used twice", s.Name)
		case kinds != 1:
			return nil, bad(s.line, "source %q needs exactly one of demo, openapi, command, mcp", s.Name)
		}
		seen[s.Name] = true
	}
	ids := map[string]bool{}
	for _, p := range cfg.Principals {
		ids[p.ID] = true
	}
	known := func(id string) bool { return len(cfg.Principals) == 0 || ids[id] }
	if a := cfg.Auth.Anonymous; a != "" && !known(a) {
		return nil, bad(lineOf(&root, "auth"), "auth.anonymous names %q, which is not in principals", a)
	}
	if l := cfg.Auth.Local; l != "" && !known(l) {
		return nil, bad(lineOf(&root, "auth"), "auth.local names %q, which is not in principals", l)
	}
	for _, t := range cfg.Auth.Tokens {
		if t.Principal == "" || !known(t.Principal) {
			return nil, bad(lineOf(&root, "auth"), "a token names principal %q, which is not in principals", t.Principal)
		}
		if t.Token == "" && t.TokenEnv == "" {
			return nil, bad(lineOf(&root, "auth"), "the token of %q needs token or token_env", t.Principal)
		}
	}
	return &cfg, nil
}

// lineOf returns the line of a top-level key, for messages.
func lineOf(root *yaml.Node, key string) int {
	if len(root.Content) == 1 {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i].Line
			}
		}
	}
	return 1
}

func duration(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	return time.ParseDuration(s)
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
	if *addr != "" {
		cfg.Server.Addr = *addr
	}
	if *dbPath != "" {
		cfg.Audit.DB = *dbPath
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, cfg, *stdio, log, e)
}

// served is what serve builds from a config: the kernel, the MCP server,
// and what must be closed afterwards.
type served struct {
	k       *kernel.Kernel
	srv     *mcpserver.Server
	log     *audit.Store
	audit   *kernel.AuditLog
	closers []io.Closer
	tokens  map[string]string // principal -> generated token, to print
	reg     *prometheus.Registry
}

func (s *served) close(ctx context.Context) error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	if s.audit != nil {
		errs = append(errs, s.audit.Close(ctx))
	}
	if s.log != nil {
		errs = append(errs, s.log.Close())
	}
	return errors.Join(errs...)
}

// build turns cfg into a kernel and MCP server. A source that fails is
// logged and left out; the others are served.
func build(ctx context.Context, cfg *serveConfig, log *slog.Logger, getenv func(string) string) (*served, error) {
	s := &served{tokens: map[string]string{}}
	ok := false
	defer func() {
		if !ok {
			s.close(ctx)
		}
	}()
	kc := &kernel.Config{Principals: cfg.Principals}
	pc := &kernel.PolicyConfig{MinJustification: cfg.Policy.MinJustification}
	for _, r := range cfg.Policy.Rules {
		pc.Rules = append(pc.Rules, kernel.Rule{Name: r.Name, Tools: r.Tools, Roles: r.Roles, Attributes: r.Attributes, Safety: r.Safety, Sensitivity: r.Sensitivity, When: r.When, Effect: r.Effect, Reason: r.Reason})
	}
	pol, err := kernel.NewPolicy(pc)
	if err != nil {
		return nil, fmt.Errorf("%w: policy: %v", ErrUsage, err)
	}
	kc.Policy = pol
	win, err := duration(cfg.Limits.Window, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: limits.window: %v", ErrUsage, err)
	}
	kc.Limits = kernel.RateLimits{Read: cfg.Limits.Read, Write: cfg.Limits.Write, Destructive: cfg.Limits.Destructive, Window: win}
	if cfg.Audit.DB != "" {
		st, err := audit.Open(ctx, cfg.Audit.DB)
		if err != nil {
			return nil, fmt.Errorf("audit log %s: %w", cfg.Audit.DB, err)
		}
		s.log = st
		al, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
		if err != nil {
			return nil, fmt.Errorf("audit log %s: %w", cfg.Audit.DB, err)
		}
		s.audit = al
		kc.Audit = al
	}
	k, err := kernel.New(kc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	s.k = k

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
		caps, err := demo.Capabilities(ctx, demo.New())
		return caps, nil, err
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
		return mcpserver.OpenAPI(api, x), nil, nil
	case src.Command != nil:
		c := src.Command
		if len(c.Argv) == 0 {
			return nil, nil, errors.New("command: argv is empty")
		}
		timeout, err := duration(c.Timeout, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("timeout: %v", err)
		}
		var schema json.RawMessage
		if c.InputSchema.Kind != 0 {
			b, err := nodeJSON(&c.InputSchema)
			if err != nil {
				return nil, nil, fmt.Errorf("input_schema: %v", err)
			}
			schema = b
		}
		return []kernel.Capability{{
			Definition: tool.Definition{Name: src.Name, Description: c.Description, InputSchema: schema},
			Safety:     c.Safety,
			Executor:   &kernel.Command{Argv: c.Argv, Dir: c.Dir, Env: c.Env, Timeout: timeout},
		}}, nil, nil
	case src.MCP != nil:
		m := src.MCP
		uc := &mcpserver.UpstreamConfig{Prefix: src.Name, Command: m.Command, Env: m.Env, Dir: m.Dir, URL: m.URL}
		if m.Prefix != "" {
			uc.Prefix = m.Prefix
		}
		if m.BearerTokenEnv != "" {
			uc.Header = http.Header{"Authorization": {"Bearer " + getenv(m.BearerTokenEnv)}}
		}
		up, err := mcpserver.Connect(ctx, uc)
		if err != nil {
			return nil, nil, err
		}
		return up.Capabilities(), up, nil
	}
	return nil, nil, errors.New("no source kind")
}

// nodeJSON converts a YAML node to JSON, keeping mapping keys in order.
func nodeJSON(n *yaml.Node) ([]byte, error) {
	var b []byte
	var walk func(n *yaml.Node, depth int) error
	walk = func(n *yaml.Node, depth int) error {
		if depth > 64 {
			return errors.New("nested too deeply")
		}
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) != 1 {
				return errors.New("empty document")
			}
			return walk(n.Content[0], depth)
		case yaml.AliasNode:
			return fmt.Errorf("line %d: aliases are not supported here", n.Line)
		case yaml.MappingNode:
			b = append(b, '{')
			for i := 0; i+1 < len(n.Content); i += 2 {
				if i > 0 {
					b = append(b, ',')
				}
				b = strictjson.AppendQuote(b, n.Content[i].Value)
				b = append(b, ':')
				if err := walk(n.Content[i+1], depth+1); err != nil {
					return err
				}
			}
			b = append(b, '}')
		case yaml.SequenceNode:
			b = append(b, '[')
			for i, c := range n.Content {
				if i > 0 {
					b = append(b, ',')
				}
				if err := walk(c, depth+1); err != nil {
					return err
				}
			}
			b = append(b, ']')
		case yaml.ScalarNode:
			switch n.Tag {
			case "!!null":
				b = append(b, "null"...)
			case "!!bool":
				v, err := strconv.ParseBool(n.Value)
				if err != nil {
					return fmt.Errorf("line %d: %v", n.Line, err)
				}
				b = strconv.AppendBool(b, v)
			case "!!int", "!!float":
				f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
				if err != nil {
					return fmt.Errorf("line %d: %v", n.Line, err)
				}
				b = strconv.AppendFloat(b, f, 'g', -1, 64)
			default:
				b = strictjson.AppendQuote(b, n.Value)
			}
		}
		return nil
	}
	if err := walk(n, 0); err != nil {
		return nil, err
	}
	return b, nil
}

func serve(ctx context.Context, cfg *serveConfig, stdio bool, log *slog.Logger, e *env) error {
	s, err := build(ctx, cfg, log, os.Getenv)
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
		if s.audit != nil && s.audit.Err() != nil {
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
	if cfg.Audit.DB != "" {
		fmt.Fprintf(e.stderr, "toolgate: audit log: %s\n", cfg.Audit.DB)
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
