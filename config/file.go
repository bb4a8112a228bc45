// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/source"
)

// File is the whole config file, one field per top-level key. A File
// built in Go works as one parsed from YAML: [File.Check] validates it and
// [File.Build] builds it.
type File struct {
	// Server is how `toolgate serve` listens.
	Server Server `yaml:"server"`
	// Auth maps HTTP bearer tokens and transports to principals.
	Auth Auth `yaml:"auth"`
	// Principals are the callers the kernel knows. If empty, the kernel
	// knows every principal by id alone.
	Principals []Principal `yaml:"principals"`
	// Policy is who may call what.
	Policy Policy `yaml:"policy"`
	// Limits are the per-principal, per-tool rate limits.
	Limits Limits `yaml:"limits"`
	// Audit is the tamper-evident audit log.
	Audit Audit `yaml:"audit"`
	// Grants are the keys of per-call signed grants.
	Grants Grants `yaml:"grants"`
	// Firewall bounds and redacts tool output.
	Firewall Firewall `yaml:"firewall"`
	// Timeout is the per-call timeout. If zero, the kernel's default.
	Timeout time.Duration `yaml:"timeout"`
	// Sources are where the tools come from.
	Sources []Source `yaml:"sources"`
	// Providers are the model backends the gateway fronts; with any,
	// serve mounts the gateway's routes on its listener.
	Providers []Provider `yaml:"providers"`
	// Models maps public model names to provider names; a provider's
	// own name works too.
	Models map[string]string `yaml:"models"`
	// Gateway tunes the model gateway.
	Gateway Gateway `yaml:"gateway"`
	// Telemetry sends traces over OTLP.
	Telemetry Telemetry `yaml:"telemetry"`
	// Keys is where keys made at run time are kept.
	Keys Keys `yaml:"keys"`
	// Pricing is what models cost, by public model name or provider
	// name, for the spend report.
	Pricing map[string]Price `yaml:"pricing"`

	// Where each key was in the parsed file, for errors found after
	// decoding; nil for a File built in Go.
	name string
	pos  map[string]position
}

// DefaultAddr and DefaultPath are where `toolgate serve` listens when
// [Server] leaves them empty: loopback only.
const (
	DefaultAddr = "127.0.0.1:8686"
	DefaultPath = "/mcp"
	// DefaultShutdownTimeout is how long running calls get to finish when
	// the server stops.
	DefaultShutdownTimeout = 10 * time.Second
)

// Server is the server section.
type Server struct {
	// Addr is the HTTP listen address. If empty, [DefaultAddr].
	Addr string `yaml:"addr"`
	// Path is the MCP endpoint. If empty, [DefaultPath].
	Path string `yaml:"path"`
	// AllowedOrigins are browser origins ("https://app.example.com": a
	// scheme and host, no path, no trailing slash) allowed to make
	// cross-origin requests.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// MaxRequestBytes bounds an HTTP request body. If zero,
	// mcpserver.DefaultMaxRequestBytes; negative means no limit.
	MaxRequestBytes int64 `yaml:"max_request_bytes"`
	// ShutdownTimeout is how long running calls get to finish when the
	// server stops. If zero, [DefaultShutdownTimeout].
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// ReadTimeout is how long a request body may take to arrive. If
	// zero, [DefaultReadTimeout]; negative means no limit.
	ReadTimeout time.Duration `yaml:"read_timeout"`
	// IdleTimeout closes keep-alive connections idle this long. If zero,
	// [DefaultIdleTimeout]; negative means never.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// MaxConnections bounds the connections accepted at once; more wait
	// in the listener's backlog. If zero, [DefaultMaxConnections];
	// negative means no limit.
	MaxConnections int `yaml:"max_connections"`
	// MaxSessions bounds the MCP sessions open at once, the least
	// recently used idle one closed first. If zero,
	// mcpserver.DefaultMaxSessions; negative means no limit.
	MaxSessions int `yaml:"max_sessions"`
	// MaxSessionsPerPrincipal bounds one principal's MCP sessions. If
	// zero, mcpserver.DefaultMaxSessionsPerPrincipal; negative means no
	// limit.
	MaxSessionsPerPrincipal int `yaml:"max_sessions_per_principal"`
	// SessionIdleTimeout closes MCP sessions idle this long. If zero,
	// mcpserver.DefaultSessionTimeout; negative means never.
	SessionIdleTimeout time.Duration `yaml:"session_idle_timeout"`
	// LogLevel is the least severe log record written: debug, info,
	// warn or error. If empty, info; debug adds one line per call and
	// one per refused request.
	LogLevel string `yaml:"log_level"`
	// DebugAddr, if set, is a loopback address (127.0.0.1:6060) where
	// net/http/pprof is served. Empty means not served.
	DebugAddr string `yaml:"debug_addr"`
	// UI serves the web console at /ui/ (tools and a try-it form, a live
	// feed of calls and gateway requests, the audit trail with search
	// and verify, per-provider charts). Off by default.
	UI bool `yaml:"ui"`
	// UIRole is the role a principal needs to log in to the console. If
	// empty, admin.
	UIRole string `yaml:"ui_role"`
}

