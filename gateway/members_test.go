// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

// sdkParams are the request types of the pinned SDKs in e2e/node_modules
// whose members every front door's table must hold.
var sdkParams = []struct {
	api   API
	file  string
	iface string
}{
	{APIChat, "openai/resources/chat/completions/completions.d.ts", "ChatCompletionCreateParamsBase"},
	{APIResponses, "openai/resources/responses/responses.d.ts", "ResponseCreateParamsBase"},
	{APIMessages, "@anthropic-ai/sdk/resources/messages/messages.d.ts", "MessageCreateParamsBase"},
	{APIMessages, "@anthropic-ai/sdk/resources/beta/messages/messages.d.ts", "MessageCreateParamsBase"},
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	memberName   = regexp.MustCompile(`^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*:`)
)

// interfaceMembers returns the top-level member names of TypeScript
// interface iface in src: comments stripped, braces counted.
func interfaceMembers(src, iface string) ([]string, bool) {
	src = blockComment.ReplaceAllString(src, "")
	src = lineComment.ReplaceAllString(src, "")
	i := strings.Index(src, "export interface "+iface+" {")
	if i < 0 {
		return nil, false
	}
	body := src[strings.IndexByte(src[i:], '{')+i:]
	var names []string
	depth := 0
	stmt := ""
	prev := ' '
	for _, c := range body {
		switch {
		case c == '{' || c == '(' || c == '[' || c == '<':
			depth++
		case c == '>' && prev == '=': // an arrow, not a closing bracket
		case c == '}' || c == ')' || c == ']' || c == '>':
			depth--
		}
		prev = c
		if depth == 0 {
			break
		}
		if depth == 1 && (c == ';' || c == '\n') {
			if m := memberName.FindStringSubmatch(stmt); m != nil {
				names = append(names, m[1])
			}
			stmt = ""
			continue
		}
		if depth == 1 {
			stmt += string(c)
		}
	}
	return names, true
}

func nodeModules(t *testing.T) string {
	dir := filepath.Join("..", "e2e", "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "openai")); err != nil {
		t.Skip("e2e/node_modules has no SDKs (run npm ci in e2e): the member tables are not checked against them")
	}
	return dir
}

// TestMemberTableCoversSDKs fails when a request member of a pinned SDK's
// request type is in no member table: a new SDK brought a member the
// gateway must classify.
func TestMemberTableCoversSDKs(t *testing.T) {
	dir := nodeModules(t)
	for _, p := range sdkParams {
		src, err := os.ReadFile(filepath.Join(dir, p.file))
		if err != nil {
			t.Errorf("%s: %v", p.file, err)
			continue
		}
		names, ok := interfaceMembers(string(src), p.iface)
		if !ok || len(names) < 10 {
			t.Errorf("%s: interface %s not found or unreadable (%d members)", p.file, p.iface, len(names))
			continue
		}
		for _, n := range names {
			if memberIndex[p.api][n] == nil {
				t.Errorf("%s: member %q of %s is in no row of the %s member table", p.file, n, p.iface, p.api)
			}
		}
	}
}

