// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

const twoPassScript = "<think>The user wants the weather in Paris. I should call the tool for it.</think>\n\n" +
	"Let me check. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"

// twoPassRig is a gateway in front of a scripted text model with two
// passes.
func twoPassRig(t *testing.T, m *gatewaytest.TextModel, mod func(*gateway.Provider)) *rig {
	t.Helper()
	rg := newRig(t, func(c *gateway.Config) {
		for i := range c.Providers {
			if c.Providers[i].API == gateway.APIChat {
				p := &c.Providers[i]
				p.Backend, p.ToolParser, p.Parsing = gateway.BackendVLLM, "hermes", gateway.ParsingThinkTags
				p.TwoPass, p.MaxThinkingTokens, p.MaxResponseTokens = gateway.TwoPassOn, 100, 50
				if mod != nil {
					mod(p)
				}
			}
		}
	})
	rg.backends[gateway.APIChat].Respond = m.Respond
	return rg
}

type backendBody struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Stop                 []string        `json:"stop"`
	MaxTokens            int             `json:"max_tokens"`
	Continue             bool            `json:"continue_final_message"`
	AddGenerationPrompt  *bool           `json:"add_generation_prompt"`
	ChatTemplateKwargs   json.RawMessage `json:"chat_template_kwargs"`
	ThinkingTokenBudget  int             `json:"thinking_token_budget"`
	ThinkingBudgetTokens int             `json:"thinking_budget_tokens"`
	Think                json.RawMessage `json:"think"`
}

func backendBodies(t *testing.T, b *gatewaytest.Backend) []backendBody {
	t.Helper()
	var out []backendBody
	for _, r := range b.Requests() {
		var bb backendBody
		if err := json.Unmarshal(r.Body, &bb); err != nil {
			t.Fatalf("backend body: %v", err)
		}
		out = append(out, bb)
	}
	return out
}

// TestTwoPass caps the reasoning of a text model with two passes, on
// every front door, streaming and not.
func TestTwoPass(t *testing.T) {
	tests := []struct {
		name          string
		model         gatewaytest.TextModel
		mod           func(*gateway.Provider)
		reasoning     string
		text          string
		calls         []string
		pass1MaxToken int
	}{
		{name: "closes-early", model: gatewaytest.TextModel{Script: twoPassScript},
			reasoning: "The user wants the weather in Paris. I should call the tool for it.", text: "Let me check.",
			calls: []string{`get_weather {"city":"Paris"}`}, pass1MaxToken: 100},
		{name: "budget-mid-thought", model: gatewaytest.TextModel{Script: twoPassScript},
			mod:       func(p *gateway.Provider) { p.MaxThinkingTokens, p.BudgetMessage = 4, "Time to answer." },
			reasoning: "The user wants the Time to answer.", text: "Let me check.",
			calls: []string{`get_weather {"city":"Paris"}`}, pass1MaxToken: 4},
		{name: "backend-ignores-max-tokens", model: gatewaytest.TextModel{Script: twoPassScript, IgnoreMaxTokens: true},
			mod:       func(p *gateway.Provider) { p.MaxThinkingTokens = 4 },
			reasoning: "The user wants the ", text: "Let me check.",
			calls: []string{`get_weather {"city":"Paris"}`}, pass1MaxToken: 4},
		{name: "backend-ignores-stop", model: gatewaytest.TextModel{Script: twoPassScript, IgnoreStop: true},
			reasoning: "The user wants the weather in Paris. I should call the tool for it.", text: "Let me check.",
			calls: []string{`get_weather {"city":"Paris"}`}, pass1MaxToken: 100},
		{name: "think-open", model: gatewaytest.TextModel{Script: strings.TrimPrefix(twoPassScript, "<think>")},
			mod:       func(p *gateway.Provider) { p.ThinkOpen = true },
			reasoning: "The user wants the weather in Paris. I should call the tool for it.", text: "Let me check.",
			calls: []string{`get_weather {"city":"Paris"}`}, pass1MaxToken: 100},
		{name: "never-closes", model: gatewaytest.TextModel{Script: "<think>I keep thinking and thinking"},
			reasoning: "I keep thinking and thinking", pass1MaxToken: 100},
	}
	for _, tt := range tests {
		for _, front := range []gateway.API{gateway.APIChat, gateway.APIMessages, gateway.APIResponses} {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/stream=%v", tt.name, front, stream), func(t *testing.T) {
					m := tt.model
					rg := twoPassRig(t, &m, tt.mod)
					tools := json.RawMessage(`[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`)
					resp := rg.post(t, front, textRequest(front, "m-"+string(gateway.APIChat), stream, tools))
					tr := fullTurn(t, front, resp)
					var calls []string
					for _, c := range tr.Calls {
						calls = append(calls, c.Name+" "+canonJSON(c.Arguments))
					}
					if tr.Err != nil {
						t.Fatalf("error: %s", tr.Err.Message)
					}
					got := []any{tr.Reasoning, words(tr.Text), calls}
					if diff := cmp.Diff([]any{tt.reasoning, tt.text, tt.calls}, got); diff != "" {
						t.Errorf("(-want +got)\n%s", diff)
					}
					bodies := backendBodies(t, rg.backends[gateway.APIChat])
					if len(bodies) != 2 {
						t.Fatalf("%d backend requests, want 2", len(bodies))
					}
					p1, p2 := bodies[0], bodies[1]
					if !cmp.Equal(p1.Stop, []string{"</think>"}) || p1.MaxTokens != tt.pass1MaxToken || p1.Continue {
						t.Errorf("pass 1: stop %q max_tokens %d continue %v", p1.Stop, p1.MaxTokens, p1.Continue)
					}
					last := p2.Messages[len(p2.Messages)-1]
					wantPrefill := "<think>\n" + strings.TrimSpace(tt.reasoning) + "\n</think>\n\n"
					if last.Role != "assistant" || last.Content != wantPrefill || !p2.Continue || p2.AddGenerationPrompt == nil || *p2.AddGenerationPrompt || p2.MaxTokens != 50 || len(p2.Stop) != 0 {
						t.Errorf("pass 2: last message %+v continue %v max_tokens %d stop %q", last, p2.Continue, p2.MaxTokens, p2.Stop)
					}
				})
			}
		}
	}
}

