// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

// nest wraps inner in depth levels, alternating objects and arrays.
func nest(inner string, depth int) string {
	for d := 0; d < depth; d++ {
		if d%2 == 0 {
			inner = fmt.Sprintf(`{"level%d":%s,"pad":"ok"}`, d, inner)
		} else {
			inner = `[1,` + inner + `]`
		}
	}
	return inner
}

func marshalResult(t *testing.T, r tool.Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFirewallCanaries plants secrets at every depth from 0 to 50 in every
// place a result can carry them, and checks none gets through, under every
// mode, with and without projection, and in error results.
func TestFirewallCanaries(t *testing.T) {
	fw := NewFirewall(&FirewallConfig{MaxDepth: -1, MaxBytes: -1})
	secrets := []string{
		`"` + canary + `"`,
		`{"password":"hunter2hunter2"}`,
		`"postgres://app:hunter2hunter2@db/x"`,
		`"Bearer abcdef0123456789abcdef"`,
		`4111111111111111`,
	}
	leaks := []string{canary, "hunter2hunter2", "abcdef0123456789abcdef", "4111111111111111"}
	fields, _ := compileFields([]string{"*"})
	for depth := 0; depth <= 50; depth++ {
		for si, s := range secrets {
			doc := nest(s, depth)
			for _, mode := range []Mode{ModeDefault, ModeSummary, ModeTable, ModeRaw} {
				for _, isErr := range []bool{false, true} {
					res := tool.Result{
						Content: []tool.Content{
							&tool.JSON{Value: json.RawMessage(doc)},
							&tool.Text{Text: "text " + doc},
							&tool.Resource{URI: "https://u:hunter2hunter2@h/x", Text: doc},
						},
						StructuredContent: json.RawMessage(doc),
						IsError:           isErr,
					}
					for _, f := range []*fieldTree{nil, fields} {
						got := marshalResult(t, fw.apply(res, f, mode, fw.red))
						for _, l := range leaks {
							if strings.Contains(got, l) {
								t.Fatalf("depth %d secret %d mode %q error %v projected %v: %q leaked in %s", depth, si, mode, isErr, f != nil, l, got)
							}
						}
					}
				}
			}
		}
	}
}

func TestFirewallBudgets(t *testing.T) {
	rows := `[` + strings.TrimSuffix(strings.Repeat(`{"i":1},`, 10), ",") + `]`
	tests := []struct {
		name string
		cfg  FirewallConfig
		in   tool.Content
		mode Mode
		want []string
	}{
		{"rows", FirewallConfig{MaxRows: 3}, &tool.JSON{Value: json.RawMessage(rows)}, ModeDefault,
			[]string{`[{"i":1},{"i":1},{"i":1}]`, "[toolgate: 7 array items cut beyond 3 per array (first at the root)]"}},
		{"depth", FirewallConfig{MaxDepth: 2}, &tool.JSON{Value: json.RawMessage(`{"a":{"b":{"c":1}},"x":[[1]]}`)}, ModeDefault,
			[]string{`{"a":{"b":"[toolgate: cut, too deep]"},"x":["[toolgate: cut, too deep]"]}`, "[toolgate: 2 values cut beyond depth 2 (first at /a/b)]"}},
		{"bytes-text", FirewallConfig{MaxBytes: 10}, &tool.Text{Text: "0123456789abcdef"}, ModeDefault,
			[]string{"0123456789", "[toolgate: text truncated: 6 of 16 bytes cut]"}},
		{"bytes-utf8", FirewallConfig{MaxBytes: 4}, &tool.Text{Text: "aéééé"}, ModeDefault,
			[]string{"aé", "[toolgate: text truncated: 6 of 9 bytes cut]"}},
		{"bytes-json", FirewallConfig{MaxBytes: 8}, &tool.JSON{Value: json.RawMessage(`{"long":"value"}`)}, ModeDefault,
			[]string{`{"long":`, "[toolgate: JSON at the root was 16 bytes, over the 8-byte budget; shown cut as text; text truncated: 8 of 16 bytes cut]"}},
		{"raw-skips-budgets", FirewallConfig{MaxRows: 3}, &tool.JSON{Value: json.RawMessage(rows)}, ModeRaw,
			[]string{rows}},
		{"summary-object", FirewallConfig{}, &tool.JSON{Value: json.RawMessage(`{"a":1,"b":"x","c":[1]}`)}, ModeSummary,
			[]string{"object with 3 fields: a (number), b (string), c (array)"}},
		{"summary-array", FirewallConfig{}, &tool.JSON{Value: json.RawMessage(`[{"i":1},{"i":2}]`)}, ModeSummary,
			[]string{`array of 2 items; first: {"i":1}`}},
		{"table", FirewallConfig{}, &tool.JSON{Value: json.RawMessage(`[{"name":"Ada","age":36},{"name":"Al|an","city":"London"}]`)}, ModeTable,
			[]string{"| name | age | city |\n| --- | --- | --- |\n| Ada | 36 |  |\n| Al\\|an |  | London |"}},
		{"table-not-rows", FirewallConfig{}, &tool.JSON{Value: json.RawMessage(`{"a":1}`)}, ModeTable,
			[]string{`{"a":1}`}},
		{"invalid-json", FirewallConfig{}, &tool.JSON{Value: json.RawMessage(`{"a":`)}, ModeDefault,
			[]string{`{"a":`, "[toolgate: invalid JSON from the tool at the root shown as text]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fw := NewFirewall(&tt.cfg)
			got := fw.apply(tool.Result{Content: []tool.Content{tt.in}}, nil, tt.mode, fw.red)
			var texts []string
			for _, c := range got.Content {
				switch c := c.(type) {
				case *tool.Text:
					texts = append(texts, c.Text)
				case *tool.JSON:
					texts = append(texts, string(c.Value))
				}
			}
			if diff := cmp.Diff(tt.want, texts); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProjection(t *testing.T) {
	doc := `{"name":"Ada","ssn":"078-05-1120","address":{"city":"London","street":"1 Main"},"orders":[{"id":1,"card":"x"},{"id":2}],"tags":["a","b"]}`
	tests := []struct {
		name   string
		fields []string
		want   string
	}{
		{"top-level", []string{"name"}, `{"name":"Ada"}`},
		{"nested", []string{"address.city"}, `{"address":{"city":"London"}}`},
		{"through-arrays", []string{"orders.id"}, `{"orders":[{"id":1},{"id":2}]}`},
		{"whole-subtree", []string{"address", "tags"}, `{"address":{"city":"London","street":"1 Main"},"tags":["a","b"]}`},
		{"wildcard", []string{"*.city"}, `{"address":{"city":"London"},"orders":[{},{}],"tags":[]}`},
		{"scalar-where-object-expected", []string{"name.first"}, `{}`},
		{"nothing-allowed", nil, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft := &fieldTree{}
			if tt.fields != nil {
				var err error
				if ft, err = compileFields(tt.fields); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, string(project([]byte(doc), ft))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	fw := NewFirewall(nil)
	ft, _ := compileFields([]string{"name"})
	got := fw.apply(tool.TextResult("", "Ada's SSN is 078-05-1120"), ft, ModeDefault, fw.red)
	if text := got.Text(); strings.Contains(text, "078-05-1120") || !strings.Contains(text, "withheld") {
		t.Errorf("restricted text output: %s", text)
	}
	got = fw.apply(tool.TextResult("", doc), ft, ModeDefault, fw.red)
	if text := got.Text(); text != `{"name":"Ada"}` {
		t.Errorf("restricted JSON text: %s", text)
	}
}

// FuzzFirewall feeds arbitrary tool output through the firewall with a
// canary appended and checks it never panics, never leaks the canary and
// returns valid JSON for JSON content.
func FuzzFirewall(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `"x"`, `{"a":[1,{"b":null}]}`, `{"password":"x"}`, `not json`, nest(`"deep"`, 40), `[` + strings.Repeat(`1,`, 300) + `1]`} {
		f.Add(s, uint8(0))
	}
	fw := NewFirewall(&FirewallConfig{MaxRows: 5, MaxDepth: 8, MaxBytes: 512})
	ft, _ := compileFields([]string{"a", "b.c"})
	modes := []Mode{ModeDefault, ModeSummary, ModeTable, ModeRaw}
	f.Fuzz(func(t *testing.T, doc string, sel uint8) {
		var fields *fieldTree
		if sel&4 != 0 {
			fields = ft
		}
		in := tool.Result{Content: []tool.Content{
			&tool.JSON{Value: json.RawMessage(doc)},
			&tool.Text{Text: doc + " " + canary},
		}, StructuredContent: json.RawMessage(`{"k":"` + canary + `","v":` + strings.Repeat(" ", len(doc)%3) + `1}`)}
		out := fw.apply(in, fields, modes[sel%4], fw.red)
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
		if strings.Contains(string(b), canary) {
			t.Fatalf("canary leaked: %s", b)
		}
		for _, c := range out.Content {
			if j, ok := c.(*tool.JSON); ok && !json.Valid(j.Value) {
				t.Fatalf("invalid JSON content %q", j.Value)
			}
		}
	})
}

// FuzzDecodeArguments checks argument decoding never panics, accepts only
// objects, and hands on bytes that decode to the input minus
// _justification.
func FuzzDecodeArguments(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"a":1}`, `{"a":1,"a":2}`, `[1]`, `{"_justification":"because","x":[1,2]}`, `{"_justification":3}`, "{\"\\u005fjustification\":\"x\"}", `{"a":"\xff"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args, just, err := DecodeArguments(json.RawMessage(in), nil)
		if err != nil {
			return
		}
		var got map[string]any
		if err := json.Unmarshal(args, &got); err != nil {
			t.Fatalf("decoded arguments %q are not an object: %v", args, err)
		}
		if _, ok := got[JustificationArg]; ok {
			t.Fatalf("_justification left in %q", args)
		}
		if strings.TrimSpace(in) == "" {
			return
		}
		var orig map[string]any
		if err := json.Unmarshal([]byte(in), &orig); err != nil {
			t.Fatalf("accepted %q that encoding/json rejects: %v", in, err)
		}
		if j, ok := orig[JustificationArg]; ok {
			if j != just {
				t.Fatalf("justification %q, want %v", just, j)
			}
			delete(orig, JustificationArg)
		}
		if diff := cmp.Diff(orig, got); diff != "" {
			t.Fatalf("arguments changed (-in +out):\n%s", diff)
		}
	})
}