func TestInterfaceMembers(t *testing.T) {
	src := `/** doc { */
export interface X {
    /** a {b} */
    a: string;
    b?: { c: number; d: Array<{ e: string }> } | null;
    // f: nope
    g?: (x: number) => void;
}
export interface Y { z: 1 }`
	got, ok := interfaceMembers(src, "X")
	if !ok {
		t.Fatal("X not found")
	}
	if diff := cmp.Diff([]string{"a", "b", "g"}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestMemberTableRows checks the tables' shape: every member once, and
// a member passed only to a backend of its own front door's API.
func TestMemberTableRows(t *testing.T) {
	own := map[API]BackendKind{APIChat: KindChat, APIResponses: KindResponses, APIMessages: KindMessages}
	for api, rules := range map[API][]MemberRule{APIChat: chatMembers, APIResponses: responsesMembers, APIMessages: messagesMembers} {
		seen := map[string]bool{}
		for _, r := range rules {
			if seen[r.Name] {
				t.Errorf("%s: %q twice", api, r.Name)
			}
			seen[r.Name] = true
			for k := KindChat; k < numKinds; k++ {
				h := r.By[k]
				if h == 0 {
					t.Errorf("%s %s: no handling for %s", api, r.Name, k)
				}
				// Text models are Chat servers; Responses hints reach
				// OpenAI Chat, which has members of the same name.
				if h == Passed && k != own[api] && k != KindText && !(k == KindChat && api == APIResponses) && !(k == KindResponses && api == APIChat) {
					t.Errorf("%s %s: passed to a %s backend, which speaks another API", api, r.Name, k)
				}
			}
		}
	}
}

func TestExtraFor(t *testing.T) {
	tests := []struct {
		name    string
		api     API
		kind    BackendKind
		compat  bool
		refuse  bool
		extra   string
		keep    []string
		warned  []string
		refused string
	}{
		{name: "same-api-passed", api: APIMessages, kind: KindMessages, extra: `{"metadata":{"user_id":"u"},"context_management":{"edits":[]}}`, keep: []string{"context_management", "metadata"}},
		{name: "hint-dropped", api: APIChat, kind: KindMessages, extra: `{"prompt_cache_key":"k","seed":3}`, warned: []string{"/prompt_cache_key", "/seed"}},
		{name: "openai-only-dropped-for-compat", api: APIChat, kind: KindChat, compat: true, extra: `{"prompt_cache_key":"k","seed":3}`, keep: []string{"seed"}, warned: []string{"/prompt_cache_key"}},
		{name: "unknown-dropped", api: APIChat, kind: KindChat, extra: `{"x_vendor":1}`, warned: []string{"/x_vendor"}},
		{name: "unknown-refused", api: APIChat, kind: KindChat, refuse: true, extra: `{"x_vendor":1}`, refused: "/x_vendor"},
		{name: "refused-when-set", api: APIChat, kind: KindMessages, extra: `{"response_format":{"type":"json_object"}}`, refused: "/response_format"},
		{name: "refused-member-empty", api: APIResponses, kind: KindChat, extra: `{"background":false}`, warned: []string{"/background"}},
		{name: "translated-not-kept", api: APIMessages, kind: KindChat, extra: `{"metadata":{"user_id":"u"},"output_config":{"effort":"high"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.extra), &extra); err != nil {
				t.Fatal(err)
			}
			out := &Outbound{}
			keep, err := extraFor(&Request{API: tt.api, Extra: extra}, tt.kind, tt.compat, tt.refuse, out)
			if tt.refused != "" {
				var re *RequestError
				if !errors.As(err, &re) || re.Pointer != tt.refused {
					t.Fatalf("err = %v, want a refusal of %s", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.keep, extraKeys(keep), emptyNil); diff != "" {
				t.Errorf("kept (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.warned, pointers(out.Warnings), emptyNil); diff != "" {
				t.Errorf("warned (-want +got)\n%s", diff)
			}
		})
	}
}

var emptyNil = cmp.Transformer("emptyNil", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

func pointers(ws []tool.Warning) []string {
	var ps []string
	for _, w := range ws {
		ps = append(ps, w.Pointer)
	}
	return ps
}

func TestMemberWrongType(t *testing.T) {
	for _, tt := range []struct {
		api  API
		body string
		ptr  string
	}{
		{APIMessages, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"context_management":"all"}`, "/context_management"},
		{APIChat, `{"model":"m","messages":[{"role":"user","content":"x"}],"prompt_cache_key":7}`, "/prompt_cache_key"},
		{APIResponses, `{"model":"m","input":"x","truncation":{}}`, "/truncation"},
	} {
		_, err := DecodeRequest(tt.api, []byte(tt.body), 0)
		var re *RequestError
		if !errors.As(err, &re) || re.Pointer != tt.ptr {
			t.Errorf("%s: err = %v, want a refusal naming %s", tt.api, err, tt.ptr)
		}
	}
}

// TestContextEdits checks the emulated context_management edits.
func TestContextEdits(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: "go"}}},
		{Role: RoleAssistant, Parts: []Part{{Kind: PartReasoning, Text: "r1"}, {Kind: PartCall, CallID: "a", Name: "Read", Arguments: json.RawMessage(`{"p":1}`)}}},
		{Role: RoleTool, Parts: []Part{{Kind: PartResult, CallID: "a", Content: []Part{{Kind: PartText, Text: strings.Repeat("x", 400)}}}}},
		{Role: RoleAssistant, Parts: []Part{{Kind: PartReasoning, Text: "r2"}, {Kind: PartCall, CallID: "b", Name: "Bash", Arguments: json.RawMessage(`{"c":1}`)}}},
		{Role: RoleTool, Parts: []Part{{Kind: PartResult, CallID: "b", Content: []Part{{Kind: PartText, Text: "ok"}}}}},
	}
	out := &Outbound{}
	got := applyContextEdits(json.RawMessage(`{"edits":[
		{"type":"clear_thinking_20251015","keep":{"type":"thinking_turns","value":1}},
		{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":50},"keep":{"type":"tool_uses","value":1},"clear_tool_inputs":true},
		{"type":"compact_20260101"}]}`), msgs, out)
	if len(got[1].Parts) != 1 || got[1].Parts[0].Kind != PartCall || string(got[1].Parts[0].Arguments) != "{}" {
		t.Errorf("turn 1: thinking not cleared or input kept: %+v", got[1].Parts)
	}
	if got[2].Parts[0].Content[0].Text != clearedResult {
		t.Errorf("old result not cleared: %q", got[2].Parts[0].Content[0].Text)
	}
	if got[3].Parts[0].Kind != PartReasoning || got[4].Parts[0].Content[0].Text != "ok" {
		t.Errorf("the last turn changed: %+v %+v", got[3], got[4])
	}
	if msgs[1].Parts[0].Kind != PartReasoning || string(msgs[1].Parts[1].Arguments) != `{"p":1}` {
		t.Error("the caller's messages were modified")
	}
	if diff := cmp.Diff([]string{"/context_management/edits/2/type"}, pointers(out.Warnings)); diff != "" {
		t.Errorf("warnings (-want +got)\n%s", diff)
	}
	// Below the trigger nothing is cleared.
	got = applyContextEdits(json.RawMessage(`{"edits":[{"type":"clear_tool_uses_20250919"}]}`), msgs, &Outbound{})
	if got[2].Parts[0].Content[0].Text == clearedResult {
		t.Error("cleared below the default trigger")
	}
}

