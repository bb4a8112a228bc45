// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/sse"
)

// familyCase is one case of textcall's own tables (textcall/testdata/
// cases.txtar): a text model's output and what textcall reads from it.
type familyCase struct {
	family, name, text string
	want               struct {
		Content, Reasoning string
		Calls              []struct{ Name, Args string }
		Rejected           []string
		Unclosed           bool
	}
}

func loadFamilyCases(t *testing.T) (tools json.RawMessage, cases []familyCase) {
	t.Helper()
	ar, err := txtar.ParseFile("../textcall/testdata/cases.txtar")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, f := range ar.Files {
		switch {
		case f.Name == "tools.json":
			tools = bytes.TrimSpace(f.Data)
		case strings.HasSuffix(f.Name, ".txt"):
			texts[strings.TrimSuffix(f.Name, ".txt")] = strings.TrimSuffix(string(f.Data), "\n")
		case strings.HasSuffix(f.Name, ".json"):
			key := strings.TrimSuffix(f.Name, ".json")
			family, name, _ := strings.Cut(key, "/")
			c := familyCase{family: family, name: name, text: texts[key]}
			if err := json.Unmarshal(f.Data, &c.want); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			cases = append(cases, c)
		}
	}
	return tools, cases
}

// textChatSSE is a Chat Completions stream of a text model printing text,
// cut into deltas of 1 to 8 bytes by rng (whole when rng is nil).
func textChatSSE(text string, rng *rand.Rand) []byte {
	var lines [][]byte
	chunk := func(delta string) {
		b, _ := json.Marshal(delta)
		lines = append(lines, fmt.Appendf(nil, `{"id":"c1","model":"x","choices":[{"index":0,"delta":{"content":%s}}]}`, b))
	}
	lines = append(lines, []byte(`{"id":"c1","model":"x","choices":[{"index":0,"delta":{"role":"assistant"}}]}`))
	for i := 0; i < len(text); {
		n := len(text)
		if rng != nil {
			n = 1 + rng.IntN(8)
		}
		j := min(i+n, len(text))
		for j < len(text) && !utf8.RuneStart(text[j]) {
			j++ // a JSON string delta holds whole characters
		}
		chunk(text[i:j])
		i = j
	}
	lines = append(lines,
		[]byte(`{"id":"c1","model":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"c1","model":"x","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}`))
	return gatewaytest.ChatSSE(lines...)
}

// textRequest is a client request of front door front offering tools.
func textRequest(front gateway.API, model string, stream bool, tools json.RawMessage) string {
	var defs []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	json.Unmarshal(tools, &defs)
	var parts []string
	for _, d := range defs {
		schema := d.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		switch front {
		case gateway.APIMessages:
			parts = append(parts, fmt.Sprintf(`{"name":%q,"description":%q,"input_schema":%s}`, d.Name, d.Description, schema))
		case gateway.APIResponses:
			parts = append(parts, fmt.Sprintf(`{"type":"function","name":%q,"description":%q,"parameters":%s}`, d.Name, d.Description, schema))
		default:
			parts = append(parts, fmt.Sprintf(`{"type":"function","function":{"name":%q,"description":%q,"parameters":%s}}`, d.Name, d.Description, schema))
		}
	}
	ts := "[" + strings.Join(parts, ",") + "]"
	switch front {
	case gateway.APIMessages:
		return fmt.Sprintf(`{"model":%q,"max_tokens":256,"stream":%v,"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":%s}`, model, stream, ts)
	case gateway.APIResponses:
		return fmt.Sprintf(`{"model":%q,"stream":%v,"input":"Weather in Paris?","tools":%s}`, model, stream, ts)
	}
	return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":%s}`, model, stream, ts)
}

// fullTurn reads a front door's answer, streamed or not, into a Turn.
func fullTurn(t *testing.T, front gateway.API, resp *http.Response) *gateway.Turn {
	t.Helper()
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return bodyTurn(t, front, data)
	}
	dec, _ := gateway.NewStreamDecoder(front)
	col := gateway.NewCollector()
	r := sse.NewReader(bytes.NewReader(data), nil)
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		evs, err := dec.Decode(ev.Name, ev.Data)
		if err != nil {
			t.Fatalf("the front door's stream does not read: %v\n%s", err, data)
		}
		for _, e := range evs {
			if err := col.Add(e); err != nil {
				t.Fatalf("front door stream out of order: %v\n%s", err, data)
			}
		}
	}
	if evs, err := dec.End(); err == nil {
		for _, e := range evs {
			col.Add(e)
		}
	}
	return col.Turn()
}

