// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/source"
	"github.com/toolgate/toolgate/textcall"
)

// Provider is one entry of providers: a model backend the gateway fronts.
// The vocabulary is the founding providers design's (DESIGN.md, "The
// gateway").
type Provider struct {
	// Name is the provider's unique name; a model name too.
	Name string `yaml:"name"`
	// ModelName is the model's name at the backend. Required.
	ModelName string `yaml:"model_name"`
	// ProviderBackend is openai, anthropic, gemini, openai_compat,
	// vllm_native, llamacpp or ollama. The last three are
	// OpenAI-compatible servers.
	ProviderBackend string    `yaml:"provider_backend"`
	APIConfig       APIConfig `yaml:"api_config"`
	// ParsingFormat is where the reasoning is: think_tags (in the text,
	// the default for OpenAI-compatible servers), reasoning_field (the
	// backend splits it; the default for openai and anthropic) or
	// direct_response (none).
	ParsingFormat string `yaml:"parsing_format"`
	// ToolParser is openai (the backend's native tools; the default) or
	// a text tool-call family (hermes, qwen3-coder, …): the gateway
	// renders the family's tools prompt and reads the calls from the
	// text.
	ToolParser       string           `yaml:"tool_parser"`
	ThinkOpen        bool             `yaml:"think_open"`
	Continuation     string           `yaml:"continuation"`
	GenerationConfig GenerationConfig `yaml:"generation_config"`
	Timeouts         Timeouts         `yaml:"timeouts"`
	Retries          Retries          `yaml:"retries"`
	// Fallbacks are providers tried in order when this one fails before
	// the first byte reaches the client.
	Fallbacks []string `yaml:"fallbacks"`
}

// APIConfig is where and how a provider is reached.
type APIConfig struct {
	// BaseURL is the API root the vendor's own SDK takes:
	// https://api.openai.com/v1, https://api.anthropic.com,
	// http://127.0.0.1:8000/v1. Required.
	BaseURL string `yaml:"base_url"`
	// APIKeyEnv names the variable holding the backend's key. Empty is
	// allowed only for a loopback base_url; a named variable that is
	// unset is a start-up error.
	APIKeyEnv string `yaml:"api_key_env"`
	// API is chat (the default) or responses, for provider_backend openai.
	API string `yaml:"api"`
}

// GenerationConfig holds a provider's generation defaults.
type GenerationConfig struct {
	// MaxTokens bounds an answer when the client sets no bound.
	MaxTokens int `yaml:"max_tokens"`
	// Temperature is sent when the client sets none.
	Temperature *float64 `yaml:"temperature"`
	// The two-pass thinking budget keys: two_pass true, false or auto
	// (the backend's own exact budget where it has one); the think tag
	// without brackets; the budgets of each pass (max_thinking_tokens is
	// required with two passes); the text appended to reasoning the
	// budget closed.
	TwoPass           string `yaml:"two_pass"`
	ThinkTag          string `yaml:"think_tag"`
	MaxThinkingTokens int    `yaml:"max_thinking_tokens"`
	MaxResponseTokens int    `yaml:"max_response_tokens"`
	BudgetMessage     string `yaml:"budget_message"`
}

// Timeouts bound a provider's exchanges; zero means the gateway's
// defaults, negative none. FirstToken bounds a stream's wait for its
// first byte; a client that does not stream gets the backend's whole
// answer, whose first byte comes when it is complete, so Total bounds it
// instead (see gateway.Provider).
type Timeouts struct {
	Connect    time.Duration `yaml:"connect"`
	FirstToken time.Duration `yaml:"first_token"`
	Idle       time.Duration `yaml:"idle"`
	Total      time.Duration `yaml:"total"`
}

// Retries is how often a provider's failed attempt is tried again.
type Retries struct {
	// Max is the number of retries; zero means the gateway's default,
	// negative none.
	Max int `yaml:"max"`
}

