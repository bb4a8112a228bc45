// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/tool"
)

// geminiStreams reads testdata/gemini_streams.txtar (written after the
// documented format) and testdata/gemini_recorded.txtar (recorded from
// Google's API).
func geminiStreams(t testing.TB) []recorded {
	var out []recorded
	for _, file := range []string{"testdata/gemini_streams.txtar", "testdata/gemini_recorded.txtar"} {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			out = append(out, recorded{name: "gemini/" + f.Name, api: APIGemini, body: f.Data})
		}
	}
	return out
}

func TestGeminiCallID(t *testing.T) {
	tests := []struct {
		name, id, sig string
	}{
		{name: "no_signature", id: "call_1"},
		{name: "base64_signature", id: "gcall_00ff", sig: "CiQBVKhc7k2+Zm9vYmFy/w=="},
		{name: "raw_signature", id: "fc-1", sig: "not base64!"},
		{name: "empty_id", id: "", sig: "EjQKMgFyZWFs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			joined := joinCallID(tt.id, tt.sig)
			for _, c := range joined {
				if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') && tt.id != "" && tt.sig != "" {
					t.Fatalf("id %q holds %q: Anthropic's tool_use ids take [A-Za-z0-9_-] only", joined, c)
				}
			}
			id, sig := splitCallID(joined)
			if diff := cmp.Diff([2]string{tt.id, tt.sig}, [2]string{id, sig}); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// normCalls makes made-up call ids comparable.
func normCalls(cs []Call) []Call {
	var out []Call
	for _, c := range cs {
		id, sig := splitCallID(c.ID)
		if generatedCallID(id) {
			id = "gcall_*"
		}
		var buf bytes.Buffer
		if json.Compact(&buf, c.Arguments) == nil {
			c.Arguments = buf.Bytes()
		}
		out = append(out, Call{ID: joinCallID(id, sig), Name: c.Name, Arguments: c.Arguments})
	}
	return out
}

func TestGeminiDecoder(t *testing.T) {
	type want struct {
		Reasoning, Text string
		Calls           []Call
		Finish          Finish
		StopReason      string
		Usage           Usage
		Warnings        int
	}
	tests := map[string]want{
		"text-thoughts.sse": {Reasoning: "**Considering the greeting**\n\nThe user says hello.", Text: "Hello! How can I help you today?",
			Finish: FinishStop, StopReason: "STOP", Usage: Usage{12, 35, 26, 8, -1}},
		"parallel-calls.sse": {Reasoning: "I need the weather in both cities.", Calls: []Call{
			{ID: joinCallID("gcall_*", "CiQBVKhc7k2+Zm9vYmFy/w=="), Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","unit":"celsius"}`)},
			{ID: "gcall_*", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Tokyo","unit":"celsius"}`)}},
			Finish: FinishToolCalls, StopReason: "STOP", Usage: Usage{61, 94, 58, 0, -1}},
		"call-with-id.sse": {Text: "Let me look that up.", Calls: []Call{{ID: joinCallID("fc-7f3a", "EjQKMgFyZWFs"), Name: "search_docs", Arguments: json.RawMessage(`{}`)}},
			Finish: FinishToolCalls, StopReason: "STOP", Usage: Usage{30, 14, 0, 0, -1}},
		"max-tokens.sse":     {Text: "Once upon a time, in a land far away", Finish: FinishLength, StopReason: "MAX_TOKENS", Usage: Usage{5, 10, 0, 0, -1}},
		"safety.sse":         {Text: "Here is how", Finish: FinishContentFilter, StopReason: "SAFETY", Usage: Usage{9, 3, 0, 0, -1}},
		"recitation.sse":     {Text: "The lyrics go", Finish: FinishContentFilter, StopReason: "RECITATION", Usage: Usage{7, 3, 0, 0, -1}},
		"malformed-call.sse": {Finish: FinishError, StopReason: "MALFORMED_FUNCTION_CALL", Usage: Usage{40, -1, -1, 0, -1}, Warnings: 1},
		"prompt-blocked.sse": {Finish: FinishContentFilter, StopReason: "PROHIBITED_CONTENT", Usage: Usage{11, -1, -1, 0, -1}},
		// Recorded from Google's API (gemini_recorded.txtar).
		"google-tool-call-gemini3.sse": {Calls: []Call{{ID: joinCallID("gcall_*", recordedSignature(t, "google-tool-call-gemini3.sse")), Name: "weather", Arguments: json.RawMessage(`{"location":"San Francisco"}`)}},
			Finish: FinishToolCalls, StopReason: "STOP", Usage: Usage{29, 819, 804, 0, -1}},
		"google-tool-call.sse": {Calls: []Call{{ID: joinCallID("gcall_*", recordedSignature(t, "google-tool-call.sse")), Name: "weather", Arguments: json.RawMessage(`{"location":"San Francisco"}`)}},
			Finish: FinishToolCalls, StopReason: "STOP", Usage: Usage{29, 60, 45, 0, -1}},
		"google-reasoning-gemini3.sse": {Text: "There are **3** \"r\"s in strawberry.\n\nSt**r**awbe**rr**y", Finish: FinishStop, StopReason: "STOP", Usage: Usage{9, 325, 302, 0, -1}},
		// Streamed in pieces (partialArgs), assembled.
		"google-stream-tool-call-arguments.sse": {Calls: []Call{
			{ID: joinCallID("gcall_*", recordedSignature(t, "google-stream-tool-call-arguments.sse")), Name: "getWeather", Arguments: json.RawMessage(`{"location":"Boston"}`)},
			{ID: "gcall_*", Name: "getWeather", Arguments: json.RawMessage(`{"location":"San Francisco"}`)}},
			Finish: FinishToolCalls, StopReason: "STOP", Usage: Usage{26, 155, 132, 0, -1}},
		"google-stream-no-args-tool-call.sse": {Reasoning: "**Processing User Requests**\n\nI've started by understanding the user's instructions. Currently, I'm focusing on the initial steps: reading the specified theme using the appropriate tool. Next, I plan to tackle reading the screens, beginning with screen \"A,\" then proceeding with \"B\" and \"C\" in parallel as instructed.\n\n\n",
			Calls: []Call{
				{ID: joinCallID("gcall_*", recordedSignature(t, "google-stream-no-args-tool-call.sse")), Name: "read_theme", Arguments: json.RawMessage(`{}`)},
				{ID: "gcall_*", Name: "read_screen", Arguments: json.RawMessage(`{"id":"A"}`)},
				{ID: "gcall_*", Name: "read_screen", Arguments: json.RawMessage(`{"id":"B"}`)},
				{ID: "gcall_*", Name: "read_screen", Arguments: json.RawMessage(`{"id":"C"}`)}},
			Finish: FinishToolCalls, StopReason: "STOP", Usage: Usage{249, 241, 183, 0, -1}},
		"google-text.sse": {Text: "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y", Finish: FinishStop, StopReason: "STOP", Usage: Usage{9, 208, 185, 0, -1}},
	}
	for _, s := range geminiStreams(t) {
		name := strings.TrimPrefix(s.name, "gemini/")
		t.Run(name, func(t *testing.T) {
			w, ok := tests[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			for i := range uint64(4) {
				var rng *rand.Rand
				if i > 0 {
					rng = rand.New(rand.NewPCG(i, 25))
				}
				tr, _, err := decodeStream(t, APIGemini, s.body, rng)
				if err != nil {
					t.Fatal(err)
				}
				got := want{Reasoning: tr.Reasoning, Text: tr.Text, Calls: normCalls(tr.Calls), Finish: tr.Finish, StopReason: tr.StopReason, Usage: tr.Usage, Warnings: len(tr.Warnings)}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Fatalf("chunking %d (-want +got)\n%s", i, diff)
				}
			}
		})
	}
}

// recordedSignature is the thoughtSignature of the first functionCall
// part of the recorded stream name, as Google sent it.
func recordedSignature(t *testing.T, name string) string {
	t.Helper()
	for _, s := range geminiStreams(t) {
		if s.name != "gemini/"+name {
			continue
		}
		m := regexp.MustCompile(`"functionCall":\{(?:[^{}]|\{[^{}]*\})*\},"thoughtSignature":"([^"]+)"`).FindSubmatch(s.body)
		if m == nil || len(m[1]) < 100 {
			t.Fatalf("%s: no signature on a call", name)
		}
		return string(m[1])
	}
	t.Fatalf("no recorded stream %s", name)
	return ""
}

func TestGeminiDecoderErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want error
	}{
		{name: "cut_before_finish", body: "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]},\"index\":0}]}\r\n\r\n", want: ErrIncomplete},
		{name: "cut_mid_json", body: "data: {\"candidates\":[{\"content\":{\"parts\":[{\"te\r\n\r\n", want: ErrMalformed},
		{name: "duplicate_member", body: "data: {\"responseId\":\"a\",\"responseId\":\"b\"}\r\n\r\n", want: ErrMalformed},
		{name: "wrong_type", body: "data: {\"candidates\":{}}\r\n\r\n", want: ErrMalformed},
		{name: "cut_inside_event", body: "data: {\"candidates\":[]", want: sse.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := decodeStream(t, APIGemini, []byte(tt.body), nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "Hi") {
				t.Errorf("the error echoes the stream: %v", err)
			}
		})
	}
	// An error the backend reports inside the stream is an event.
	tr, _, err := decodeStream(t, APIGemini, []byte("data: {\"error\":{\"code\":429,\"message\":\"quota\",\"status\":\"RESOURCE_EXHAUSTED\"}}\r\n\r\n"), nil)
	if err != nil || tr.Err == nil || tr.Err.Type != "RESOURCE_EXHAUSTED" || tr.Err.Status != 429 {
		t.Fatalf("got %+v, %v", tr.Err, err)
	}
}

// geminiCarried is what the Gemini front door carries of a turn.
func geminiCarried(tr *Turn, failed bool) carried {
	c := carried{Text: tr.Text, Reasoning: tr.Reasoning, Calls: normCalls(tr.Calls), Finish: tr.Finish, Usage: tr.Usage, Failed: failed || tr.Err != nil}
	if c.Failed {
		// Calls go out whole: one the failure cut is not sent.
		c.Finish, c.Usage, c.Calls = "", Usage{}, nil
		for _, call := range tr.Calls {
			if call.Arguments != nil {
				c.Calls = append(c.Calls, call)
			}
		}
		c.Calls = normCalls(c.Calls)
		return c
	}
	if len(c.Calls) > 0 && (c.Finish == FinishStop || c.Finish == "") {
		c.Finish = FinishToolCalls
	}
	switch c.Finish {
	case FinishRefusal:
		c.Finish = FinishContentFilter
	case FinishPause:
		c.Finish = FinishStop
	}
	u := &c.Usage
	u.InputTokens, u.ReasoningTokens, u.CacheReadTokens = known(u.InputTokens), known(u.ReasoningTokens), known(u.CacheReadTokens)
	u.OutputTokens = max(known(u.OutputTokens), u.ReasoningTokens)
	u.CacheWriteTokens = -1
	return c
}

func carriedByFront(front API, tr *Turn, failed bool) carried {
	if front == APIGemini {
		return geminiCarried(tr, failed)
	}
	c := carriedBy(front, tr, failed)
	c.Calls = normCalls(c.Calls)
	if front == APIChat && c.Finish == FinishError {
		c.Finish = FinishStop // Chat has no word for it
	}
	return c
}

// TestGeminiStreamsThroughEveryFrontDoor replays each Gemini stream, cut
// at random, out of every front door, and reads the result back with
// that API's own decoder: the same text, thoughts, calls and usage, as
// far as the API carries them, whatever the chunking.
func TestGeminiStreamsThroughEveryFrontDoor(t *testing.T) {
	for _, s := range geminiStreams(t) {
		tr, events, err := decodeStream(t, s.api, s.body, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, front := range append(fronts[:len(fronts):len(fronts)], APIGemini) {
			t.Run(s.name+"->"+string(front), func(t *testing.T) {
				out := encodeAll(t, front, events, nil)
				back, _, berr := decodeStream(t, front, out, nil)
				if berr != nil {
					t.Fatalf("reading the front door's stream: %v\n%s", berr, out)
				}
				want, got := carriedByFront(front, tr, false), carriedByFront(front, back, false)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-backend +front door)\n%s\n%s", diff, out)
				}
				for i := range uint64(3) {
					tr2, _, _ := decodeStream(t, s.api, s.body, rand.New(rand.NewPCG(i, 7)))
					if diff := cmp.Diff(carriedByFront(front, tr, false), carriedByFront(front, tr2, false)); diff != "" {
						t.Fatalf("chunking %d changed the turn (-want +got)\n%s", i, diff)
					}
				}
			})
		}
	}
}

// TestCorpusThroughGeminiFrontDoor sends every recorded stream of the
// other APIs out of the Gemini front door.
func TestCorpusThroughGeminiFrontDoor(t *testing.T) {
	for _, s := range recordedStreams(t) {
		t.Run(s.name, func(t *testing.T) {
			tr, events, err := decodeStream(t, s.api, s.body, nil)
			out := encodeAll(t, APIGemini, events, err)
			back, _, berr := decodeStream(t, APIGemini, out, nil)
			if berr != nil {
				t.Fatalf("reading the front door's stream: %v\n%s", berr, out)
			}
			if diff := cmp.Diff(geminiCarried(tr, err != nil), geminiCarried(back, false)); diff != "" {
				t.Errorf("(-backend +front door)\n%s", diff)
			}
		})
	}
}

func TestGeminiResponse(t *testing.T) {
	tr := &Turn{ID: "r1", Model: "m", Reasoning: "think", Text: "Hi", Calls: []Call{{ID: "gcall_1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}, {ID: joinCallID("c2", "U0lH"), Name: "g", Arguments: json.RawMessage(`{}`)}},
		Finish: FinishToolCalls, StopReason: "tool_calls", Usage: Usage{10, 7, 3, 4, -1}}
	tests := []struct {
		name string
		o    EncodeOptions
		want string
	}{
		{name: "thoughts", o: EncodeOptions{ID: "r1", Model: "pub"},
			want: `{"candidates":[{"content":{"parts":[{"text":"think","thought":true},{"text":"Hi"},{"functionCall":{"name":"f","args":{"a":1}}},{"functionCall":{"id":"c2","name":"g","args":{}},"thoughtSignature":"U0lH"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":4,"totalTokenCount":17,"cachedContentTokenCount":4,"thoughtsTokenCount":3},"modelVersion":"pub","responseId":"r1"}`},
		{name: "array_without_thoughts", o: EncodeOptions{ID: "r1", Model: "pub", gemini: geminiFront{hideThoughts: true, array: true}},
			want: `[{"candidates":[{"content":{"parts":[{"text":"Hi"},{"functionCall":{"name":"f","args":{"a":1}}},{"functionCall":{"id":"c2","name":"g","args":{}},"thoughtSignature":"U0lH"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":4,"totalTokenCount":17,"cachedContentTokenCount":4,"thoughtsTokenCount":3},"modelVersion":"pub","responseId":"r1"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeResponse(APIGemini, tr, &tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestGeminiFinishReasons(t *testing.T) {
	tests := []struct {
		name   string
		finish Finish
		raw    string
		want   string
	}{
		{name: "stop", finish: FinishStop, want: "STOP"},
		{name: "calls", finish: FinishToolCalls, raw: "tool_calls", want: "STOP"},
		{name: "gemini_calls", finish: FinishToolCalls, raw: "STOP", want: "STOP"},
		{name: "length", finish: FinishLength, raw: "max_tokens", want: "MAX_TOKENS"},
		{name: "filter", finish: FinishContentFilter, raw: "content_filter", want: "SAFETY"},
		{name: "recitation_kept", finish: FinishContentFilter, raw: "RECITATION", want: "RECITATION"},
		{name: "refusal", finish: FinishRefusal, raw: "refusal", want: "SAFETY"},
		{name: "malformed_kept", finish: FinishError, raw: "MALFORMED_FUNCTION_CALL", want: "MALFORMED_FUNCTION_CALL"},
		{name: "error", finish: FinishError, raw: "failed", want: "OTHER"},
		{name: "mismatch_not_kept", finish: FinishStop, raw: "SAFETY", want: "STOP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := geminiReason(tt.finish, tt.raw); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestGeminiRequestDecode(t *testing.T) {
	sig := "CiQBVKhc7k2+Zm9vYmFy/w=="
	loop := `{"systemInstruction":{"parts":[{"text":"Be brief."}]},
	"contents":[
	 {"role":"user","parts":[{"text":"Weather in Paris and Tokyo?"}]},
	 {"role":"model","parts":[{"text":"thinking","thought":true},{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"` + sig + `"},{"functionCall":{"name":"get_weather","args":{"city":"Tokyo"}}}]},
	 {"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18C"}}},{"functionResponse":{"name":"get_weather","response":{"error":"timeout"}}}]}],
	"tools":[{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}],
	"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}},
	"generationConfig":{"temperature":0.5,"maxOutputTokens":100,"stopSequences":["END"],"thinkingConfig":{"includeThoughts":true,"thinkingBudget":2048}}}`
	r, err := decodeGemini("gemini-2.5-pro", []byte(loop), -1)
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := r.Messages[1].Parts[1].CallID, r.Messages[1].Parts[2].CallID
	if id, s := splitCallID(c0); !generatedCallID(id) || s != sig {
		t.Fatalf("first call id %q: want a made-up id carrying the signature", c0)
	}
	if c0 == c1 {
		t.Fatalf("two calls share id %q", c0)
	}
	type msg struct {
		Role  Role
		Kinds []PartKind
		IDs   []string
	}
	var got []msg
	for _, m := range r.Messages {
		g := msg{Role: m.Role}
		for _, p := range m.Parts {
			g.Kinds = append(g.Kinds, p.Kind)
			if p.CallID != "" {
				g.IDs = append(g.IDs, p.CallID)
			}
		}
		got = append(got, g)
	}
	want := []msg{
		{Role: RoleUser, Kinds: []PartKind{PartText}},
		{Role: RoleAssistant, Kinds: []PartKind{PartReasoning, PartCall, PartCall}, IDs: []string{c0, c1}},
		{Role: RoleTool, Kinds: []PartKind{PartResult}, IDs: []string{c0}},
		{Role: RoleTool, Kinds: []PartKind{PartResult}, IDs: []string{c1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got)\n%s", diff)
	}
	if !r.Messages[3].Parts[0].IsError || r.Messages[3].Parts[0].Content[0].Text != "timeout" {
		t.Errorf("error result: %+v", r.Messages[3].Parts[0])
	}
	if r.System != "Be brief." || r.MaxTokens != 100 || *r.Temperature != 0.5 || r.ThinkingBudget != 2048 || r.gemini.hideThoughts ||
		r.Choice == nil || r.Choice.Mode != tool.ChoiceTool || r.Choice.Name != "get_weather" || len(r.Tools) != 1 || len(r.Stop) != 1 {
		t.Errorf("request: %+v", r)
	}
}

func TestGeminiRequestRefusals(t *testing.T) {
	tests := []struct {
		name, body, ptr string
	}{
		{name: "no_contents", body: `{}`, ptr: "/contents"},
		{name: "two_data_members", body: `{"contents":[{"role":"user","parts":[{"text":"a","inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`, ptr: "/contents/0/parts/0"},
		{name: "orphan_response", body: `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, ptr: "/contents/0/parts/0/functionResponse"},
		{name: "response_unknown_id", body: `{"contents":[{"role":"model","parts":[{"functionCall":{"id":"a","name":"f"}}]},{"role":"user","parts":[{"functionResponse":{"id":"b","name":"f","response":{}}}]}]}`, ptr: "/contents/1/parts/0/functionResponse"},
		{name: "call_in_user_turn", body: `{"contents":[{"role":"user","parts":[{"functionCall":{"name":"f"}}]}]}`, ptr: "/contents/0/parts/0"},
		{name: "bad_role", body: `{"contents":[{"role":"system","parts":[{"text":"a"}]}]}`, ptr: "/contents/0/role"},
		{name: "args_not_object", body: `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":[1]}}]}]}`, ptr: "/contents/0/parts/0/functionCall/args"},
		{name: "two_candidates", body: `{"contents":[{"parts":[{"text":"a"}]}],"generationConfig":{"candidateCount":2}}`, ptr: "/generationConfig/candidateCount"},
		{name: "audio", body: `{"contents":[{"parts":[{"inlineData":{"mimeType":"audio/wav","data":"AA=="}}]}]}`, ptr: "/contents/0/parts/0/inlineData/mimeType"},
		{name: "code_execution", body: `{"contents":[{"parts":[{"executableCode":{"code":"1"}}]}]}`, ptr: "/contents/0/parts/0/executableCode"},
		{name: "bad_mode", body: `{"contents":[{"parts":[{"text":"a"}]}],"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}}`, ptr: "/toolConfig/functionCallingConfig/mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeGemini("m", []byte(tt.body), -1)
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *RequestError", err)
			}
			if re.Pointer != tt.ptr {
				t.Errorf("pointer %q, want %q (%v)", re.Pointer, tt.ptr, err)
			}
		})
	}
}

// TestGeminiRequestEncode writes a conversation that came through the
// Gemini front door for each backend: a Gemini backend gets the
// signature back on its call and no made-up id; the others get the
// bare ids, the same on the call and its result.
func TestGeminiRequestEncode(t *testing.T) {
	body := `{"contents":[
	 {"role":"user","parts":[{"text":"Weather?"}]},
	 {"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lH"}]},
	 {"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18C"}}}]}],
	"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}}]}],
	"generationConfig":{"thinkingConfig":{"thinkingLevel":"LOW"}}}`
	r, err := decodeGemini("m", []byte(body), -1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := EncodeRequest(r, &BackendOptions{API: APIGemini, Model: "gemini-2.5-flash"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"contents":[{"role":"user","parts":[{"text":"Weather?"}]},{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lH"}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18C"}}}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}}]}],` +
		`"generationConfig":{"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`
	if diff := cmp.Diff(want, string(out.Body)); diff != "" {
		t.Errorf("gemini (-want +got)\n%s", diff)
	}
	for _, api := range fronts {
		out, err := EncodeRequest(r, &BackendOptions{API: api, Model: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out.Body, []byte(geminiSigSep)) {
			t.Errorf("%s: a Gemini signature went to another backend: %s", api, out.Body)
		}
		id := r.Messages[1].Parts[0].CallID
		base, _ := splitCallID(id)
		if n := bytes.Count(out.Body, []byte(base)); n != 2 {
			t.Errorf("%s: the call id appears %d times, want on the call and its result: %s", api, n, out.Body)
		}
	}
	// Gemini 3 takes a level, and a call from another model gets the
	// documented signature that skips the check.
	chat := &Request{API: APIChat, Model: "m", ReasoningEffort: "high", Messages: []Message{
		{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: "hi"}}},
		{Role: RoleAssistant, Parts: []Part{{Kind: PartCall, CallID: "call_1", Name: "f", Arguments: json.RawMessage(`{}`)}}},
		{Role: RoleTool, Parts: []Part{{Kind: PartResult, CallID: "call_1", Content: []Part{{Kind: PartText, Text: "ok"}}, IsError: true}}}},
		Choice: &tool.Choice{Mode: tool.ChoiceNone}}
	out, err = EncodeRequest(chat, &BackendOptions{API: APIGemini, Model: "gemini-3-pro-preview", MaxTokens: 50})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"id":"call_1","name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},{"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"f","response":{"error":"ok"}}}]}],` +
		`"toolConfig":{"functionCallingConfig":{"mode":"NONE"}},"generationConfig":{"maxOutputTokens":50,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"high"}}}`
	if diff := cmp.Diff(want, string(out.Body)); diff != "" {
		t.Errorf("gemini 3 (-want +got)\n%s", diff)
	}
	// A result whose call is not in the conversation has no name for
	// Gemini.
	chat.Messages = chat.Messages[2:]
	if _, err := EncodeRequest(chat, &BackendOptions{API: APIGemini, Model: "gemini-2.5-pro"}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("orphan result: got %v", err)
	}
}

func FuzzGeminiDecoder(f *testing.F) {
	for _, s := range geminiStreams(f) {
		f.Add(s.body)
	}
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":null}}]},\"finishReason\":\"SAFETY\"}]}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		tr, _, err := decodeStream(t, APIGemini, body, nil)
		if err != nil {
			return
		}
		for i, c := range tr.Calls {
			if !json.Valid(c.Arguments) || c.Arguments[0] != '{' {
				t.Errorf("call %d arguments are not an object: %q", i, c.Arguments)
			}
		}
		// What the decoder read, the Gemini front door writes readably.
		_, events, _ := decodeStream(t, APIGemini, body, nil)
		var buf bytes.Buffer
		enc, _ := NewStreamEncoder(APIGemini, sse.NewWriter(&buf), nil)
		for _, e := range events {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		enc.Close()
		back, _, err := decodeStream(t, APIGemini, buf.Bytes(), nil)
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		if back.Text != tr.Text || back.Reasoning != tr.Reasoning || len(back.Calls) != len(tr.Calls) {
			t.Errorf("round trip changed the turn")
		}
	})
}

func FuzzGeminiRequest(f *testing.F) {
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"QQ=="}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":1}}}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`))
	f.Add([]byte(`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}],"systemInstruction":"x","generationConfig":{"topK":3,"thinkingConfig":{"thinkingBudget":0}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeGemini("m", body, -1)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("not a *RequestError: %v", err)
			}
			return
		}
		for _, api := range []API{APIChat, APIMessages, APIResponses, APIGemini} {
			out, err := EncodeRequest(r, &BackendOptions{API: api, Model: "gemini-2.5-flash"})
			if err != nil {
				continue
			}
			if !json.Valid(out.Body) {
				t.Fatalf("%s: invalid JSON body %s", api, out.Body)
			}
		}
	})
}

// geminiTextStream is a Gemini stream of n text chunks of one token
// each, as BenchmarkChatVsGemini's chat stream.
func geminiTextStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" tok%d\"}],\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":20,\"totalTokenCount\":20},\"modelVersion\":\"m\",\"responseId\":\"r\"}\r\n\r\n", i)
	}
	b.WriteString("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":20,\"candidatesTokenCount\":5,\"totalTokenCount\":25},\"modelVersion\":\"m\",\"responseId\":\"r\"}\r\n\r\n")
	return b.Bytes()
}

func chatTextStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" tok%d\"},\"finish_reason\":null}]}\n\n", i)
	}
	b.WriteString("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	b.WriteString("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":5}}\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkChatVsGemini measures, per chunk of a 256-chunk text stream,
// the backend side (SSE framing, strict check, decoder) and the front
// door side (encoder and SSE framing) of the Chat and Gemini codecs.
func BenchmarkChatVsGemini(b *testing.B) {
	const n = 256
	streams := map[API][]byte{APIChat: chatTextStream(n), APIGemini: geminiTextStream(n)}
	for _, api := range []API{APIChat, APIGemini} {
		b.Run("decode/"+string(api), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				dec, _ := NewStreamDecoder(api)
				if err := pump(bytes.NewReader(streams[api]), dec, 0, func([]Event) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
		})
	}
	var events []Event
	u := Usage{20, 5, 0, 0, -1}
	events = append(events, Event{Kind: EventStart, ID: "r", Model: "m"})
	for i := range n {
		events = append(events, Event{Kind: EventText, Text: fmt.Sprintf(" tok%d", i)})
	}
	events = append(events, Event{Kind: EventUsage, Usage: &u}, Event{Kind: EventFinish, Finish: FinishStop, Text: "stop"})
	for _, api := range []API{APIChat, APIGemini} {
		b.Run("encode/"+string(api), func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				enc, _ := NewStreamEncoder(api, sse.NewWriter(&buf), &EncodeOptions{IncludeUsage: true, Model: "m", ID: "r"})
				for _, e := range events {
					enc.Encode(e)
				}
				enc.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
		})
	}
}
