// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/server"
)

// wholeChat is a Chat Completions answer of a reasoning model, with
// cached and reasoning tokens.
const wholeChat = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"x",
 "choices":[{"index":0,"message":{"role":"assistant","content":"Checking.","reasoning_content":"Need the tool.",
  "tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"location\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],
 "usage":{"prompt_tokens":100,"completion_tokens":40,"prompt_tokens_details":{"cached_tokens":60},"completion_tokens_details":{"reasoning_tokens":25}}}`

// TestWholeAnswer: a client that does not stream gets the backend's whole
// answer, asked for as such, with its usage whole (cached and reasoning
// tokens) in the client's body and in what is observed (spend, budgets,
// metrics).
func TestWholeAnswer(t *testing.T) {
	// The client has its answer before the request is observed: the
	// observation is waited for.
	obs := make(chan server.Observation, 2)
	rg := newRig(t, func(c *gateway.Config) { c.Observe = func(o server.Observation) { obs <- o } })
	b := rg.backends[gateway.APIChat]
	b.Push(gatewaytest.JSONReply([]byte(wholeChat)))
	resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", false))
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var got struct {
		Choices []struct {
			Message struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage json.RawMessage
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	m := got.Choices[0].Message
	if m.Content != "Checking." || m.ReasoningContent != "Need the tool." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"location":"Paris"}` || got.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("answer %s", body)
	}
	for _, want := range []string{`"prompt_tokens":100`, `"completion_tokens":40`, `"cached_tokens":60`, `"reasoning_tokens":25`} {
		if !bytes.Contains(got.Usage, []byte(want)) {
			t.Errorf("usage %s lacks %s", got.Usage, want)
		}
	}
	req := b.Requests()[0]
	if !bytes.Contains(req.Body, []byte(`"stream":false`)) || bytes.Contains(req.Body, []byte("stream_options")) || req.Header.Get("Accept") != "application/json" {
		t.Errorf("backend request %v %s", req.Header, req.Body)
	}
	var o server.Observation
	select {
	case o = <-obs:
	case <-time.After(10 * time.Second):
		t.Fatal("no observation")
	}
	u := o.Request.Usage
	if diff := cmp.Diff(server.Usage{InputTokens: 100, OutputTokens: 40, ReasoningTokens: 25, CacheReadTokens: 60, CacheWriteTokens: -1}, u); diff != "" {
		t.Errorf("observed usage (-want +got):\n%s", diff)
	}
}

// TestWholeAnswerFirst: a client that does not stream has its whole
// answer while the gateway is still recording the request (here, an
// observer that waits for the client to have read it).
func TestWholeAnswerFirst(t *testing.T) {
	read := make(chan struct{})
	observed := make(chan server.Observation, 1)
	rg := newRig(t, func(c *gateway.Config) {
		c.Observe = func(o server.Observation) {
			select {
			case <-read:
			case <-time.After(10 * time.Second):
			}
			observed <- o
		}
	})
	rg.backends[gateway.APIChat].Push(gatewaytest.JSONReply([]byte(wholeChat)))
	start := time.Now()
	resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", false))
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the answer came after %v, when the observer let go", waited)
	}
	if resp.ContentLength != int64(len(body)) || !json.Valid(body) {
		t.Errorf("Content-Length %d for a body of %d bytes: %s", resp.ContentLength, len(body), body)
	}
	close(read)
	select {
	case o := <-observed:
		if o.Request == nil || o.Request.Status != 200 || o.Request.Usage.InputTokens != 100 {
			t.Errorf("observed %+v", o.Request)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no observation")
	}
}

