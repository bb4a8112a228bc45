// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

func hermesCases() []familyCase {
	tc := func(body string) string { return "<tool_call>\n" + body + "\n</tool_call>" }
	return []familyCase{
		{name: "none", in: "The weather is nice today.", want: outcome{Content: "The weather is nice today."}},
		{name: "one", in: tc(jParis), want: one(cParis)},
		{name: "parallel", in: tc(jParis) + "\n" + tc(jNews), want: one(cParis, cNews)},
		{name: "types", in: tc(jTypes), want: one(cTypes)},
		{name: "empty", in: tc(jNoop), want: one(cNoop)},
		{name: "around", in: "Before. <tool_call>" + jParis + "</tool_call> Between. <tool_call>" + jNews + "</tool_call> After.",
			want: outcome{Content: "Before.  Between.  After.", Calls: []wantCall{cParis, cNews}}},
		{name: "escapes", in: tc(jEscapes), want: one(cEscapes)},
		{name: "malformed", in: "<tool_call>" + jBad + "</tool_call>", want: outcome{Content: "<tool_call>" + jBad + "</tool_call>", Codes: []string{"malformed-call"}}},
		{name: "cut", in: tc(jParis) + "\n<tool_call>" + jCut,
			want: outcome{Content: "<tool_call>" + jCut, Calls: []wantCall{cParis}, Codes: []string{"malformed-call"}}},
		{name: "twice", in: tc(jParis) + tc(jParis), want: one(cParis, cParis)},
		{name: "reasoning", in: "<think>Maybe <tool_call>" + jParis + "</tool_call> fits.</think>\n\nIt is sunny.",
			want: outcome{Reasoning: "Maybe <tool_call>" + jParis + "</tool_call> fits.", Content: "It is sunny."}},
		{name: "unknown", in: tc(jUnknown), want: outcome{Rejected: []string{"launch_rocket"}, Codes: []string{"unknown-tool"}}},

		{name: "unknown-allowed", in: tc(jUnknown), cfg: &Config{Tools: testTools, AllowUnknownTools: true},
			want: one(wantCall{"launch_rocket", `{"target":"moon"}`})},
		{name: "no-tools-offered", in: tc(jUnknown), cfg: &Config{}, want: one(wantCall{"launch_rocket", `{"target":"moon"}`})},
		{name: "unclosed-at-end", in: "<tool_call>" + jParis, want: outcome{Calls: []wantCall{cParis}, Codes: []string{"unclosed-call"}}},
		{name: "missing-close-before-next", in: "<tool_call>" + jParis + "\n<tool_call>" + jNews + "</tool_call>",
			want: outcome{Calls: []wantCall{cParis, cNews}, Codes: []string{"unclosed-call"}}},
		{name: "arguments-as-string", in: tc(`{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}`), want: one(cParis)},
		{name: "arguments-first", in: tc(`{"arguments": {"city": "Paris"}, "name": "get_weather"}`), want: one(cParis)},
		{name: "empty-string-arguments", in: tc(`{"name": "noop", "arguments": ""}`), want: one(cNoop)},
		{name: "missing-name", in: tc(`{"arguments": {}}`), want: outcome{Content: tc(`{"arguments": {}}`), Codes: []string{"malformed-call"}}},
		{name: "duplicate-key", in: tc(`{"name": "noop", "name": "x", "arguments": {}}`),
			want: outcome{Content: tc(`{"name": "noop", "name": "x", "arguments": {}}`), Codes: []string{"malformed-call"}}},
		{name: "two-objects-in-one-block", in: tc(jParis + "\n" + jNews), want: one(cParis, cNews)},
		{name: "object-then-junk", in: tc(jParis + " and more"), want: outcome{Content: tc(jParis + " and more"), Codes: []string{"malformed-call"}}},
		{name: "array-body", in: tc("[" + jParis + ", " + jNews + "]"), want: one(cParis, cNews)},
		{name: "think-open", in: "Paris is in France.</think>\n" + tc(jParis), cfg: &Config{Tools: testTools, ThinkOpen: true},
			want: outcome{Reasoning: "Paris is in France.", Calls: []wantCall{cParis}}},
		// A block that never closes is ended by a complete call of the
		// family that follows in it (vLLM #39056); one that closes never
		// yields calls.
		{name: "unclosed-reasoning-then-call", in: "<think>Still going " + tc(jParis), want: outcome{Reasoning: "Still going", Calls: []wantCall{cParis}, Codes: []string{"reasoning-closed-by-call"}}},
		{name: "unclosed-reasoning-call-then-text", in: "<think>\nI need the weather.\n" + tc(jParis) + "\nDone.", want: outcome{Reasoning: "I need the weather.", Content: "Done.", Calls: []wantCall{cParis}, Codes: []string{"reasoning-closed-by-call"}}},
		{name: "think-open-unclosed-then-call", in: "Thinking " + tc(jParis), cfg: &Config{Tools: testTools, ThinkOpen: true},
			want: outcome{Reasoning: "Thinking", Calls: []wantCall{cParis}, Codes: []string{"reasoning-closed-by-call"}}},
		{name: "interleaved-unclosed-then-call", in: "Let me think. <think>hmm " + tc(jParis) + " ok",
			want: outcome{Content: "Let me think.  ok", Reasoning: "hmm", Calls: []wantCall{cParis}, Codes: []string{"reasoning-closed-by-call"}}},
		{name: "interleaved-closed-never-calls", in: tc(jNews) + "<think>hmm " + tc(jParis) + "</think>done",
			want: outcome{Content: "done", Reasoning: "hmm " + tc(jParis), Calls: []wantCall{cNews}}},
		{name: "interleaved-unclosed-marker-no-call", in: tc(jNews) + "<think>hmm <tool_call> x",
			want: outcome{Reasoning: "hmm <tool_call> x", Calls: []wantCall{cNews}, Unclosed: true, Codes: []string{"unclosed-reasoning"}}},
		{name: "closed-reasoning-never-calls", in: "<think>a " + tc(jParis) + " b</think>done", want: outcome{Reasoning: "a " + tc(jParis) + " b", Content: "done"}},
		{name: "unclosed-reasoning-marker-no-call", in: "<think>I could use <tool_call> here", want: outcome{Reasoning: "I could use <tool_call> here", Unclosed: true, Codes: []string{"unclosed-reasoning"}}},
		{name: "unclosed-reasoning-hold-limit", in: "<think>Still going " + tc(jParis), cfg: &Config{Tools: testTools, MaxReasoningHoldBytes: 20},
			want: outcome{Reasoning: "Still going " + tc(jParis), Unclosed: true, Codes: []string{"unclosed-reasoning"}}},
		{name: "thinking-tag", in: "<thinking>hmm</thinking>ok", want: outcome{Reasoning: "hmm", Content: "ok"}},
		{name: "custom-think-tag", in: "<seed:think>hmm</seed:think>" + tc(jParis), cfg: &Config{Tools: testTools, ThinkTag: "seed:think"},
			want: outcome{Reasoning: "hmm", Calls: []wantCall{cParis}}},
		{name: "interleaved-thinking", in: tc(jParis) + "<think>now the news " + tc(jNews) + "</think>" + tc(jNews),
			want: outcome{Reasoning: "now the news " + tc(jNews), Calls: []wantCall{cParis, cNews}}},
		{name: "think-mid-text", in: "a <think>b</think>c", want: outcome{Content: "a c", Reasoning: "b"}},
		{name: "unclosed-think-mid-text", in: "a <think>b", want: outcome{Content: "a", Reasoning: "b", Unclosed: true, Codes: []string{"unclosed-reasoning"}}},
		{name: "lone-angle", in: "a < b <tool_ca", want: outcome{Content: "a < b <tool_ca"}},
		{name: "im-end-dropped", in: tc(jParis) + "<|im_end|>", want: one(cParis)},
		// A closing tag the output never opened: the chat template printed
		// the opener (Qwen3, DeepSeek-R1), so the text before it is
		// reasoning, unless the strict reading is asked for or a call or
		// the hold limit comes first.
		{name: "implied-think-open", in: "The user asks for the weather in Paris.</think>\n\n" + tc(jParis),
			want: outcome{Reasoning: "The user asks for the weather in Paris.", Calls: []wantCall{cParis}, Codes: []string{"implied-reasoning-open"}}},
		{name: "implied-think-open-answer", in: "Thinking hard.</think>Answer.", want: outcome{Reasoning: "Thinking hard.", Content: "Answer.", Codes: []string{"implied-reasoning-open"}}},
		{name: "stray-think-close-strict", in: "Thinking hard.</think>Answer.", cfg: &Config{Tools: testTools, DisableImpliedReasoning: true},
			want: outcome{Content: "Thinking hard.Answer.", Codes: []string{"stray-reasoning-close"}}},
		{name: "stray-think-close-after-call", in: "Let me check. " + tc(jParis) + " Done.</think>",
			want: outcome{Content: "Let me check.  Done.", Calls: []wantCall{cParis}, Codes: []string{"stray-reasoning-close"}}},
		{name: "stray-think-close-past-hold-limit", in: "Thinking hard.</think>Answer.", cfg: &Config{Tools: testTools, MaxReasoningHoldBytes: 10},
			want: outcome{Content: "Thinking hard.Answer.", Codes: []string{"stray-reasoning-close"}}},
		// The closing tag must start within the limit, however the text
		// is cut.
		{name: "implied-closer-at-limit", in: "0123456789</think>b", cfg: &Config{Tools: testTools, MaxReasoningHoldBytes: 10},
			want: outcome{Content: "0123456789b", Codes: []string{"stray-reasoning-close"}}},
		{name: "implied-closer-within-limit", in: "0123456789</think>b", cfg: &Config{Tools: testTools, MaxReasoningHoldBytes: 11},
			want: outcome{Reasoning: "0123456789", Content: "b", Codes: []string{"implied-reasoning-open"}}},
		{name: "reasoning-call-at-limit", in: "<think>ab" + tc(jParis) + "</think>", cfg: &Config{Tools: testTools, MaxReasoningHoldBytes: 11},
			want: outcome{Reasoning: "ab" + tc(jParis)}},
		{name: "implied-hold-limit-off", in: strings.Repeat("x", 300) + "</think>a", cfg: &Config{Tools: testTools, MaxReasoningHoldBytes: -1},
			want: outcome{Reasoning: strings.Repeat("x", 300), Content: "a", Codes: []string{"implied-reasoning-open"}}},
		{name: "think-open-empty", in: "  \n", cfg: &Config{Tools: testTools, ThinkOpen: true},
			want: outcome{Unclosed: true, Codes: []string{"unclosed-reasoning"}}},
		{name: "implied-empty", in: "  \n", want: outcome{}},
		// With ThinkOpen, an opener the model prints again is dropped.
		{name: "think-open-repeated", in: "<think>reasoning</think>answer", cfg: &Config{Tools: testTools, ThinkOpen: true},
			want: outcome{Reasoning: "reasoning", Content: "answer"}},
		{name: "think-open-repeated-after-newline", in: "\n<think>\nreasoning</think>" + tc(jParis), cfg: &Config{Tools: testTools, ThinkOpen: true},
			want: outcome{Reasoning: "reasoning", Calls: []wantCall{cParis}}},
		{name: "whitespace-before-think", in: "\n\n  <think>a</think>b", want: outcome{Reasoning: "a", Content: "b"}},
		{name: "reasoning-disabled", in: "<think>a</think>" + tc(jParis), cfg: &Config{Tools: testTools, DisableReasoning: true},
			want: outcome{Content: "<think>a</think>", Calls: []wantCall{cParis}}},
		{name: "call-too-large", in: tc(jParis) + " " + tc(jNews), cfg: &Config{Tools: testTools, MaxCallBytes: 54},
			want: outcome{Content: tc(jParis), Calls: []wantCall{cNews}, Codes: []string{"call-too-large"}}},
		{name: "empty-block", in: "<tool_call></tool_call>", want: outcome{Content: "<tool_call></tool_call>", Codes: []string{"malformed-call"}}},
	}
}

