// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/internal/sse"
)

// codexTools is the shape of Codex's default tools: functions, a
// namespace of functions and a custom (grammar) tool, a custom tool at
// top level, and the hosted web_search.
const codexTools = `[
 {"type":"function","name":"exec_command","strict":false,"parameters":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}},
 {"type":"namespace","name":"multi_agent_v1","description":"Sub-agents.","tools":[
   {"type":"function","name":"close_agent","description":"Close one.","strict":false,"parameters":{"type":"object","properties":{"id":{"type":"string"}}}},
   {"type":"custom","name":"spawn","description":"Spawn one.","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]},
 {"type":"custom","name":"apply_patch","description":"Apply a patch."},
 {"type":"web_search","external_web_access":false}]`

func codexRequest(extra string) []byte {
	return []byte(`{"model":"m","input":[{"role":"user","content":"hi"}],"tools":` + codexTools + extra + `}`)
}

func toolNames(t *testing.T, body []byte, member string) []string {
	t.Helper()
	var b map[string]json.RawMessage
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	var tools []struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	json.Unmarshal(b[member], &tools)
	var names []string
	for _, tl := range tools {
		switch {
		case tl.Function.Name != "":
			names = append(names, tl.Function.Name)
		case tl.Name != "":
			names = append(names, tl.Name)
		default:
			names = append(names, "("+tl.Type+")")
		}
	}
	return names
}

func warningPointers(out *Outbound) []string {
	var ps []string
	for _, w := range out.Warnings {
		ps = append(ps, w.Pointer+" "+w.Code)
	}
	return ps
}

