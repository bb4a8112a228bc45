// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// failingStore is an audit store whose writes fail while fail is set, as
// a full disk's do.
type failingStore struct {
	*kernel.MemoryAuditStore
	fail atomic.Bool
}

func (s *failingStore) Append(ctx context.Context, recs []kernel.AuditRecord) error {
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.MemoryAuditStore.Append(ctx, recs)
}

// TestModelRecordCommitted: a model request's record is in the audit log
// before its answer ends — the store holds it when the client has read
// the answer, with nothing flushed — and when it cannot be committed the
// client gets its API's error instead of the answer's end: a 503 in the
// front door's shape, or the stream's error event.
func TestModelRecordCommitted(t *testing.T) {
	for _, api := range []gateway.API{gateway.APIMessages, gateway.APIResponses, gateway.APIChat} {
		for _, stream := range []bool{false, true} {
			t.Run(string(api)+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
				st := &failingStore{MemoryAuditStore: kernel.NewMemoryAuditStore()}
				log, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: st})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { log.Close(context.Background()) })
				m := &mediated{rig: newRig(t, func(cfg *gateway.Config) { cfg.Audit = log })}
				b := m.backends[gateway.APIChat]

				b.Push(chatTextReply("All tidy."))
				resp, body := m.post(t, api, agentRequest(api, stream))
				if resp.StatusCode != 200 || !strings.Contains(body, "All tidy.") {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				recs := st.Records()
				if len(recs) != 1 || recs[0].Kind != kernel.RecordModel || recs[0].Status != kernel.StatusOK {
					t.Fatalf("records once the answer was read: %+v; want the model record", recs)
				}

				st.fail.Store(true)
				b.Push(chatTextReply("Withheld."))
				resp, body = m.post(t, api, agentRequest(api, stream))
				if !strings.Contains(body, "could not record this request in its audit log") {
					t.Errorf("the client was not told the request could not be recorded: %d %s", resp.StatusCode, body)
				}
				if !stream && (resp.StatusCode != 503 || strings.Contains(body, "Withheld.")) {
					t.Errorf("status %d, want 503 without the answer: %s", resp.StatusCode, body)
				}
				if stream && resp.StatusCode != 200 {
					t.Errorf("status %d: the stream had begun", resp.StatusCode)
				}
			})
		}
	}
}

// modelResult is the Result of a model record, every field a pointer so
// that an absent one is seen as absent.
type modelResult struct {
	Front             *string  `json:"front"`
	Provider          *string  `json:"provider"`
	KeyID             *string  `json:"key_id"`
	Status            *int     `json:"status"`
	Finish            *string  `json:"finish"`
	LatencyMS         *int64   `json:"latency_ms"`
	InputTokens       *int64   `json:"input_tokens"`
	CachedInputTokens *int64   `json:"cached_input_tokens"`
	CacheWriteTokens  *int64   `json:"cache_write_tokens"`
	OutputTokens      *int64   `json:"output_tokens"`
	ReasoningTokens   *int64   `json:"reasoning_tokens"`
	CostUSD           *float64 `json:"cost_usd"`
	Calls             []struct {
		Name       string `json:"name"`
		ArgsSHA256 string `json:"args_sha256"`
		Server     bool   `json:"server"`
	} `json:"calls"`
	Content *struct {
		Request string `json:"request"`
		Answer  string `json:"answer"`
	} `json:"content"`
}

// argsHash is a call's hash as the model record holds it: the first 16
// hex digits of the SHA-256 of the compact arguments.
func argsHash(compact string) string {
	sum := sha256.Sum256([]byte(compact))
	return hex.EncodeToString(sum[:8])
}