// Defaults for the limits of [Server] left zero.
const (
	DefaultReadTimeout    = 30 * time.Second
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultMaxConnections = 1024
)

// SlogLevel is the [Server.LogLevel] as a slog level; [File.Check]
// refuses a name it does not know.
func (s *Server) SlogLevel() slog.Level {
	switch s.LogLevel {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// Auth is the auth section.
type Auth struct {
	// Anonymous is the principal of HTTP requests without a bearer token.
	// If empty, such requests get 401.
	Anonymous string `yaml:"anonymous"`
	// Local is the principal of stdio connections. If empty, "local".
	Local string `yaml:"local"`
	// Tokens map bearer tokens to principals.
	Tokens []Token `yaml:"tokens"`
}

// Token is one bearer token of [Auth].
type Token struct {
	// Principal is who the token's requests run as. Required.
	Principal string `yaml:"principal"`
	// Token is the token itself; prefer TokenEnv.
	Token string `yaml:"token"`
	// TokenEnv names the variable holding the token.
	TokenEnv string `yaml:"token_env"`
	// Generate makes a random token when TokenEnv is unset; [Built]
	// reports it so that it can be shown once.
	Generate bool `yaml:"generate"`
	// ID names the token in logs, traces and the console. If empty,
	// the principal and the token's place among its tokens: "agent#1".
	ID string `yaml:"id"`
}

// Principal is one entry of principals.
type Principal struct {
	ID         string            `yaml:"id"`
	Roles      []string          `yaml:"roles"`
	Attributes map[string]string `yaml:"attributes"`
	// Budget bounds what the principal's model requests spend, with
	// every key and token it has together, in addition to each key's own.
	Budget Budget `yaml:"budget"`
}

// Budget is a spending bound: USD (priced by pricing) and tokens per
// period (1h, 1d, 30d; empty: for ever); zero is no bound.
type Budget struct {
	USD    float64 `yaml:"usd"`
	Tokens int64   `yaml:"tokens"`
	Period string  `yaml:"period"`
}

// Policy is the policy section.
type Policy struct {
	// MinJustification is the length a justification of a WRITE,
	// DESTRUCTIVE or SECRETS call must reach. If zero, the kernel's
	// default.
	MinJustification int    `yaml:"min_justification"`
	Rules            []Rule `yaml:"rules"`
	// Approver decides the calls require_approval rules match; without
	// one they are denied.
	Approver *Approver `yaml:"approver"`
}

// Rule is one policy rule; see [kernel.Rule] for what each field matches.
type Rule struct {
	Name        string               `yaml:"name"`
	Tools       []string             `yaml:"tools"`
	Roles       []string             `yaml:"roles"`
	Attributes  map[string]string    `yaml:"attributes"`
	Safety      []kernel.Safety      `yaml:"safety"`
	Sensitivity []kernel.Sensitivity `yaml:"sensitivity"`
	// When is a CEL condition over principal, tool and args.
	When string `yaml:"when"`
	// Effect is allow, deny or require_approval. Required.
	Effect kernel.Effect `yaml:"effect"`
	Reason string        `yaml:"reason"`
}

// Limits is the limits section: calls per principal and tool per window,
// by safety class. Zero means the kernel's default, negative no limit.
type Limits struct {
	Read        int           `yaml:"read"`
	Write       int           `yaml:"write"`
	Destructive int           `yaml:"destructive"`
	Window      time.Duration `yaml:"window"`
	// Store is where the windows are kept: memory (this process only),
	// sqlite (a file every process on the machine shares) or redis
	// (replicas on any machine). If empty, [BuildOptions.LimitsStore],
	// else memory.
	Store string `yaml:"store"`
	// DB is the SQLite file of store sqlite. If empty, the audit log's
	// file.
	DB string `yaml:"db"`
	// URLEnv names the variable holding the Redis URL of store redis. If
	// empty, [DefaultRedisURLEnv]. A variable that is unset or empty is a
	// start-up error.
	URLEnv string `yaml:"url_env"`
}

// The values of audit.store, and the variable holding the PostgreSQL
// connection string when audit.dsn_env names none.
const (
	AuditSQLite        = "sqlite"
	AuditPostgres      = "postgres"
	DefaultAuditDSNEnv = "TOOLGATE_AUDIT_DSN"
)

// The values of limits.store and grants.store, and the variable holding
// the Redis URL when url_env names none.
const (
	LimitsMemory       = "memory"
	LimitsSQLite       = "sqlite"
	StoreRedis         = "redis"
	DefaultRedisURLEnv = "TOOLGATE_REDIS_URL"
)

// Audit is the audit section.
type Audit struct {
	// Store is sqlite (the default) or postgres.
	Store string `yaml:"store"`
	// DB is the SQLite audit log file. If empty (and the store is
	// sqlite), no audit log.
	DB string `yaml:"db"`
	// DSNEnv names the variable holding the PostgreSQL connection string
	// of store postgres. If empty, [DefaultAuditDSNEnv]. A variable that
	// is unset or empty is a start-up error.
	DSNEnv string `yaml:"dsn_env"`
	// KeyEnv names the variable holding the HMAC key of the chain. A
	// variable that is unset or empty is a start-up error, not an
	// unkeyed chain.
	KeyEnv string `yaml:"key_env"`
	// Sync is how durable a committed record is: normal (the default)
	// survives a crash of the process, full also a power loss (SQLite
	// synchronous=FULL, PostgreSQL synchronous_commit on whatever the
	// server's default). A call's intent
	// is committed before its tool runs, its outcome before its result
	// is returned.
	Sync string `yaml:"sync"`
	// MaxArgsBytes bounds the arguments one record stores; larger ones
	// are stored as their size, SHA-256 and beginning. If zero,
	// kernel.DefaultAuditMaxArgsBytes (64 KiB); negative means no limit.
	MaxArgsBytes int `yaml:"max_args_bytes"`
	// CaptureContent keeps the conversation of each model request — the
	// client's request body and the model's answer text, its secrets
	// masked — in the request's model record. By default a model record
	// holds who, what, usage, cost and the calls' argument hashes only.
	CaptureContent bool `yaml:"capture_content"`
	// Checkpoint anchors the chain's head outside its store.
	Checkpoint AuditCheckpoint `yaml:"checkpoint"`
}

// AuditCheckpoint is audit.checkpoint: signed checkpoints of the chain's
// head (toolgate audit checkpoint, and toolgate serve every Every).
type AuditCheckpoint struct {
	// Every is how often toolgate serve appends a checkpoint to Sink (and
	// one more when it stops). Zero: never.
	Every time.Duration `yaml:"every"`
	// Sink is the file serve appends checkpoints to, one JSON line each,
	// synced. Keep it where whoever can write the database cannot.
	Sink string `yaml:"sink"`
	// Ed25519KeyEnv names the variable holding the Ed25519 private key
	// that signs checkpoints: its 32-byte seed or 64-byte key in standard
	// base64. A named variable that is unset is a start-up error.
	Ed25519KeyEnv string `yaml:"ed25519_key_env"`
	// Ed25519PublicKey is the public key (32 bytes, standard base64)
	// that toolgate audit verify checks checkpoint signatures with.
	Ed25519PublicKey string `yaml:"ed25519_public_key"`
}

// Grants is the grants section.
type Grants struct {
	// KeyEnv names the variable holding the grant key. If empty,
	// kernel.GrantKeyEnv.
	KeyEnv string `yaml:"key_env"`
	// TTL is how long a grant stays valid. If zero, the kernel's default.
	TTL time.Duration `yaml:"ttl"`
	// Store keeps revoked and used grant ids: memory (this process only,
	// the default), redis or postgres (shared by replicas, so that a
	// grant used on one is a replay on another).
	Store string `yaml:"store"`
	// URLEnv names the variable holding the Redis URL of store redis. If
	// empty, [DefaultRedisURLEnv].
	URLEnv string `yaml:"url_env"`
	// DSNEnv names the variable holding the PostgreSQL connection string
	// of store postgres. If empty, [DefaultAuditDSNEnv]: the audit log's
	// database.
	DSNEnv string `yaml:"dsn_env"`
}

// Firewall is the firewall section; zero limits mean the kernel's
// defaults.
type Firewall struct {
	MaxBytes int `yaml:"max_bytes"`
	MaxRows  int `yaml:"max_rows"`
	MaxDepth int `yaml:"max_depth"`
	// Patterns are extra secrets to mask.
	Patterns []Pattern `yaml:"patterns"`
	// Keys are extra JSON member names whose values are masked.
	Keys []string `yaml:"keys"`
}

// Pattern is a named regular expression of secrets to mask.
type Pattern struct {
	Name   string `yaml:"name"`
	Regexp string `yaml:"regexp"`
}

// Source is one entry of sources: a name and exactly one kind.
type Source struct {
	// Name identifies the source; unique. A command's tool and an MCP
	// source's prefix take it.
	Name    string   `yaml:"name"`
	OpenAPI *OpenAPI `yaml:"openapi"`
	Command *Command `yaml:"command"`
	MCP     *MCP     `yaml:"mcp"`
	Demo    *Demo    `yaml:"demo"`
}

// OpenAPI is an OpenAPI source: every operation of a spec a tool.
type OpenAPI struct {
	// Spec is a file path or an http(s) URL. Required.
	Spec string `yaml:"spec"`
	// Server overrides the spec's servers.
	Server       string        `yaml:"server"`
	AllowPrivate bool          `yaml:"allow_private"`
	Tags         []string      `yaml:"tags"`
	Operations   []string      `yaml:"operations"`
	Timeout      time.Duration `yaml:"timeout"`
	// TotalTimeout bounds a whole call, retries included. If zero,
	// openapi.DefaultTotalTimeout.
	TotalTimeout time.Duration `yaml:"total_timeout"`
	// MaxResultTokens caps the text of a result the model sees, in
	// estimated tokens. If zero, openapi.DefaultMaxResultTokens; negative,
	// no cap.
	MaxResultTokens int `yaml:"max_result_tokens"`
	// AllowRedirectsAnywhere lets a redirect leave the spec's servers
	// (the address guard still applies).
	AllowRedirectsAnywhere bool        `yaml:"allow_redirects_anywhere"`
	Auth                   OpenAPIAuth `yaml:"auth"`
}

// OpenAPIAuth names the variables holding an OpenAPI source's credentials.
type OpenAPIAuth struct {
	BearerTokenEnv  string `yaml:"bearer_token_env"`
	APIKeyEnv       string `yaml:"api_key_env"`
	UsernameEnv     string `yaml:"username_env"`
	PasswordEnv     string `yaml:"password_env"`
	ClientIDEnv     string `yaml:"client_id_env"`
	ClientSecretEnv string `yaml:"client_secret_env"`
}

// Command is a command source: a local program as one tool, named after
// the source.
type Command struct {
	Description string `yaml:"description"`
	// InputSchema is the tool's JSON Schema, written in YAML or JSON.
	InputSchema   json.RawMessage    `yaml:"input_schema"`
	Safety        kernel.Safety      `yaml:"safety"`
	Sensitivity   kernel.Sensitivity `yaml:"sensitivity"`
	AllowedFields []string           `yaml:"allowed_fields"`
	// Argv is the program and its argument templates. Required.
	Argv    []string      `yaml:"argv"`
	Dir     string        `yaml:"dir"`
	Env     []string      `yaml:"env"`
	Timeout time.Duration `yaml:"timeout"`
	// Output is text (the default) or mcp.
	Output source.Output `yaml:"output"`
}

// MCP is an upstream MCP server whose tools are served as NAME_tool.
// Exactly one of Command and URL is set.
type MCP struct {
	Command        []string `yaml:"command"`
	Env            []string `yaml:"env"`
	Dir            string   `yaml:"dir"`
	URL            string   `yaml:"url"`
	BearerTokenEnv string   `yaml:"bearer_token_env"`
	// Prefix replaces the source name as the tools' prefix.
	Prefix string `yaml:"prefix"`
}

// Demo is the built-in demo task tracker; it has no settings.
type Demo struct{}

// Telemetry is the telemetry section: OpenTelemetry traces of gateway
// requests, backend passes, MCP tools/call and kernel calls, exported
// over OTLP/HTTP. Off unless OTLPEndpoint is set.
type Telemetry struct {
	// OTLPEndpoint is the collector's OTLP/HTTP traces URL, such as
	// http://127.0.0.1:4318/v1/traces (Jaeger, Tempo, the OpenTelemetry
	// Collector and Langfuse take it).
	OTLPEndpoint string `yaml:"otlp_endpoint"`
	// ServiceName is service.name. If empty, toolgate.
	ServiceName string `yaml:"service_name"`
	// SampleRatio is the share of new traces kept, above 0 and at most
	// 1; a trace the caller sampled is always kept. If zero, 1.
	SampleRatio float64 `yaml:"sample_ratio"`
	// CaptureContent adds tool arguments and results, redacted, to the
	// spans. Off by default: spans carry names, decisions and counts only.
	CaptureContent bool `yaml:"capture_content"`
}

// Keys is the keys section: where `toolgate keys create` keeps the keys
// it makes and serve finds them.
type Keys struct {
	// Store is sqlite (the default: in DB, else the audit log's file),
	// postgres (shared by replicas, with their spend and, unless
	// limits.store is redis, the meters of their tokens and budgets) or
	// none (only auth.tokens authenticate).
	Store string `yaml:"store"`
	// DB is the SQLite file of the keys. If empty, the audit log's.
	DB string `yaml:"db"`
	// DSNEnv names the variable holding the PostgreSQL connection string
	// of store postgres. If empty, the audit log's (audit.dsn_env, else
	// [DefaultAuditDSNEnv]). A variable that is unset or empty is a
	// start-up error.
	DSNEnv string `yaml:"dsn_env"`
}

// Price is a model's cost in USD per million tokens. Cached input and
// cache writes default to the input price, reasoning to the output
// price.
type Price struct {
	Input       float64 `yaml:"input"`
	CachedInput float64 `yaml:"cached_input"`
	CacheWrite  float64 `yaml:"cache_write"`
	Output      float64 `yaml:"output"`
	Reasoning   float64 `yaml:"reasoning"`
}