// Gateway is the gateway section.
type Gateway struct {
	// ReasoningField is where Chat Completions answers carry reasoning:
	// reasoning_content (the default), reasoning or both.
	ReasoningField string `yaml:"reasoning_field"`
	// MediateTools puts the kernel between the models and every tool
	// call they make through the gateway (see gateway.Mediation).
	MediateTools bool `yaml:"mediate_tools"`
	// ClientTools give the clients' own tools a safety class by name
	// glob, first match first; DefaultClientSafety is the class of the
	// others (WRITE when empty).
	ClientTools         []ClientTool `yaml:"client_tools"`
	DefaultClientSafety string       `yaml:"default_client_safety"`
	// Tools names the sources whose tools the gateway offers the models
	// and runs itself, through the kernel.
	Tools []string `yaml:"tools"`
	// MaxToolSteps bounds the backend passes the gateway makes for one
	// request while the model calls tools it answers itself.
	MaxToolSteps int `yaml:"max_tool_steps"`
	// MCPServersAllowed are the MCP servers requests may name (Anthropic
	// mcp_servers, Responses mcp tools) for the gateway to connect, each
	// a URL or a prefix ending in "/"; others are refused.
	MCPServersAllowed []string `yaml:"mcp_servers_allowed"`
	// MaxRequestBytes bounds a request body. If zero,
	// gateway.DefaultMaxRequestBytes; negative, none.
	MaxRequestBytes int64 `yaml:"max_request_bytes"`
	// AllowAnonymous lets requests without credentials reach the models
	// as auth.anonymous. Off by default: the anonymous principal meant
	// for MCP's read tools must not spend the providers' keys.
	AllowAnonymous bool `yaml:"allow_anonymous"`
	// MetricsKeyLabel adds the key id to the gateway's requests and
	// tokens metrics (one series per key).
	MetricsKeyLabel bool `yaml:"metrics_key_label"`
	// UnknownMembers is what becomes of a request member in no member
	// table: warn (the default: dropped, named in x-toolgate-warnings)
	// or refuse (400 naming it).
	UnknownMembers string `yaml:"unknown_members"`
}

// ClientTool is one entry of gateway.client_tools.
type ClientTool struct {
	Name   string `yaml:"name"`
	Safety string `yaml:"safety"`
}

var backendAPI = map[string]gateway.API{
	"openai": gateway.APIChat, "anthropic": gateway.APIMessages, "gemini": gateway.APIGemini, "openai_compat": gateway.APIChat,
	"vllm_native": gateway.APIChat, "llamacpp": gateway.APIChat, "ollama": gateway.APIChat,
	"demo": gateway.APIChat,
}

// demoBaseURL is where the gateway addresses the built-in demo model,
// which answers in-process: no request leaves the process.
const demoBaseURL = "http://demo-model.toolgate.invalid/v1"

