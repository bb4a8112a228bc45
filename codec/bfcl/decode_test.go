// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/benchtest"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"malformed", `{"name":`, strictjson.ErrSyntax},
		{"duplicate-key", `{"name":"a","name":"a"}`, strictjson.ErrDuplicateName},
		{"string", `"x"`, codec.ErrUnknownShape},
		{"no-name", `{"description":"x"}`, codec.ErrUnknownShape},
		{"empty-name", `{"name":""}`, tool.ErrInvalidDefinition},
		{"params-array", `{"name":"a","parameters":[]}`, tool.ErrInvalidDefinition},
		{"nested-not-object", `{"name":"a","parameters":{"type":"dict","properties":{"x":3}}}`, tool.ErrInvalidDefinition},
		{"function-string", `{"id":"1","function":"f"}`, codec.ErrUnknownShape},
		{"classes-only", `{"id":"1","question":[],"involved_classes":["A"]}`, codec.ErrUnknownShape},
		{"bad-second-line", "{\"name\":\"a\"}\n{\"name\":\"b\",}", strictjson.ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeTools([]byte(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("DecodeTools(%s) = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

// TestJSONLinesErrorOffset checks that an error on a later line names
// that line, so the CLI prints the right line:col.
func TestJSONLinesErrorOffset(t *testing.T) {
	data := []byte("{\"name\":\"a\"}\n{\"name\":\"b\",}\n")
	_, err := DecodeTools(data)
	se, ok := errors.AsType[*strictjson.Error](err)
	if !ok {
		t.Fatalf("err = %v, want a *strictjson.Error", err)
	}
	line, col := strictjson.LineCol(data, se.Offset)
	if line != 2 || se.Pointer[:2] != "/1" {
		t.Errorf("error at line %d col %d pointer %q, want line 2 pointer /1…", line, col, se.Pointer)
	}
}

// corpusFiles returns the BFCL files holding function documents.
func corpusFiles(t testing.TB) []string {
	dir := corpustest.Dir(t, "bfcl")
	a, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	b, _ := filepath.Glob(filepath.Join(dir, "multi_turn_func_doc", "*.jsonl"))
	return append(a, b...)
}

// corpusLines returns every line of the BFCL corpus that holds functions.
func corpusLines(t testing.TB) (lines [][]byte, names []string) {
	for _, f := range corpusFiles(t) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 16<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.Clone(sc.Bytes())
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			lines = append(lines, line)
			names = append(names, fmt.Sprintf("%s:%d", filepath.Base(f), n))
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return lines, names
}

// TestCorpus decodes every function of every BFCL file and compiles each
// resulting input and output schema as standard JSON Schema (2020-12).
func TestCorpus(t *testing.T) {
	lines, names := corpusLines(t)
	defs, skipped := 0, 0
	for i, line := range lines {
		ts, err := DecodeTools(line)
		if err != nil {
			var probe map[string]any
			_ = json.Unmarshal(line, &probe)
			if _, ok := probe["involved_classes"]; ok && probe["function"] == nil {
				skipped++ // a multi-turn test line: no function documents
				continue
			}
			t.Errorf("%s: %v", names[i], err)
			continue
		}
		for _, d := range ts.Defs {
			defs++
			for which, s := range map[string]json.RawMessage{"input": d.InputSchema, "output": d.OutputSchema} {
				if s == nil {
					continue
				}
				if err := compile(s); err != nil {
					t.Errorf("%s: %s: %s schema: %v\n%s", names[i], d.Name, which, err, s)
				}
			}
		}
	}
	if defs < 6000 {
		t.Errorf("decoded %d definitions, want the whole corpus (over 6,000)", defs)
	}
	t.Logf("%d definitions from %d lines; %d multi-turn lines hold no functions", defs, len(lines), skipped)
}

// TestCorpusFiles decodes each BFCL file whole, as JSON Lines.
func TestCorpusFiles(t *testing.T) {
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := DecodeTools(data)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if len(ts.Defs) == 0 && filepath.Base(f) != "BFCL_v4_multi_turn_base.jsonl" {
			t.Errorf("%s: no definitions", filepath.Base(f))
		}
	}
}

func compile(s json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		return err
	}
	_, err = c.Compile("mem://schema.json")
	return err
}

// BenchmarkCorpus decodes every function line of the BFCL corpus; it
// reports definitions per second and allocations per definition.
func BenchmarkCorpus(b *testing.B) {
	lines, _ := corpusLines(b)
	defs := 0
	for _, l := range lines {
		if ts, err := DecodeTools(l); err == nil {
			defs += len(ts.Defs)
		}
	}
	var bytesTotal int64
	for _, l := range lines {
		bytesTotal += int64(len(l))
	}
	b.SetBytes(bytesTotal)
	b.ReportAllocs()
	cpu0 := benchtest.CPUTime()
	for b.Loop() {
		for _, l := range lines {
			_, _ = DecodeTools(l)
		}
	}
	cpu := benchtest.CPUTime() - cpu0
	total := float64(defs) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "defs/s")
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/def")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/total, "cpu-ns/def")
	}
}

