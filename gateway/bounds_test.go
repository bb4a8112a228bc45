// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gateway"
)

// badBounds are token bounds every vendor refuses: non-positive,
// fractional, too large for any model, or not a number at all.
var badBounds = []string{`-5`, `0`, `-0`, `1.5`, `16.0`, `1e3`, `99999999999`, `"16"`, `true`, `[16]`, `{}`}

// TestTokenBoundsRefused: on every front door, a bad token bound is a
// 400 in the API's own error shape that names the member by its JSON
// Pointer, and no backend is asked. (The issue: max_tokens -5,
// max_output_tokens -5 and max_completion_tokens 0 were accepted and the
// bound silently dropped.)
func TestTokenBoundsRefused(t *testing.T) {
	rg := newRig(t, nil)
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	members := []struct {
		front   string
		path    string
		api     gateway.API
		pointer string
		body    func(v string) string
	}{
		{"chat", "/v1/chat/completions", gateway.APIChat, "/max_tokens", func(v string) string {
			return `{"model":"m-openai-chat",` + msgs + `,"max_tokens":` + v + `}`
		}},
		{"chat", "/v1/chat/completions", gateway.APIChat, "/max_completion_tokens", func(v string) string {
			return `{"model":"m-openai-chat",` + msgs + `,"max_completion_tokens":` + v + `}`
		}},
		{"responses", "/v1/responses", gateway.APIResponses, "/max_output_tokens", func(v string) string {
			return `{"model":"m-openai-responses","input":"hi","max_output_tokens":` + v + `}`
		}},
		{"messages", "/v1/messages", gateway.APIMessages, "/max_tokens", func(v string) string {
			return `{"model":"m-anthropic",` + msgs + `,"max_tokens":` + v + `}`
		}},
		{"messages", "/v1/messages", gateway.APIMessages, "/thinking/budget_tokens", func(v string) string {
			return `{"model":"m-anthropic",` + msgs + `,"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":` + v + `}}`
		}},
		{"generate", "/generate", "", "/max_thinking_tokens", func(v string) string {
			return `{"model":"m-openai-chat",` + msgs + `,"max_thinking_tokens":` + v + `}`
		}},
		{"generate", "/generate", "", "/max_response_tokens", func(v string) string {
			return `{"model":"m-openai-chat",` + msgs + `,"max_response_tokens":` + v + `}`
		}},
	}
	for _, mb := range members {
		for _, v := range badBounds {
			t.Run(fmt.Sprintf("%s%s=%s", mb.front, mb.pointer, v), func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodPost, rg.gw.URL+mb.path, strings.NewReader(mb.body(v)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer client-token")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusBadRequest {
					t.Fatalf("status %d, want 400: %s", resp.StatusCode, data)
				}
				var e struct {
					Type  string `json:"type"`
					Error struct {
						Type    string `json:"type"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(data, &e); err != nil {
					t.Fatalf("not a JSON error body: %s", data)
				}
				if e.Error.Type != "invalid_request_error" {
					t.Errorf("error type %q, want invalid_request_error: %s", e.Error.Type, data)
				}
				if mb.api == gateway.APIMessages && e.Type != "error" {
					t.Errorf("not an Anthropic error body: %s", data)
				}
				if !strings.HasPrefix(e.Error.Message, mb.pointer+": ") {
					t.Errorf("message %q does not name %s", e.Error.Message, mb.pointer)
				}
			})
		}
	}
	for api, b := range rg.backends {
		if n := len(b.Requests()); n != 0 {
			t.Errorf("%d refused requests reached the %s backend", n, api)
		}
	}
}

// TestTokenBoundsAccepted: a positive integer is the bound, null is no
// bound, and the errors are RequestErrors with the pointer.
func TestTokenBoundsAccepted(t *testing.T) {
	tests := []struct {
		name        string
		api         gateway.API
		body        string
		max, budget int
		wantErr     bool
		wantPointer string
	}{
		{name: "chat-max_tokens", api: gateway.APIChat, body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":16}`, max: 16},
		{name: "chat-max_completion_tokens", api: gateway.APIChat, body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":2147483647}`, max: 2147483647},
		{name: "chat-null", api: gateway.APIChat, body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":null}`},
		{name: "responses-max_output_tokens", api: gateway.APIResponses, body: `{"model":"m","input":"hi","max_output_tokens":1}`, max: 1},
		{name: "messages-budget", api: gateway.APIMessages, body: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"hi"}],"thinking":{"type":"enabled","budget_tokens":2048}}`, max: 4096, budget: 2048},
		{name: "messages-too-large", api: gateway.APIMessages, body: `{"model":"m","max_tokens":2147483648,"messages":[{"role":"user","content":"hi"}]}`, wantErr: true, wantPointer: "/max_tokens"},
		{name: "messages-disabled-bad-budget", api: gateway.APIMessages, body: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"hi"}],"thinking":{"type":"disabled","budget_tokens":-1}}`, wantErr: true, wantPointer: "/thinking/budget_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := gateway.DecodeRequest(tt.api, []byte(tt.body), -1)
			if tt.wantErr {
				re, ok := errors.AsType[*gateway.RequestError](err)
				if !ok || re.Pointer != tt.wantPointer || re.Status != http.StatusBadRequest || !errors.Is(err, gateway.ErrBadRequest) {
					t.Fatalf("err = %v, want a 400 RequestError at %s", err, tt.wantPointer)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.MaxTokens != tt.max || r.ThinkingBudget != tt.budget {
				t.Errorf("MaxTokens %d, ThinkingBudget %d; want %d, %d", r.MaxTokens, r.ThinkingBudget, tt.max, tt.budget)
			}
		})
	}
	// Values are never echoed: the message names the member only.
	_, err := gateway.DecodeRequest(gateway.APIChat, []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":"sk-secret"}`), -1)
	if err == nil || bytes.Contains([]byte(err.Error()), []byte("sk-secret")) {
		t.Errorf("err = %v: want a refusal that does not echo the value", err)
	}
}
