// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const cliSpec = `openapi: 3.0.3
info: {title: Notes, version: "1"}
servers: [{url: "SERVER/v1"}]
security: [{key: []}]
paths:
  /notes/{id}:
    get:
      operationId: getNote
      summary: Read a note
      tags: [notes]
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: fields, in: query, explode: false, schema: {type: array, items: {type: string}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
    delete:
      operationId: deleteNote
      tags: [admin]
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {"204": {description: gone}}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Key}
`

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func writeSpec(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "notes.yaml")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(cliSpec, "SERVER", server)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenAPITools(t *testing.T) {
	spec := writeSpec(t, "https://notes.example")
	tests := []struct {
		name  string
		args  []string
		names []string
	}{
		{"all", []string{"--to", "openai"}, []string{"getNote", "deleteNote"}},
		{"tag", []string{"--to", "anthropic", "--tag", "notes"}, []string{"getNote"}},
		{"generic", []string{"--to", "mcp", "--exclude-tag", "notes", "--include-generic"}, []string{"deleteNote", "http_request"}},
		{"canonical", nil, []string{"getNote", "deleteNote"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, err := runCLI(t, append([]string{"openapi", "tools", spec}, tt.args...)...)
			if err != nil {
				t.Fatalf("err %v, stderr %s", err, stderr)
			}
			var got []string
			var list []map[string]any
			if err := json.Unmarshal([]byte(out), &list); err != nil {
				t.Fatalf("output is not a JSON array: %v\n%s", err, out)
			}
			for _, d := range list {
				if f, ok := d["function"].(map[string]any); ok {
					d = f
				}
				got = append(got, d["name"].(string))
			}
			if diff := cmp.Diff(tt.names, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := runCLI(t, "openapi", "tools", filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, ErrUsage) {
		t.Errorf("missing spec: err %v, want a usage error", err)
	}
}

func TestOpenAPICall(t *testing.T) {
	var got struct{ path, query, key string }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.query, got.key = r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("X-Key")
		if got.key != "k-123456" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"bad key"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"a b"}`)
	}))
	defer srv.Close()
	spec := writeSpec(t, srv.URL)
	t.Setenv("TOOLGATE_OPENAPI_API_KEY", "k-123456")

	// Loopback is refused unless allowed.
	_, _, err := runCLI(t, "openapi", "call", spec, "getNote", `{"id":"a b"}`)
	if !errors.Is(err, ErrProblem) {
		t.Fatalf("loopback without --allow-private: err %v, want a problem", err)
	}

	out, stderr, err := runCLI(t, "openapi", "call", spec, "getNote", `{"id":"a b","fields":["id","body"]}`, "--allow-private")
	if err != nil {
		t.Fatalf("err %v, stderr %s", err, stderr)
	}
	if got.path != "/v1/notes/a%20b" || got.query != "fields=id,body" || got.key != "k-123456" {
		t.Errorf("server saw %+v", got)
	}
	var res struct {
		Structured json.RawMessage `json:"structured_content"`
		IsError    bool            `json:"is_error"`
	}
	var compact bytes.Buffer
	err = json.Unmarshal([]byte(out), &res)
	if err == nil {
		err = json.Compact(&compact, res.Structured)
	}
	if err != nil || res.IsError || compact.String() != `{"id":"a b"}` {
		t.Errorf("result %s (%v)", out, err)
	}
	if strings.Contains(out+stderr, "k-123456") {
		t.Errorf("the API key was printed")
	}

	t.Setenv("TOOLGATE_OPENAPI_API_KEY", "wrong-key-999")
	out, _, err = runCLI(t, "openapi", "call", spec, "getNote", `{"id":"x"}`, "--allow-private")
	if !errors.Is(err, ErrProblem) || !strings.Contains(out, "HTTP 401") {
		t.Errorf("bad key: err %v, out %s", err, out)
	}
	if _, _, err := runCLI(t, "openapi", "call", spec, "nope", "--allow-private"); !errors.Is(err, ErrUsage) {
		t.Errorf("unknown operation: err %v, want a usage error", err)
	}
}

