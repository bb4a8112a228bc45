// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// geminiRig is a gateway with a Chat backend (model "chat") and a Gemini
// backend (model "gem"), behind the server's authentication.
type geminiRig struct {
	gw        *httptest.Server
	chat, gem *gatewaytest.Backend
}

func newGeminiRig(t *testing.T) *geminiRig {
	t.Helper()
	rg := &geminiRig{chat: gatewaytest.NewBackend(), gem: gatewaytest.NewBackend()}
	cs, gs := httptest.NewServer(rg.chat), httptest.NewServer(rg.gem)
	t.Cleanup(cs.Close)
	t.Cleanup(gs.Close)
	h, err := gateway.New(&gateway.Config{
		Providers: []gateway.Provider{
			{Name: "chat", API: gateway.APIChat, BaseURL: cs.URL + "/v1", APIKey: testKey, Model: "backend-chat", Compat: true, Parsing: gateway.ParsingReasoningField, IdleTimeout: 2 * time.Second},
			{Name: "gem", API: gateway.APIGemini, BaseURL: gs.URL, APIKey: testKey, Model: "gemini-2.5-flash", IdleTimeout: 2 * time.Second},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rg.gw = httptest.NewServer(authed(t, h))
	t.Cleanup(rg.gw.Close)
	return rg
}

func (rg *geminiRig) do(t *testing.T, method, path string, header http.Header, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, rg.gw.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

var googKey = http.Header{"X-Goog-Api-Key": {"client-token"}}

// chatToolCall is a Chat backend's turn: reasoning, then get_weather.
var chatToolCall = gatewaytest.ChatSSE(
	[]byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"backend-chat","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Weather, so call the tool."}}]}`),
	[]byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"backend-chat","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}}]}`),
	[]byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"backend-chat","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`),
	[]byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"backend-chat","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":12,"completion_tokens_details":{"reasoning_tokens":5}}}`))

var chatAnswer = gatewaytest.ChatSSE(
	[]byte(`{"id":"c2","object":"chat.completion.chunk","created":1,"model":"backend-chat","choices":[{"index":0,"delta":{"role":"assistant","content":"It is 18C "}}]}`),
	[]byte(`{"id":"c2","object":"chat.completion.chunk","created":1,"model":"backend-chat","choices":[{"index":0,"delta":{"content":"in Paris."},"finish_reason":"stop"}]}`),
	[]byte(`{"id":"c2","object":"chat.completion.chunk","created":1,"model":"backend-chat","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":6}}`))

const geminiAsk = `{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}],
 "tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather of a city","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}],
 "generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`

