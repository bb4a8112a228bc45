// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpustest"
)

// bfclTypes maps the BFCL dialect's type names to JSON Schema, as BFCL's
// own GORILLA_TO_OPENAPI table does. The real conversion lives in
// codec/bfcl; this copy only turns the corpus into test input.
var bfclTypes = map[string]string{
	"dict": "object", "HashMap": "object", "Hashtable": "object",
	"float": "number", "double": "number",
	"long": "integer", "short": "integer", "byte": "integer", "Bigint": "integer",
	"tuple": "array", "ArrayList": "array", "Array": "array", "list": "array", "Queue": "array", "Stack": "array",
	"any": "string", "Any": "string", "char": "string", "String": "string", "": "string",
	"bool": "boolean", "Boolean": "boolean",
}

func bfclToJSONSchema(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k == "optional" {
				continue
			}
			out[k] = bfclToJSONSchema(x)
		}
		if t, ok := v["type"].(string); ok {
			if m, ok := bfclTypes[t]; ok {
				out["type"] = m
			}
		}
		if p, ok := v["properties"].(map[string]any); ok {
			props := make(map[string]any, len(p))
			for k, x := range p {
				props[k] = bfclToJSONSchema(x)
			}
			out["properties"] = props
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = bfclToJSONSchema(x)
		}
		return out
	}
	return v
}

type corpusDef struct {
	name   string
	schema json.RawMessage
}

// bfclDefinitions reads every function of the BFCL corpus, deduplicated
// by name and schema.
func bfclDefinitions(t testing.TB) []corpusDef {
	dir := corpustest.Dir(t, "bfcl")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(dir, "multi_turn_func_doc", "*.jsonl"))
	files = append(files, more...)
	sort.Strings(files)
	var defs []corpusDef
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var row struct {
				Function   []json.RawMessage `json:"function"`
				Name       string            `json:"name"`
				Parameters any               `json:"parameters"`
			}
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			fns := row.Function
			if len(fns) == 0 && row.Name != "" {
				fns = []json.RawMessage{sc.Bytes()}
			}
			for _, fn := range fns {
				var d struct {
					Name       string `json:"name"`
					Parameters any    `json:"parameters"`
				}
				if err := json.Unmarshal(fn, &d); err != nil {
					t.Fatal(err)
				}
				s, err := json.Marshal(bfclToJSONSchema(d.Parameters))
				if err != nil {
					t.Fatal(err)
				}
				defs = append(defs, corpusDef{name: d.Name, schema: s})
			}
		}
	}
	return defs
}

func TestCorpusBFCL(t *testing.T) {
	defs := bfclDefinitions(t)
	if len(defs) < 6500 {
		t.Fatalf("only %d BFCL definitions found", len(defs))
	}
	if raceEnabled {
		sample := defs[:0:0]
		for i := 0; i < len(defs); i += 10 {
			sample = append(sample, defs[i])
		}
		defs = sample
	}
	for _, tg := range Targets {
		changed, failed := 0, 0
		for _, d := range defs {
			names := NewNameMap(tg)
			name, err := names.Map(d.name)
			if err != nil {
				t.Fatalf("%s: Map(%q): %v", tg, d.name, err)
			}
			out, warns, err := Lower(tg, d.schema)
			if err != nil {
				failed++
				t.Errorf("%s: %s: Lower: %v", tg, d.name, err)
				continue
			}
			if len(warns) > 0 {
				changed++
			}
			if probs := Check(tg, name, out); len(probs) > 0 {
				failed++
				if failed < 5 {
					t.Errorf("%s: %s: Check after Lower: %v\n%s", tg, d.name, probs, out)
				}
			}
		}
		t.Logf("%s: %d definitions, %d changed by lowering, %d failed", tg, len(defs), changed, failed)
	}
}

// TestCorpusMCP lowers every object definition of every MCP revision's
// schema (with the other definitions beside it, so references resolve).
func TestCorpusMCP(t *testing.T) {
	dir := corpustest.Dir(t, "mcp")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "schema.json"))
	if len(files) == 0 {
		t.Fatal("no MCP schema.json found")
	}
	if raceEnabled {
		files = files[len(files)-1:] // the latest revision
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		defsKey := "$defs"
		if _, ok := doc["definitions"]; ok {
			defsKey = "definitions"
		}
		var defs map[string]map[string]any
		if err := json.Unmarshal(doc[defsKey], &defs); err != nil {
			t.Fatal(err)
		}
		names := make([]string, 0, len(defs))
		for k := range defs {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			def := defs[name]
			if def["type"] != "object" {
				continue
			}
			s := make(map[string]any, len(def)+1)
			for k, v := range def {
				s[k] = v
			}
			// Keep only the definitions this one reaches, so each
			// schema stays the size a real tool's would be.
			reach := map[string]any{}
			reachable(def, defs, defsKey, reach)
			if len(reach) > 0 {
				s[defsKey] = reach
			}
			raw, _ := json.Marshal(s)
			if _, err := Resolve(raw, nil); err != nil {
				t.Errorf("%s %s: Resolve: %v", f, name, err)
			}
			for _, tg := range Targets {
				out, _, err := Lower(tg, raw)
				if err != nil {
					t.Errorf("%s %s %s: Lower: %v", filepath.Base(filepath.Dir(f)), name, tg, err)
					continue
				}
				if probs := Check(tg, name, out); len(probs) > 0 {
					t.Errorf("%s %s %s: Check after Lower: %v", filepath.Base(filepath.Dir(f)), name, tg, probs[:min(3, len(probs))])
				}
				n++
			}
		}
	}
	t.Logf("%d MCP definitions lowered and checked", n)
	if n == 0 {
		t.Fatal("nothing checked")
	}
}

// reachable adds to out every definition v refers to, transitively.
func reachable(v any, defs map[string]map[string]any, defsKey string, out map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"].(string); ok {
			name := strings.TrimPrefix(r, "#/"+defsKey+"/")
			if d, ok := defs[name]; ok {
				if _, seen := out[name]; !seen {
					out[name] = d
					reachable(d, defs, defsKey, out)
				}
			}
		}
		for _, x := range v {
			reachable(x, defs, defsKey, out)
		}
	case []any:
		for _, x := range v {
			reachable(x, defs, defsKey, out)
		}
	}
}
