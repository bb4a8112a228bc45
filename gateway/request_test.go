// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/tool"
)

var fixtureAPI = map[string]API{"chat.json": APIChat, "messages.json": APIMessages, "responses.json": APIResponses}

// requestView is what must cross from one API to another unchanged: the
// conversation's text, calls and results, the tools by name, the choice
// and the bounds.
type requestView struct {
	System    string
	Messages  []string
	Tools     []string
	Choice    string
	MaxTokens int
	Stop      []string
}

func comparableOf(r *Request, backend API) requestView {
	c := requestView{System: r.System, MaxTokens: r.MaxTokens}
	if backend != APIResponses {
		c.Stop = r.Stop
	}
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			var s string
			switch p.Kind {
			case PartText:
				s = "text:" + p.Text
			case PartImage:
				s = "image:" + p.URL + p.MediaType + p.Data
			case PartCall:
				var v any
				_ = json.Unmarshal(p.Arguments, &v)
				a, _ := json.Marshal(v)
				s = "call:" + p.CallID + ":" + p.Name + ":" + string(a)
			case PartResult:
				var text string
				for _, c := range p.Content {
					text += c.Text
				}
				if p.IsError && backend != APIMessages {
					text = "Error: " + text // the text the backend sees
				}
				s = "result:" + p.CallID + ":" + strings.TrimPrefix(text, "Error: ")
			default:
				continue // reasoning is checked by the golden: where it goes depends on the backend
			}
			c.Messages = append(c.Messages, string(m.Role)+" "+s)
		}
	}
	for _, d := range r.Tools {
		c.Tools = append(c.Tools, d.Name)
	}
	if r.Choice != nil {
		c.Choice = string(r.Choice.Mode) + ":" + r.Choice.Name
		if r.Choice.DisableParallel && r.Choice.Mode != tool.ChoiceNone {
			c.Choice += ":one"
		}
	}
	return c
}

