// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/mcpserver"
	"github.com/toolgate/toolgate/openapi"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/source"
	"github.com/toolgate/toolgate/store/postgres"
	"github.com/toolgate/toolgate/store/redis"
	"github.com/toolgate/toolgate/store/sqlite"
	"go.opentelemetry.io/otel/trace"
)

// BuildOptions are what a config file cannot describe. The zero value
// (or nil) builds with no environment and fails on the first source that
// cannot be built.
type BuildOptions struct {
	// Getenv reads the variables the file names (token_env, key_env,
	// bearer_token_env, ...). If nil, every variable is unset; pass
	// os.Getenv to read the process environment.
	Getenv func(string) string
	// Approve decides require_approval outcomes; see [kernel.Config].
	Approve func(ctx context.Context, req *kernel.ApprovalRequest) (bool, error)
	// AuditDB, if set, replaces audit.db.
	AuditDB string
	// LimitsStore is limits.store when the file leaves it empty: `toolgate
	// call` passes sqlite, so that its limits hold across processes. If
	// empty, memory. Store sqlite with no file to use (no limits.db,
	// audit.db or AuditDB) falls back to memory when it is only this
	// default, and is an error when the file asks for it.
	LimitsStore string
	// Logger is the MCP server's logger. If nil, nothing is logged.
	Logger *slog.Logger
	// SourceFailed, if set, is called with a [*SourceError] for each
	// source that cannot be built (a spec that does not load, an upstream
	// server that cannot be reached) and each tool the kernel refuses;
	// returning nil leaves that source or tool out and builds the rest.
	// If nil, Build fails on the first.
	SourceFailed func(err *SourceError) error
	// Observers are told of every tool call and model request, with
	// its caller (see server.Observer): toolgate serve's console feed.
	Observers []server.Observer
	// TracerProvider, when set, traces the kernel's calls, the MCP
	// server's tools/call and the gateway's requests (see telemetry in
	// the file; toolgate serve builds it from there).
	TracerProvider trace.TracerProvider
}

// SourceError is a source, or one of its tools, that could not be built.
// It is a run-time failure, not an invalid config: errors.Is(err,
// ErrInvalid) is false.
type SourceError struct {
	// Source is the source's name; Tool, when set, the tool refused.
	Source, Tool string
	// Line is the source's line in the file; zero when unknown.
	Line int
	Err  error
}

