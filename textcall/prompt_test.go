// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/tool"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const promptGoldenIntro = `The prompt side of every family: the system-prompt tools section for the
test tools under tool_choice auto, the same for a named tool with parallel
calls off, earlier calls written back as the model prints them, and tool
results written back as the chat template feeds them.

Pins: tool schemas are written compact with their key order kept, so a
prompt is the same bytes however the tools file was indented (providers
cache prompts by prefix); a named choice offers only that tool; Mistral
results carry the call id; Harmony results that are not JSON are quoted.
Regenerate with
go test ./textcall -run TestPromptGolden -update.
`

func promptGolden(t *testing.T) *txtar.Archive {
	t.Helper()
	ar := &txtar.Archive{Comment: []byte(promptGoldenIntro)}
	calls := []tool.Call{
		{ID: "abcDEF123", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "XYZxyz789", Name: "search", Arguments: json.RawMessage(`{"query":"news","limit":3}`)},
	}
	results := []tool.Result{
		tool.TextResult("abcDEF123", "Sunny, 21 °C"),
		{CallID: "XYZxyz789", Name: "search", Content: []tool.Content{&tool.JSON{Value: json.RawMessage(`{"hits":[]}`)}}},
		tool.ErrorResult("nop000000", "rate limited"),
	}
	for _, name := range Names() {
		f, _ := Lookup(name)
		auto, err := f.Prompt(testTools, tool.Choice{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		named, err := f.Prompt(testTools, tool.Choice{Mode: tool.ChoiceTool, Name: "get_weather", DisableParallel: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ar.Files = append(ar.Files,
			txtar.File{Name: name + "/prompt-auto", Data: []byte(auto)},
			txtar.File{Name: name + "/prompt-named", Data: []byte(named)},
			txtar.File{Name: name + "/calls", Data: []byte(f.FormatCalls(calls) + "\n")},
			txtar.File{Name: name + "/results", Data: []byte(f.FormatResults(results) + "\n")},
		)
	}
	return ar
}

func TestPromptGolden(t *testing.T) {
	path := filepath.Join("testdata", "prompt.txtar")
	got := txtar.Format(promptGolden(t))
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("prompts differ from %s (-want +got):\n%s", path, diff)
	}
}

func TestPromptChoice(t *testing.T) {
	for _, name := range Names() {
		f, _ := Lookup(name)
		none, err := f.Prompt(testTools, tool.Choice{Mode: tool.ChoiceNone})
		if err != nil || none != "" {
			t.Errorf("%s: choice none gave %q, %v; want nothing", name, none, err)
		}
		_, err = f.Prompt(testTools, tool.Choice{Mode: tool.ChoiceTool, Name: "launch_rocket"})
		if !errors.Is(err, ErrUnknownTool) {
			t.Errorf("%s: unknown named tool: err = %v, want ErrUnknownTool", name, err)
		}
		req, _ := f.Prompt(testTools, tool.Choice{Mode: tool.ChoiceRequired})
		if !strings.Contains(req, "must call at least one") {
			t.Errorf("%s: required choice not stated:\n%s", name, req)
		}
		named, _ := f.Prompt(testTools, tool.Choice{Mode: tool.ChoiceTool, Name: "search"})
		if strings.Contains(named, "get_weather") || !strings.Contains(named, "search") {
			t.Errorf("%s: named choice must offer only search:\n%s", name, named)
		}
	}
}

// TestHermesPromptStructure checks the Hermes section keeps the parts of
// the original Hermes function-calling prompt (../shared/corpora/hermes):
// the tools inside <tools></tools>, a call schema, the <tool_call> format
// and the <tool_response> convention.
func TestHermesPromptStructure(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpustest.Dir(t, "hermes"), "sys_prompt.yml"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := hermes{}.Prompt(testTools, tool.Choice{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"<tools>", "</tools>", "<tool_call>", "</tool_call>", "<tool_response>"} {
		if !strings.Contains(string(data), tag) {
			t.Fatalf("the corpus prompt no longer mentions %s", tag)
		}
		if !strings.Contains(text, tag) {
			t.Errorf("the Hermes section lacks %s:\n%s", tag, text)
		}
	}
	// The schema of each tool appears compact, its key order kept, however
	// it was indented.
	indented := tool.Definition{Name: "f", InputSchema: json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"b\": {}, \"a\": {}}\n}")}
	text, err = hermes{}.Prompt([]tool.Definition{indented}, tool.Choice{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, `"parameters": {"type":"object","properties":{"b":{},"a":{}}}`) {
		t.Errorf("schema not compacted in order:\n%s", text)
	}
}