// TestRequestTranslation writes each client request for every backend
// (the bodies are pinned in the golden) and reads each body back as a
// request of the backend's API: the conversation, the tools, the choice
// and the bounds must come through.
func TestRequestTranslation(t *testing.T) {
	path := filepath.Join("testdata", "requests.txtar")
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var inputs []txtar.File
	want := map[string]string{}
	for _, f := range ar.Files {
		if _, ok := fixtureAPI[f.Name]; ok {
			inputs = append(inputs, f)
		} else {
			want[f.Name] = string(f.Data)
		}
	}
	files := append([]txtar.File(nil), inputs...)
	for _, in := range inputs {
		front := fixtureAPI[in.Name]
		req, err := DecodeRequest(front, in.Data, 0)
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		for _, backend := range fronts {
			name := strings.TrimSuffix(in.Name, ".json") + "->" + string(backend)
			t.Run(name, func(t *testing.T) {
				// Extra members only travel to the same API.
				r := *req
				if backend != front {
					r.Extra = nil
				}
				out, err := EncodeRequest(&r, &BackendOptions{API: backend, Model: "backend-model", Compat: backend == APIChat})
				if err != nil {
					t.Fatal(err)
				}
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, out.Body, "", " "); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, out.Body)
				}
				for _, w := range out.Warnings {
					pretty.WriteString("\nwarning: " + w.String())
				}
				pretty.WriteString("\n")
				files = append(files, txtar.File{Name: name, Data: pretty.Bytes()})
				if !*update {
					if diff := cmp.Diff(want[name], pretty.String()); diff != "" {
						t.Errorf("body (-want +got)\n%s", diff)
					}
				}
				back, err := DecodeRequest(backend, out.Body, 0)
				if err != nil {
					t.Fatalf("the backend body does not read back: %v", err)
				}
				// Lowering may rename tools for the backend: map back.
				for i := range back.Tools {
					if out.Names != nil {
						if orig, ok := out.Names.Unmap(back.Tools[i].Name); ok {
							back.Tools[i].Name = orig
						}
					}
				}
				for _, m := range back.Messages {
					for i := range m.Parts {
						if out.Names != nil && m.Parts[i].Kind == PartCall {
							if orig, ok := out.Names.Unmap(m.Parts[i].Name); ok {
								m.Parts[i].Name = orig
							}
						}
					}
				}
				if back.Choice != nil && out.Names != nil {
					if orig, ok := out.Names.Unmap(back.Choice.Name); ok {
						back.Choice.Name = orig
					}
				}
				wantC, gotC := comparableOf(&r, backend), comparableOf(back, backend)
				if backend == APIMessages {
					// Anthropic requires a bound, above any thinking
					// budget: the gateway sets or raises it, with a
					// warning for a raise.
					raised := false
					for _, w := range out.Warnings {
						raised = raised || w.Code == "max-tokens-raised"
					}
					if wantC.MaxTokens == 0 || raised {
						wantC.MaxTokens = gotC.MaxTokens
					}
				}
				if diff := cmp.Diff(wantC, gotC); diff != "" {
					t.Errorf("(-client +backend)\n%s", diff)
				}
			})
		}
	}
	if *update {
		ar.Files = files
		if err := writeFile(path, txtar.Format(ar)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	tests := []struct {
		name    string
		api     API
		body    string
		pointer string
		status  int
	}{
		{name: "not-json", api: APIChat, body: `{"model":`, status: 400},
		{name: "duplicate-key", api: APIChat, body: `{"model":"a","model":"b","messages":[]}`, pointer: "/model", status: 400},
		{name: "no-model", api: APIChat, body: `{"messages":[{"role":"user","content":"hi"}]}`, pointer: "/model", status: 400},
		{name: "no-messages", api: APIMessages, body: `{"model":"m","max_tokens":1}`, pointer: "/messages", status: 400},
		{name: "bad-role", api: APIChat, body: `{"model":"m","messages":[{"role":"wizard","content":"hi"}]}`, pointer: "/messages/0/role", status: 400},
		{name: "bad-arguments", api: APIChat, body: `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{bad"}}]}]}`, pointer: "/messages/0/tool_calls/0/function/arguments", status: 400},
		{name: "store-true", api: APIResponses, body: `{"model":"m","input":"hi","store":true}`, pointer: "/store", status: 400},
		{name: "previous-response", api: APIResponses, body: `{"model":"m","input":"hi","previous_response_id":"resp_1"}`, pointer: "/previous_response_id", status: 400},
		{name: "n-greater-than-one", api: APIChat, body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2}`, pointer: "/n", status: 400},
		{name: "unknown-block", api: APIMessages, body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"hologram"}]}]}`, pointer: "/messages/0/content/0/type", status: 400},
		{name: "too-large", api: APIChat, body: `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`, status: 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRequest(tt.api, []byte(tt.body), 1024)
			var re *RequestError
			if !errors.As(err, &re) || !errors.Is(err, ErrBadRequest) {
				t.Fatalf("err = %v, want a *RequestError", err)
			}
			if re.Status != tt.status || (tt.pointer != "" && re.Pointer != tt.pointer) {
				t.Errorf("got %d %q, want %d %q (%v)", re.Status, re.Pointer, tt.status, tt.pointer, err)
			}
		})
	}
}

