// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRoutesAsTheMux: ServeHTTP, which serves the model routes without
// its mux, answers every request as the mux alone does, and leaves the
// same pattern in the request: the routes, paths near them (a trailing
// slash, a doubled or escaped slash, a dot segment, another case, a
// query), other methods and the other routes.
func TestRoutesAsTheMux(t *testing.T) {
	whole := []byte(`{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"hi","role":"assistant"}}],"created":1,"id":"c","model":"m","object":"chat.completion","usage":{"completion_tokens":1,"prompt_tokens":1}}`)
	p := Provider{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true}
	chat := `{"model":"m","messages":[{"role":"user","content":"Say hello."}]}`
	reqs := []struct{ method, target, body string }{
		{"POST", "/v1/chat/completions", chat},
		{"POST", "/v1/chat/completions?x=1", chat},
		{"POST", "http://other.example/v1/chat/completions", chat},
		{"POST", "/v1/chat/completions/", chat},
		{"POST", "//v1/chat/completions", chat},
		{"POST", "/v1/./chat/completions", chat},
		{"POST", "/v1/chat%2Fcompletions", chat},
		{"POST", "/v1/chat/%63ompletions", chat},
		{"POST", "/V1/chat/completions", chat},
		{"GET", "/v1/chat/completions", ""},
		{"HEAD", "/v1/chat/completions", ""},
		{"PUT", "/v1/messages", chat},
		{"POST", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`},
		{"POST", "/v1/responses", `{"model":"m","input":"hi"}`},
		{"POST", "/v1/responses", `{"model":"nope","input":"hi"}`},
		{"POST", "/v1/messages", `{`},
		{"GET", "/v1/models", ""},
		{"POST", "/v1beta/models/m:generateContent", `{"contents":[{"parts":[{"text":"hi"}]}]}`},
		{"POST", "/generate", `{"model":"m","prompt":"hi"}`},
		{"POST", "/nowhere", ""},
	}
	for _, rq := range reqs {
		var got [2]struct {
			code    int
			body    string
			pattern string
			loc     string
		}
		for i := range got {
			h := newBenchHandler(t, p, wholeBackend{whole}, true)
			r := httptest.NewRequest(rq.method, rq.target, strings.NewReader(rq.body))
			w := httptest.NewRecorder()
			if i == 0 {
				h.ServeHTTP(w, r)
			} else {
				h.mux.ServeHTTP(w, r)
			}
			got[i].code, got[i].body, got[i].pattern, got[i].loc = w.Code, w.Body.String(), r.Pattern, w.Header().Get("Location")
		}
		if got[0] != got[1] {
			t.Errorf("%s %s: ServeHTTP %+v, the mux %+v", rq.method, rq.target, got[0], got[1])
		}
	}
}