// checkGateway checks the providers, models and gateway sections.
func (f *File) checkGateway() error {
	names := map[string]bool{}
	for i, p := range f.Providers {
		path := at("providers", i)
		switch {
		case p.Name == "":
			return f.errf(path+".name", "is required")
		case names[p.Name]:
			return f.errf(path+".name", "provider %q is defined twice", p.Name)
		case p.ModelName == "":
			return f.errf(path+".model_name", "is required")
		}
		names[p.Name] = true
		if _, ok := backendAPI[p.ProviderBackend]; !ok {
			return f.errf(path+".provider_backend", "%q is not one of openai, anthropic, gemini, openai_compat, vllm_native, llamacpp, ollama", p.ProviderBackend)
		}
		if p.ProviderBackend == "demo" {
			if p.APIConfig.BaseURL != "" || p.APIConfig.APIKeyEnv != "" || (p.ToolParser != "" && p.ToolParser != "openai") {
				return f.errf(path+".provider_backend", "demo is the built-in model: it takes no base_url, api_key_env or tool_parser")
			}
			continue
		}
		u, err := url.Parse(p.APIConfig.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return f.errf(path+".api_config.base_url", "must be an http(s) URL such as http://127.0.0.1:8000/v1")
		}
		if p.APIConfig.APIKeyEnv == "" && !loopbackHost(u.Hostname()) {
			return f.errf(path+".api_config.api_key_env", "is required for a backend beyond loopback")
		}
		switch p.APIConfig.API {
		case "", "chat":
		case "responses":
			if p.ProviderBackend != "openai" {
				return f.errf(path+".api_config.api", "responses is for provider_backend openai")
			}
		default:
			return f.errf(path+".api_config.api", "%q is not chat or responses", p.APIConfig.API)
		}
		switch p.ParsingFormat {
		case "", "reasoning_field", "direct_response", "think_tags":
		default:
			return f.errf(path+".parsing_format", "%q is not think_tags, reasoning_field or direct_response", p.ParsingFormat)
		}
		if p.ToolParser != "" && p.ToolParser != "openai" {
			if _, err := textcall.Lookup(p.ToolParser); err != nil {
				return f.errf(path+".tool_parser", "%q is not openai or a text tool-call family (%s)", p.ToolParser, strings.Join(textcall.Names(), ", "))
			}
		}
		switch p.Continuation {
		case "", "auto", "continue_final_message", "prefill", "none":
		default:
			return f.errf(path+".continuation", "%q is not auto, continue_final_message, prefill or none", p.Continuation)
		}
		g := p.GenerationConfig
		gpath := path + ".generation_config"
		switch {
		case g.MaxTokens < 0:
			return f.errf(gpath+".max_tokens", "is negative")
		case g.MaxThinkingTokens < 0:
			return f.errf(gpath+".max_thinking_tokens", "is negative")
		case g.MaxResponseTokens < 0:
			return f.errf(gpath+".max_response_tokens", "is negative")
		case g.Temperature != nil && (*g.Temperature < 0 || *g.Temperature > 2):
			return f.errf(gpath+".temperature", "is not between 0 and 2")
		case g.ThinkTag != "" && !gateway.ValidThinkTag(g.ThinkTag):
			return f.errf(gpath+".think_tag", "%q is not a tag name (letters, digits, _ and -, without brackets)", g.ThinkTag)
		}
		switch g.TwoPass {
		case "", "false":
		case "true", "auto":
			if g.MaxThinkingTokens == 0 {
				return f.errf(gpath+".max_thinking_tokens", "is required with two_pass %s", g.TwoPass)
			}
			if g.TwoPass == "true" && (p.ProviderBackend == "openai" || p.ProviderBackend == "gemini" || p.APIConfig.API == "responses") && p.Continuation == "" {
				return f.errf(gpath+".two_pass", "needs a backend that continues a trailing assistant message, which %s does not", p.ProviderBackend)
			}
		default:
			return f.errf(gpath+".two_pass", "%q is not true, false or auto", g.TwoPass)
		}
	}
	for i, p := range f.Providers {
		for j, fb := range p.Fallbacks {
			if !names[fb] {
				return f.errf(at(at("providers", i)+".fallbacks", j), "%q is not a provider", fb)
			}
		}
	}
	for name, prov := range f.Models {
		if !names[prov] {
			return f.errf("models."+name, "%q is not a provider", prov)
		}
	}
	switch f.Gateway.ReasoningField {
	case "", "reasoning_content", "reasoning", "both":
	default:
		return f.errf("gateway.reasoning_field", "%q is not reasoning_content, reasoning or both", f.Gateway.ReasoningField)
	}
	switch f.Gateway.UnknownMembers {
	case "", "warn", "refuse":
	default:
		return f.errf("gateway.unknown_members", "%q is not warn or refuse", f.Gateway.UnknownMembers)
	}
	if err := f.checkMediation(); err != nil {
		return err
	}
	for name, pr := range f.Pricing {
		if !names[name] && f.Models[name] == "" {
			return f.errf("pricing."+name, "%q is not a model or provider name", name)
		}
		for _, v := range [...]struct {
			key string
			usd float64
		}{{"input", pr.Input}, {"cached_input", pr.CachedInput}, {"cache_write", pr.CacheWrite}, {"output", pr.Output}, {"reasoning", pr.Reasoning}} {
			if v.usd < 0 {
				return f.errf("pricing."+name+"."+v.key, "a price is negative")
			}
		}
	}
	if len(f.Models) > 0 && len(f.Providers) == 0 {
		return f.errf("models", "names providers, but there are none")
	}
	return nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// gatewayConfig builds the gateway's config: providers with their keys
// read through getenv, and the auth section's tokens as its
// authentication. Nil when the file has no providers.
func (f *File) gatewayConfig(b *Built, getenv func(string) string) (*gateway.Config, error) {
	if len(f.Providers) == 0 {
		return nil, nil
	}
	gc := &gateway.Config{
		Models:               map[string]string{},
		ReasoningField:       gateway.ReasoningField(f.Gateway.ReasoningField),
		MaxRequestBytes:      f.Gateway.MaxRequestBytes,
		Limiter:              b.rateLimiter,
		MetricsKeyLabel:      f.Gateway.MetricsKeyLabel,
		Meter:                b.meter,
		RefuseUnknownMembers: f.Gateway.UnknownMembers == "refuse",
		Prices:               map[string]gateway.Price{},
		TracerProvider:       b.tracer,
		CaptureContent:       f.Audit.CaptureContent,
	}
	for name, prov := range f.Models {
		gc.Models[name] = prov
	}
	for name, p := range f.Pricing {
		gc.Prices[name] = gateway.Price(p)
	}
	for _, p := range f.Principals {
		if b := p.Budget; b.USD > 0 || b.Tokens > 0 {
			period, _ := kernel.ParseSpan(b.Period) // checked; empty is for ever
			if gc.PrincipalBudgets == nil {
				gc.PrincipalBudgets = map[string]kernel.Budget{}
			}
			gc.PrincipalBudgets[p.ID] = kernel.Budget{USD: b.USD, Tokens: b.Tokens, Period: period}
		}
	}
	for i, p := range f.Providers {
		key := ""
		if p.APIConfig.APIKeyEnv != "" {
			if key = getenv(p.APIConfig.APIKeyEnv); key == "" {
				return nil, f.errf(at("providers", i)+".api_config.api_key_env", "%s is not set", p.APIConfig.APIKeyEnv)
			}
		}
		api := backendAPI[p.ProviderBackend]
		if p.APIConfig.API == "responses" {
			api = gateway.APIResponses
		}
		if p.ProviderBackend == "demo" {
			gc.Providers = append(gc.Providers, gateway.Provider{Name: p.Name, API: gateway.APIChat, BaseURL: demoBaseURL, Model: p.ModelName,
				Compat: true, Backend: gateway.BackendCompat, Parsing: gateway.ParsingReasoningField})
			if gc.Clients == nil {
				gc.Clients = map[string]*http.Client{}
			}
			gc.Clients[p.Name] = &http.Client{Transport: source.DemoModel()}
			continue
		}
		gc.Providers = append(gc.Providers, gateway.Provider{
			Name: p.Name, API: api, BaseURL: p.APIConfig.BaseURL, APIKey: key, Model: p.ModelName,
			Compat:         p.ProviderBackend != "openai" && p.ProviderBackend != "anthropic" && p.ProviderBackend != "gemini",
			MaxTokens:      p.GenerationConfig.MaxTokens,
			ConnectTimeout: p.Timeouts.Connect, FirstTokenTimeout: p.Timeouts.FirstToken,
			IdleTimeout: p.Timeouts.Idle, TotalTimeout: p.Timeouts.Total,
			Retries: p.Retries.Max, Fallbacks: p.Fallbacks,
			Backend:    gateway.Backend(p.ProviderBackend),
			ToolParser: p.ToolParser, Parsing: gateway.ParsingFormat(p.ParsingFormat),
			ThinkTag: p.GenerationConfig.ThinkTag, ThinkOpen: p.ThinkOpen,
			Temperature:       p.GenerationConfig.Temperature,
			TwoPass:           gateway.TwoPassMode(p.GenerationConfig.TwoPass),
			MaxThinkingTokens: p.GenerationConfig.MaxThinkingTokens, MaxResponseTokens: p.GenerationConfig.MaxResponseTokens,
			BudgetMessage: p.GenerationConfig.BudgetMessage,
			Continuation:  gateway.Continuation(p.Continuation),
		})
	}
	var err error
	if gc.Mediate, err = f.mediation(b); err != nil {
		return nil, err
	}
	gc.Audit = b.Audit
	return gc, nil
}