// bodyTurn reads a non-streaming body into a Turn.
func bodyTurn(t *testing.T, front gateway.API, data []byte) *gateway.Turn {
	t.Helper()
	var body struct {
		Choices []struct {
			Message struct {
				Content          *string `json:"content"`
				ReasoningContent string  `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Content []struct {
			Type, Text, Thinking, Name, ID string
			Input                          json.RawMessage
		}
		StopReason string `json:"stop_reason"`
		Output     []struct {
			Type, Name, Arguments string
			CallID                string `json:"call_id"`
			Content               []struct{ Text string }
			Summary               []struct{ Text string }
		}
		Status string
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, data)
	}
	tr := &gateway.Turn{}
	switch front {
	case gateway.APIChat:
		m := body.Choices[0].Message
		if m.Content != nil {
			tr.Text = *m.Content
		}
		tr.Reasoning = m.ReasoningContent
		for _, c := range m.ToolCalls {
			tr.Calls = append(tr.Calls, gateway.Call{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
		}
		tr.Finish = gateway.Finish(body.Choices[0].FinishReason)
	case gateway.APIMessages:
		for _, c := range body.Content {
			switch c.Type {
			case "text":
				tr.Text += c.Text
			case "thinking":
				tr.Reasoning += c.Thinking
			case "tool_use":
				tr.Calls = append(tr.Calls, gateway.Call{ID: c.ID, Name: c.Name, Arguments: c.Input})
			}
		}
		tr.Finish = gateway.Finish(body.StopReason)
	case gateway.APIResponses:
		for _, o := range body.Output {
			switch o.Type {
			case "message":
				for _, c := range o.Content {
					tr.Text += c.Text
				}
			case "reasoning":
				for _, c := range o.Summary {
					tr.Reasoning += c.Text
				}
				for _, c := range o.Content {
					tr.Reasoning += c.Text
				}
			case "function_call":
				tr.Calls = append(tr.Calls, gateway.Call{ID: o.CallID, Name: o.Name, Arguments: json.RawMessage(o.Arguments)})
			}
		}
		tr.Finish = gateway.Finish(body.Status)
	}
	return tr
}

// words normalises text for comparison: the gateway streams the text
// around calls as the model wrote it, textcall's Result trims it.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

func canonJSON(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return "invalid JSON: " + string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestTextModelFamilies puts a text model of every family behind every
// front door, streaming and not, whole and cut at random: each front door
// carries exactly the calls, answer and reasoning textcall reads from the
// model's text, and the backend got the family's prompt and no tools.
func TestTextModelFamilies(t *testing.T) {
	tools, cases := loadFamilyCases(t)
	if len(cases) < 100 {
		t.Fatalf("only %d family cases", len(cases))
	}
	byFamily := map[string][]familyCase{}
	for _, c := range cases {
		byFamily[c.family] = append(byFamily[c.family], c)
	}
	for family, cases := range byFamily {
		t.Run(family, func(t *testing.T) {
			rg := newRig(t, func(c *gateway.Config) {
				for i := range c.Providers {
					if c.Providers[i].API == gateway.APIChat {
						c.Providers[i].ToolParser = family
						c.Providers[i].Parsing = gateway.ParsingThinkTags
					}
				}
			})
			backend := rg.backends[gateway.APIChat]
			for _, c := range cases {
				for _, front := range []gateway.API{gateway.APIChat, gateway.APIMessages, gateway.APIResponses} {
					for _, mode := range []string{"body", "stream-whole", "stream-cut"} {
						t.Run(fmt.Sprintf("%s/%s/%s", c.name, front, mode), func(t *testing.T) {
							var rng *rand.Rand
							if mode == "stream-cut" {
								rng = rand.New(rand.NewPCG(uint64(len(c.text)), uint64(len(front))))
							}
							backend.Push(gatewaytest.Reply{Body: textChatSSE(c.text, rng)})
							resp := rg.post(t, front, textRequest(front, "m-"+string(gateway.APIChat), mode != "body", tools))
							tr := fullTurn(t, front, resp)
							got := struct {
								Content, Reasoning string
								Calls              []string
							}{Content: words(tr.Text), Reasoning: words(tr.Reasoning)}
							want := got
							want.Content, want.Reasoning, want.Calls = words(c.want.Content), words(c.want.Reasoning), nil
							for _, call := range tr.Calls {
								got.Calls = append(got.Calls, call.Name+" "+canonJSON(call.Arguments))
								if call.ID == "" {
									t.Errorf("call %s has no id", call.Name)
								}
							}
							for _, call := range c.want.Calls {
								want.Calls = append(want.Calls, call.Name+" "+canonJSON([]byte(call.Args)))
							}
							if tr.Err != nil {
								// A streamed call withdrawn as broken ends
								// the stream with an error, never a half call.
								if mode == "body" || !strings.Contains(tr.Err.Message, "the model's call could not be read") {
									t.Fatalf("error: %v", tr.Err.Message)
								}
								return
							}
							if diff := cmp.Diff(want, got); diff != "" {
								t.Errorf("(-textcall +front door)\n%s\nmodel text: %q", diff, c.text)
							}
							reqs := backend.Requests()
							last := reqs[len(reqs)-1].Body
							if bytes.Contains(last, []byte(`"tools"`)) || !bytes.Contains(last, []byte(`get_weather`)) {
								t.Errorf("the backend got tools, or no prompt naming them: %s", last)
							}
						})
					}
				}
			}
		})
	}
}

// TestTextModelRequests pins what a text model's backend gets: the
// family's tools section after the client's system text, tool_choice as
// the family's instruction, no tools, earlier calls in the family's form
// and their results as a user turn. Rewrite with
// go test ./gateway -run TestTextModelRequests -update.
func TestTextModelRequests(t *testing.T) {
	const tools = `[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},{"type":"function","function":{"name":"search","description":"Search the web.","parameters":{"type":"object","properties":{"query":{"type":"string"}}}}}]`
	const history = `[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_a1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_b2","type":"function","function":{"name":"search","arguments":"{\"query\":\"Paris news\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_a1","content":"Sunny, 21 C"},{"role":"tool","tool_call_id":"call_b2","content":"No news."},{"role":"user","content":"And tomorrow?"}]`
	tests := []struct {
		name, family, front, body string
	}{
		{"hermes-auto-history", "hermes", "chat", `{"model":"M","messages":` + history + `,"tools":` + tools + `}`},
		{"hermes-named", "hermes", "chat", `{"model":"M","messages":[{"role":"user","content":"Weather?"}],"tools":` + tools + `,"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false}`},
		{"hermes-required", "hermes", "chat", `{"model":"M","messages":[{"role":"user","content":"Weather?"}],"tools":` + tools + `,"tool_choice":"required"}`},
		{"hermes-none-history", "hermes", "chat", `{"model":"M","messages":` + history + `,"tools":` + tools + `,"tool_choice":"none"}`},
		{"mistral-auto-history", "mistral", "chat", `{"model":"M","messages":` + history + `,"tools":` + tools + `}`},
		{"qwen3-coder-auto-history", "qwen3-coder", "chat", `{"model":"M","messages":` + history + `,"tools":` + tools + `}`},
		{"hermes-from-messages", "hermes", "messages", `{"model":"M","max_tokens":100,"system":"Be brief.","messages":[{"role":"user","content":"Weather in Paris?"},` +
			`{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Sunny"}]}],"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]}`},
	}
	golden := "testdata/textmodel_requests.txtar"
	ar := &txtar.Archive{Comment: []byte("The backend requests of text models (tool_parser families): the client's\n" +
		"request, then what the backend got, indented.\n" +
		"Rewrite with: go test ./gateway -run TestTextModelRequests -update\n")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rg := newRig(t, func(c *gateway.Config) {
				for i := range c.Providers {
					if c.Providers[i].API == gateway.APIChat {
						c.Providers[i].ToolParser = tt.family
					}
				}
			})
			backend := rg.backends[gateway.APIChat]
			backend.Push(gatewaytest.Reply{Body: textChatSSE("Fine.", nil)})
			front := gateway.APIChat
			if tt.front == "messages" {
				front = gateway.APIMessages
			}
			body := strings.Replace(tt.body, `"model":"M"`, `"model":"m-`+string(gateway.APIChat)+`"`, 1)
			resp := rg.post(t, front, body)
			if tr := fullTurn(t, front, resp); tr.Text != "Fine." {
				t.Errorf("answer %q", tr.Text)
			}
			reqs := backend.Requests()
			var out bytes.Buffer
			json.Indent(&out, reqs[len(reqs)-1].Body, "", "  ")
			ar.Files = append(ar.Files, txtar.File{Name: tt.name + "/client", Data: []byte(tt.body + "\n")},
				txtar.File{Name: tt.name + "/backend", Data: append(out.Bytes(), '\n')})
		})
	}
	checkGolden(t, golden, txtar.Format(ar))
}