// TestExtraMembers passes a member the gateway does not translate through
// to a backend of the same API; for another, the member table decides: a
// hint is dropped with a warning naming it, a member whose loss would
// change the answer is refused, naming it.
func TestExtraMembers(t *testing.T) {
	req, err := DecodeRequest(APIChat, []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"logit_bias":{"50256":-100},"seed":7}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := EncodeRequest(req, &BackendOptions{API: APIChat, Model: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Body, []byte(`"logit_bias":{"50256":-100}`)) || !bytes.Contains(out.Body, []byte(`"seed":7`)) {
		t.Errorf("extra members not passed through: %s", out.Body)
	}
	out, err = EncodeRequest(req, &BackendOptions{API: APIMessages, Model: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out.Body, []byte("logit_bias")) || len(out.Warnings) != 2 || out.Warnings[0].Pointer != "/logit_bias" || out.Warnings[1].Pointer != "/seed" {
		t.Errorf("hints not dropped with a warning each: %s %+v", out.Body, out.Warnings)
	}
	req, err = DecodeRequest(APIChat, []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = EncodeRequest(req, &BackendOptions{API: APIMessages, Model: "x"})
	var re *RequestError
	if !errors.As(err, &re) || re.Pointer != "/response_format" {
		t.Errorf("err = %v, want a refusal naming /response_format", err)
	}
}

// FuzzDecodeRequest: no panic on any body, and a body that decodes can be
// written for every backend or is refused with a *RequestError.
func FuzzDecodeRequest(f *testing.F) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "requests.txtar"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		if api, ok := fixtureAPI[file.Name]; ok {
			f.Add(file.Data, uint8(map[API]int{APIChat: 0, APIMessages: 1, APIResponses: 2}[api]))
		}
	}
	// Replayed server-tool blocks of calls the gateway ran (mediation).
	f.Add([]byte(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"a"},`+
		`{"type":"mcp_tool_use","id":"c1","name":"listTasks","server_name":"tasks","input":{}},{"type":"mcp_tool_result","tool_use_id":"c1","is_error":false,"content":[{"type":"text","text":"[]"}]},`+
		`{"type":"text","text":"b"}]},{"role":"user","content":"ok"}]}`), uint8(1))
	f.Add([]byte(`{"model":"m","input":[{"role":"user","content":"hi"},{"id":"mcp_c1","type":"mcp_call","status":"completed","server_label":"tasks","name":"listTasks","arguments":"{}","output":"[]","error":null},{"role":"user","content":"ok"}]}`), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		api := fronts[int(which)%3]
		req, err := DecodeRequest(api, body, 1<<20)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("error is not a *RequestError: %v", err)
			}
			return
		}
		for _, backend := range fronts {
			out, err := EncodeRequest(req, &BackendOptions{API: backend, Model: "m"})
			if err != nil {
				var re *RequestError
				if !errors.As(err, &re) {
					t.Fatalf("error is not a *RequestError: %v", err)
				}
				continue
			}
			if !json.Valid(out.Body) {
				t.Fatalf("%s body is not JSON: %s", backend, out.Body)
			}
		}
	})
}

// TestMemberSet: a body's members in document order; a member taken is
// gone from get, has and rest; set replaces in place or adds last; what
// is left is Extra, nil when nothing is.
func TestMemberSet(t *testing.T) {
	m, err := memberSetOf([]byte(`{"b":1,"a":"x","c":[2],"d":null}`), "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, mb := range m.ms {
		keys = append(keys, mb.key)
	}
	if strings.Join(keys, ",") != "b,a,c,d" || m.left != 4 {
		t.Fatalf("members %v, %d left", keys, m.left)
	}
	var a string
	if err := take(m, "a", &a); err != nil || a != "x" || m.has("a") {
		t.Errorf("take a: %q, %v, still there: %v", a, err, m.has("a"))
	}
	if err := take(m, "a", &a); err != nil {
		t.Errorf("take a again: %v", err)
	}
	m.del("d")
	m.del("nope")
	m.set("c", json.RawMessage(`[3]`))
	m.set("e", json.RawMessage(`true`))
	if v, ok := m.get("c"); !ok || string(v) != "[3]" {
		t.Errorf("c = %s, %v", v, ok)
	}
	got := rest(m)
	want := map[string]json.RawMessage{"b": json.RawMessage(`1`), "c": json.RawMessage(`[3]`), "e": json.RawMessage(`true`)}
	if len(got) != len(want) || m.left != 3 {
		t.Fatalf("rest %v (%d left), want %v", got, m.left, want)
	}
	for k, v := range want {
		if string(got[k]) != string(v) {
			t.Errorf("rest[%s] = %s, want %s", k, got[k], v)
		}
	}
	for _, k := range []string{"b", "c", "e"} {
		m.del(k)
	}
	if rest(m) != nil {
		t.Errorf("rest of an empty set is %v, want nil", rest(m))
	}
	if _, err := memberSetOf([]byte(`[1]`), "/x"); err == nil {
		t.Error("an array read as members")
	}
}