// TestTwoPassUsage checks that the prompt is billed once and pass 1's
// output counts as reasoning.
func TestTwoPassUsage(t *testing.T) {
	rg := twoPassRig(t, &gatewaytest.TextModel{Script: twoPassScript}, nil)
	resp := rg.post(t, gateway.APIChat, fmt.Sprintf(`{"model":"m-%s","messages":[{"role":"user","content":"Weather in Paris?"}]}`, gateway.APIChat))
	var body struct {
		Usage struct {
			PromptTokens            int `json:"prompt_tokens"`
			CompletionTokens        int `json:"completion_tokens"`
			CompletionTokensDetails struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			} `json:"completion_tokens_details"`
		}
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	// Pass 1: 3 prompt words, 14 reasoning words (the stop cuts before
	// the closer); pass 2: 10 answer words.
	u := body.Usage
	if u.PromptTokens != 3 || u.CompletionTokens != 14+10 || u.CompletionTokensDetails.ReasoningTokens != 14 {
		t.Errorf("usage %+v", u)
	}
}

// TestTwoPassFaults: a backend that refuses to continue, and each
// backend kind's continuation and extras.
func TestTwoPassFaults(t *testing.T) {
	t.Run("continue-refused", func(t *testing.T) {
		for _, stream := range []bool{false, true} {
			rg := twoPassRig(t, &gatewaytest.TextModel{Script: twoPassScript, RefuseContinue: true}, nil)
			resp := rg.post(t, gateway.APIChat, fmt.Sprintf(`{"model":"m-%s","stream":%v,"messages":[{"role":"user","content":"Hi"}]}`, gateway.APIChat, stream))
			if !stream {
				if resp.StatusCode != 502 {
					t.Errorf("status %d, want 502", resp.StatusCode)
				}
				resp.Body.Close()
				continue
			}
			tr := fullTurn(t, gateway.APIChat, resp)
			if tr.Err == nil || !strings.Contains(tr.Err.Message, "refused to continue") || tr.Reasoning == "" {
				t.Errorf("stream: err %v reasoning %q", tr.Err, tr.Reasoning)
			}
		}
	})
	t.Run("llamacpp-prefill", func(t *testing.T) {
		rg := twoPassRig(t, &gatewaytest.TextModel{Script: twoPassScript}, func(p *gateway.Provider) { p.Backend = gateway.BackendLlamaCpp })
		resp := rg.post(t, gateway.APIChat, fmt.Sprintf(`{"model":"m-%s","messages":[{"role":"user","content":"Hi"}]}`, gateway.APIChat))
		resp.Body.Close()
		bodies := backendBodies(t, rg.backends[gateway.APIChat])
		if len(bodies) != 2 || bodies[1].Continue || bodies[1].AddGenerationPrompt != nil || bodies[1].Messages[len(bodies[1].Messages)-1].Role != "assistant" {
			t.Errorf("llama.cpp pass 2 is not a plain prefill: %+v", bodies)
		}
	})
	t.Run("auto-uses-backend-budget", func(t *testing.T) {
		for _, kind := range []gateway.Backend{gateway.BackendVLLM, gateway.BackendLlamaCpp} {
			rg := twoPassRig(t, &gatewaytest.TextModel{Script: twoPassScript}, func(p *gateway.Provider) { p.Backend, p.TwoPass = kind, gateway.TwoPassAuto })
			resp := rg.post(t, gateway.APIChat, fmt.Sprintf(`{"model":"m-%s","messages":[{"role":"user","content":"Hi"}]}`, gateway.APIChat))
			resp.Body.Close()
			bodies := backendBodies(t, rg.backends[gateway.APIChat])
			if len(bodies) != 1 || bodies[0].ThinkingTokenBudget+bodies[0].ThinkingBudgetTokens != 100 {
				t.Errorf("%s: %d passes, budgets %d %d", kind, len(bodies), bodies[0].ThinkingTokenBudget, bodies[0].ThinkingBudgetTokens)
			}
		}
	})
	t.Run("ollama-think", func(t *testing.T) {
		rg := twoPassRig(t, &gatewaytest.TextModel{Script: "Hello."}, func(p *gateway.Provider) {
			p.Backend, p.TwoPass, p.MaxThinkingTokens = gateway.BackendOllama, gateway.TwoPassOff, 0
		})
		resp := rg.post(t, gateway.APIChat, fmt.Sprintf(`{"model":"m-%s","reasoning_effort":"low","messages":[{"role":"user","content":"Hi"}]}`, gateway.APIChat))
		resp.Body.Close()
		if b := backendBodies(t, rg.backends[gateway.APIChat]); string(b[0].Think) != `"low"` {
			t.Errorf("think %s", b[0].Think)
		}
	})
}

