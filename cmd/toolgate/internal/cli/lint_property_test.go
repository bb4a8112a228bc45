// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// lintOwnOutput converts data (in format from) to every provider format,
// with and without --strict where the format has it, and runs lint on
// each output for that provider's target: toolgate must never write what
// its own lint rejects (issue 16).
func lintOwnOutput(t *testing.T, name string, from codec.Format, data []byte) int {
	t.Helper()
	outputs := []struct {
		to     codec.Format
		strict bool
		target string
	}{
		{codec.OpenAI, false, "openai"},
		{codec.OpenAI, true, "openai-strict"},
		{codec.OpenAIResponses, false, "openai"},
		{codec.OpenAIResponses, true, "openai-strict"},
		{codec.Anthropic, false, "anthropic"},
		{codec.Anthropic, true, "anthropic-strict"},
		{codec.Gemini, false, "gemini"},
		{codec.MCP, false, "mcp"},
		{codec.LangChain, false, "openai"},
	}
	n := 0
	for _, o := range outputs {
		args := []string{"convert", "-", "--from", string(from), "--to", string(o.to)}
		if o.strict {
			args = append(args, "--strict")
		}
		var out, stderr bytes.Buffer
		if err := Run(context.Background(), args, bytes.NewReader(data), &out, &stderr); err != nil {
			t.Errorf("%s: %s: %v", name, strings.Join(args, " "), err)
			continue
		}
		var report, lintErr bytes.Buffer
		err := Run(context.Background(), []string{"lint", "-", "--from", string(o.to), "--target", o.target},
			bytes.NewReader(out.Bytes()), &report, &lintErr)
		if err != nil {
			t.Errorf("%s: lint --target %s rejects what %s wrote (exit %d):\n%s%s\noutput:\n%.2000s",
				name, o.target, strings.Join(args, " "), ExitCode(err), report.String(), lintErr.String(), out.String())
			continue
		}
		n++
	}
	return n
}

// TestLintAcceptsOwnOutput runs lintOwnOutput over the MCP examples of
// every revision in the corpora, the real MCP servers' tools in
// codec/mcp/testdata/servers, the repository's example files and a
// sample of the BFCL corpus.
func TestLintAcceptsOwnOutput(t *testing.T) {
	runs := 0
	mcpDir := corpustest.Dir(t, "mcp")
	for _, folder := range []string{"Tool", "ListToolsResult", "ListToolsResultResponse"} {
		files, err := filepath.Glob(filepath.Join(mcpDir, "*", "examples", folder, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			runs += lintOwnOutput(t, f, codec.MCP, data)
		}
	}
	servers, _ := filepath.Glob("../../../../codec/mcp/testdata/servers/*/*.json")
	if len(servers) < 100 {
		t.Errorf("%d real MCP server tools found, want at least 100", len(servers))
	}
	for _, f := range servers {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		runs += lintOwnOutput(t, f, codec.MCP, data)
	}
	examples, _ := filepath.Glob("../../../../examples/tools/*.json")
	for _, f := range examples {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		from := codec.Format(strings.TrimSuffix(filepath.Base(f), ".json"))
		runs += lintOwnOutput(t, f, from, data)
	}
	lines := bfclLines(t)
	for i := 0; i < len(lines); i += 25 {
		if strictjson.Get(lines[i], "function") == nil {
			continue
		}
		runs += lintOwnOutput(t, "bfcl line "+strconv.Itoa(i), codec.BFCL, lines[i])
	}
	// The inputs of issue 16's definitions classes.
	for _, c := range []struct {
		from codec.Format
		in   string
	}{
		{codec.OpenAIResponses, `[{"type":"function","name":"search","strict":true,"parameters":{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q"]}}]`},
		{codec.OpenAIResponses, `[{"type":"function","name":"lookup","parameters":{"type":"object","properties":{}},"output_schema":{"type":"object"},"defer_loading":true,"allowed_callers":["code_interpreter"]}]`},
		{codec.OpenAI, `[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"],"additionalProperties":false}}}]`},
		{codec.MCP, `{"tools":[{"name":"list_files","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"string"}}}],"nextCursor":"c"}`},
		{codec.Gemini, `{"function_declarations":[{"name":"a","parameters":{"type":"OBJECT","properties":{"x":{"type":"STRING","nullable":true}},"required":["x","y"]}}]}`},
	} {
		runs += lintOwnOutput(t, c.in, c.from, []byte(c.in))
	}
	if runs < 500 {
		t.Errorf("only %d convert-and-lint runs; the corpora should give more", runs)
	}
	t.Logf("%d outputs linted", runs)
}
