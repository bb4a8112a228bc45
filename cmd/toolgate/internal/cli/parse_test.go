// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

const parseToolsJSON = `[
 {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}},
 {"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}
]`

func writeParseFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runParseCLI(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	err = Run(context.Background(), args, stdin, &out, &errOut)
	return out.String(), errOut.String(), err
}

// firstCallID is the id the library gives the first call of a response
// under seed 1, in the default call_… style.
func firstCallID() string {
	r, err := textcall.Parse("hermes", `<tool_call>{"name": "f", "arguments": {}}</tool_call>`, &textcall.Config{Seed: 1})
	if err != nil || len(r.Calls) != 1 {
		return "?"
	}
	return r.Calls[0].ID
}

// mistralID is the id the library gives the first call under seed.
func mistralID(seed uint64) string {
	r, err := textcall.Parse("mistral", "[TOOL_CALLS]noop{}", &textcall.Config{Seed: seed})
	if err != nil || len(r.Calls) != 1 {
		return "?"
	}
	return r.Calls[0].ID
}

func TestParseSeedShapesIDs(t *testing.T) {
	a, b := mistralID(7), mistralID(8)
	if len(a) != 9 || a == b {
		t.Errorf("mistral ids %q (seed 7) and %q (seed 8): want nine characters, differing by seed", a, b)
	}
}

func TestParseCommand(t *testing.T) {
	tools := writeParseFile(t, "tools.json", parseToolsJSON)
	tests := []struct {
		name  string
		args  []string
		input string
		want  string
	}{
		{
			name:  "hermes-with-reasoning",
			args:  []string{"parse", "--format", "hermes", "--tools", tools, "--seed", "1"},
			input: "<think>Paris.</think>\nChecking. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
			want:  `{"content":"Checking.","reasoning":"Paris.","tool_calls":[{"id":"` + firstCallID() + `","name":"get_weather","arguments":{"city":"Paris"}}],"warnings":[]}`,
		},
		{
			name:  "qwen3-coder-coerces-by-schema",
			args:  []string{"parse", "-", "--format", "qwen3_coder", "--tools", tools, "--seed", "1"},
			input: "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
			want:  `{"content":null,"reasoning":null,"tool_calls":[{"id":"` + firstCallID() + `","name":"get_weather","arguments":{"city":"Paris","days":3}}],"warnings":[]}`,
		},
		{
			name:  "unknown-tool-rejected",
			args:  []string{"parse", "--format", "hermes", "--tools", tools},
			input: `<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>`,
			want:  `{"content":null,"reasoning":null,"tool_calls":[],"warnings":[{"pointer":"","code":"unknown-tool","message":"call to \"rm_rf\" at offset 0 names a tool that was not offered; it is kept out of the calls"}]}`,
		},
		{
			name:  "mistral-ids-and-seed",
			args:  []string{"parse", "--format", "mistral", "--seed", "7"},
			input: `[TOOL_CALLS]noop{}`,
			want:  `{"content":null,"reasoning":null,"tool_calls":[{"id":"` + mistralID(7) + `","name":"noop","arguments":{}}],"warnings":[]}`,
		},
		{
			name:  "plain-text",
			args:  []string{"parse", "--format", "llama3-json"},
			input: "Just an answer.",
			want:  `{"content":"Just an answer.","reasoning":null,"tool_calls":[],"warnings":[]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runParseCLI(t, strings.NewReader(tc.input), tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Compact(&got, []byte(out)); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			if diff := cmp.Diff(tc.want, got.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The stream's last line is the same object.
			sout, _, err := runParseCLI(t, iotest.OneByteReader(strings.NewReader(tc.input)), append(tc.args, "--stream")...)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(sout), "\n")
			if diff := cmp.Diff(tc.want, lines[len(lines)-1]); diff != "" {
				t.Errorf("--stream final object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStreamEvents(t *testing.T) {
	in := "<think>a</think>Héllo 😀 <tool_call>{\"name\": \"noop\", \"arguments\": {}}</tool_call>"
	out, _, err := runParseCLI(t, iotest.OneByteReader(strings.NewReader(in)), "parse", "--format", "hermes", "--stream")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	var content strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if ev.Type == "content" {
			content.WriteString(ev.Text)
		}
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
	}
	if diff := cmp.Diff([]string{"reasoning", "content", "call", "arguments", ""}, types); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("Héllo 😀 ", content.String()); diff != "" {
		t.Errorf("content split across one-byte reads (-want +got):\n%s", diff)
	}
}

// TestParseStreamArguments reads a call byte by byte with
// --stream-arguments: the call is announced before its body ends, its
// arguments arrive in pieces that join to the final object's, and a broken
// call announced early is withdrawn.
func TestParseStreamArguments(t *testing.T) {
	in := "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"long long text\", \"limit\": 3}}</tool_call>" +
		"<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": tru}}</tool_call>"
	out, _, err := runParseCLI(t, iotest.OneByteReader(strings.NewReader(in)), "parse", "--format", "hermes", "--stream-arguments")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var pieces []string
	var codes []string
	args := map[int]string{}
	for _, line := range lines[:len(lines)-1] {
		var ev struct {
			Type    string        `json:"type"`
			Index   int           `json:"index"`
			Text    string        `json:"text"`
			Warning *tool.Warning `json:"warning"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch ev.Type {
		case "arguments":
			if ev.Index == 0 {
				pieces = append(pieces, ev.Text)
			}
			args[ev.Index] += ev.Text
		case "warning":
			codes = append(codes, ev.Warning.Code)
		}
	}
	if len(pieces) < 10 {
		t.Errorf("arguments came in %d pieces, want one per read", len(pieces))
	}
	var final parseOutput
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &final); err != nil {
		t.Fatal(err)
	}
	if len(final.ToolCalls) != 1 || string(final.ToolCalls[0].Arguments) != args[0] {
		t.Errorf("final calls %+v, streamed arguments %q", final.ToolCalls, args[0])
	}
	if diff := cmp.Diff([]string{"call-withdrawn", "malformed-call"}, codes); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestParseUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no-format", []string{"parse"}},
		{"unknown-family", []string{"parse", "--format", "nope"}},
		{"missing-file", []string{"parse", "/nonexistent/out.txt", "--format", "hermes"}},
		{"missing-tools-file", []string{"parse", "--format", "hermes", "--tools", "/nonexistent/tools.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runParseCLI(t, nil, tc.args...)
			if !errors.Is(err, ErrUsage) || ExitCode(err) != 2 {
				t.Errorf("err = %v, want a usage error (exit 2)", err)
			}
		})
	}
}