type geminiResp struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
			Role string `json:"role"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
}

// flatten is a Gemini answer's content: thoughts, text, calls, finish.
func flatten(rs []geminiResp) (thoughts, text string, calls []string, finish string) {
	for _, r := range rs {
		for _, c := range r.Candidates {
			for _, p := range c.Content.Parts {
				switch {
				case p.FunctionCall != nil:
					calls = append(calls, p.FunctionCall.ID+" "+p.FunctionCall.Name+string(p.FunctionCall.Args))
				case p.Thought:
					thoughts += p.Text
				default:
					text += p.Text
				}
			}
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
		}
	}
	return
}

// TestGeminiFrontDoor asks a Chat backend through the Gemini front door,
// in its three shapes: one body, SSE and a JSON array, under /v1beta and
// /v1, then continues the tool loop with the functionResponse.
func TestGeminiFrontDoor(t *testing.T) {
	rg := newGeminiRig(t)
	tests := []struct {
		name, path string
		sse, array bool
	}{
		{name: "generate", path: "/v1beta/models/chat:generateContent"},
		{name: "stream_sse", path: "/v1beta/models/chat:streamGenerateContent?alt=sse", sse: true},
		{name: "stream_array", path: "/v1beta/models/chat:streamGenerateContent", array: true},
		{name: "v1_stream_sse", path: "/v1/models/chat:streamGenerateContent?alt=sse", sse: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rg.chat.Push(gatewaytest.Reply{Body: chatToolCall, Seed: 3})
			resp, body := rg.do(t, "POST", tt.path, googKey, geminiAsk)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			var rs []geminiResp
			switch {
			case tt.sse:
				if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
					t.Errorf("content type %q", ct)
				}
				for _, line := range strings.Split(string(body), "\n") {
					if data, ok := strings.CutPrefix(line, "data: "); ok {
						var r geminiResp
						if err := json.Unmarshal([]byte(data), &r); err != nil {
							t.Fatalf("chunk %q: %v", data, err)
						}
						rs = append(rs, r)
					}
				}
			case tt.array:
				if err := json.Unmarshal(body, &rs); err != nil {
					t.Fatalf("not a JSON array: %v\n%s", err, body)
				}
			default:
				var r geminiResp
				if err := json.Unmarshal(body, &r); err != nil {
					t.Fatal(err)
				}
				rs = []geminiResp{r}
			}
			thoughts, text, calls, finish := flatten(rs)
			got := []string{thoughts, text, strings.Join(calls, ";"), finish}
			want := []string{"Weather, so call the tool.", "", `call_abc get_weather{"city":"Paris"}`, "STOP"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s\n%s", diff, body)
			}
			last := rs[len(rs)-1]
			if u := last.UsageMetadata; u.PromptTokenCount != 30 || u.CandidatesTokenCount != 7 || u.ThoughtsTokenCount != 5 || last.ModelVersion != "chat" {
				t.Errorf("usage %+v model %q", u, last.ModelVersion)
			}
			// The backend was asked with the tool, in Chat's shape, for a
			// stream only when the client reads one as it comes.
			reqs := rg.chat.Requests()
			sent := reqs[len(reqs)-1].Body
			wantStream := `"stream":false`
			if tt.sse {
				wantStream = `"stream":true`
			}
			if !bytes.Contains(sent, []byte(`"name":"get_weather"`)) || !bytes.Contains(sent, []byte(wantStream)) {
				t.Errorf("backend request: %s", sent)
			}
		})
	}
	t.Run("tool_loop", func(t *testing.T) {
		rg.chat.Push(gatewaytest.Reply{Body: chatAnswer})
		next := `{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},
		 {"role":"model","parts":[{"functionCall":{"id":"call_abc","name":"get_weather","args":{"city":"Paris"}}}]},
		 {"role":"user","parts":[{"functionResponse":{"id":"call_abc","name":"get_weather","response":{"output":"18C"}}}]}]}`
		resp, body := rg.do(t, "POST", "/v1beta/models/chat:generateContent?key=client-token", nil, next)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var r geminiResp
		json.Unmarshal(body, &r)
		if _, text, _, finish := flatten([]geminiResp{r}); text != "It is 18C in Paris." || finish != "STOP" {
			t.Errorf("got %s", body)
		}
		reqs := rg.chat.Requests()
		sent := string(reqs[len(reqs)-1].Body)
		if !strings.Contains(sent, `{"role":"tool","tool_call_id":"call_abc","content":"18C"}`) {
			t.Errorf("the result did not reach the backend: %s", sent)
		}
		if strings.Contains(sent, "client-token") {
			t.Errorf("the client's key reached the backend")
		}
	})
}

// TestGeminiBackend answers a Chat and a Messages client from a Gemini
// backend: the request goes to models/{model}:generateContent (the
// client does not stream: the fake answers whole) with the key in x-goog-api-key, and the made-up call id comes back to
// Gemini as no id at all, its signature as the part's thoughtSignature.
func TestGeminiBackend(t *testing.T) {
	rg := newGeminiRig(t)
	stream := gatewaytest.GeminiSSE(
		[]byte(`{"candidates":[{"content":{"parts":[{"text":"Need weather.","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":20},"modelVersion":"gemini-2.5-flash","responseId":"g1"}`),
		[]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lHTkFUVVJF"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":8,"thoughtsTokenCount":4},"modelVersion":"gemini-2.5-flash","responseId":"g1"}`))
	rg.gem.Push(gatewaytest.Reply{Body: stream, Seed: 5})
	resp, body := rg.do(t, "POST", "/v1/chat/completions", http.Header{"Authorization": {"Bearer client-token"}},
		`{"model":"gem","messages":[{"role":"user","content":"Weather in Paris?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}}}],"tool_choice":"required","reasoning_effort":"low"}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var cr struct {
		Choices []struct {
			Message struct {
				ReasoningContent string `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &cr); err != nil {
		t.Fatal(err)
	}
	m := cr.Choices[0].Message
	if m.ReasoningContent != "Need weather." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` ||
		cr.Choices[0].FinishReason != "tool_calls" || cr.Usage.PromptTokens != 20 || cr.Usage.CompletionTokens != 12 {
		t.Fatalf("got %s", body)
	}
	req := rg.gem.Requests()[0]
	if req.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || req.Header.Get("X-Goog-Api-Key") != testKey || req.Header.Get("Authorization") != "" {
		t.Errorf("backend request %s %v", req.Path, req.Header)
	}
	for _, want := range []string{`"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}`, `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}`, `"type":"OBJECT"`} {
		if !bytes.Contains(req.Body, []byte(want)) {
			t.Errorf("backend body lacks %s: %s", want, req.Body)
		}
	}
	if resp.Header.Get("X-Toolgate-Warnings") == "" {
		t.Errorf("no warning for the lowered schema (additionalProperties)")
	}

	// The client continues the loop with the call id it was given.
	id := m.ToolCalls[0].ID
	rg.gem.Push(gatewaytest.Reply{Body: gatewaytest.GeminiSSE([]byte(`{"candidates":[{"content":{"parts":[{"text":"18C."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":2},"modelVersion":"gemini-2.5-flash","responseId":"g2"}`))})
	next := `{"model":"gem","stream":true,"max_tokens":64,"messages":[{"role":"user","content":"Weather in Paris?"},
	 {"role":"assistant","content":[{"type":"tool_use","id":` + jsonQ(id) + `,"name":"get_weather","input":{"city":"Paris"}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":` + jsonQ(id) + `,"content":"18C"}]}]}`
	resp, body = rg.do(t, "POST", "/v1/messages", http.Header{"X-Api-Key": {"client-token"}}, next)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if !bytes.Contains(body, []byte(`"text_delta","text":"18C."`)) {
		t.Errorf("answer: %s", body)
	}
	sent := string(rg.gem.Requests()[1].Body)
	want := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lHTkFUVVJF"}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18C"}}}]}`
	if !strings.Contains(sent, want) {
		t.Errorf("replay to Gemini:\n got %s\nwant %s", sent, want)
	}
}

func jsonQ(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestGeminiRoutes checks the listing, the refusals in Google's error
// shape and the key query parameter.
func TestGeminiRoutes(t *testing.T) {
	rg := newGeminiRig(t)
	tests := []struct {
		name, method, path string
		header             http.Header
		status             int
		want               string
	}{
		{name: "list_v1beta", method: "GET", path: "/v1beta/models", header: googKey, status: 200, want: `"name":"models/chat"`},
		{name: "list_v1_google", method: "GET", path: "/v1/models?key=client-token", status: 200, want: `"supportedGenerationMethods"`},
		{name: "list_v1_openai", method: "GET", path: "/v1/models", header: http.Header{"Authorization": {"Bearer client-token"}}, status: 200, want: `"object":"list"`},
		{name: "get_model", method: "GET", path: "/v1beta/models/gem", header: googKey, status: 200, want: `"name":"models/gem"`},
		{name: "unknown_model", method: "POST", path: "/v1beta/models/nope:generateContent", header: googKey, status: 404, want: `{"error":{"code":404,"message":"model \"nope\" is not served here","status":"NOT_FOUND"}}`},
		{name: "bad_key_query", method: "POST", path: "/v1beta/models/chat:generateContent?key=wrong", status: 401, want: `"status":"UNAUTHENTICATED"`},
		{name: "no_key", method: "POST", path: "/v1beta/models/chat:generateContent", status: 401, want: `"status":"UNAUTHENTICATED"`},
		{name: "bad_request", method: "POST", path: "/v1beta/models/chat:generateContent", header: googKey, status: 400, want: `"status":"INVALID_ARGUMENT"`},
		{name: "unknown_method", method: "POST", path: "/v1beta/models/chat:embedContent", header: googKey, status: 404, want: `"status":"NOT_FOUND"`},
		{name: "count_tokens", method: "POST", path: "/v1beta/models/chat:countTokens", header: googKey, status: 200, want: `{"totalTokens":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"contents":[{"parts":[{"text":"hi"}]}]}`
			if tt.name == "bad_request" {
				body = `{"contents":[]}`
			}
			resp, got := rg.do(t, tt.method, tt.path, tt.header, body)
			if resp.StatusCode != tt.status || !strings.Contains(string(got), tt.want) {
				t.Errorf("got %d %s, want %d with %s", resp.StatusCode, got, tt.status, tt.want)
			}
		})
	}
}

// TestGeminiMembers checks the Gemini front door's member table:
// Gemini's own members (safetySettings, generationConfig's topK and
// seed) reach a Gemini backend where they belong and are dropped with a
// warning naming them for a Chat backend; members that would change the
// answer are refused there; a member of the wrong type is a 400.
func TestGeminiMembers(t *testing.T) {
	const ask = `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],
	 "safety_settings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],
	 "generationConfig":{"temperature":0.5,"topK":40,"seed":7,"responseMimeType":"text/plain"}}`
	geminiText := gatewaytest.GeminiSSE([]byte(`{"candidates":[{"content":{"parts":[{"text":"Hello."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2},"modelVersion":"gemini-2.5-flash","responseId":"g1"}`))
	tests := []struct {
		name, model, body string
		status            int
		sent              []string // in the backend's body
		notSent           []string
		warned            []string // pointers in x-toolgate-warnings
		refused           string
	}{
		{
			name: "gemini_backend", model: "gem", body: ask, status: 200,
			sent:    []string{`"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]`, `"temperature":0.5`, `"seed":7`, `"topK":40`},
			notSent: []string{`responseMimeType`, `safety_settings`},
		},
		{
			name: "chat_backend", model: "chat", body: ask, status: 200,
			sent:    []string{`"temperature":0.5`},
			notSent: []string{`topK`, `top_k`, `seed`, `afety`},
			warned:  []string{`"/generationConfig/seed"`, `"/generationConfig/topK"`, `"/safetySettings"`},
		},
		{
			name: "chat_backend_cached_content", model: "chat", status: 400,
			body:    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"cachedContent":"cachedContents/abc"}`,
			refused: `"/cachedContent`,
		},
		{
			name: "chat_backend_response_schema", model: "chat", status: 400,
			body:    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT"}}}`,
			refused: `"/generationConfig/response`,
		},
		{
			name: "gemini_backend_cached_content", model: "gem", status: 200,
			body: `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"cachedContent":"cachedContents/abc"}`,
			sent: []string{`"cachedContent":"cachedContents/abc"`},
		},
		{
			name: "wrong_type", model: "gem", status: 400,
			body:    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"safetySettings":"none"}`,
			refused: `/safetySettings`,
		},
		{
			name: "both_spellings", model: "gem", status: 400,
			body:    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"topK":1,"top_k":2}}`,
			refused: `also spelled topK`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rg := newGeminiRig(t)
			rg.gem.Push(gatewaytest.Reply{Body: geminiText})
			rg.chat.Push(gatewaytest.Reply{Body: chatAnswer})
			resp, body := rg.do(t, "POST", "/v1beta/models/"+tt.model+":generateContent", googKey, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status != 200 {
				if !strings.Contains(string(body), tt.refused) || !strings.Contains(string(body), `"status":"INVALID_ARGUMENT"`) {
					t.Errorf("refusal %s does not name %s in Google's shape", body, tt.refused)
				}
				if n := len(rg.gem.Requests()) + len(rg.chat.Requests()); n != 0 {
					t.Errorf("a refused request reached a backend (%d requests)", n)
				}
				return
			}
			b := rg.gem
			if tt.model == "chat" {
				b = rg.chat
			}
			sent := string(b.Requests()[0].Body)
			for _, s := range tt.sent {
				if !strings.Contains(sent, s) {
					t.Errorf("backend body lacks %s:\n%s", s, sent)
				}
			}
			for _, s := range tt.notSent {
				if strings.Contains(sent, s) {
					t.Errorf("backend body has %s:\n%s", s, sent)
				}
			}
			warn := resp.Header.Get("X-Toolgate-Warnings")
			for _, w := range tt.warned {
				if !strings.Contains(warn, w) {
					t.Errorf("no warning for %s in %s", w, warn)
				}
			}
			if len(tt.warned) == 0 && strings.Contains(warn, "dropped") {
				t.Errorf("a member was dropped: %s", warn)
			}
		})
	}
}