// TestModelRecordFields: a model record holds the principal, the key id,
// the model, provider and front door, the status, every token count
// (cached and reasoning too), the cost at the configured price (absent
// when the model has none), the latency, the finish reason and the calls
// the model made by name and argument hash — the same hash however the
// arguments were spaced or streamed — and the conversation only with
// CaptureContent, with the provider's key and other secrets masked.
func TestModelRecordFields(t *testing.T) {
	const planted = "sk-proj-Zq3vT8wLm2Nc7Rb4Xk9Pd1Hs6Jf0Ga5Ye" // a secret of the redact package's kinds
	for _, stream := range []bool{false, true} {
		for _, priced := range []bool{false, true} {
			for _, capture := range []bool{false, true} {
				name := fmt.Sprintf("stream=%v/priced=%v/capture=%v", stream, priced, capture)
				t.Run(name, func(t *testing.T) {
					back := gatewaytest.NewBackend()
					back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
						time.Sleep(20 * time.Millisecond)
						return gatewaytest.Reply{Body: gatewaytest.ChatSSE(
							[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"role":"assistant","content":"Your key `+testKey+` is safe. "},"finish_reason":null}]}`),
							[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\": "}}]},"finish_reason":null}]}`),
							[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris, FR\" }"}}]},"finish_reason":null}]}`),
							[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"clock","arguments":"{}"}}]},"finish_reason":null}]}`),
							[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
							[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":40,"prompt_tokens_details":{"cached_tokens":30},"completion_tokens_details":{"reasoning_tokens":10}}}`))}
					}
					bs := httptest.NewServer(back)
					defer bs.Close()
					st := kernel.NewMemoryAuditStore()
					log, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: st})
					if err != nil {
						t.Fatal(err)
					}
					defer log.Close(context.Background())
					cfg := &gateway.Config{
						Providers:      []gateway.Provider{{Name: "local", API: gateway.APIChat, BaseURL: bs.URL + "/v1", APIKey: testKey, Model: "m", Compat: true}},
						Models:         map[string]string{"gpt": "local"},
						Audit:          log,
						CaptureContent: capture,
					}
					if priced {
						cfg.Prices = map[string]gateway.Price{"gpt": {Input: 1, CachedInput: 0.5, Output: 2, Reasoning: 3}}
					}
					h, err := gateway.New(cfg)
					if err != nil {
						t.Fatal(err)
					}
					auth, err := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"client-token": {ID: "agent"}}, KeyIDs: map[string]string{"client-token": "key_agent"}})
					if err != nil {
						t.Fatal(err)
					}
					gw := httptest.NewServer(auth.Require(h, server.RouteAuth{Accept: server.Keys, Refuse: gateway.Refuse}))
					defer gw.Close()
					body := `{"model":"gpt","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"my keys are ` + testKey + ` and ` + planted + `"}],` +
						`"tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}},{"type":"function","function":{"name":"clock","parameters":{"type":"object"}}}]}`
					req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer client-token")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					answer, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						t.Fatalf("status %d: %s", resp.StatusCode, answer)
					}

					recs := st.Records()
					if len(recs) != 1 {
						t.Fatalf("%d records, want the model record", len(recs))
					}
					r := recs[0]
					if r.Kind != kernel.RecordModel || r.Principal != "agent" || r.Tool != "gpt" || !strings.HasPrefix(r.CallID, "req_") || r.Status != kernel.StatusOK {
						t.Errorf("record %+v", r)
					}
					var got modelResult
					if err := json.Unmarshal([]byte(r.Result), &got); err != nil {
						t.Fatalf("result %q: %v", r.Result, err)
					}
					str := func(p *string) string {
						if p == nil {
							return "<absent>"
						}
						return *p
					}
					num := func(p *int64) int64 {
						if p == nil {
							return -99
						}
						return *p
					}
					if str(got.Front) != "openai-chat" || str(got.Provider) != "local" || str(got.KeyID) != "key_agent" || got.Status == nil || *got.Status != 200 || str(got.Finish) != "tool_calls" {
						t.Errorf("who and what: %s", r.Result)
					}
					if num(got.LatencyMS) < 20 {
						t.Errorf("latency_ms %d, want at least the backend's 20 ms: %s", num(got.LatencyMS), r.Result)
					}
					tokens := []int64{num(got.InputTokens), num(got.CachedInputTokens), num(got.OutputTokens), num(got.ReasoningTokens)}
					if diff := cmp.Diff([]int64{100, 30, 40, 10}, tokens); diff != "" || got.CacheWriteTokens != nil {
						t.Errorf("input, cached, output, reasoning tokens (-want +got):\n%s(cache writes unreported: %v) %s", diff, got.CacheWriteTokens != nil, r.Result)
					}
					// 70 plain input at 1, 30 cached at 0.5, 30 plain output at
					// 2, 10 reasoning at 3, per million.
					switch {
					case priced && (got.CostUSD == nil || math.Abs(*got.CostUSD-175e-6) > 1e-12):
						t.Errorf("cost_usd %v, want 0.000175: %s", got.CostUSD, r.Result)
					case !priced && got.CostUSD != nil:
						t.Errorf("an unpriced model has cost_usd %v", *got.CostUSD)
					}
					type call struct{ Name, Hash string }
					var calls []call
					for _, c := range got.Calls {
						calls = append(calls, call{c.Name, c.ArgsSHA256})
						if c.Server {
							t.Errorf("call %s marked as the gateway's own", c.Name)
						}
					}
					if diff := cmp.Diff([]call{{"weather", argsHash(`{"city":"Paris, FR"}`)}, {"clock", argsHash(`{}`)}}, calls); diff != "" {
						t.Errorf("calls (-want +got):\n%s", diff)
					}
					switch {
					case !capture && got.Content != nil:
						t.Errorf("content recorded without capture_content: %s", r.Result)
					case !capture && (strings.Contains(r.Result, "my keys") || strings.Contains(r.Result, "safe")):
						t.Errorf("conversation in the record without capture_content: %s", r.Result)
					case capture && got.Content == nil:
						t.Errorf("no content with capture_content: %s", r.Result)
					case capture:
						c := got.Content
						if !strings.Contains(c.Request, "my keys are ") || !strings.Contains(c.Answer, "Your key ") || !strings.Contains(c.Answer, " is safe.") {
							t.Errorf("content %+v", c)
						}
					}
					if strings.Contains(r.Result, testKey) || strings.Contains(r.Result, planted) || strings.Contains(r.Result, "sk-backend") {
						t.Errorf("a secret in the model record: %s", r.Result)
					}
				})
			}
		}
	}
}

