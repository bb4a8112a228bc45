// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/server"
)

const gatewayYAML = `auth:
  tokens:
    - principal: agent
      token_env: AGENT_TOKEN
principals:
  - id: agent
providers:
  - name: qwen3_local
    model_name: Qwen/Qwen3-14B
    provider_backend: vllm_native
    api_config:
      base_url: http://127.0.0.1:8000/v1
    generation_config:
      max_tokens: 4096
      temperature: 0.6
    timeouts: {connect: 2s, first_token: 30s, idle: 20s, total: 5m}
    retries: {max: 3}
    fallbacks: [claude]
  - name: claude
    model_name: claude-sonnet-4-5
    provider_backend: anthropic
    api_config:
      base_url: https://api.anthropic.com
      api_key_env: ANTHROPIC_API_KEY
  - name: gpt
    model_name: gpt-5-mini
    provider_backend: openai
    api_config:
      base_url: https://api.openai.com/v1
      api_key_env: OPENAI_API_KEY
      api: responses
models:
  qwen3: qwen3_local
gateway:
  reasoning_field: both
`

func TestGatewayConfig(t *testing.T) {
	f, err := Parse([]byte(gatewayYAML), "gw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AGENT_TOKEN": "tok-agent", "ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"}
	b, err := f.Build(context.Background(), &BuildOptions{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	gc := b.Gateway
	if gc == nil {
		t.Fatal("no gateway config built")
	}
	// The gateway's routes authenticate by the auth section's tokens, as
	// every route does.
	auth, err := server.NewAuth(b.Auth)
	if err != nil {
		t.Fatal(err)
	}
	whoami := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := server.PrincipalFrom(r.Context())
		w.Write([]byte(p.ID))
	})
	temp := 0.6
	want := []gateway.Provider{
		{Name: "qwen3_local", API: gateway.APIChat, BaseURL: "http://127.0.0.1:8000/v1", Model: "Qwen/Qwen3-14B", Compat: true, MaxTokens: 4096,
			ConnectTimeout: 2e9, FirstTokenTimeout: 30e9, IdleTimeout: 20e9, TotalTimeout: 300e9, Retries: 3, Fallbacks: []string{"claude"},
			Backend: gateway.BackendVLLM, Temperature: &temp},
		{Name: "claude", API: gateway.APIMessages, BaseURL: "https://api.anthropic.com", APIKey: "sk-ant", Model: "claude-sonnet-4-5", Backend: gateway.BackendAnthropic},
		{Name: "gpt", API: gateway.APIResponses, BaseURL: "https://api.openai.com/v1", APIKey: "sk-oai", Model: "gpt-5-mini", Backend: gateway.BackendOpenAI},
	}
	if diff := cmp.Diff(want, gc.Providers, cmpopts.IgnoreUnexported(gateway.Provider{})); diff != "" {
		t.Errorf("providers (-want +got)\n%s", diff)
	}
	if gc.ReasoningField != gateway.ReasoningBoth || gc.Models["qwen3"] != "qwen3_local" {
		t.Errorf("reasoning field %q, models %v", gc.ReasoningField, gc.Models)
	}
	for _, tt := range []struct {
		header, value string
		ok            bool
	}{
		{"Authorization", "Bearer tok-agent", true},
		{"x-api-key", "tok-agent", true},
		{"Authorization", "Bearer wrong", false},
		{"", "", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/v1/messages", nil)
		if tt.header != "" {
			r.Header.Set(tt.header, tt.value)
		}
		rec := httptest.NewRecorder()
		auth.Require(whoami, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse}).ServeHTTP(rec, r)
		if got := rec.Body.String(); (rec.Code == 200) != tt.ok || (tt.ok && got != "agent") {
			t.Errorf("%s %q: %d %q", tt.header, tt.value, rec.Code, got)
		}
	}
	if _, err := gateway.New(gc); err != nil {
		t.Errorf("gateway.New: %v", err)
	}
}

func TestGatewayConfigErrors(t *testing.T) {
	tests := []struct {
		name, edit, want string
	}{
		{"unknown-backend", "provider_backend: vllm_native", "provider_backend: \"tgi\" is not one of"},
		{"no-key-beyond-loopback", "base_url: http://127.0.0.1:8000/v1", "api_key_env: is required for a backend beyond loopback"},
		{"unknown-fallback", "fallbacks: [claude]", "fallbacks[0]: \"nobody\" is not a provider"},
		{"unknown-model-provider", "qwen3: qwen3_local", "models.qwen3: \"ghost\" is not a provider"},
		{"responses-needs-openai", "api: responses", "api: \"nope\" is not chat or responses"},
		{"reasoning-field", "reasoning_field: both", "gateway.reasoning_field: \"thoughts\" is not"},
		{"parsing-format", "max_tokens: 4096", "parsing_format: \"thoughts\" is not think_tags"},
		{"tool-parser", "max_tokens: 4096", "tool_parser: \"hermes2\" is not openai or a text tool-call family"},
		{"unknown-key", "max_tokens: 4096", "max_tokenz"},
		{"continuation", "retries: {max: 3}", "continuation: \"maybe\" is not auto"},
		{"two-pass-value", "max_tokens: 4096", "two_pass: \"sometimes\" is not true, false or auto"},
		{"think-tag", "max_tokens: 4096", "think_tag: \"<think>\" is not a tag name"},
		{"temperature", "temperature: 0.6", "temperature: is not between 0 and 2"},
		{"negative-budget", "max_tokens: 4096", "max_thinking_tokens: is negative"},
	}
	edits := map[string]string{
		"unknown-backend":        "provider_backend: tgi",
		"no-key-beyond-loopback": "base_url: http://10.0.0.5:8000/v1",
		"unknown-fallback":       "fallbacks: [nobody]",
		"unknown-model-provider": "qwen3: ghost",
		"responses-needs-openai": "api: nope",
		"reasoning-field":        "reasoning_field: thoughts",
		"parsing-format":         "max_tokens: 4096\n    parsing_format: thoughts",
		"tool-parser":            "max_tokens: 4096\n    tool_parser: hermes2",
		"unknown-key":            "max_tokenz: 4096",
		"continuation":           "retries: {max: 3}\n    continuation: maybe",
		"two-pass-value":         "max_tokens: 4096\n      two_pass: sometimes",
		"think-tag":              "max_tokens: 4096\n      think_tag: \"<think>\"",
		"temperature":            "temperature: 7",
		"negative-budget":        "max_tokens: 4096\n      max_thinking_tokens: -1",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(gatewayYAML, tt.edit, edits[tt.name], 1)
			if tt.name == "parsing-format" || tt.name == "tool-parser" {
				src = strings.Replace(gatewayYAML, "    generation_config:\n      max_tokens: 4096", "    "+strings.TrimSpace(strings.SplitN(edits[tt.name], "\n", 2)[1])+"\n    generation_config:\n      max_tokens: 4096", 1)
			}
			_, err := Parse([]byte(src), "gw.yaml")
			var ce *Error
			if !errors.As(err, &ce) || ce.Line == 0 || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an *Error with a line mentioning %q", err, tt.want)
			}
		})
	}
	// An api_key_env that names an unset variable is a start-up error.
	f, err := Parse([]byte(gatewayYAML), "gw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Build(context.Background(), &BuildOptions{Getenv: func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "x"
		}
		return ""
	}})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY is not set") || !errors.Is(err, ErrInvalid) {
		t.Errorf("err = %v, want ANTHROPIC_API_KEY is not set", err)
	}
}