// BenchmarkFunctions decodes each function document of the corpus on its
// own, as a caller converting one definition at a time does (the test
// lines' questions are not read).
func BenchmarkFunctions(b *testing.B) {
	lines, _ := corpusLines(b)
	var fns [][]byte
	for _, l := range lines {
		var line struct {
			Function []json.RawMessage `json:"function"`
			Name     string            `json:"name"`
		}
		if err := json.Unmarshal(l, &line); err != nil {
			b.Fatal(err)
		}
		if line.Name != "" {
			fns = append(fns, l)
		}
		for _, f := range line.Function {
			fns = append(fns, f)
		}
	}
	var n int64
	for _, f := range fns {
		n += int64(len(f))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	cpu0 := benchtest.CPUTime()
	for b.Loop() {
		for _, f := range fns {
			if _, err := DecodeTools(f); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu := benchtest.CPUTime() - cpu0
	total := float64(len(fns)) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "defs/s")
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/def")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/total, "cpu-ns/def")
	}
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		for _, f := range fns {
			_, _ = DecodeTools(f)
		}
	}))/float64(len(fns)), "allocs/def")
}

func FuzzDecodeTools(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","parameters":{"type":"dict","properties":{"x":{"type":"float","optional":true}},"required":["x"]}}`,
		`[{"name":"a","parameters":{"type":"dict","properties":{"t":{"type":"tuple","items":[{"type":"any"}]}}}}]`,
		`{"id":"1","question":[],"function":[{"name":"b","parameters":{"type":"HashMap"}}]}`,
		"{\"name\":\"a\"}\n{\"name\":\"b\",\"parameters\":{\"type\":\"\"}}\n",
		`{"name":"a","parameters":{"type":"dict","optional":["x"],"required":["x","y"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := DecodeTools(data)
		if err != nil {
			return
		}
		// The mapping is idempotent: a converted schema read as BFCL again
		// is unchanged and needs no type mapping.
		for _, d := range ts.Defs {
			if d.InputSchema == nil {
				continue
			}
			if !json.Valid(d.InputSchema) {
				t.Fatalf("invalid JSON schema out: %s", d.InputSchema)
			}
			doc := append([]byte(`{"name":"x","parameters":`), d.InputSchema...)
			doc = append(doc, '}')
			again, err := DecodeTools(doc)
			if err != nil {
				t.Fatalf("converted schema does not decode: %v\n%s", err, doc)
			}
			if string(again.Defs[0].InputSchema) != string(d.InputSchema) {
				t.Fatalf("not idempotent:\n%s\n%s", d.InputSchema, again.Defs[0].InputSchema)
			}
			for _, w := range again.Warnings {
				if w.Code == codeTypeMapped || w.Code == codeTypeAny || w.Code == codeOptional {
					t.Fatalf("second pass warned %v on %s", w, d.InputSchema)
				}
			}
		}
	})
}
