// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// designRequest is the example request of the founding providers design:
// the native contract's members, Hermes tools and two passes.
const designRequest = `{
  "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
  "temperature": 0.6,
  "two_pass": true,
  "think_tag": "think",
  "max_thinking_tokens": 100,
  "max_response_tokens": 50,
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
  "tool_choice": "auto",
  "tool_parser": "hermes"
}`

func postGenerate(t *testing.T, rg *rig, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, rg.gw.URL+"/generate", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer client-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// TestGenerate answers the founding design's example request with its
// response shape, two passes and Hermes parsing included, on a provider
// that by itself does neither.
func TestGenerate(t *testing.T) {
	rg := newRig(t, func(c *gateway.Config) {
		for i := range c.Providers {
			if c.Providers[i].API == gateway.APIChat {
				c.Providers[i].Backend = gateway.BackendVLLM
			}
		}
	})
	backend := rg.backends[gateway.APIChat]
	backend.Respond = (&gatewaytest.TextModel{Script: twoPassScript}).Respond
	status, data := postGenerate(t, rg, designRequest)
	if status != 200 {
		t.Fatalf("status %d: %s", status, data)
	}
	var got struct {
		Thinking    string `json:"thinking"`
		Response    string `json:"response"`
		PreToolText string `json:"pre_tool_text"`
		ToolCalls   []struct {
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Thinking != "The user wants the weather in Paris. I should call the tool for it." || strings.TrimSpace(got.PreToolText) != "Let me check." ||
		strings.TrimSpace(got.Response) != "Let me check." || len(got.ToolCalls) != 1 || got.ToolCalls[0].Name != "get_weather" ||
		string(got.ToolCalls[0].Arguments) != `{"city":"Paris"}` || !strings.HasPrefix(got.ToolCalls[0].ID, "call_") {
		t.Errorf("got %s", data)
	}
	bodies := backendBodies(t, backend)
	if len(bodies) != 2 || !strings.Contains(bodies[0].Messages[0].Content, "<tool_call>") || !bodies[1].Continue {
		t.Errorf("backend passes: %+v", bodies)
	}
}

// TestGenerateRefusals: the native contract's bad requests name the
// member at fault, in the OpenAI error shape.
func TestGenerateRefusals(t *testing.T) {
	rg := newRig(t, nil)
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"not-json", `{"messages": [`, 400, "invalid JSON"},
		{"unknown-member", `{"messages": [], "stream": true}`, 400, "/stream: is not a member"},
		{"no-messages", `{"temperature": 1}`, 400, "/messages: is required"},
		{"unknown-model", `{"model": "nope", "messages": [{"role":"user","content":"x"}]}`, 404, "/model: is not a model"},
		{"bad-parser", `{"messages": [{"role":"user","content":"x"}], "tool_parser": "nope"}`, 400, "tool parser"},
		{"two-pass-without-budget", `{"messages": [{"role":"user","content":"x"}], "two_pass": true}`, 400, "thinking budget"},
		{"wrong-type", `{"messages": [{"role":"user","content":"x"}], "two_pass": "yes"}`, 400, "wrong type"},
		{"bad-message", `{"messages": [{"role":"robot","content":"x"}]}`, 400, "/messages/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, data := postGenerate(t, rg, tt.body)
			var e struct {
				Error struct{ Message, Type string }
			}
			json.Unmarshal(data, &e)
			if status != tt.status || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("status %d body %s, want %d and %q", status, data, tt.status, tt.want)
			}
		})
	}
}
