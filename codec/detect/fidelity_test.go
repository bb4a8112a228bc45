// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/yamljson"
	"github.com/toolgate/toolgate/tool"
)

// fidelityDoc is one document of the corpora that may hold tool
// definitions.
type fidelityDoc struct {
	name string
	data []byte
}

// fidelityDocs reads every JSON file of the corpora (the OpenAPI specs
// and BFCL, which have no same-format round trip, aside), and the request
// bodies of the recorded Anthropic traffic.
func fidelityDocs(t *testing.T) []fidelityDoc {
	root := corpustest.Dir(t, "")
	var docs []fidelityDoc
	err := filepath.WalkDir(root, func(path string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if de.IsDir() {
			if rel == "openapi" || rel == "bfcl" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(path, ".json"):
			docs = append(docs, fidelityDoc{rel, data})
			var nock []struct{ Body json.RawMessage }
			if json.Unmarshal(data, &nock) == nil {
				for i, n := range nock {
					if len(n.Body) > 0 && n.Body[0] == '{' {
						docs = append(docs, fidelityDoc{rel + "#" + strconv.Itoa(i), n.Body})
					}
				}
			}
		case strings.HasSuffix(path, ".yaml") && strings.Contains(rel, "cassettes"):
			js, err := yamljson.Convert(data, nil)
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			var c struct {
				Interactions []struct{ Request struct{ Body string } }
			}
			if err := json.Unmarshal(js, &c); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			for i, in := range c.Interactions {
				docs = append(docs, fidelityDoc{rel + "#" + strconv.Itoa(i), []byte(in.Request.Body)})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// toolObjects finds the tool objects of a decoded document: the document
// itself, its array, or the "tools" of it (or of its "result" or
// "params", for MCP messages).
func toolObjects(v any) []map[string]any {
	switch x := v.(type) {
	case []any:
		var out []map[string]any
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	case map[string]any:
		if ts, ok := x["tools"]; ok {
			return toolObjects(ts)
		}
		for _, k := range []string{"result", "params"} {
			if inner, ok := x[k].(map[string]any); ok {
				if _, ok := inner["tools"]; ok {
					return toolObjects(inner)
				}
			}
		}
		return []map[string]any{x}
	}
	return nil
}

// toolName is the name of a tool object in any format.
func toolName(m map[string]any) string {
	for _, k := range []string{"name", "title"} {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	if f, ok := m["function"].(map[string]any); ok {
		s, _ := f["name"].(string)
		return s
	}
	return ""
}

// differences lists the JSON Pointers at which a and b differ.
func differences(ptr string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var out []string
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				if !yield(k) {
					return
				}
			}
		}) {
			out = append(out, differences(ptr+"/"+strictjson.EscapePointer(k), am[k], bm[k])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{ptr}
}

// named reports whether a warning names the difference at ptr (a pointer
// within one tool object): its pointer ends with one of ptr's leading
// paths, or its message names ptr's first member.
func named(ws []tool.Warning, ptr string) bool {
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for _, w := range ws {
		for i := range segs {
			if strings.HasSuffix(w.Pointer, "/"+strings.Join(segs[:i+1], "/")) {
				return true
			}
		}
		if strings.Contains(w.Message, segs[0]) {
			return true
		}
	}
	return false
}

// TestCorpusFidelity: every document of the corpora that a codec reads
// (by detection) is written back in the same format, and each tool comes
// back equal after a canonical re-marshal, or with a warning naming each
// difference. (The issue: a Responses tool without "strict" came back
// with "strict": false; a JSON Schema round trip invented
// x-capabilities; an Anthropic tool's empty description was dropped.)
func TestCorpusFidelity(t *testing.T) {
	docs := fidelityDocs(t)
	tried, tools := map[codec.Format]int{}, 0
	for _, d := range docs {
		in, r, err := DecodeAny(d.data)
		if err != nil || r.Format == "" || r.Format == codec.BFCL || len(in.Defs) == 0 {
			continue // no same-format round trip
		}
		tried[r.Format]++
		out, ws, err := Encode(r.Format, in)
		if err != nil {
			t.Errorf("%s (%s): encode: %v", d.name, r.Format, err)
			continue
		}
		warns := append(append([]tool.Warning(nil), in.Warnings...), ws...)
		var inDoc, outDoc any
		if err := json.Unmarshal(d.data, &inDoc); err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if err := json.Unmarshal(out, &outDoc); err != nil {
			t.Fatalf("%s (%s): output is not JSON: %v\n%s", d.name, r.Format, err, out)
		}
		got := map[string]map[string]any{}
		for _, m := range toolObjects(outDoc) {
			got[toolName(m)] = m
		}
		for i, want := range toolObjects(inDoc) {
			name := toolName(want)
			have, ok := got[name]
			if !ok {
				if !named(warns, "/"+strconv.Itoa(i)) && !named(warns, "/tools/"+strconv.Itoa(i)) {
					t.Errorf("%s (%s): tool %d (%q) is gone with no warning", d.name, r.Format, i, name)
				}
				continue
			}
			tools++
			wb, _ := json.Marshal(want)
			hb, _ := json.Marshal(have)
			if string(wb) == string(hb) {
				continue
			}
			for _, p := range differences("", want, have) {
				if !named(warns, p) {
					t.Errorf("%s (%s): tool %q differs at %s with no warning naming it:\nin:  %s\nout: %s\nwarnings: %v", d.name, r.Format, name, p, wb, hb, warns)
				}
			}
		}
	}
	t.Logf("%d documents read, %d tools compared; round trips by format: %v", len(docs), tools, tried)
	if tried[codec.MCP] == 0 || tried[codec.Anthropic] == 0 || tried[codec.OpenAIResponses] == 0 || tools < 20 {
		t.Errorf("the corpora exercised too little: %v, %d tools", tried, tools)
	}
}

// TestFidelityIssueCases pins the three round trips of the issue, each in
// its own format, byte for byte.
func TestFidelityIssueCases(t *testing.T) {
	tests := []struct {
		name   string
		format codec.Format
		in     string
	}{
		{"responses-strict-absent", codec.OpenAIResponses, `{"type":"function","name":"search","parameters":{"type":"object","properties":{}}}`},
		{"responses-strict-false", codec.OpenAIResponses, `{"type":"function","name":"search","parameters":{"type":"object","properties":{}},"strict":false}`},
		{"jsonschema-no-capabilities", codec.JSONSchema, `{"title":"delete_invoice","description":"Delete an invoice.","type":"object","properties":{"id":{"type":"string"}}}`},
		{"anthropic-empty-description", codec.Anthropic, `{"name":"a","description":"","input_schema":{"type":"object"}}`},
		{"openai-empty-description", codec.OpenAI, `{"type":"function","function":{"name":"a","description":"","parameters":{"type":"object"}}}`},
		{"mcp-empty-description", codec.MCP, `{"name":"a","description":"","inputSchema":{"type":"object"}}`},
		{"gemini-empty-description", codec.Gemini, `{"name":"a","description":"","parameters":{"type":"object"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(tt.format, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			out, ws, err := Encode(tt.format, in)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.in || len(ws) != 0 || len(in.Warnings) != 0 {
				t.Errorf("round trip:\n in: %s\nout: %s\nwarnings: %v %v", tt.in, out, in.Warnings, ws)
			}
		})
	}
}