// TestProbe checks the start-up check of the continued block.
func TestProbe(t *testing.T) {
	for _, tt := range []struct {
		kind gateway.Backend
		drop bool
	}{{gateway.BackendVLLM, false}, {gateway.BackendVLLM, true}, {gateway.BackendLlamaCpp, false}, {gateway.BackendLlamaCpp, true}} {
		t.Run(fmt.Sprintf("%s/drop=%v", tt.kind, tt.drop), func(t *testing.T) {
			b := gatewaytest.NewBackend()
			b.Respond = (&gatewaytest.TextModel{DropContinued: tt.drop}).Respond
			srv := httptest.NewServer(b)
			defer srv.Close()
			h, err := gateway.New(&gateway.Config{Providers: []gateway.Provider{{Name: "qwen", API: gateway.APIChat, BaseURL: srv.URL + "/v1", Model: "q",
				Backend: tt.kind, TwoPass: gateway.TwoPassOn, MaxThinkingTokens: 10}}})
			if err != nil {
				t.Fatal(err)
			}
			err = h.Probe(context.Background())
			var pe *gateway.ProbeError
			if tt.drop != (err != nil) || tt.drop && (!errors.As(err, &pe) || pe.Provider != "qwen" || !errors.Is(err, gateway.ErrContinuation)) {
				t.Errorf("Probe: %v", err)
			}
			reqs := b.Requests()
			if len(reqs) == 0 || !strings.HasSuffix(reqs[0].Path, map[gateway.Backend]string{gateway.BackendVLLM: "/tokenize", gateway.BackendLlamaCpp: "/apply-template"}[tt.kind]) {
				t.Errorf("probe asked %v", reqs)
			}
		})
	}
}

