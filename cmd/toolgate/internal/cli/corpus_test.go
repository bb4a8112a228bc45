// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/bfcl"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/internal/benchtest"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/schema"
)

// bfclLines returns every line of every BFCL file in the corpora that holds
// definitions: one request's functions, or one function.
func bfclLines(t testing.TB) [][]byte {
	dir := corpustest.Dir(t, "bfcl")
	var files []string
	for _, pat := range []string{"*.jsonl", "multi_turn_func_doc/*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	var lines [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if strictjson.Check(line, nil) != nil {
				t.Fatalf("%s: a line is not strict JSON", f)
			}
			// multi_turn_base lines name the classes whose functions are in
			// multi_turn_func_doc; they hold no definitions themselves.
			if strictjson.Get(line, "function") == nil && strictjson.Get(line, "name") == nil {
				continue
			}
			lines = append(lines, bytes.Clone(line))
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return lines
}

// outputTool is a tool as found in encoded output: its name and schema.
type outputTool struct {
	name   string
	schema []byte
}

// toolsIn finds each tool's name and schema in the bytes an encoder wrote,
// by the shape of format f, without the codec's decoder: the check must not
// share code with what it checks.
func toolsIn(t testing.TB, f codec.Format, out []byte) []outputTool {
	if err := strictjson.Check(out, nil); err != nil {
		t.Fatalf("%s output is not strict JSON: %v", f, err)
	}
	var items [][]byte
	collect := func(arr []byte) {
		_ = strictjson.Elements(arr, func(_ int, v []byte) error {
			items = append(items, v)
			return nil
		})
	}
	switch {
	case f == codec.Gemini:
		// [{"functionDeclarations": [...]}, ...]
		_ = strictjson.Elements(out, func(_ int, v []byte) error {
			collect(strictjson.Get(v, "functionDeclarations"))
			return nil
		})
	case strictjson.KindOf(out) == strictjson.Array:
		collect(out)
	default:
		items = [][]byte{out}
	}
	var tools []outputTool
	for _, it := range items {
		obj := it
		nameKey, schemaKey := "name", ""
		switch f {
		case codec.OpenAI, codec.LangChain:
			obj, schemaKey = strictjson.Get(it, "function"), "parameters"
		case codec.OpenAIResponses:
			schemaKey = "parameters"
		case codec.Anthropic:
			schemaKey = "input_schema"
		case codec.MCP:
			schemaKey = "inputSchema"
		case codec.Gemini:
			schemaKey = "parameters"
		}
		name, err := strictjson.Unquote(strictjson.Get(obj, nameKey))
		if err != nil {
			t.Fatalf("%s output: tool without a name: %s", f, it)
		}
		tools = append(tools, outputTool{name: name, schema: strictjson.Get(obj, schemaKey)})
	}
	return tools
}

// TestCorpusBFCLEveryTarget converts every function of the BFCL corpus to
// every provider format and checks that each output tool passes
// schema.Check for that provider, reading the output bytes independently.
func TestCorpusBFCLEveryTarget(t *testing.T) {
	lines := bfclLines(t)
	targets := []struct {
		format codec.Format
		strict bool
		target schema.Target
	}{
		{codec.OpenAI, false, schema.OpenAI},
		{codec.OpenAI, true, schema.OpenAIStrict},
		{codec.OpenAIResponses, false, schema.OpenAI},
		{codec.Anthropic, false, schema.Anthropic},
		{codec.Anthropic, true, schema.AnthropicStrict},
		{codec.Gemini, false, schema.Gemini},
		{codec.MCP, false, schema.MCP},
		{codec.LangChain, false, schema.OpenAI},
	}
	defs := 0
	for i, line := range lines {
		tools, err := bfcl.DecodeTools(line)
		if err != nil {
			t.Fatalf("line %d: bfcl.DecodeTools: %v", i, err)
		}
		tools.Single = false
		defs += len(tools.Defs)
		for _, tg := range targets {
			name := fmt.Sprintf("%s-strict=%v", tg.format, tg.strict)
			out, _, err := convert(tools, tg.format, tg.strict, false)
			if err != nil {
				t.Errorf("line %d (%s): %s: %v", i, tools.Defs[0].Name, name, err)
				continue
			}
			got := toolsIn(t, tg.format, out)
			if len(got) != len(tools.Defs) {
				t.Errorf("line %d: %s: %d tools in, %d out", i, name, len(tools.Defs), len(got))
			}
			for _, ot := range got {
				if probs := schema.Check(tg.target, ot.name, ot.schema); len(probs) > 0 {
					t.Errorf("line %d: %s: tool %q rejected by Check(%s): %v", i, name, ot.name, tg.target, probs)
				}
			}
		}
	}
	if defs < 6800 {
		t.Errorf("only %d BFCL definitions found; the corpus has 6,822 (8,888 upstream, less the files not copied)", defs)
	}
	t.Logf("%d BFCL definitions converted to %d targets", defs, len(targets))
}

// BenchmarkBFCLOpenAIToAnthropic converts the whole BFCL corpus, held as
// OpenAI tools, to Anthropic tools with lowering: decode, lower, encode.
// Figures are per definition; cpu-ns/def is the one to read on a shared
// machine (run with -cpu 1 for one core).
func BenchmarkBFCLOpenAIToAnthropic(b *testing.B) {
	var inputs [][]byte
	defs := 0
	for _, line := range bfclLines(b) {
		tools, err := bfcl.DecodeTools(line)
		if err != nil {
			b.Fatal(err)
		}
		tools.Single = false
		data, _, err := openai.EncodeTools(tools)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, data)
		defs += len(tools.Defs)
	}
	benchtest.Per(b, defs, "def", func() {
		for _, data := range inputs {
			tools, err := openai.DecodeTools(data)
			if err != nil {
				b.Fatal(err)
			}
			names := schema.NewNameMap(schema.Anthropic)
			for i := range tools.Defs {
				d, _, err := schema.LowerDefinition(schema.Anthropic, &tools.Defs[i], names)
				if err != nil {
					b.Fatal(err)
				}
				tools.Defs[i] = d
			}
			if _, _, err := anthropic.EncodeTools(tools); err != nil {
				b.Fatal(err)
			}
		}
	})
}