func TestParseHelp(t *testing.T) {
	for _, cmd := range []string{"parse", "prompt"} {
		_, errOut, err := runParseCLI(t, nil, cmd, "--help")
		if err != nil {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		for _, want := range []string{"Usage: toolgate " + cmd, "--format", "hermes", "gpt-oss"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s --help lacks %q:\n%s", cmd, want, errOut)
			}
		}
	}
}

func TestPromptCommandAnthropicTools(t *testing.T) {
	tools := writeParseFile(t, "tools.json", `[{"name": "get_weather", "description": "Weather.", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]`)
	out, _, err := runParseCLI(t, nil, "prompt", "--format", "mistral", "--tools", tools)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "[AVAILABLE_TOOLS]") || !strings.Contains(out, `"properties":{"city":{"type":"string"}}`) {
		t.Errorf("mistral prompt from an Anthropic tools file:\n%s", out)
	}
}

func TestPromptCommand(t *testing.T) {
	tools := writeParseFile(t, "tools.json", parseToolsJSON)
	out, _, err := runParseCLI(t, nil, "prompt", "--format", "hermes", "--tools", tools, "--tool-choice", "get_weather")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<tools>", `"name": "get_weather"`, "</tools>", "<tool_call>", "You must call the tool get_weather"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"noop"`) {
		t.Errorf("a named tool choice offered other tools:\n%s", out)
	}
	out, _, err = runParseCLI(t, nil, "prompt", "--format", "qwen3-coder", "--tools", tools, "--tool-choice", "none")
	if err != nil || out != "" {
		t.Errorf("--tool-choice none: output %q, err %v; want nothing", out, err)
	}
	_, _, err = runParseCLI(t, nil, "prompt", "--format", "hermes", "--tools", tools, "--tool-choice", "launch")
	if !errors.Is(err, ErrUsage) {
		t.Errorf("unknown tool choice: err = %v, want a usage error", err)
	}
	_, _, err = runParseCLI(t, nil, "prompt", "--format", "hermes")
	if !errors.Is(err, ErrUsage) {
		t.Errorf("no --tools: err = %v, want a usage error", err)
	}
}

