// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/tool"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		want      codec.Format
		ambiguous bool
	}{
		{"openai-tool", `{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}`, codec.OpenAI, false},
		{"openai-request", `{"model":"gpt-4o","messages":[],"tools":[{"type":"function","function":{"name":"a"}}]}`, codec.OpenAI, false},
		{"openai-legacy-functions", `{"functions":[{"name":"a","parameters":{"type":"object"}}]}`, codec.OpenAI, false},
		{"openai-strict-bare", `{"name":"a","parameters":{"type":"object"},"strict":true}`, codec.OpenAI, false},
		{"responses", `[{"type":"function","name":"a","parameters":{"type":"object"},"strict":true}]`, codec.OpenAIResponses, false},
		{"anthropic", `{"name":"a","description":"d","input_schema":{"type":"object"}}`, codec.Anthropic, false},
		{"anthropic-cache", `[{"name":"a","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]`, codec.Anthropic, false},
		{"canonical", `{"name":"a","input_schema":{"type":"object"},"capability":{"action":"read"}}`, codec.Canonical, false},
		{"mcp-tool", `{"name":"a","inputSchema":{"type":"object"}}`, codec.MCP, false},
		{"mcp-list", `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"x"}`, codec.MCP, false},
		{"mcp-jsonrpc", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}]}}`, codec.MCP, false},
		{"gemini-tools", `[{"functionDeclarations":[{"name":"a","parameters":{"type":"OBJECT"}}]}]`, codec.Gemini, false},
		{"gemini-request", `{"contents":[],"tools":[{"function_declarations":[{"name":"a"}]}]}`, codec.Gemini, false},
		{"gemini-bare-upper", `{"name":"a","parameters":{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}}`, codec.Gemini, false},
		{"gemini-json-schema", `{"name":"a","parametersJsonSchema":{"type":"object"}}`, codec.Gemini, false},
		{"langchain-args-schema", `{"name":"a","description":"d","args_schema":{"title":"A","type":"object"}}`, codec.LangChain, false},
		{"jsonschema-x", `{"title":"a","type":"object","x-capabilities":{"action":"read"}}`, codec.JSONSchema, false},
		{"jsonschema-schema", `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"a","type":"object"}`, codec.JSONSchema, false},
		{"bfcl-function", `{"name":"a.b","description":"d","parameters":{"type":"dict","properties":{"x":{"type":"float"}}}}`, codec.BFCL, false},
		{"bfcl-line", `{"id":"simple_0","question":[[{"role":"user","content":"hi"}]],"function":[{"name":"a","parameters":{"type":"dict"}}]}`, codec.BFCL, false},
		{"bfcl-multi-turn", `{"id":"m","question":[],"involved_classes":["A"],"path":[]}`, codec.BFCL, false},
		{"bfcl-jsonl", "{\"name\":\"a\",\"parameters\":{\"type\":\"dict\"}}\n{\"name\":\"b\",\"parameters\":{\"type\":\"dict\"}}\n", codec.BFCL, false},
		{"bare-function", `{"name":"a","description":"d","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}`, codec.OpenAI, true},
		{"nothing", `{"hello":"world"}`, "", false},
		{"not-json", `{"name":`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Detect([]byte(tt.in))
			if r.Format != tt.want || r.Ambiguous != tt.ambiguous {
				t.Errorf("Detect = %s (ambiguous %v), want %s (ambiguous %v)\nscores %v\nevidence %q", r.Format, r.Ambiguous, tt.want, tt.ambiguous, r.Scores, r.Evidence)
			}
			checkScores(t, r)
		})
	}
}

func checkScores(t *testing.T, r Result) {
	t.Helper()
	if len(r.Scores) != len(formats) {
		t.Fatalf("%d scores, want one per format (%d)", len(r.Scores), len(formats))
	}
	sum := 0.0
	for i, s := range r.Scores {
		sum += s.Confidence
		if i > 0 && s.Confidence > r.Scores[i-1].Confidence {
			t.Fatalf("scores not sorted: %v", r.Scores)
		}
		if s.Confidence < 0 || s.Confidence > 1 {
			t.Fatalf("confidence out of range: %v", s)
		}
	}
	if r.Format != "" && math.Abs(sum-1) > 1e-9 {
		t.Fatalf("confidences sum to %v, want 1", sum)
	}
	if r.Format == "" && sum != 0 {
		t.Fatalf("no format but confidences sum to %v", sum)
	}
}