// Error names the source, its line and the tool.
func (e *SourceError) Error() string {
	s := fmt.Sprintf("source %q", e.Source)
	if e.Line > 0 {
		s += fmt.Sprintf(" (line %d)", e.Line)
	}
	if e.Tool != "" {
		s += fmt.Sprintf(": tool %q", e.Tool)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *SourceError) Unwrap() error { return e.Err }

// Built is what [File.Build] returns: the running parts. Close it when
// done, after any server using them has stopped.
type Built struct {
	// Kernel runs every call, with every source's tools registered.
	Kernel *kernel.Kernel
	// Audit and Store are nil without audit.db; Store is nil, and
	// Postgres set, with audit.store postgres.
	Audit    *kernel.AuditLog
	Store    *audit.Store
	Postgres *postgres.Store
	// AuditDB is the audit database file in use; empty for none.
	AuditDB string
	// LimitsStore is the limits store in use, memory or sqlite, and
	// LimitsDB its file for sqlite.
	LimitsStore, LimitsDB string
	// Limiter is the SQLite limiter of store sqlite; nil for memory.
	// Close closes it.
	Limiter *sqlite.Limiter
	// Keys holds the keys made at run time (see [File.OpenKeys]); nil
	// with keys.store none or no file to keep them in. Close closes it.
	Keys KeyStore
	// Spend keeps what model requests used and cost, beside the keys;
	// nil when there are no keys or no providers. Close closes it.
	Spend SpendStore
	// rateLimiter is the kernel's limiter (nil: the kernel's memory
	// one), which the gateway counts keys' requests in too, and meter
	// the same store's meter of keys' tokens and budgets (nil: memory).
	rateLimiter kernel.Limiter
	meter       kernel.Meter
	sqlMeter    *sqlite.Meter
	// redis are the Redis clients of limits and grants, by URL variable,
	// and grantsPG the PostgreSQL store of grants; Close closes them.
	redis    map[string]*redis.Client
	grantsPG *postgres.Store
	tracer   trace.TracerProvider
	// kernelConfig is the kernel's config, for the kernels of the MCP
	// servers gateway requests name (same policy, audit and limits).
	kernelConfig *kernel.Config
	// Sources are the sources built, in file order; Close closes them.
	Sources []source.Source
	// SourceOf names the source of each tool served.
	SourceOf map[string]string
	// MCP is the MCP server's config, Kernel set: pass it to
	// mcpserver.New, after adding Metrics if wanted.
	MCP *mcpserver.Config
	// Auth is the server's authentication: the auth section's tokens,
	// each naming its principal with the roles and attributes the
	// principals section gives it, and the anonymous principal. Pass it
	// to server.NewAuth.
	Auth *server.AuthConfig
	// Gateway is the model gateway's config, authenticating by the same
	// tokens; nil without providers. Pass it to gateway.New, after adding
	// Metrics and a Logger if wanted.
	Gateway *gateway.Config
	// GeneratedTokens maps a principal to the token made for it because
	// its token_env was unset and generate was true, to be shown once.
	GeneratedTokens map[string]string
	// UnsetTokens maps a principal to the variable its token_env names,
	// which was unset: that principal cannot connect over HTTP.
	UnsetTokens map[string]string
}

// Close closes the sources, then flushes the audit log and closes its
// database.
func (b *Built) Close(ctx context.Context) error {
	var errs []error
	if lm, ok := b.meter.(*kernel.LeasingMeter); ok {
		errs = append(errs, lm.Close(ctx)) // while its store is open
	}
	for _, s := range b.Sources {
		errs = append(errs, s.Close())
	}
	if b.Audit != nil {
		errs = append(errs, b.Audit.Close(ctx))
	}
	if b.Store != nil {
		errs = append(errs, b.Store.Close())
	}
	if b.Limiter != nil {
		errs = append(errs, b.Limiter.Close())
	}
	if b.Keys != nil {
		errs = append(errs, b.Keys.Close())
	}
	if b.Spend != nil {
		errs = append(errs, b.Spend.Close())
	}
	if b.sqlMeter != nil {
		errs = append(errs, b.sqlMeter.Close())
	}
	if b.Postgres != nil {
		errs = append(errs, b.Postgres.Close())
	}
	for _, c := range b.redis {
		errs = append(errs, c.Close())
	}
	if b.grantsPG != nil {
		errs = append(errs, b.grantsPG.Close())
	}
	return errors.Join(errs...)
}

// Build checks f ([File.Check]) and builds what it describes: the kernel
// with its policy, limits, grants, firewall and audit log, every source's
// tools registered, and the MCP server's config. An invalid file is an
// [*Error] (errors.Is(err, ErrInvalid)); a database that cannot be opened
// or a source that cannot be built is returned as it is, a run-time
// failure. f is not retained.
func (f *File) Build(ctx context.Context, opts *BuildOptions) (*Built, error) {
	var o BuildOptions
	if opts != nil {
		o = *opts
	}
	getenv := func(k string) string {
		if k == "" || o.Getenv == nil {
			return ""
		}
		return o.Getenv(k)
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	b := &Built{GeneratedTokens: map[string]string{}, UnsetTokens: map[string]string{}, tracer: o.TracerProvider}
	ok := false
	defer func() {
		if !ok {
			b.Close(context.WithoutCancel(ctx))
		}
	}()
	var rev kernel.Revocations
	switch f.Grants.Store {
	case StoreRedis:
		c, err := b.redisClient(ctx, f, "grants.url_env", f.Grants.URLEnv, getenv)
		if err != nil {
			return nil, err
		}
		rev = c.Revocations()
	case AuditPostgres:
		pg, err := f.openPostgres(ctx, "grants.dsn_env", f.Grants.DSNEnv, getenv)
		if err != nil {
			return nil, err
		}
		b.grantsPG = pg
		rev = pg.Revocations()
	}
	kc, err := f.kernelConfig(getenv, rev)
	if err == nil {
		kc.TracerProvider = o.TracerProvider
		if len(o.Observers) > 0 {
			kc.Observe = server.KernelObserver(server.Fanout(o.Observers))
		}
	}
	if err != nil {
		return nil, err
	}
	kc.Approve = o.Approve
	if kc.Approve == nil {
		if kc.Approve, err = f.approver(getenv); err != nil {
			return nil, err
		}
	}
	db := f.Audit.DB
	if o.AuditDB != "" {
		db = o.AuditDB
	}
	auditKey, err := f.AuditKey(getenv)
	if err != nil {
		return nil, err
	}
	if _, err := f.CheckpointKey(getenv); err != nil {
		return nil, err // a signing key named but missing: refuse to start
	}
	var store kernel.AuditStore
	switch {
	case f.Audit.Store == AuditPostgres:
		if o.AuditDB != "" {
			return nil, f.errf("audit.store", "a SQLite audit file was given, and audit.store is postgres")
		}
		pg, err := f.OpenPostgres(ctx, getenv)
		if err != nil {
			return nil, err
		}
		if err := pg.SetSync(kernel.AuditSync(f.Audit.Sync)); err != nil {
			pg.Close()
			return nil, f.errf("audit.sync", "%v", err)
		}
		b.Postgres, store = pg, pg
	case db != "":
		st, err := audit.OpenSync(ctx, db, kernel.AuditSync(f.Audit.Sync))
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		b.Store, b.AuditDB, store = st, db, st
	}
	if store != nil {
		al, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: store, Key: auditKey, MaxArgsBytes: f.Audit.MaxArgsBytes})
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		b.Audit = al
		kc.Audit = al
	}
	if f.Limits.Store == StoreRedis {
		c, err := b.redisClient(ctx, f, "limits.url_env", f.Limits.URLEnv, getenv)
		if err != nil {
			return nil, err
		}
		kc.Limiter, b.LimitsStore = c.Limiter(), StoreRedis
		b.meter = c.Meter()
	} else {
		if err := f.buildLimiter(ctx, b, db, o.LimitsStore); err != nil {
			return nil, err
		}
		if b.Limiter != nil {
			kc.Limiter = b.Limiter
			if b.sqlMeter, err = sqlite.OpenMeter(ctx, b.LimitsDB); err != nil {
				return nil, fmt.Errorf("limits: %w", err)
			}
			b.meter = b.sqlMeter
		}
	}
	b.rateLimiter = kc.Limiter
	if b.Kernel, err = kernel.New(kc); err != nil {
		return nil, f.errAt("principals", err)
	}
	b.kernelConfig = kc
	if err := f.buildKeys(ctx, b, db, getenv); err != nil {
		return nil, err
	}
	if b.meter != nil {
		// Keys' tokens and budgets reserved in memory against blocks
		// leased from the store's meter; Close gives them back.
		b.meter = kernel.NewLeasingMeter(b.meter, nil)
	}
	for i := range f.Sources {
		if err := f.buildSource(ctx, i, b, getenv, o.SourceFailed); err != nil {
			return nil, err
		}
	}
	if b.MCP, err = f.mcpConfig(b, getenv); err != nil {
		return nil, err
	}
	if b.Keys != nil {
		b.Auth.Keys = b.Keys
	}
	b.Auth.Directory = f.principal
	b.MCP.Logger = o.Logger
	if b.Gateway, err = f.gatewayConfig(b, getenv); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

func (f *File) kernelConfig(getenv func(string) string, rev kernel.Revocations) (*kernel.Config, error) {
	pc := &kernel.PolicyConfig{MinJustification: f.Policy.MinJustification}
	for i := range f.Policy.Rules {
		pc.Rules = append(pc.Rules, f.Policy.Rules[i].rule())
	}
	pol, err := kernel.NewPolicy(pc)
	if err != nil {
		return nil, f.errAt("policy", err)
	}
	keyEnv := f.Grants.KeyEnv
	if keyEnv == "" {
		keyEnv = kernel.GrantKeyEnv
	}
	gc := &kernel.GrantConfig{TTL: f.Grants.TTL, Key: DecodeKey(getenv(keyEnv)), Revocations: rev}
	grants, err := kernel.NewGrants(gc)
	if err != nil {
		return nil, f.errAt("grants", fmt.Errorf("%w (from %s)", err, keyEnv))
	}
	red, err := f.redactor()
	if err != nil {
		return nil, f.errAt("firewall", err)
	}
	kc := &kernel.Config{
		TraceContent: f.Telemetry.CaptureContent,
		Policy:       pol,
		Limits:       kernel.RateLimits{Read: f.Limits.Read, Write: f.Limits.Write, Destructive: f.Limits.Destructive, Window: f.Limits.Window},
		Grants:       grants,
		Timeout:      f.Timeout,
		Firewall: kernel.NewFirewall(&kernel.FirewallConfig{
			MaxBytes: f.Firewall.MaxBytes, MaxRows: f.Firewall.MaxRows, MaxDepth: f.Firewall.MaxDepth, Redactor: red,
		}),
	}
	for _, p := range f.Principals {
		kc.Principals = append(kc.Principals, kernel.Principal{ID: p.ID, Roles: p.Roles, Attributes: p.Attributes})
	}
	return kc, nil
}

// buildSource builds source i and registers its tools.
func (f *File) buildSource(ctx context.Context, i int, b *Built, getenv func(string) string, failed func(*SourceError) error) error {
	s := &f.Sources[i]
	line := f.pos[at("sources", i)].line
	for _, kind := range []string{".openapi", ".command", ".mcp", ".demo"} {
		if p, ok := f.pos[at("sources", i)+kind]; ok {
			line = p.line
		}
	}
	fail := func(tool string, err error) error {
		se := &SourceError{Source: s.Name, Tool: tool, Line: line, Err: err}
		if failed == nil {
			return se
		}
		return failed(se)
	}
	src, err := f.newSource(ctx, s, getenv)
	if err != nil {
		return fail("", err)
	}
	b.Sources = append(b.Sources, src)
	for _, c := range src.Capabilities() {
		if err := b.Kernel.Registry().Add(c); err != nil {
			if err := fail(c.Definition.Name, err); err != nil {
				return err
			}
			continue
		}
		if b.SourceOf == nil {
			b.SourceOf = map[string]string{}
		}
		b.SourceOf[c.Definition.Name] = s.Name
	}
	return nil
}

func (f *File) newSource(ctx context.Context, s *Source, getenv func(string) string) (source.Source, error) {
	switch {
	case s.Demo != nil:
		return source.NewDemo(ctx)
	case s.Command != nil:
		c := s.Command
		return source.NewCommand(&source.CommandConfig{
			Name: s.Name, Description: c.Description, InputSchema: c.InputSchema,
			Safety: c.Safety, Sensitivity: c.Sensitivity, AllowedFields: c.AllowedFields,
			Argv: c.Argv, Dir: c.Dir, Env: c.Env, Timeout: c.Timeout, Output: c.Output,
		})
	case s.OpenAPI != nil:
		o, a := s.OpenAPI, s.OpenAPI.Auth
		return source.LoadOpenAPI(ctx, &source.OpenAPIConfig{
			Name: s.Name, Spec: o.Spec, Server: o.Server, AllowPrivate: o.AllowPrivate,
			Tags: o.Tags, Operations: o.Operations, Timeout: o.Timeout,
			TotalTimeout: o.TotalTimeout, MaxResultTokens: o.MaxResultTokens,
			AllowRedirectsAnywhere: o.AllowRedirectsAnywhere,
			Credentials: &openapi.Credentials{
				BearerToken: getenv(a.BearerTokenEnv), APIKey: getenv(a.APIKeyEnv),
				Username: getenv(a.UsernameEnv), Password: getenv(a.PasswordEnv),
				ClientID: getenv(a.ClientIDEnv), ClientSecret: getenv(a.ClientSecretEnv),
			},
		})
	case s.MCP != nil:
		m := s.MCP
		mc := &source.MCPConfig{
			Prefix: s.Name, Command: m.Command, Env: m.Env, Dir: m.Dir, URL: m.URL,
			Justification: mcpserver.JustificationFromContext,
		}
		if m.Prefix != "" {
			mc.Prefix = m.Prefix
		}
		if m.BearerTokenEnv != "" {
			mc.Header = http.Header{"Authorization": {"Bearer " + getenv(m.BearerTokenEnv)}}
		}
		return source.ConnectMCP(ctx, mc)
	}
	return nil, fmt.Errorf("%w: source %q has no kind", ErrInvalid, s.Name)
}

// mcpConfig is the MCP server's config, the server section's limits,
// and the authentication of the auth section's principals and tokens
// (b.Auth).
func (f *File) mcpConfig(b *Built, getenv func(string) string) (*mcpserver.Config, error) {
	mc := &mcpserver.Config{
		TracerProvider:          tracerOf(b),
		Kernel:                  b.Kernel,
		Name:                    "toolgate",
		AllowedOrigins:          f.Server.AllowedOrigins,
		MaxRequestBytes:         f.Server.MaxRequestBytes,
		SessionTimeout:          f.Server.SessionIdleTimeout,
		MaxSessions:             f.Server.MaxSessions,
		MaxSessionsPerPrincipal: f.Server.MaxSessionsPerPrincipal,
		Local:                   kernel.Principal{ID: f.Auth.Local},
	}
	b.Auth = &server.AuthConfig{Tokens: map[string]kernel.Principal{}, KeyIDs: map[string]string{}}
	nth := map[string]int{}
	if f.Auth.Anonymous != "" {
		p := f.principal(f.Auth.Anonymous)
		b.Auth.Anonymous = &p
	}
	for i, t := range f.Auth.Tokens {
		nth[t.Principal]++
		tok := t.Token
		if tok == "" {
			tok = getenv(t.TokenEnv)
		}
		if tok == "" && t.Generate {
			r := make([]byte, 24)
			rand.Read(r)
			tok = "tg_" + hex.EncodeToString(r)
			b.GeneratedTokens[t.Principal] = tok
		}
		if tok == "" {
			// Not an error, so that a file can name a token for the
			// deployments that set it.
			b.UnsetTokens[t.Principal] = t.TokenEnv
			continue
		}
		if _, dup := b.Auth.Tokens[tok]; dup {
			return nil, f.errf(at("auth.tokens", i), "the token of %q is also another principal's", t.Principal)
		}
		b.Auth.Tokens[tok] = f.principal(t.Principal)
		b.Auth.KeyIDs[tok] = cmp.Or(t.ID, fmt.Sprintf("%s#%d", t.Principal, nth[t.Principal]))
	}
	return mc, nil
}

// principal is the principal id names, with the roles and attributes
// the principals section gives it.
func (f *File) principal(id string) kernel.Principal {
	for _, p := range f.Principals {
		if p.ID == id {
			return kernel.Principal{ID: id, Roles: append([]string(nil), p.Roles...), Attributes: p.Attributes}
		}
	}
	return kernel.Principal{ID: id}
}

// redisClient returns the client for the URL in the variable env names
// (else [DefaultRedisURLEnv]), connecting once per variable; key is the
// config key naming it, for errors.
func (b *Built) redisClient(ctx context.Context, f *File, key, env string, getenv func(string) string) (*redis.Client, error) {
	if env == "" {
		env = DefaultRedisURLEnv
	}
	if c, ok := b.redis[env]; ok {
		return c, nil
	}
	url := getenv(env)
	if url == "" {
		return nil, f.errf(key, "%s is not set; a redis store needs the server's URL in it", env)
	}
	c, err := redis.Open(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	if b.redis == nil {
		b.redis = map[string]*redis.Client{}
	}
	b.redis[env] = c
	return c, nil
}

// buildLimiter opens the limits store: the file's, else the caller's
// default, else memory.
func (f *File) buildLimiter(ctx context.Context, b *Built, auditDB, fallback string) error {
	store, path := f.Limits.Store, f.Limits.DB
	if path == "" {
		path = auditDB
	}
	if store == "" {
		store = fallback
		if store == LimitsSQLite && path == "" {
			store = "" // only a default, and no file to keep it in
		}
	}
	switch store {
	case "", LimitsMemory:
		b.LimitsStore = LimitsMemory
		return nil
	case LimitsSQLite:
		if path == "" {
			return f.errf("limits.store", "limits.store sqlite needs a file: limits.db or audit.db")
		}
		l, err := sqlite.OpenLimiter(ctx, path)
		if err != nil {
			return fmt.Errorf("limits: %w", err)
		}
		b.Limiter, b.LimitsStore, b.LimitsDB = l, LimitsSQLite, path
		return nil
	}
	return f.errf("limits.store", "limits.store %q is not memory or sqlite", store)
}

// OpenPostgres opens the PostgreSQL audit store of audit.store postgres,
// applying its migrations. The connection string is read from the
// variable audit.dsn_env names (else [DefaultAuditDSNEnv]); unset or
// empty, it is an [*Error] naming the variable.
func (f *File) OpenPostgres(ctx context.Context, getenv func(string) string) (*postgres.Store, error) {
	return f.openPostgres(ctx, "audit.dsn_env", f.Audit.DSNEnv, getenv)
}

// openPostgres opens the database in the variable env names (else
// [DefaultAuditDSNEnv]); key is the config key naming it, for errors.
func (f *File) openPostgres(ctx context.Context, key, env string, getenv func(string) string) (*postgres.Store, error) {
	if env == "" {
		env = DefaultAuditDSNEnv
	}
	var dsn string
	if getenv != nil {
		dsn = getenv(env)
	}
	if dsn == "" {
		return nil, f.errf(key, "%s is not set; a postgres store needs the database's connection string in it", env)
	}
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		// The DSN may hold a password; pgx's errors name the host and
		// user, not the password.
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return st, nil
}

// AuditKey returns the audit chain key the file names (audit.key_env),
// read through getenv; nil when the file names none. A named variable
// that is unset or empty is an [*Error] naming it (errors.Is(err,
// ErrInvalid)): a log meant to be keyed is never written or verified
// without its key.
func (f *File) AuditKey(getenv func(string) string) ([]byte, error) {
	if f.Audit.KeyEnv == "" {
		return nil, nil
	}
	var v string
	if getenv != nil {
		v = getenv(f.Audit.KeyEnv)
	}
	if v == "" {
		return nil, f.errf("audit.key_env", "%s is not set; the audit chain's key is required when key_env names it", f.Audit.KeyEnv)
	}
	return DecodeKey(v), nil
}

// DecodeKey reads a key from an environment variable's value: standard
// base64 when it decodes to at least 32 bytes, else the text itself.
func DecodeKey(s string) []byte {
	if s == "" {
		return nil
	}
	if d, err := base64.StdEncoding.DecodeString(s); err == nil && len(d) >= 32 {
		return d
	}
	return []byte(s)
}

// CheckpointKey returns the Ed25519 private key that signs checkpoints
// (audit.checkpoint.ed25519_key_env), read through getenv; nil when the
// file names none. A named variable that is unset, or holds no key, is an
// [*Error] naming it.
func (f *File) CheckpointKey(getenv func(string) string) (ed25519.PrivateKey, error) {
	env := f.Audit.Checkpoint.Ed25519KeyEnv
	if env == "" {
		return nil, nil
	}
	var v string
	if getenv != nil {
		v = getenv(env)
	}
	if v == "" {
		return nil, f.errf("audit.checkpoint.ed25519_key_env", "%s is not set", env)
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	switch {
	case err == nil && len(b) == ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(b), nil
	case err == nil && len(b) == ed25519.PrivateKeySize:
		return ed25519.PrivateKey(b), nil
	}
	return nil, f.errf("audit.checkpoint.ed25519_key_env", "%s does not hold an Ed25519 key (a 32-byte seed or 64-byte key in standard base64)", env)
}

// CheckpointPublicKey returns audit.checkpoint.ed25519_public_key, or the
// public half of the signing key when only that is configured; nil when
// neither is.
func (f *File) CheckpointPublicKey(getenv func(string) string) (ed25519.PublicKey, error) {
	if pk := f.Audit.Checkpoint.Ed25519PublicKey; pk != "" {
		return ParsePublicKey(pk)
	}
	priv, err := f.CheckpointKey(getenv)
	if err != nil || priv == nil {
		return nil, err
	}
	return priv.Public().(ed25519.PublicKey), nil
}

// ParsePublicKey reads an Ed25519 public key in standard base64.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, errors.New("is not an Ed25519 public key (32 bytes in standard base64)")
	}
	return ed25519.PublicKey(b), nil
}

// tracerOf is the tracer provider Build was given.
func tracerOf(b *Built) trace.TracerProvider { return b.tracer }