// FuzzContextEdits: any context_management value is applied or warned
// about, never a panic, and never changes the caller's messages.
func FuzzContextEdits(f *testing.F) {
	f.Add(`{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`)
	f.Add(`{"edits":[{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":0},"keep":{"type":"tool_uses","value":-3},"exclude_tools":["Read"],"clear_tool_inputs":["Bash"]}]}`)
	f.Add(`{"edits":[{"type":"clear_thinking_20251015","keep":{"type":"thinking_turns","value":0}}]}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, s string) {
		msgs := []Message{
			{Role: RoleAssistant, Parts: []Part{{Kind: PartReasoning, Text: "r"}, {Kind: PartCall, CallID: "a", Name: "Read", Arguments: json.RawMessage(`{}`)}}},
			{Role: RoleTool, Parts: []Part{{Kind: PartResult, CallID: "a", Content: []Part{{Kind: PartText, Text: "t"}}}}},
		}
		got := applyContextEdits(json.RawMessage(s), msgs, &Outbound{})
		if len(got) != len(msgs) || msgs[0].Parts[0].Kind != PartReasoning || msgs[1].Parts[0].Content[0].Text != "t" {
			t.Fatalf("messages changed: %+v", msgs)
		}
	})
}

// renderMemberTables writes the member tables as the README prints them.
func renderMemberTables() string {
	var b strings.Builder
	for _, ft := range []struct {
		api   API
		title string
	}{{APIChat, "Chat Completions (`/v1/chat/completions`)"}, {APIResponses, "Responses (`/v1/responses`)"}, {APIMessages, "Messages (`/v1/messages`)"}} {
		b.WriteString("\n" + ft.title + ":\n\n| member | chat | messages | responses | text model | note |\n|---|---|---|---|---|---|\n")
		for _, r := range MemberTable(ft.api) {
			fmt.Fprintf(&b, "| `%s` |", r.Name)
			for k := KindChat; k < numKinds; k++ {
				h := r.By[k].String()
				if r.OpenAIOnly && r.By[k] == Passed {
					h += "¹"
				}
				fmt.Fprintf(&b, " %s |", h)
			}
			fmt.Fprintf(&b, " %s |\n", r.Note)
		}
	}
	// The Gemini front door's table has a column for a Gemini backend.
	b.WriteString("\nGemini (`/v1beta/models/{model}:generateContent`, `:streamGenerateContent`):\n\n| member | chat | messages | responses | text model | gemini | note |\n|---|---|---|---|---|---|---|\n")
	for _, r := range MemberTable(APIGemini) {
		fmt.Fprintf(&b, "| `%s` |", r.Name)
		for k := KindChat; k < numColumns; k++ {
			fmt.Fprintf(&b, " %s |", r.By[k].String())
		}
		fmt.Fprintf(&b, " %s |\n", r.Note)
	}
	b.WriteString("\n¹ passed to OpenAI itself; dropped with a warning for other OpenAI-compatible servers.\n")
	return b.String()
}

const (
	tableStart = "<!-- member tables: go test ./gateway -run TestREADMEMemberTables -update -->\n"
	tableEnd   = "<!-- end of member tables -->\n"
)

// TestREADMEMemberTables fails when the README's member tables are not
// the ones in code; -update rewrites them.
func TestREADMEMemberTables(t *testing.T) {
	path := filepath.Join("..", "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skip("no README.md beside the module")
	}
	s := string(data)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatal("README.md has no member tables between the markers")
	}
	want := renderMemberTables()
	got := s[i+len(tableStart) : j]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(tableStart)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md member tables differ from the code (-want +got):\n%s", cmp.Diff(want, got))
}