// TestParseThinkOpen pins the three readings of --think-open: absent (a
// closing tag implies the opener), true (reasoning from the first byte,
// a repeated opener dropped) and false (strict: the text is content).
func TestParseThinkOpen(t *testing.T) {
	tests := []struct {
		name      string
		flags     []string
		input     string
		content   *string
		reasoning *string
		codes     []string
	}{
		{"implied", nil, "The user asks for Paris.</think>Sunny.", ptr("Sunny."), ptr("The user asks for Paris."), []string{"implied-reasoning-open"}},
		{"open", []string{"--think-open"}, "<think>The user asks for Paris.</think>Sunny.", ptr("Sunny."), ptr("The user asks for Paris."), nil},
		{"open-true", []string{"--think-open=true"}, "Hmm.</think>Sunny.", ptr("Sunny."), ptr("Hmm."), nil},
		{"strict", []string{"--think-open=false"}, "The user asks for Paris.</think>Sunny.", ptr("The user asks for Paris.Sunny."), nil, []string{"stray-reasoning-close"}},
		{"plain-answer", nil, "Just an answer.", ptr("Just an answer."), nil, nil},
	}
	for _, tc := range tests {
		for _, stream := range []bool{false, true} {
			name := tc.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				args := append([]string{"parse", "--format", "hermes"}, tc.flags...)
				if stream {
					args = append(args, "--stream")
				}
				out, _, err := runParseCLI(t, iotest.OneByteReader(strings.NewReader(tc.input)), args...)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(strings.TrimSpace(out), "\n")
				last := out
				if stream {
					last = lines[len(lines)-1]
				}
				var got struct {
					Content   *string        `json:"content"`
					Reasoning *string        `json:"reasoning"`
					Warnings  []tool.Warning `json:"warnings"`
				}
				if err := json.Unmarshal([]byte(last), &got); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				var codes []string
				for _, w := range got.Warnings {
					codes = append(codes, w.Code)
				}
				if diff := cmp.Diff(tc.content, got.Content); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.reasoning, got.Reasoning); diff != "" {
					t.Errorf("reasoning (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.codes, codes); diff != "" {
					t.Errorf("warning codes (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func ptr(s string) *string { return &s }

// TestParseSeed pins --seed: without it ids differ between runs, with it
// they repeat, and --seed 0 is a usage error.
func TestParseSeed(t *testing.T) {
	in := `<tool_call>{"name": "f", "arguments": {}}</tool_call>`
	run := func(args ...string) string {
		out, _, err := runParseCLI(t, strings.NewReader(in), append([]string{"parse", "--format", "hermes"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var got parseOutput
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.ToolCalls) != 1 {
			t.Fatalf("%v: %s", err, out)
		}
		return got.ToolCalls[0].ID
	}
	if a, b := run(), run(); a == b {
		t.Errorf("two runs without --seed gave the same id %q", a)
	}
	if a, b := run("--seed", "9"), run("--seed", "9"); a != b {
		t.Errorf("two runs with --seed 9 gave ids %q and %q", a, b)
	}
	if _, _, err := runParseCLI(t, strings.NewReader(in), "parse", "--format", "hermes", "--seed", "0"); !errors.Is(err, ErrUsage) {
		t.Errorf("--seed 0: error %v, want ErrUsage", err)
	}
}

// TestParsePromptKeepErrorChain checks that usage errors wrap their cause
// with %w, so callers can match it.
func TestParsePromptKeepErrorChain(t *testing.T) {
	tools := writeParseFile(t, "tools.json", parseToolsJSON)
	tests := []struct {
		name string
		args []string
	}{
		{"parse", []string{"parse", "--format", "no-such-family"}},
		{"prompt", []string{"prompt", "--format", "no-such-family", "--tools", tools}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runParseCLI(t, nil, tc.args...)
			if !errors.Is(err, ErrUsage) || !errors.Is(err, textcall.ErrUnknownFamily) {
				t.Errorf("error %v: want ErrUsage wrapping textcall.ErrUnknownFamily", err)
			}
		})
	}
}
