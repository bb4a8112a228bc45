// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/source"
)

// errAt returns an [*Error] at path, with the position of path or of its
// nearest parent when the File was parsed.
func (f *File) errAt(path string, err error) error {
	e := &Error{File: f.name, Path: path, Err: err}
	for p := path; p != ""; p = parentKey(p) {
		if at, ok := f.pos[p]; ok {
			e.Line, e.Column = at.line, at.col
			break
		}
	}
	return e
}

func (f *File) errf(path, format string, args ...any) error {
	return f.errAt(path, fmt.Errorf(format, args...))
}

// parentKey drops the last key or index of path.
func parentKey(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func at(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Check reports the first thing wrong with f that can be seen without
// building it: a missing or duplicate name, an unknown effect or safety
// class, a rule whose condition does not compile, a malformed allowed
// origin or firewall pattern, a token or auth entry naming an unknown
// principal. [Parse] and [File.Build] call it; the error is an [*Error].
func (f *File) Check() error {
	for i, o := range f.Server.AllowedOrigins {
		if err := http.NewCrossOriginProtection().AddTrustedOrigin(o); err != nil {
			return f.errf(at("server.allowed_origins", i), "%q is not an origin such as https://app.example.com (scheme and host, no path or trailing slash)", o)
		}
	}
	if err := f.checkServer(); err != nil {
		return err
	}
	switch f.Keys.Store {
	case "", "sqlite", "none", AuditPostgres:
	default:
		return f.errf("keys.store", "%q is not sqlite, postgres or none", f.Keys.Store)
	}
	if f.Keys.DB != "" && f.Keys.Store != "" && f.Keys.Store != "sqlite" {
		return f.errf("keys.db", "keys.db is for keys.store sqlite")
	}
	if f.Keys.DSNEnv != "" && f.Keys.Store != AuditPostgres {
		return f.errf("keys.dsn_env", "keys.dsn_env is for keys.store postgres")
	}
	ids := map[string]bool{}
	for i, p := range f.Principals {
		switch {
		case p.ID == "":
			return f.errf(at("principals", i), "principal has no id")
		case ids[p.ID]:
			return f.errf(at("principals", i), "principal %q listed twice", p.ID)
		}
		ids[p.ID] = true
		if b := p.Budget; b.USD < 0 || b.Tokens < 0 {
			key := ".budget.usd"
			if b.USD >= 0 {
				key = ".budget.tokens"
			}
			return f.errf(at("principals", i)+key, "a budget is zero (none) or positive")
		} else if b.Period != "" {
			if _, err := kernel.ParseSpan(b.Period); err != nil {
				return f.errf(at("principals", i)+".budget.period", "%q is not a span such as 1h, 1d or 30d", b.Period)
			}
		}
	}
	known := func(id string) bool { return len(f.Principals) == 0 || ids[id] }
	if a := f.Auth.Anonymous; a != "" && !known(a) {
		return f.errf("auth.anonymous", "auth.anonymous names %q, which is not in principals", a)
	}
	if l := f.Auth.Local; l != "" && !known(l) {
		return f.errf("auth.local", "auth.local names %q, which is not in principals", l)
	}
	tokenIDs := map[string]bool{}
	for i, t := range f.Auth.Tokens {
		if t.ID != "" {
			if tokenIDs[t.ID] || strings.Contains(t.ID, "#") {
				return f.errf(at("auth.tokens", i)+".id", "%q is another token's id, or holds a #, which generated ids use", t.ID)
			}
			tokenIDs[t.ID] = true
		}
		if t.Principal == "" || !known(t.Principal) {
			return f.errf(at("auth.tokens", i), "a token names principal %q, which is not in principals", t.Principal)
		}
		if t.Token == "" && t.TokenEnv == "" {
			return f.errf(at("auth.tokens", i), "the token of %q needs token or token_env", t.Principal)
		}
	}
	if err := f.checkApprover(); err != nil {
		return err
	}
	for i := range f.Policy.Rules {
		r := &f.Policy.Rules[i]
		path := at("policy.rules", i)
		switch r.Effect {
		case kernel.EffectAllow, kernel.EffectDeny, kernel.EffectRequireApproval:
		default:
			return f.errf(path+".effect", "rule %q: effect %q is not allow, deny or require_approval", r.Name, r.Effect)
		}
		for j, s := range r.Safety {
			if err := checkSafety(s); err != nil {
				return f.errAt(at(path+".safety", j), err)
			}
		}
		for j, s := range r.Sensitivity {
			if err := checkSensitivity(s); err != nil {
				return f.errAt(at(path+".sensitivity", j), err)
			}
		}
		if _, err := kernel.NewPolicy(&kernel.PolicyConfig{Rules: []kernel.Rule{r.rule()}}); err != nil {
			p := path
			if r.When != "" {
				p += ".when"
			}
			return f.errAt(p, err)
		}
	}
	switch f.Audit.Store {
	case "", AuditSQLite:
		if f.Audit.DSNEnv != "" {
			return f.errf("audit.dsn_env", "audit.dsn_env is for audit.store postgres")
		}
	case AuditPostgres:
		if f.Audit.DB != "" {
			return f.errf("audit.db", "audit.db is for audit.store sqlite; postgres reads audit.dsn_env")
		}
	default:
		return f.errf("audit.store", "audit.store %q is not sqlite or postgres", f.Audit.Store)
	}
	switch kernel.AuditSync(f.Audit.Sync) {
	case "", kernel.SyncNormal, kernel.SyncFull:
	default:
		return f.errf("audit.sync", "audit.sync %q is not normal or full", f.Audit.Sync)
	}
	if cp := f.Audit.Checkpoint; cp.Every < 0 {
		return f.errf("audit.checkpoint.every", "is negative")
	} else if cp.Every > 0 && cp.Sink == "" {
		return f.errf("audit.checkpoint.sink", "is required with audit.checkpoint.every")
	} else if cp.Sink != "" && cp.Every == 0 {
		return f.errf("audit.checkpoint.every", "is required with audit.checkpoint.sink")
	} else if cp.Every > 0 && cp.Every < time.Second {
		return f.errf("audit.checkpoint.every", "is under a second")
	}
	if t := f.Telemetry; t.OTLPEndpoint != "" {
		u, err := url.Parse(t.OTLPEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return f.errf("telemetry.otlp_endpoint", "must be an http(s) URL such as http://127.0.0.1:4318/v1/traces")
		}
	}
	if r := f.Telemetry.SampleRatio; r < 0 || r > 1 {
		return f.errf("telemetry.sample_ratio", "is not between 0 and 1")
	}
	if pk := f.Audit.Checkpoint.Ed25519PublicKey; pk != "" {
		if _, err := ParsePublicKey(pk); err != nil {
			return f.errf("audit.checkpoint.ed25519_public_key", "%v", err)
		}
	}
	switch f.Limits.Store {
	case "", LimitsMemory, LimitsSQLite, StoreRedis:
	default:
		return f.errf("limits.store", "limits.store %q is not memory, sqlite or redis", f.Limits.Store)
	}
	if f.Limits.DB != "" && f.Limits.Store != LimitsSQLite {
		return f.errf("limits.db", "limits.db is for limits.store sqlite")
	}
	if f.Limits.URLEnv != "" && f.Limits.Store != StoreRedis {
		return f.errf("limits.url_env", "limits.url_env is for limits.store redis")
	}
	switch f.Grants.Store {
	case "", LimitsMemory, StoreRedis, AuditPostgres:
	default:
		return f.errf("grants.store", "grants.store %q is not memory, redis or postgres", f.Grants.Store)
	}
	if f.Grants.URLEnv != "" && f.Grants.Store != StoreRedis {
		return f.errf("grants.url_env", "grants.url_env is for grants.store redis")
	}
	if f.Grants.DSNEnv != "" && f.Grants.Store != AuditPostgres {
		return f.errf("grants.dsn_env", "grants.dsn_env is for grants.store postgres")
	}
	for i, p := range f.Firewall.Patterns {
		if _, err := redact.New(&redact.Config{Patterns: []redact.Pattern{{Name: p.Name, Regexp: p.Regexp}}}); err != nil {
			return f.errAt(at("firewall.patterns", i)+".regexp", err)
		}
	}
	if _, err := f.redactor(); err != nil {
		return f.errAt("firewall", err)
	}
	names := map[string]bool{}
	for i := range f.Sources {
		if err := f.checkSource(i, names); err != nil {
			return err
		}
	}
	return f.checkGateway()
}

func (f *File) checkSource(i int, names map[string]bool) error {
	s := &f.Sources[i]
	path := at("sources", i)
	kinds := 0
	for _, set := range []bool{s.Command != nil, s.OpenAPI != nil, s.MCP != nil, s.Demo != nil} {
		if set {
			kinds++
		}
	}
	switch {
	case s.Name == "":
		return f.errf(path, "source has no name")
	case names[s.Name]:
		return f.errf(path, "source name %q used twice", s.Name)
	case kinds != 1:
		return f.errf(path, "source %q needs exactly one of command, openapi, mcp, demo", s.Name)
	}
	names[s.Name] = true
	switch {
	case s.Command != nil:
		c := s.Command
		if len(c.Argv) == 0 {
			return f.errf(path+".command.argv", "source %q: argv is empty", s.Name)
		}
		switch c.Output {
		case "", source.OutputText, source.OutputMCP:
		default:
			return f.errf(path+".command.output", "source %q: output %q is not text or mcp", s.Name, c.Output)
		}
		if len(c.InputSchema) > 0 {
			// A command's schema is part of the file: one that does not
			// resolve is the file's mistake, not a tool to leave out.
			if _, err := schema.Resolve(c.InputSchema, nil); err != nil {
				return f.errAt(path+".command.input_schema", err)
			}
		}
		if c.Safety != "" {
			if err := checkSafety(c.Safety); err != nil {
				return f.errAt(path+".command.safety", err)
			}
		}
		if c.Sensitivity != "" {
			if err := checkSensitivity(c.Sensitivity); err != nil {
				return f.errAt(path+".command.sensitivity", err)
			}
		}
	case s.OpenAPI != nil:
		if s.OpenAPI.Spec == "" {
			return f.errf(path+".openapi", "source %q: openapi.spec is required", s.Name)
		}
	case s.MCP != nil:
		if (len(s.MCP.Command) == 0) == (s.MCP.URL == "") {
			return f.errf(path+".mcp", "source %q: mcp needs exactly one of command and url", s.Name)
		}
	}
	return nil
}

func checkSafety(s kernel.Safety) error {
	switch s {
	case kernel.SafetyRead, kernel.SafetyWrite, kernel.SafetyDestructive:
		return nil
	}
	return fmt.Errorf("safety %q is not READ, WRITE or DESTRUCTIVE", s)
}

func checkSensitivity(s kernel.Sensitivity) error {
	switch s {
	case kernel.SensitivityNone, kernel.SensitivityPII, kernel.SensitivityPCI, kernel.SensitivitySecrets:
		return nil
	}
	return fmt.Errorf("sensitivity %q is not NONE, PII, PCI or SECRETS", s)
}

func (r *Rule) rule() kernel.Rule {
	return kernel.Rule{Name: r.Name, Tools: r.Tools, Roles: r.Roles, Attributes: r.Attributes, Safety: r.Safety,
		Sensitivity: r.Sensitivity, When: r.When, Effect: r.Effect, Reason: r.Reason}
}

func (f *File) redactor() (*redact.Redactor, error) {
	rc := &redact.Config{Keys: f.Firewall.Keys}
	for _, p := range f.Firewall.Patterns {
		rc.Patterns = append(rc.Patterns, redact.Pattern{Name: p.Name, Regexp: p.Regexp})
	}
	return redact.New(rc)
}

// checkServer checks the server section's log level and debug address.
func (f *File) checkServer() error {
	switch f.Server.LogLevel {
	case "", "debug", "info", "warn", "error":
	default:
		return f.errf("server.log_level", "log_level %q is not debug, info, warn or error", f.Server.LogLevel)
	}
	if a := f.Server.DebugAddr; a != "" {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			return f.errf("server.debug_addr", "debug_addr %q is not HOST:PORT", a)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return f.errf("server.debug_addr", "debug_addr %q is not a loopback address: pprof exposes the process's memory and must not be reachable from other hosts", a)
		}
	}
	return nil
}