// TestResponsesToolsFlattened: a namespace's tools become functions named
// NAMESPACE__NAME, custom tools functions with one string argument, and
// hosted tools reach only OpenAI's Responses API, dropped with a warning
// elsewhere.
func TestResponsesToolsFlattened(t *testing.T) {
	req, err := DecodeRequest(APIResponses, codexRequest(`,"reasoning":{"effort":"low","summary":"auto"}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantOrigins := map[string]toolOrigin{
		"multi_agent_v1__close_agent": {Namespace: "multi_agent_v1", Name: "close_agent"},
		"multi_agent_v1__spawn":       {Namespace: "multi_agent_v1", Name: "spawn", Custom: true},
		"apply_patch":                 {Name: "apply_patch", Custom: true},
	}
	if diff := cmp.Diff(wantOrigins, req.front.origins); diff != "" {
		t.Errorf("origins (-want +got)\n%s", diff)
	}
	for _, d := range req.Tools {
		if d.Name == "multi_agent_v1__spawn" {
			if !strings.Contains(d.Description, "start: /.+/") || !bytes.Contains(d.InputSchema, []byte(`"input":{"type":"string"`)) {
				t.Errorf("custom tool as a function: description %q, schema %s", d.Description, d.InputSchema)
			}
		}
	}
	tests := []struct {
		name     string
		o        BackendOptions
		member   string
		want     []string
		warnings []string
		summary  string
	}{
		{name: "openai-responses", o: BackendOptions{API: APIResponses}, member: "tools",
			want: []string{"exec_command", "multi_agent_v1__close_agent", "multi_agent_v1__spawn", "apply_patch", "(web_search)"}, summary: `{"effort":"low","summary":"auto"}`},
		{name: "compat-responses", o: BackendOptions{API: APIResponses, Compat: true}, member: "tools",
			want: []string{"exec_command", "multi_agent_v1__close_agent", "multi_agent_v1__spawn", "apply_patch"}, warnings: []string{"/tools/3 dropped"}, summary: `{"effort":"low","summary":"auto"}`},
		{name: "chat", o: BackendOptions{API: APIChat}, member: "tools",
			want: []string{"exec_command", "multi_agent_v1__close_agent", "multi_agent_v1__spawn", "apply_patch"}, warnings: []string{"/tools/3 dropped"}},
		{name: "anthropic", o: BackendOptions{API: APIMessages}, member: "tools",
			want: []string{"exec_command", "multi_agent_v1__close_agent", "multi_agent_v1__spawn", "apply_patch"}, warnings: []string{"/tools/3 dropped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.Model = "m"
			out, err := EncodeRequest(req, &o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, toolNames(t, out.Body, tt.member)); diff != "" {
				t.Errorf("tools (-want +got)\n%s", diff)
			}
			var got []string
			for _, w := range warningPointers(out) {
				if strings.HasPrefix(w, "/tools/3") {
					got = append(got, w)
				}
			}
			if diff := cmp.Diff(tt.warnings, got); diff != "" {
				t.Errorf("hosted-tool warnings (-want +got)\n%s", diff)
			}
			var b map[string]json.RawMessage
			json.Unmarshal(out.Body, &b)
			if tt.summary != "" && string(b["reasoning"]) != tt.summary {
				t.Errorf("reasoning = %s, want %s", b["reasoning"], tt.summary)
			}
		})
	}
}

func TestResponsesToolsRefused(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		pointer string
		both    string // the other member the message must name
	}{
		{name: "namespace-collides-with-function",
			body:    `[{"type":"namespace","name":"a","tools":[{"type":"function","name":"b"}]},{"type":"function","name":"a__b"}]`,
			pointer: "/tools/1/name", both: "/tools/0/tools/0/name"},
		{name: "two-namespaces-collide",
			body:    `[{"type":"namespace","name":"a_","tools":[{"type":"function","name":"_b"}]},{"type":"namespace","name":"a","tools":[{"type":"custom","name":"__b"}]}]`,
			pointer: "/tools/1/tools/0/name", both: "/tools/0/tools/0/name"},
		{name: "namespace-holds-hosted", body: `[{"type":"namespace","name":"a","tools":[{"type":"web_search"}]}]`, pointer: "/tools/0/tools/0"},
		{name: "custom-format-unknown", body: `[{"type":"custom","name":"c","format":{"type":"regex"}}]`, pointer: "/tools/0/format/type"},
		{name: "custom-without-name", body: `[{"type":"custom"}]`, pointer: "/tools/0/name"},
		{name: "namespace-without-name", body: `[{"type":"namespace","tools":[]}]`, pointer: "/tools/0/name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRequest(APIResponses, []byte(`{"model":"m","input":"hi","tools":`+tt.body+`}`), 0)
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *RequestError", err)
			}
			if re.Pointer != tt.pointer {
				t.Errorf("pointer = %q, want %q (%v)", re.Pointer, tt.pointer, err)
			}
			if tt.both != "" && !strings.Contains(re.Reason, tt.both) {
				t.Errorf("%v: does not name %s", err, tt.both)
			}
		})
	}
}

// TestHostedToolChoice: a tool_choice naming a hosted tool goes to the
// vendor that hosts it and is refused elsewhere.
func TestHostedToolChoice(t *testing.T) {
	req, err := DecodeRequest(APIResponses, codexRequest(`,"tool_choice":{"type":"web_search"},"parallel_tool_calls":false`), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := EncodeRequest(req, &BackendOptions{API: APIResponses, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var b map[string]json.RawMessage
	if err := json.Unmarshal(out.Body, &b); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, out.Body)
	}
	if string(b["tool_choice"]) != `{"type":"web_search"}` || string(b["parallel_tool_calls"]) != "false" {
		t.Errorf("tool_choice %s, parallel_tool_calls %s: want passed as sent", b["tool_choice"], b["parallel_tool_calls"])
	}
	for _, api := range []API{APIChat, APIMessages} {
		_, err := EncodeRequest(req, &BackendOptions{API: api, Model: "m"})
		var re *RequestError
		if !errors.As(err, &re) || re.Pointer != "/tool_choice" {
			t.Errorf("%s: err = %v, want a refusal of /tool_choice", api, err)
		}
	}
	// A custom tool's choice names the function standing for it.
	req, err = DecodeRequest(APIResponses, codexRequest(`,"tool_choice":{"type":"custom","name":"apply_patch"}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if req.Choice == nil || req.Choice.Name != "apply_patch" {
		t.Errorf("choice = %+v, want the function apply_patch", req.Choice)
	}
}

// TestResponsesCallsMappedBack: a call of a flattened name reaches the
// client as it declared the tool — a namespaced function_call, a
// custom_tool_call with free-form input — streamed and whole, and comes
// back from the client as the same call.
func TestResponsesCallsMappedBack(t *testing.T) {
	origins := map[string]toolOrigin{
		"multi_agent_v1__close_agent": {Namespace: "multi_agent_v1", Name: "close_agent"},
		"apply_patch":                 {Name: "apply_patch", Custom: true},
	}
	events := []Event{
		{Kind: EventStart, ID: "r1", Model: "m"},
		{Kind: EventCall, Index: 0, ID: "c1", Name: "multi_agent_v1__close_agent"},
		{Kind: EventArguments, Index: 0, Text: `{"id":`},
		{Kind: EventArguments, Index: 0, Text: `"a1"}`},
		{Kind: EventCallEnd, Index: 0},
		{Kind: EventCall, Index: 1, ID: "c2", Name: "apply_patch"},
		{Kind: EventArguments, Index: 1, Text: `{"input":"*** Begin`},
		{Kind: EventArguments, Index: 1, Text: ` Patch\n"}`},
		{Kind: EventCallEnd, Index: 1},
		{Kind: EventFinish, Finish: FinishToolCalls},
	}
	var buf bytes.Buffer
	enc, err := NewStreamEncoder(APIResponses, sse.NewWriter(&buf), &EncodeOptions{origins: origins})
	if err != nil {
		t.Fatal(err)
	}
	col := NewCollector()
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
		col.Add(e)
	}
	enc.Close()
	var done []json.RawMessage
	var types []string
	for _, line := range strings.Split(buf.String(), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string          `json:"type"`
			Item json.RawMessage `json:"item"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event is not JSON: %s", data)
		}
		types = append(types, ev.Type)
		if ev.Type == "response.output_item.done" {
			done = append(done, ev.Item)
		}
	}
	want := []string{
		`{"id":"fc_0_r1","type":"function_call","status":"completed","call_id":"c1","name":"close_agent","namespace":"multi_agent_v1","arguments":"{\"id\":\"a1\"}"}`,
		`{"id":"ctc_1_r1","type":"custom_tool_call","status":"completed","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\n"}`,
	}
	var got []string
	for _, d := range done {
		got = append(got, string(d))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("streamed items (-want +got)\n%s", diff)
	}
	for _, typ := range []string{"response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"} {
		if !strings.Contains(strings.Join(types, " "), typ) {
			t.Errorf("no %s event in %v", typ, types)
		}
	}
	tn := col.Turn()
	whole, err := EncodeResponse(APIResponses, tn, &EncodeOptions{ID: "r1", origins: origins})
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(whole, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Output) != 2 || !bytes.Contains(resp.Output[0], []byte(`"namespace":"multi_agent_v1"`)) || !bytes.Contains(resp.Output[1], []byte(`"type":"custom_tool_call"`)) || !bytes.Contains(resp.Output[1], []byte(`"input":"*** Begin Patch\n"`)) {
		t.Errorf("whole response output: %s", whole)
	}

	// The client replays both calls and their outputs.
	replay := `{"model":"m","tools":` + codexTools + `,"input":[{"role":"user","content":"hi"},` +
		`{"type":"function_call","call_id":"c1","name":"close_agent","namespace":"multi_agent_v1","arguments":"{\"id\":\"a1\"}"},` +
		`{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\n"},` +
		`{"type":"function_call_output","call_id":"c1","output":"closed"},` +
		`{"type":"custom_tool_call_output","call_id":"c2","output":"applied"}]}`
	req, err := DecodeRequest(APIResponses, []byte(replay), 0)
	if err != nil {
		t.Fatal(err)
	}
	var calls, results []string
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			switch p.Kind {
			case PartCall:
				calls = append(calls, p.Name+" "+string(p.Arguments))
			case PartResult:
				results = append(results, p.CallID+" "+partsText(p.Content))
			}
		}
	}
	if diff := cmp.Diff([]string{`multi_agent_v1__close_agent {"id":"a1"}`, `apply_patch {"input":"*** Begin Patch\n"}`}, calls); diff != "" {
		t.Errorf("replayed calls (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c1 closed", "c2 applied"}, results); diff != "" {
		t.Errorf("replayed results (-want +got)\n%s", diff)
	}
}

func TestCustomInput(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{name: "input", args: `{"input":"a\nb"}`, want: "a\nb"},
		{name: "one-string-member", args: `{"patch":"p"}`, want: "p"},
		{name: "not-json", args: `cat x`, want: "cat x"},
		{name: "several-members", args: `{"a":"1","b":"2"}`, want: `{"a":"1","b":"2"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := customInput([]byte(tt.args)); got != tt.want {
				t.Errorf("customInput(%s) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestReasoningSummary(t *testing.T) {
	tests := []struct {
		name      string
		reasoning string
		pointer   string // of the refusal; "" when accepted
		summary   string
		warned    []string
	}{
		{name: "summary", reasoning: `{"summary":"detailed"}`, summary: "detailed"},
		{name: "generate-summary", reasoning: `{"generate_summary":"concise"}`, summary: "concise"},
		{name: "null", reasoning: `null`},
		{name: "wrong-type", reasoning: `{"summary":1}`, pointer: "/reasoning/summary"},
		{name: "unknown-value", reasoning: `{"summary":"long"}`, pointer: "/reasoning/summary"},
		{name: "effort-wrong-type", reasoning: `{"effort":true}`, pointer: "/reasoning/effort"},
		{name: "not-an-object", reasoning: `"high"`, pointer: "/reasoning"},
		{name: "unknown-setting", reasoning: `{"effort":"low","budget":3}`, warned: []string{"/reasoning/budget dropped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeRequest(APIResponses, []byte(`{"model":"m","input":"hi","reasoning":`+tt.reasoning+`}`), 0)
			if tt.pointer != "" {
				var re *RequestError
				if !errors.As(err, &re) || re.Pointer != tt.pointer {
					t.Fatalf("err = %v, want a refusal of %s", err, tt.pointer)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.front.summary != tt.summary {
				t.Errorf("summary = %q, want %q", req.front.summary, tt.summary)
			}
			out, err := EncodeRequest(req, &BackendOptions{API: APIChat, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			for _, w := range warningPointers(out) {
				if strings.HasPrefix(w, "/reasoning/") && !strings.HasPrefix(w, "/reasoning/summary") {
					warned = append(warned, w)
				}
			}
			if diff := cmp.Diff(tt.warned, warned); diff != "" {
				t.Errorf("warnings (-want +got)\n%s", diff)
			}
		})
	}
}

// FuzzResponsesTools checks the tools rewrite on any input: it fails
// only with a *RequestError, what it writes holds no namespace or custom
// tool, every origin is named by its namespace and name, and no two
// tools share a name.
func FuzzResponsesTools(f *testing.F) {
	f.Add([]byte(codexTools), []byte(`"auto"`))
	f.Add([]byte(`[{"type":"namespace","name":"a","tools":[{"type":"function","name":"b"}]},{"type":"function","name":"a__b"}]`), []byte(`{"type":"custom","name":"x"}`))
	f.Add([]byte(`[{"type":"custom","name":"c","format":{"type":"grammar","definition":"x"}},{"type":"file_search"}]`), []byte(`{"type":"file_search"}`))
	f.Add([]byte(`[{"type":"namespace","name":"","tools":null}]`), []byte(`{"type":"function","name":"b","namespace":"a"}`))
	f.Fuzz(func(t *testing.T, tools, choice []byte) {
		m := &memberSet{}
		m.set("tools", tools)
		m.set("tool_choice", choice)
		r := &Request{API: APIResponses}
		if err := readResponsesTools(r, m); err != nil {
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("error is not a *RequestError: %v", err)
			}
			return
		}
		for flat, o := range r.front.origins {
			if flatName(o.Namespace, o.Name) != flat {
				t.Errorf("origin %+v stands for %q", o, flat)
			}
		}
		var out []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		written, _ := m.get("tools")
		if json.Unmarshal(written, &out) != nil {
			return // not an array: left for the codec to refuse
		}
		seen := map[string]bool{}
		for _, tl := range out {
			if tl.Type == "namespace" || tl.Type == "custom" || hostedType(tl.Type) {
				t.Errorf("a %s tool left in %s", tl.Type, written)
			}
			if tl.Type == "function" && seen[tl.Name] {
				t.Errorf("two tools named %q", tl.Name)
			}
			seen[tl.Name] = true
		}
	})
}

// TestAnthropicServerTools: Anthropic-defined tools reach Anthropic as
// sent and are dropped with a warning elsewhere; a tool_choice naming
// one is refused there.
func TestAnthropicServerTools(t *testing.T) {
	body := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}],"tools":[` +
		`{"type":"web_search_20250305","name":"web_search","max_uses":2},` +
		`{"name":"Read","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}}}]%s}`
	req, err := DecodeRequest(APIMessages, []byte(strings.ReplaceAll(body, "%s", "")), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := EncodeRequest(req, &BackendOptions{API: APIMessages, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Read", "web_search"}, toolNames(t, out.Body, "tools")); diff != "" {
		t.Errorf("anthropic tools (-want +got)\n%s", diff)
	}
	out, err = EncodeRequest(req, &BackendOptions{API: APIChat, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Read"}, toolNames(t, out.Body, "tools")); diff != "" {
		t.Errorf("chat tools (-want +got)\n%s", diff)
	}
	if ws := warningPointers(out); !slices.Contains(ws, "/tools/0 dropped") {
		t.Errorf("warnings %v: want /tools/0 dropped", ws)
	}
	req, err = DecodeRequest(APIMessages, []byte(strings.ReplaceAll(body, "%s", `,"tool_choice":{"type":"tool","name":"web_search"}`)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EncodeRequest(req, &BackendOptions{API: APIMessages, Model: "m"}); err != nil {
		t.Errorf("anthropic: %v", err)
	}
	_, err = EncodeRequest(req, &BackendOptions{API: APIResponses, Model: "m"})
	var re *RequestError
	if !errors.As(err, &re) || re.Pointer != "/tool_choice" || !strings.Contains(re.Reason, "web_search") {
		t.Errorf("responses: err = %v, want a refusal of /tool_choice naming web_search", err)
	}
}
