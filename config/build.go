// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/mcpserver"
	"github.com/toolgate/toolgate/openapi"
	"github.com/toolgate/toolgate/source"
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
	// Logger is the MCP server's logger. If nil, nothing is logged.
	Logger *slog.Logger
	// SourceFailed, if set, is called with a [*SourceError] for each
	// source that cannot be built (a spec that does not load, an upstream
	// server that cannot be reached) and each tool the kernel refuses;
	// returning nil leaves that source or tool out and builds the rest.
	// If nil, Build fails on the first.
	SourceFailed func(err *SourceError) error
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
	// Audit and Store are nil without audit.db.
	Audit *kernel.AuditLog
	Store *audit.Store
	// AuditDB is the audit database file in use; empty for none.
	AuditDB string
	// Sources are the sources built, in file order; Close closes them.
	Sources []source.Source
	// MCP is the MCP server's config, Kernel set: pass it to
	// mcpserver.New, after adding Metrics if wanted.
	MCP *mcpserver.Config
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
	for _, s := range b.Sources {
		errs = append(errs, s.Close())
	}
	if b.Audit != nil {
		errs = append(errs, b.Audit.Close(ctx))
	}
	if b.Store != nil {
		errs = append(errs, b.Store.Close())
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
	b := &Built{GeneratedTokens: map[string]string{}, UnsetTokens: map[string]string{}}
	ok := false
	defer func() {
		if !ok {
			b.Close(context.WithoutCancel(ctx))
		}
	}()
	kc, err := f.kernelConfig(getenv)
	if err != nil {
		return nil, err
	}
	kc.Approve = o.Approve
	db := f.Audit.DB
	if o.AuditDB != "" {
		db = o.AuditDB
	}
	if db != "" {
		st, err := audit.Open(ctx, db)
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		b.Store, b.AuditDB = st, db
		al, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st, Key: f.AuditKey(getenv)})
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		b.Audit = al
		kc.Audit = al
	}
	if b.Kernel, err = kernel.New(kc); err != nil {
		return nil, f.errAt("principals", err)
	}
	for i := range f.Sources {
		if err := f.buildSource(ctx, i, b, getenv, o.SourceFailed); err != nil {
			return nil, err
		}
	}
	if b.MCP, err = f.mcpConfig(b, getenv); err != nil {
		return nil, err
	}
	b.MCP.Logger = o.Logger
	if b.Gateway, err = f.gatewayConfig(b, getenv); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

func (f *File) kernelConfig(getenv func(string) string) (*kernel.Config, error) {
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
	gc := &kernel.GrantConfig{TTL: f.Grants.TTL, Key: DecodeKey(getenv(keyEnv))}
	grants, err := kernel.NewGrants(gc)
	if err != nil {
		return nil, f.errAt("grants", fmt.Errorf("%w (from %s)", err, keyEnv))
	}
	red, err := f.redactor()
	if err != nil {
		return nil, f.errAt("firewall", err)
	}
	kc := &kernel.Config{
		Policy:  pol,
		Limits:  kernel.RateLimits{Read: f.Limits.Read, Write: f.Limits.Write, Destructive: f.Limits.Destructive, Window: f.Limits.Window},
		Grants:  grants,
		Timeout: f.Timeout,
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
		}
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

// mcpConfig is the MCP server's config: the server section's limits, the
// auth section's principals and tokens.
func (f *File) mcpConfig(b *Built, getenv func(string) string) (*mcpserver.Config, error) {
	mc := &mcpserver.Config{
		Kernel:                  b.Kernel,
		Name:                    "toolgate",
		AllowedOrigins:          f.Server.AllowedOrigins,
		MaxRequestBytes:         f.Server.MaxRequestBytes,
		SessionTimeout:          f.Server.SessionIdleTimeout,
		MaxSessions:             f.Server.MaxSessions,
		MaxSessionsPerPrincipal: f.Server.MaxSessionsPerPrincipal,
		Local:                   kernel.Principal{ID: f.Auth.Local},
		Tokens:                  map[string]kernel.Principal{},
	}
	if f.Auth.Anonymous != "" {
		mc.Anonymous = &kernel.Principal{ID: f.Auth.Anonymous}
	}
	for i, t := range f.Auth.Tokens {
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
		if _, dup := mc.Tokens[tok]; dup {
			return nil, f.errf(at("auth.tokens", i), "the token of %q is also another principal's", t.Principal)
		}
		mc.Tokens[tok] = kernel.Principal{ID: t.Principal}
	}
	return mc, nil
}

// AuditKey returns the audit chain key the file names (audit.key_env),
// read through getenv; nil when the file names none.
func (f *File) AuditKey(getenv func(string) string) []byte {
	if f.Audit.KeyEnv == "" || getenv == nil {
		return nil
	}
	return DecodeKey(getenv(f.Audit.KeyEnv))
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