// TestModelRecordServerCall: a call the gateway ran itself for the model
// is in its model record, marked server, with its arguments' hash.
func TestModelRecordServerCall(t *testing.T) {
	m := newMediated(t, 2)
	b := m.backends[gateway.APIChat]
	b.Push(chatCallReply("call_1", "listTasks", `{ }`), chatTextReply("Two tasks."))
	resp, body := m.post(t, gateway.APIChat, agentRequest(gateway.APIChat, false))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var model *kernel.AuditRecord
	recs := m.records(t)
	for i := range recs {
		if recs[i].Kind == kernel.RecordModel {
			model = &recs[i]
		}
	}
	if model == nil {
		t.Fatalf("no model record in %+v", recs)
	}
	var got modelResult
	if err := json.Unmarshal([]byte(model.Result), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Calls) != 1 || got.Calls[0].Name != "listTasks" || !got.Calls[0].Server || got.Calls[0].ArgsSHA256 != argsHash(`{}`) {
		t.Errorf("calls of the model record: %s", model.Result)
	}
}

// TestModelRecordGemini: a request through the Gemini front door is a
// model record too.
func TestModelRecordGemini(t *testing.T) {
	st := kernel.NewMemoryAuditStore()
	log, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close(context.Background())
	rg := newRig(t, func(cfg *gateway.Config) { cfg.Audit = log })
	rg.backends[gateway.APIChat].Push(chatTextReply("Sunny."))
	req, _ := http.NewRequest("POST", rg.gw.URL+"/v1beta/models/m-openai-chat:generateContent", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"Weather?"}]}]}`))
	req.Header.Set("x-goog-api-key", "client-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if err := log.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := st.Records()
	if len(recs) != 1 || recs[0].Kind != kernel.RecordModel || recs[0].Tool != "m-openai-chat" || !strings.Contains(recs[0].Result, `"front":"gemini"`) {
		t.Errorf("records %+v, want the Gemini request's model record", recs)
	}
}
