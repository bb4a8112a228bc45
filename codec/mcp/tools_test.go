// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/goldentest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

func TestToolsGolden(t *testing.T) {
	goldentest.Out(t, "testdata/tools.txtar", *update, goldentest.Reported(DecodeTools, EncodeTools), ".json")
}

func TestCallsGolden(t *testing.T) {
	goldentest.Out(t, "testdata/calls.txtar", *update, goldentest.Reported(DecodeCall, EncodeCall), ".json")
}

func TestResultsGolden(t *testing.T) {
	goldentest.Out(t, "testdata/results.txtar", *update, goldentest.Reported(DecodeResult, EncodeResult), ".json")
}

func TestDecodeToolsErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"malformed", `{"name":`, strictjson.ErrSyntax},
		{"duplicate-key", `{"name":"a","name":"b"}`, strictjson.ErrDuplicateName},
		{"number", `42`, codec.ErrUnknownShape},
		{"no-name", `{"inputSchema":{"type":"object"}}`, codec.ErrUnknownShape},
		{"empty-name", `{"name":"","inputSchema":{}}`, tool.ErrInvalidDefinition},
		{"duplicate-names", `[{"name":"a"},{"name":"a"}]`, tool.ErrInvalidDefinition},
		{"schema-not-object", `{"name":"a","inputSchema":[]}`, tool.ErrInvalidDefinition},
		{"name-not-string", `{"name":1}`, codec.ErrUnknownShape},
		{"tools-not-array", `{"tools":{}}`, codec.ErrUnknownShape},
		{"annotation-not-bool", `{"name":"a","annotations":{"readOnlyHint":"yes"}}`, codec.ErrUnknownShape},
		{"jsonrpc-error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, codec.ErrUnknownShape},
		{"tool-with-tools-member", `{"name":"","tools":[]}`, tool.ErrInvalidDefinition},
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

func TestRoundTrip(t *testing.T) {
	in := tool.Definition{
		Name:         "search",
		Title:        "Search",
		Description:  "Search <the> web & more",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations:  &tool.Annotations{Title: "S", ReadOnlyHint: tool.Bool(true), OpenWorldHint: tool.Bool(false)},
		Extensions: tool.Extensions{
			tool.ExtMCPMeta:          json.RawMessage(`{"k":1}`),
			tool.ExtMCPIcons:         json.RawMessage(`[{"src":"https://x/y.png"}]`),
			tool.ExtMCPExecution:     json.RawMessage(`{"taskSupport":"optional"}`),
			"mcp/annotations/custom": json.RawMessage(`true`),
			"mcp/futureField":        json.RawMessage(`"x"`),
		},
	}
	ts := &codec.Tools{Defs: []tool.Definition{in}, Single: true}
	out1, warns, err := EncodeTools(ts)
	if err != nil || len(warns) != 0 {
		t.Fatalf("EncodeTools: %v %v", err, warns)
	}
	back, err := DecodeTools(out1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ts, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	out2, _, err := EncodeTools(back)
	if err != nil {
		t.Fatal(err)
	}
	if string(out1) != string(out2) {
		t.Errorf("not byte-stable:\n%s\n%s", out1, out2)
	}
}

func TestEncodeWarnsForWhatMCPCannotCarry(t *testing.T) {
	d := tool.Definition{
		Name:       "a",
		Behavior:   &tool.Behavior{Action: tool.ActionRead},
		Security:   &tool.Security{PII: tool.PIINone},
		Version:    "1",
		Extensions: tool.Extensions{tool.ExtOpenAIStrict: json.RawMessage(`true`)},
	}
	_, warns, err := EncodeTools(&codec.Tools{Defs: []tool.Definition{d}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.Pointer)
	}
	want := []string{"/0/extensions/openai~1strict", "/0/capability", "/0/security", "/0/version"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warning pointers (-want +got):\n%s", diff)
	}
}

// TestCorpusExamples decodes every example message of the latest MCP
// revision that holds tools or a CallToolResult and checks that it
// re-encodes to an equal JSON value.
func TestCorpusExamples(t *testing.T) {
	dir := filepath.Join(corpustest.Dir(t, "mcp"), "2026-07-28", "examples")
	// folder -> what EncodeTools writes back: the tool, or the whole
	// tools/list result (nextCursor, _meta and the rest kept, issue 16)
	toolDirs := map[string]string{
		"Tool":                    "",
		"ListToolsResult":         "",
		"ListToolsResultResponse": "/result",
	}
	n := 0
	for folder, at := range toolDirs {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*.json"))
		if len(files) == 0 {
			t.Errorf("no examples in %s", folder)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ts, err := DecodeTools(data)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			var want any = parse(t, data)
			for _, tok := range splitPointer(at) {
				want = want.(map[string]any)[tok]
			}
			if folder == "Tool" {
				want = []any{want}
				ts.Single = false
			} else if m := want.(map[string]any); len(m) == 1 {
				want = m["tools"] // a result with nothing else is written as the array
			}
			out, warns, err := EncodeTools(ts)
			if err != nil || len(warns) != 0 {
				t.Errorf("%s: EncodeTools: %v %v", f, err, warns)
				continue
			}
			if diff := cmp.Diff(want, parse(t, out)); diff != "" {
				t.Errorf("%s: re-encoded tools differ (-want +got):\n%s", f, diff)
			}
			n += len(ts.Defs)
		}
	}
	resultDirs := map[string]string{"CallToolResult": "", "CallToolResultResponse": "/result"}
	for folder, at := range resultDirs {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*.json"))
		if len(files) == 0 {
			t.Errorf("no examples in %s", folder)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r, err := DecodeResult(data)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			var want any = parse(t, data)
			for _, tok := range splitPointer(at) {
				want = want.(map[string]any)[tok]
			}
			out, warns, err := EncodeResult(r)
			if err != nil || len(warns) != 0 {
				t.Errorf("%s: EncodeResult: %v %v", f, err, warns)
				continue
			}
			if diff := cmp.Diff(want, parse(t, out)); diff != "" {
				t.Errorf("%s: re-encoded result differs (-want +got):\n%s", f, diff)
			}
			n++
		}
	}
	callDirs := map[string]string{"CallToolRequest": "/params", "CallToolRequestParams": ""}
	for folder, at := range callDirs {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*.json"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			c, err := DecodeCall(data)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			var want any = parse(t, data)
			for _, tok := range splitPointer(at) {
				want = want.(map[string]any)[tok]
			}
			out, warns, err := EncodeCall(c)
			if err != nil || len(warns) != 0 {
				t.Errorf("%s: EncodeCall: %v %v", f, err, warns)
				continue
			}
			if diff := cmp.Diff(want, parse(t, out)); diff != "" {
				t.Errorf("%s: re-encoded call differs (-want +got):\n%s", f, diff)
			}
		}
	}
	t.Logf("%d tools and results round-tripped", n)
}

// TestCorpusToolFieldsCarried checks, for every revision's schema, that
// each member the schema defines for Tool survives a decode/encode round
// trip: the codec must carry every Tool field of every revision.
func TestCorpusToolFieldsCarried(t *testing.T) {
	root := corpustest.Dir(t, "mcp")
	revs, _ := filepath.Glob(filepath.Join(root, "*", "schema.json"))
	if len(revs) < 5 {
		t.Fatalf("found %d MCP revisions, want at least 5", len(revs))
	}
	samples := map[string]string{
		"name": `"t"`, "title": `"T"`, "description": `"d"`, "inputSchema": `{"type":"object"}`,
		"outputSchema": `{"type":"object"}`, "annotations": `{"title":"A","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`,
	}
	for _, rev := range revs {
		s := parse(t, mustRead(t, rev)).(map[string]any)
		defs, _ := s["$defs"].(map[string]any)
		if defs == nil {
			defs = s["definitions"].(map[string]any)
		}
		props := defs["Tool"].(map[string]any)["properties"].(map[string]any)
		doc := map[string]json.RawMessage{}
		for name := range props {
			v, ok := samples[name]
			if !ok {
				v = `{"sample":"` + name + `"}`
			}
			doc[name] = json.RawMessage(v)
		}
		data, _ := json.Marshal(doc)
		ts, err := DecodeTools(data)
		if err != nil {
			t.Errorf("%s: %v", rev, err)
			continue
		}
		out, warns, err := EncodeTools(ts)
		if err != nil || len(warns) != 0 {
			t.Errorf("%s: %v %v", rev, err, warns)
			continue
		}
		if diff := cmp.Diff(parse(t, data), parse(t, out)); diff != "" {
			t.Errorf("%s: Tool fields lost (-want +got):\n%s", rev, diff)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return v
}

func splitPointer(p string) []string {
	var out []string
	for p != "" {
		p = p[1:]
		i := 0
		for i < len(p) && p[i] != '/' {
			i++
		}
		out = append(out, p[:i])
		p = p[i:]
	}
	return out
}

func FuzzDecodeTools(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","inputSchema":{"type":"object"}}`,
		`[{"name":"a","annotations":{"readOnlyHint":true,"x":1}},{"name":"b","_meta":{}}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","icons":[]}],"nextCursor":"c"}}`,
		`{"tools":[]}`, `[]`, `null`, `{"name":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := DecodeTools(data)
		if err != nil {
			return
		}
		out, _, err := EncodeTools(ts)
		if err != nil {
			t.Fatalf("EncodeTools after DecodeTools: %v", err)
		}
		back, err := DecodeTools(out)
		if err != nil {
			t.Fatalf("DecodeTools(EncodeTools(x)): %v\n%s", err, out)
		}
		want := ts.Defs
		for i := range want {
			if want[i].InputSchema == nil {
				want[i].InputSchema = json.RawMessage(`{"type":"object"}`)
			}
		}
		if diff := cmp.Diff(want, back.Defs); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

// TestServerTools decodes the real servers' tool definitions in
// testdata/servers (see its README) and writes each back unchanged.
func TestServerTools(t *testing.T) {
	files, err := filepath.Glob("testdata/servers/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := DecodeTools(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(ts.Defs) != 1 || !ts.Single || len(ts.Warnings) != 0 {
			t.Errorf("%s: %d definitions, single %v, warnings %v", f, len(ts.Defs), ts.Single, ts.Warnings)
			continue
		}
		out, warns, err := EncodeTools(ts)
		if err != nil || len(warns) != 0 {
			t.Errorf("%s: EncodeTools: %v %v", f, err, warns)
			continue
		}
		if diff := cmp.Diff(parse(t, data), parse(t, out)); diff != "" {
			t.Errorf("%s: written back differently (-want +got):\n%s", f, diff)
		}
	}
	if len(files) < 100 {
		t.Errorf("%d server tool definitions in testdata/servers, want at least 100", len(files))
	}
}