// TestTwoPassDisconnect: the client going away cancels whichever pass
// is running.
func TestTwoPassDisconnect(t *testing.T) {
	for _, pass := range []int{1, 2} {
		t.Run(fmt.Sprintf("pass=%d", pass), func(t *testing.T) {
			rg := twoPassRig(t, &gatewaytest.TextModel{}, nil)
			b := rg.backends[gateway.APIChat]
			pass1 := textChatSSE("<think>The user wants the weather", nil)
			if pass == 1 {
				b.Push(gatewaytest.Reply{Body: pass1, StallAfter: 120})
			} else {
				b.Push(gatewaytest.Reply{Body: pass1}, gatewaytest.Reply{Body: textChatSSE("Let me check the weather for you now", nil), StallAfter: 120})
			}
			ctx, cancel := context.WithCancel(context.Background())
			body := fmt.Sprintf(`{"model":"m-%s","stream":true,"messages":[{"role":"user","content":"Hi"}]}`, gateway.APIChat)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rg.gw.URL+routes[gateway.APIChat], strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer client-token")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 10)
			resp.Body.Read(buf)
			deadline := time.Now().Add(3 * time.Second)
			for len(b.Requests()) < pass && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
			resp.Body.Close()
			for b.Cancelled() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if b.Cancelled() == 0 || len(b.Requests()) != pass {
				t.Errorf("cancelled %d, requests %d", b.Cancelled(), len(b.Requests()))
			}
		})
	}
}

// TestTwoPassRequests pins both passes' backend requests for each kind
// of OpenAI-compatible server. Rewrite with
// go test ./gateway -run TestTwoPassRequests -update.
func TestTwoPassRequests(t *testing.T) {
	golden := "testdata/twopass_requests.txtar"
	ar := &txtar.Archive{Comment: []byte("Both passes' backend requests for a Hermes text model with a thinking budget\n" +
		"of 4 tokens (it runs out: the block is closed with the budget message), per backend kind.\n" +
		"Rewrite with: go test ./gateway -run TestTwoPassRequests -update\n")}
	for _, kind := range []gateway.Backend{gateway.BackendVLLM, gateway.BackendCompat, gateway.BackendLlamaCpp, gateway.BackendOllama} {
		rg := twoPassRig(t, &gatewaytest.TextModel{Script: twoPassScript}, func(p *gateway.Provider) {
			p.Backend, p.MaxThinkingTokens, p.BudgetMessage = kind, 4, "Answer now."
		})
		body := fmt.Sprintf(`{"model":"m-%s","stream":true,"reasoning_effort":"low","messages":[{"role":"user","content":"Weather in Paris?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`, gateway.APIChat)
		tr := fullTurn(t, gateway.APIChat, rg.post(t, gateway.APIChat, body))
		if len(tr.Calls) != 1 {
			t.Errorf("%s: calls %v", kind, tr.Calls)
		}
		for i, r := range rg.backends[gateway.APIChat].Requests() {
			var out bytes.Buffer
			json.Indent(&out, r.Body, "", "  ")
			ar.Files = append(ar.Files, txtar.File{Name: fmt.Sprintf("%s/pass%d", kind, i+1), Data: append(out.Bytes(), '\n')})
		}
	}
	checkGolden(t, golden, txtar.Format(ar))
}

// TestLlamaCppTimings: llama.cpp's last chunk carries timings beside the
// usage; the gateway reads through it.
func TestLlamaCppTimings(t *testing.T) {
	rg := newRig(t, nil)
	rg.backends[gateway.APIChat].Push(gatewaytest.Reply{Body: gatewaytest.ChatSSE(
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"content":"Hi."}}]}`),
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1},"timings":{"prompt_n":3,"prompt_ms":1.5,"predicted_n":1,"predicted_per_second":40.2}}`))})
	tr := fullTurn(t, gateway.APIChat, rg.post(t, gateway.APIChat, fmt.Sprintf(`{"model":"m-%s","stream":true,"messages":[{"role":"user","content":"Hi"}]}`, gateway.APIChat)))
	if tr.Err != nil || tr.Text != "Hi." {
		t.Errorf("text %q err %v", tr.Text, tr.Err)
	}
}