func TestHermesCorpusFewShot(t *testing.T) {
	dir := corpustest.Dir(t, "hermes")
	data, err := os.ReadFile(filepath.Join(dir, "few_shot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var examples []struct {
		Example string `json:"example"`
	}
	if err := strictjson.Unmarshal(data, &examples, nil); err != nil {
		t.Fatal(err)
	}
	want := []wantCall{
		{"calculate_distance", `{"origin":"New York","destination":"Los Angeles","mode":"car"}`},
		{"generate_password", `{"length":8}`},
	}
	if len(examples) != len(want) {
		t.Fatalf("%d examples, want %d", len(examples), len(want))
	}
	for i, ex := range examples {
		// The offered tools are the JSON array inside <tools>…</tools>.
		start := strings.Index(ex.Example, "<tools>") + len("<tools>")
		end := strings.Index(ex.Example, "</tools>")
		var defs []tool.Definition
		var raw []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		}
		if err := strictjson.Unmarshal([]byte(ex.Example[start:end]), &raw, nil); err != nil {
			t.Fatalf("example %d tools: %v", i, err)
		}
		for _, r := range raw {
			defs = append(defs, tool.Definition{Name: r.Name, InputSchema: r.Parameters})
		}
		answer := ex.Example[strings.Index(ex.Example, "ASSISTANT:")+len("ASSISTANT:"):]
		answer = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(answer), "```"))
		r, err := Parse("hermes", answer, &Config{Tools: defs})
		if err != nil {
			t.Fatal(err)
		}
		var got []wantCall
		for _, c := range r.Calls {
			got = append(got, wantCall{c.Name, string(c.Arguments)})
		}
		if diff := cmp.Diff([]wantCall{want[i]}, got); diff != "" {
			t.Errorf("example %d (-want +got):\n%s", i, diff)
		}
		if r.Content != "" || len(r.Warnings) > 0 {
			t.Errorf("example %d: content %q, warnings %v", i, r.Content, r.Warnings)
		}
	}
}