// TestGeminiMediateServedTool checks a call the gateway runs itself (a
// tool of its own sources) on the Gemini front door, which has no block
// to show it: the client gets the answer, never the call to run, and a
// warning naming the call — streamed (in the trailer) and not.
func TestGeminiMediateServedTool(t *testing.T) {
	const ask = `{"contents":[{"role":"user","parts":[{"text":"tidy up"}]}],"tools":[{"functionDeclarations":[` +
		`{"name":"Bash","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"}}}},` +
		`{"name":"Read","parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}}}}]}]}`
	for _, tt := range []struct{ name, path string }{
		{"generate", "/v1beta/models/m-openai-chat:generateContent"},
		{"stream", "/v1beta/models/m-openai-chat:streamGenerateContent?alt=sse"},
	} {
		path := tt.path
		t.Run(tt.name, func(t *testing.T) {
			m := newMediated(t, 0)
			b := m.backends[gateway.APIChat]
			b.Push(chatCallReply("call_list", "listTasks", `{}`), chatTextReply("There are two tasks."))
			req, _ := http.NewRequest("POST", m.gw.URL+path, strings.NewReader(ask))
			req.Header.Set("X-Goog-Api-Key", "client-token")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body := string(raw)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if *m.ran != 1 {
				t.Errorf("listTasks ran %d times, want 1", *m.ran)
			}
			if !strings.Contains(body, "There are two tasks.") {
				t.Errorf("no answer:\n%s", body)
			}
			if strings.Contains(body, "functionCall") || strings.Contains(body, "listTasks") {
				t.Errorf("the served call reached the client as a call to run:\n%s", body)
			}
			warn := resp.Header.Get("X-Toolgate-Warnings") + resp.Trailer.Get("X-Toolgate-Warnings")
			var ws []struct{ Code, Message string }
			if err := json.Unmarshal([]byte(warn), &ws); err != nil {
				t.Fatalf("warnings %q: %v", warn, err)
			}
			found := false
			for _, w := range ws {
				found = found || (w.Code == "mediation-server-tool" && strings.Contains(w.Message, "call_list to listTasks (tasks)") && strings.Contains(w.Message, "Gemini"))
			}
			if !found {
				t.Errorf("no warning naming the served call: %q", warn)
			}
			if reqs := b.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "Rotate the keys") {
				t.Fatalf("the model did not get the result (%d requests)", len(reqs))
			}
		})
	}
}