func TestNotJSONKeepsError(t *testing.T) {
	r := Detect([]byte(`{"a":1,"a":2}`))
	if r.Err == nil || r.Format != "" {
		t.Fatalf("Detect = %+v, want an error and no format", r)
	}
}

// TestEncodeDetectDecode writes a definition in every writable format,
// checks that Detect names that format (where the shape is not shared
// with another) and that Decode reads it back.
func TestEncodeDetectDecode(t *testing.T) {
	d := tool.Definition{
		Name: "get_weather", Description: "Weather.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}
	shared := map[codec.Format]codec.Format{
		codec.LangChain: codec.OpenAI, // convert_to_openai_tool is OpenAI's shape
	}
	for _, f := range Formats() {
		if f == codec.BFCL {
			if _, _, err := Encode(f, &codec.Tools{Defs: []tool.Definition{d}}); !errors.Is(err, ErrNotWritable) {
				t.Errorf("Encode(bfcl) = %v, want ErrNotWritable", err)
			}
			continue
		}
		dd := d
		if f == codec.Canonical {
			dd.Behavior = &tool.Behavior{Action: tool.ActionRead}
		}
		out, _, err := Encode(f, &codec.Tools{Defs: []tool.Definition{dd}})
		if errors.Is(err, ErrUnknownFormat) {
			t.Logf("%s: no codec wired yet", f)
			continue
		}
		if err != nil {
			t.Errorf("Encode(%s): %v", f, err)
			continue
		}
		r := Detect(out)
		want := f
		if s, ok := shared[f]; ok {
			want = s
		}
		if r.Format != want {
			t.Errorf("Detect(Encode(%s)) = %s, want %s\n%s\n%v", f, r.Format, want, out, r.Evidence)
		}
		back, err := Decode(f, out)
		if err != nil {
			t.Errorf("Decode(%s): %v\n%s", f, err, out)
			continue
		}
		if len(back.Defs) != 1 || back.Defs[0].Name != d.Name {
			t.Errorf("Decode(%s) = %+v", f, back.Defs)
		}
	}
	if _, err := Decode("yaml", nil); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Decode(yaml) = %v, want ErrUnknownFormat", err)
	}
}

// TestCorpusBFCL checks that every line of the BFCL corpus is detected as
// bfcl.
func TestCorpusBFCL(t *testing.T) {
	dir := corpustest.Dir(t, "bfcl")
	a, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	b, _ := filepath.Glob(filepath.Join(dir, "multi_turn_func_doc", "*.jsonl"))
	n := 0
	for _, f := range append(a, b...) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 16<<20)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			n++
			if r := Detect(sc.Bytes()); r.Format != codec.BFCL || r.Ambiguous {
				t.Errorf("%s:%d: Detect = %s (ambiguous %v), want bfcl; %v", filepath.Base(f), line, r.Format, r.Ambiguous, r.Evidence)
			}
		}
		fh.Close()
	}
	if n < 3000 {
		t.Errorf("only %d lines", n)
	}
}

// TestCorpusMCP checks the MCP example messages that hold tools.
func TestCorpusMCP(t *testing.T) {
	dir := filepath.Join(corpustest.Dir(t, "mcp"), "2026-07-28", "examples")
	for _, folder := range []string{"Tool", "ListToolsResult", "ListToolsResultResponse"} {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if r := Detect(data); r.Format != codec.MCP || r.Ambiguous {
				t.Errorf("%s: Detect = %s (ambiguous %v), want mcp", f, r.Format, r.Ambiguous)
			}
		}
	}
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		`{"type":"function","function":{"name":"a"}}`, `[{"name":"a","input_schema":{}}]`,
		`{"tools":[{"functionDeclarations":[{"name":"a"}]}]}`, `{"name":"a","parameters":{"type":"dict"}}`,
		"{\"a\":1}\n{\"b\":2}", `{"jsonrpc":"2.0","result":{"jsonrpc":"2.0","result":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Detect(data)
		checkScores(t, r)
		again := Detect(data)
		if diff := cmp.Diff(r, again, cmpopts.IgnoreFields(Result{}, "Err")); diff != "" {
			t.Fatalf("Detect is not deterministic (-first +second):\n%s", diff)
		}
	})
}

// BenchmarkDetectBFCL detects the format of every line of the BFCL corpus.
func BenchmarkDetectBFCL(b *testing.B) {
	dir := corpustest.Dir(b, "bfcl")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var lines [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			_ = Detect(l)
		}
	}
	b.ReportMetric(float64(len(lines))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(0, "ns/op")
}