func TestDiscardText(t *testing.T) {
	p := newTestParser(t, "hermes", &Config{Tools: testTools, DiscardText: true})
	s := p.NewScanner()
	var content string
	for _, d := range []string{"<think>r</think>Hello ", "<tool_call>" + jParis, "</tool_call> bye"} {
		for _, ev := range s.Feed(d) {
			if ev.Kind == EventContent {
				content += ev.Text
			}
		}
	}
	s.Close()
	r := s.Result()
	if content != "Hello  bye" || r.Content != "" || r.Reasoning != "" || len(r.Calls) != 1 {
		t.Errorf("events gave content %q; result content %q, reasoning %q, %d calls; want the text only in events", content, r.Content, r.Reasoning, len(r.Calls))
	}
}

func TestResultResponse(t *testing.T) {
	r := newTestParser(t, "hermes", nil).Parse("<think>r</think>Hi <tool_call>" + jParis + "</tool_call>")
	resp := r.Response()
	if resp.Content != "Hi" || resp.Reasoning != "r" || len(resp.Calls) != 1 || resp.Stop != tool.StopToolCalls {
		t.Errorf("Response() = %+v", resp)
	}
	if got := newTestParser(t, "hermes", nil).Parse("plain").Response(); got.Stop != tool.StopEnd || got.Calls != nil {
		t.Errorf("Response() of plain text = %+v", got)
	}
}
