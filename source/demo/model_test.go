// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package demo

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestModelTurns(t *testing.T) {
	tools := `"tools":[{"type":"function","function":{"name":"tasks_listTasks"}},{"type":"function","function":{"name":"createTask"}}]`
	tests := []struct {
		name, messages string
		call, args     string
		text           string
	}{
		{"question", `[{"role":"user","content":"What is open?"}]`, "tasks_listTasks", `{}`, ""},
		{"add", `[{"role":"user","content":"Please add a task called \"Buy milk\"."}]`, "createTask", `{"title":"Buy milk"}`, ""},
		{"denied", `[{"role":"user","content":"add Buy milk"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"createTask","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"call denied (justification_required)"}]`,
			"", "", `The gateway answered: call denied (justification_required)`},
		{"not json result", `[{"role":"user","content":"what?"},{"role":"tool","tool_call_id":"c","content":"oops"}]`, "", "", "The tracker answered: oops"},
		{"parts", `[{"role":"user","content":[{"type":"text","text":"Create task Ship it"}]}]`, "createTask", `{"title":"Ship it"}`, ""},
		{"no user", `[{"role":"system","content":"x"}]`, "", "", "Ask me about the tasks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				body := `{"model":"demo","stream":` + map[bool]string{false: "false", true: "true"}[stream] + `,"messages":` + tt.messages + `,` + tools + `}`
				rec := httptest.NewRecorder()
				NewModel().ServeHTTP(rec, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body)))
				out := rec.Body.String()
				if rec.Code != 200 {
					t.Fatalf("status %d: %s", rec.Code, out)
				}
				if tt.call != "" {
					name, _ := json.Marshal(tt.call)
					args, _ := json.Marshal(tt.args)
					if !strings.Contains(out, `"name":`+string(name)) || !strings.Contains(out, string(args)) {
						t.Errorf("stream %v: no call %s %s in:\n%s", stream, tt.call, tt.args, out)
					}
				}
				if tt.text != "" && !strings.Contains(out, tt.text) {
					t.Errorf("stream %v: no %q in:\n%s", stream, tt.text, out)
				}
			}
		})
	}
}

func TestModelRefuses(t *testing.T) {
	for _, tt := range []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/v1/chat/completions", "", http.StatusNotFound},
		{"POST", "/v1/responses", "{}", http.StatusNotFound},
		{"POST", "/v1/chat/completions", "{", http.StatusBadRequest},
		{"POST", "/v1/chat/completions", strings.Repeat(" ", maxModelRequest+1), http.StatusBadRequest},
	} {
		rec := httptest.NewRecorder()
		NewModel().ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body)))
		if rec.Code != tt.status || !json.Valid(rec.Body.Bytes()) {
			t.Errorf("%s %s: %d %s, want %d", tt.method, tt.path, rec.Code, rec.Body, tt.status)
		}
	}
}

// FuzzModel checks that any request body gets a well-formed answer or a
// 400, never a panic.
func FuzzModel(f *testing.F) {
	f.Add([]byte(`{"model":"demo","messages":[{"role":"user","content":"add x"}],"tools":[{"function":{"name":"createTask"}}]}`))
	f.Add([]byte(`{"stream":true,"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"tool","content":"{\"tasks\":[{}]}"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		NewModel().ServeHTTP(rec, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(string(body))))
		switch rec.Code {
		case 200:
			if !strings.Contains(rec.Header().Get("Content-Type"), "event-stream") && !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("invalid JSON answer: %s", rec.Body)
			}
		case 400:
		default:
			t.Fatalf("status %d", rec.Code)
		}
	})
}