// TestWholeTimeouts: the first byte of a whole answer comes when the
// answer is complete, so the first-token timeout does not cut it (a
// stream's still does); the total timeout bounds it.
func TestWholeTimeouts(t *testing.T) {
	rg := newRig(t, func(c *gateway.Config) {
		c.Providers[0].FirstTokenTimeout = 100 * time.Millisecond
		c.Providers[0].TotalTimeout = 800 * time.Millisecond
		c.Providers[0].Retries = -1
	})
	b := rg.backends[gateway.APIChat]
	stream := gatewaytest.ChatSSE([]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"late"},"finish_reason":"stop"}]}`))
	tests := []struct {
		name   string
		stream bool
		delay  time.Duration
		status int
	}{
		{name: "whole-after-first-token-timeout", delay: 300 * time.Millisecond, status: 200},
		{name: "stream-after-first-token-timeout", stream: true, delay: 300 * time.Millisecond, status: 504},
		{name: "whole-after-total-timeout", delay: 2 * time.Second, status: 504},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b.Push(gatewaytest.Reply{Body: stream, Delay: tt.delay})
			resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", tt.stream))
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
		})
	}
}

// TestWholeFaults: a whole answer that cannot be read is a clean 502
// naming what was wrong; the bound is four times the event bound; a
// refusal is retried as for a stream, a fallback answers whole too, and a
// backend that streams although asked not to is read as a stream.
func TestWholeFaults(t *testing.T) {
	rg := newRig(t, func(c *gateway.Config) {
		c.MaxEventBytes = 1000
		c.Providers[0].Fallbacks = []string{"fake-anthropic"}
	})
	chat, msgs := rg.backends[gateway.APIChat], rg.backends[gateway.APIMessages]
	big := `{"choices":[{"index":0,"message":{"content":"` + strings.Repeat("a", 5000) + `"},"finish_reason":"stop"}]}`
	tests := []struct {
		name    string
		replies []gatewaytest.Reply
		status  int
		msg     string
	}{
		{name: "too-large", replies: []gatewaytest.Reply{gatewaytest.JSONReply([]byte(big))}, status: 502, msg: "the model backend's answer was larger than 4000 bytes"},
		{name: "too-large-chunked", replies: []gatewaytest.Reply{{Body: []byte(big), ContentType: "application/json", Seed: 9}}, status: 502, msg: "the model backend's answer was larger than 4000 bytes"},
		{name: "duplicate-name", replies: []gatewaytest.Reply{gatewaytest.JSONReply([]byte(`{"choices":[],"choices":[]}`))}, status: 502, msg: "the model backend's answer could not be read: at /choices"},
		{name: "wrong-type", replies: []gatewaytest.Reply{gatewaytest.JSONReply([]byte(`{"choices":[{"index":"0"}]}`))}, status: 502, msg: "the model backend's answer could not be read: wrong type at /choices/0/index"},
		{name: "no-finish", replies: []gatewaytest.Reply{gatewaytest.JSONReply([]byte(`{"choices":[{"index":0,"message":{"content":"hi"}}]}`))}, status: 502, msg: "the model backend's answer was incomplete: no finish_reason"},
		{name: "cut", replies: []gatewaytest.Reply{{Body: []byte(wholeChat), ContentType: "application/json", CutAfter: 50}}, status: 502, msg: "the model backend's answer was incomplete: the connection failed before its end"},
		{name: "retried", replies: []gatewaytest.Reply{{Status: 503, Body: gatewaytest.ErrorBody("server_error", "busy")}, gatewaytest.JSONReply([]byte(wholeChat))}, status: 200},
		{name: "streams-anyway", replies: []gatewaytest.Reply{{Body: gatewaytest.ChatSSE([]byte(`{"choices":[{"index":0,"delta":{"content":"Checking."},"finish_reason":"stop"}]}`)), ContentType: "text/event-stream"}}, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat.Push(tt.replies...)
			resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", false))
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status != 200 {
				var e struct{ Error struct{ Message string } }
				json.Unmarshal(body, &e)
				if e.Error.Message != tt.msg {
					t.Errorf("message %q, want %q", e.Error.Message, tt.msg)
				}
				return
			}
			text, _, _, _ := readTurn(t, gateway.APIChat, &http.Response{Body: io.NopCloser(bytes.NewReader(body)), Header: resp.Header})
			if text != "Checking." {
				t.Errorf("text %q: %s", text, body)
			}
		})
	}
	// A fallback is asked for its whole answer too.
	chat.Push(gatewaytest.Reply{Status: 503, Body: gatewaytest.ErrorBody("server_error", "down")})
	msgs.Push(gatewaytest.JSONReply([]byte(`{"type":"message","id":"m","model":"c","role":"assistant","content":[{"type":"text","text":"Checking."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`)))
	resp := rg.post(t, gateway.APIChat, clientBody(gateway.APIChat, "m-openai-chat", false))
	text, _, finish, _ := readTurn(t, gateway.APIChat, resp)
	reqs := msgs.Requests()
	if text != "Checking." || finish != "stop" || !bytes.Contains(reqs[len(reqs)-1].Body, []byte(`"stream":false`)) {
		t.Errorf("fallback: text %q finish %q request %s", text, finish, reqs[len(reqs)-1].Body)
	}
}