// TestOpenAPICallRedirects pins that a call's redirect stays within the
// spec's servers unless --allow-redirects-anywhere, and that
// --total-timeout bounds the call.
func TestOpenAPICallRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"elsewhere"}`)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/notes/slow" {
			<-r.Context().Done()
			return
		}
		http.Redirect(w, r, other.URL+"/v1/notes/x", http.StatusFound)
	}))
	defer srv.Close()
	spec := writeSpec(t, srv.URL)
	tests := []struct {
		name    string
		args    []string
		wantErr bool
		want    string
	}{
		{"confined", nil, true, "redirect outside the API's servers"},
		{"anywhere", []string{"--allow-redirects-anywhere"}, false, `"id": "elsewhere"`},
		{"total-timeout", []string{"--total-timeout", "100ms", "--timeout", "10s"}, true, "request timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "r"
			if tt.name == "total-timeout" {
				id = "slow"
			}
			args := append([]string{"openapi", "call", spec, "getNote", `{"id":"` + id + `"}`, "--allow-private"}, tt.args...)
			out, stderr, err := runCLI(t, args...)
			if (err != nil) != tt.wantErr || (tt.wantErr && !errors.Is(err, ErrProblem)) {
				t.Fatalf("err %v, want error %v; stderr %s", err, tt.wantErr, stderr)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output %s, want %q", out, tt.want)
			}
		})
	}
}

// TestOpenAPIToolsBrokenCorner pins that a spec broken in one corner
// still gives every operation it can, with a warning naming the corner
// on stderr, and that what toolgate writes passes toolgate's own lint.
func TestOpenAPIToolsBrokenCorner(t *testing.T) {
	// Slack's Swagger 2.0 shape: "items" as an array in a response schema.
	slack := `{"swagger":"2.0","info":{"title":"s","version":"1"},"host":"slack.com","basePath":"/api","schemes":["https"],
"paths":{"/chat.postMessage":{"post":{"operationId":"chat_postMessage","parameters":[{"name":"channel","in":"formData","type":"string"}],
"responses":{"200":{"description":"ok","schema":{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}}}}},
"/users.list":{"get":{"operationId":"users_list","responses":{"200":{"description":"ok"}}}}}}`
	// DigitalOcean's shape: "$ref" among the property names.
	do := "openapi: 3.0.0\ninfo: {title: d, version: '1'}\nservers: [{url: 'https://api.example'}]\npaths:\n  /tags:\n    post:\n" +
		"      operationId: tags_create\n      requestBody:\n        content:\n          application/json:\n            schema:\n" +
		"              type: object\n              properties:\n                $ref: '#/components/schemas/n'\n                name: {type: string}\n" +
		"      responses: {'201': {description: ok}}\ncomponents: {schemas: {n: {type: string}}}\n"
	dir := t.TempDir()
	tests := []struct {
		name, spec, target string
		tools              []string
		stderr             string
	}{
		{"slack", slack, "openai", []string{"chat_postMessage", "users_list"}, "/paths/~1chat.postMessage/post/responses/200/schema/properties/a/items: schema-items-array"},
		{"digitalocean", do, "gemini", []string{"tags_create"}, "properties/$ref: schema-invalid-property"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".spec")
			if err := os.WriteFile(p, []byte(tt.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			out, stderr, err := runCLI(t, "openapi", "tools", p, "--to", tt.target, "--strict")
			if err != nil {
				t.Fatalf("err %v, stderr %s", err, stderr)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q, want a warning %q", stderr, tt.stderr)
			}
			for _, n := range tt.tools {
				if !strings.Contains(out, `"`+n+`"`) {
					t.Errorf("tool %s missing from %s", n, out)
				}
			}
			if strings.Contains(out, `"$ref"`) {
				t.Errorf("output keeps a $ref: %s", out)
			}
			defs := filepath.Join(dir, tt.name+".json")
			if err := os.WriteFile(defs, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if lo, lerr, err := runCLI(t, "lint", defs, "--target", tt.target); err != nil {
				t.Errorf("lint rejects toolgate's own output: %v\n%s%s", err, lo, lerr)
			}
		})
	}
}