// TestTextModelWarnings checks what a text model's slips become: a
// result or a warning, in the x-toolgate-warnings header of a body and
// the trailer of a stream, never lost.
func TestTextModelWarnings(t *testing.T) {
	const tools = `[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`
	tests := []struct {
		name, text       string
		thinkOpen        bool
		text2, reasoning string
		calls            []string
		codes            []string
	}{
		{name: "invalid-arguments", text: `<tool_call>{"name": "get_weather", "arguments": {"city": 5}}</tool_call>`,
			calls: []string{`get_weather {"city":5}`}, codes: []string{"invalid-arguments"}},
		{name: "unknown-tool", text: `Sure. <tool_call>{"name": "launch_rocket", "arguments": {"to": "moon"}}</tool_call>`,
			text2: "Sure.", codes: []string{"unknown-tool", "unknown-tool-call"}},
		{name: "unterminated-think", text: `<think>still going, maybe <tool_call>`,
			reasoning: "still going, maybe <tool_call>", codes: []string{"unclosed-reasoning"}},
		{name: "think-open", text: `The user wants Paris.</think>Calling. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`,
			thinkOpen: true, reasoning: "The user wants Paris.", text2: "Calling.", calls: []string{`get_weather {"city":"Paris"}`}},
		{name: "stray-close-without-think-open", text: `The user wants Paris.</think>Answer.`,
			text2: "The user wants Paris.Answer.", codes: []string{"stray-reasoning-close"}},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				rg := newRig(t, func(c *gateway.Config) {
					for i := range c.Providers {
						if c.Providers[i].API == gateway.APIChat {
							c.Providers[i].ToolParser, c.Providers[i].ThinkOpen = "hermes", tt.thinkOpen
						}
					}
				})
				rg.backends[gateway.APIChat].Push(gatewaytest.Reply{Body: textChatSSE(tt.text, rand.New(rand.NewPCG(7, 7)))})
				body := fmt.Sprintf(`{"model":"m-%s","stream":%v,"messages":[{"role":"user","content":"Weather?"}],"tools":%s}`, gateway.APIChat, stream, tools)
				resp := rg.post(t, gateway.APIChat, body)
				tr := fullTurn(t, gateway.APIChat, resp)
				var calls []string
				for _, c := range tr.Calls {
					calls = append(calls, c.Name+" "+canonJSON(c.Arguments))
				}
				if tr.Err != nil || words(tr.Text) != tt.text2 || words(tr.Reasoning) != tt.reasoning || !cmp.Equal(calls, tt.calls) {
					t.Errorf("text %q reasoning %q calls %q err %v", tr.Text, tr.Reasoning, calls, tr.Err)
				}
				hdr := resp.Header.Get("x-toolgate-warnings")
				if stream {
					hdr = resp.Trailer.Get("x-toolgate-warnings")
				}
				var ws []struct{ Pointer, Code, Message string }
				if hdr != "" {
					if err := json.Unmarshal([]byte(hdr), &ws); err != nil {
						t.Fatalf("warnings %q: %v", hdr, err)
					}
				}
				var codes []string
				for _, w := range ws {
					codes = append(codes, w.Code)
				}
				if !cmp.Equal(codes, tt.codes) {
					t.Errorf("warning codes %q, want %q (%s)", codes, tt.codes, hdr)
				}
				if tt.name == "unknown-tool" && !strings.Contains(hdr, `launch_rocket`) {
					t.Errorf("the dropped call is not in the warnings: %s", hdr)
				}
			})
		}
	}
}

// TestTextModelChoiceNone: with tool_choice none the model was shown no
// tools, so a call it prints anyway is its text, not a call.
func TestTextModelChoiceNone(t *testing.T) {
	rg := newRig(t, func(c *gateway.Config) {
		for i := range c.Providers {
			if c.Providers[i].API == gateway.APIChat {
				c.Providers[i].ToolParser = "hermes"
			}
		}
	})
	text := `I would call <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`
	for _, stream := range []bool{false, true} {
		rg.backends[gateway.APIChat].Push(gatewaytest.Reply{Body: textChatSSE(text, nil)})
		body := fmt.Sprintf(`{"model":"m-%s","stream":%v,"messages":[{"role":"user","content":"Weather?"}],"tool_choice":"none","tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}`, gateway.APIChat, stream)
		tr := fullTurn(t, gateway.APIChat, rg.post(t, gateway.APIChat, body))
		if len(tr.Calls) != 0 || tr.Text != text {
			t.Errorf("stream=%v: calls %v text %q", stream, tr.Calls, tr.Text)
		}
	}
}

// checkGolden compares got with the golden file, or rewrites it with
// -update (the flag of the package's internal tests).
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got)\n%s", golden, diff)
	}
}
