// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// minimal returns a 3.0 spec whose one operation's parameters are params
// (a JSON array) and components are comps (a JSON object).
func minimal(params, comps string) string {
	return `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example"}],` +
		`"paths":{"/x":{"get":{"operationId":"x","parameters":` + params + `,"responses":{"200":{"description":"ok"}}}}},` +
		`"components":` + comps + `}`
}

func TestExternalRefs(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "spec")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, data string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(sub, "params.yaml"), "limit: {name: limit, in: query, schema: {$ref: 'schemas.yaml#/Limit'}}\n")
	write(filepath.Join(sub, "schemas.yaml"), "Limit: {type: integer, maximum: 50}\n")
	write(filepath.Join(dir, "secret.yaml"), "p: {name: secret, in: query, schema: {type: string}}\n")
	write(filepath.Join(sub, "api.json"), minimal(`[{"$ref":"params.yaml#/limit"}]`, `{}`))
	write(filepath.Join(sub, "escape.json"), minimal(`[{"$ref":"../secret.yaml#/p"}]`, `{}`))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"name":"remote","in":"query","schema":{"type":"string"}}`))
	}))
	defer srv.Close()
	remote := minimal(`[{"$ref":"`+srv.URL+`/p.json"}]`, `{}`)

	ctx := context.Background()
	tests := []struct {
		name    string
		load    func() (*API, error)
		wantErr error
		want    string
	}{
		{"refs-denied-by-default", func() (*API, error) { return LoadFile(ctx, filepath.Join(sub, "api.json"), nil) }, ErrRefNotAllowed, ""},
		{"refs-in-allowed-dir", func() (*API, error) {
			return LoadFile(ctx, filepath.Join(sub, "api.json"), &Config{AllowRefDirs: []string{sub}})
		}, nil, `{"type":"object","properties":{"limit":{"type":"integer","maximum":50,"x-toolgate-in":"query"}},"additionalProperties":false}`},
		{"no-escape-from-allowed-dir", func() (*API, error) {
			return LoadFile(ctx, filepath.Join(sub, "escape.json"), &Config{AllowRefDirs: []string{sub}})
		}, ErrRefNotAllowed, ""},
		{"relative-ref-from-bytes", func() (*API, error) {
			return Load(ctx, []byte(minimal(`[{"$ref":"params.yaml#/limit"}]`, `{}`)), "", &Config{AllowRefDirs: []string{sub}})
		}, ErrRefNotAllowed, ""},
		{"file-scheme-denied", func() (*API, error) {
			return Load(ctx, []byte(minimal(`[{"$ref":"file:///etc/passwd#/x"}]`, `{}`)), "", nil)
		}, ErrRefNotAllowed, ""},
		{"remote-denied-by-default", func() (*API, error) { return Load(ctx, []byte(remote), "", nil) }, ErrRefNotAllowed, ""},
		{"remote-private-denied", func() (*API, error) {
			return Load(ctx, []byte(remote), "", &Config{AllowRemote: []string{srv.URL + "/"}})
		}, ErrBlockedAddress, ""},
		{"remote-allowed", func() (*API, error) {
			return Load(ctx, []byte(remote), "", &Config{AllowRemote: []string{srv.URL + "/"}, AllowPrivate: true})
		}, nil, `{"type":"object","properties":{"remote":{"type":"string","x-toolgate-in":"query"}},"additionalProperties":false}`},
		{"remote-prefix-is-whole", func() (*API, error) {
			return Load(ctx, []byte(remote), "", &Config{AllowRemote: []string{srv.URL[:len(srv.URL)-1]}, AllowPrivate: true})
		}, ErrRefNotAllowed, ""},
		{"spec-url-denied", func() (*API, error) { return LoadURL(ctx, srv.URL+"/spec.json", nil) }, ErrRefNotAllowed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, err := tt.load()
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(api.Operations[0].Definition.InputSchema)); diff != "" {
				t.Errorf("input schema (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilters(t *testing.T) {
	data, err := os.ReadFile("testdata/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"tag", Config{Include: Filter{Tags: []string{"pets", "debug"}}}, []string{"listPets", "echo"}},
		{"path-glob", Config{Include: Filter{Paths: []string{"/pets/*"}}}, []string{"getPet"}},
		{"path-globstar", Config{Include: Filter{Paths: []string{"/pets/**"}, Methods: []string{"put"}}}, []string{"putPet", "putRaw"}},
		{"operation-ids", Config{Include: Filter{OperationIDs: []string{"basic", "oauth"}}}, []string{"basic", "oauth"}},
		{"exclude", Config{Include: Filter{Paths: []string{"/auth/**"}}, Exclude: Filter{OperationIDs: []string{"oauth"}, Paths: []string{"/auth/key-*"}}}, []string{"basic", "anonymous"}},
		{"deprecated", Config{IncludeDeprecated: true, Include: Filter{Methods: []string{"DELETE"}}}, []string{"deletePet"}},
		{"generic", Config{IncludeGeneric: true, Include: Filter{OperationIDs: []string{"twin"}}}, []string{"twin", "http_request"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, err := Load(context.Background(), data, "", &tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range api.Operations {
				got = append(got, op.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("operations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, spec string
		want       error
		pointer    string
	}{
		{"not-a-spec", `{"hello":"world"}`, ErrInvalidSpec, ""},
		{"swagger-1", `{"swagger":"1.2"}`, ErrInvalidSpec, "/swagger"},
		{"openapi-4", `{"openapi":"4.0.0"}`, ErrInvalidSpec, "/openapi"},
		{"duplicate-json-key", `{"openapi":"3.0.0","openapi":"3.1.0"}`, ErrInvalidSpec, ""},
		{"duplicate-yaml-key", "openapi: 3.0.0\npaths: {}\npaths: {}\n", ErrInvalidSpec, ""},
		{"paths-not-object", `{"openapi":"3.0.0","paths":[]}`, ErrInvalidSpec, "/paths"},
		{"yaml-alias-bomb", "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n", ErrInvalidSpec, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(context.Background(), []byte(tt.spec), "", nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			se, ok := errors.AsType[*SpecError](err)
			if !ok {
				t.Fatalf("err %T is not a *SpecError", err)
			}
			if se.Pointer != tt.pointer {
				t.Errorf("pointer %q, want %q", se.Pointer, tt.pointer)
			}
		})
	}
}

func TestValidateWarns(t *testing.T) {
	// Two operations share an operationId: invalid, still usable.
	spec := `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{` +
		`"/a":{"get":{"operationId":"same","responses":{"200":{"description":"ok"}}}},` +
		`"/b":{"get":{"operationId":"same","responses":{"200":{"description":"ok"}}}}}}`
	api, err := Load(context.Background(), []byte(spec), "", &Config{Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(api.Warnings) != 1 || api.Warnings[0].Code != "spec-invalid" || !strings.Contains(api.Warnings[0].Message, "same") {
		t.Errorf("warnings %v, want one spec-invalid naming the id", api.Warnings)
	}
	if got := []string{api.Operations[0].Name, api.Operations[1].Name}; got[0] != "same" || got[1] != "same_2" {
		t.Errorf("names %v, want same and same_2", got)
	}
}

func TestSafetyAndAnnotations(t *testing.T) {
	tests := []struct {
		method, safety           string
		readOnly, idem, destruct *bool
	}{
		{"GET", SafetyRead, ptr(true), ptr(true), nil},
		{"HEAD", SafetyRead, ptr(true), ptr(true), nil},
		{"POST", SafetyWrite, ptr(false), ptr(false), ptr(false)},
		{"PUT", SafetyWrite, ptr(false), ptr(true), ptr(false)},
		{"PATCH", SafetyWrite, ptr(false), ptr(false), ptr(false)},
		{"DELETE", SafetyDestructive, ptr(false), ptr(true), ptr(true)},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			a := annotationsFor(tt.method, "")
			got := []any{safetyOf(tt.method), a.ReadOnlyHint, a.IdempotentHint, a.DestructiveHint}
			want := []any{tt.safety, tt.readOnly, tt.idem, tt.destruct}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func ptr(b bool) *bool { return &b }

// nesting returns how deep s nests, counting as OpenAI strict mode does:
// properties, items and additionalProperties go one level down.
func nesting(s any) int {
	m, ok := s.(map[string]any)
	if !ok {
		return 0
	}
	deepest := 0
	if props, ok := m["properties"].(map[string]any); ok {
		for _, p := range props {
			deepest = max(deepest, nesting(p))
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		deepest = max(deepest, nesting(m[k]))
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		arr, _ := m[k].([]any)
		for _, x := range arr {
			deepest = max(deepest, nesting(x)-1)
		}
	}
	return deepest + 1
}

func TestNestingCut(t *testing.T) {
	// A body nested seven levels deep: root, a, b, items (anyOf stays on
	// its level), c, d, e.
	spec := minimal(`[]`, `{}`)
	spec = strings.Replace(spec, `"parameters":[]`, `"parameters":[],"requestBody":{"content":{"application/json":{"schema":`+
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array","items":{"anyOf":[{"type":"object",`+
		`"properties":{"c":{"type":"object","properties":{"d":{"type":"object","properties":{"e":{"type":"string"}}}}}}}]}}}}}}}}}`, 1)
	tests := []struct {
		max, want int
		cut       bool
	}{
		{0, 7, false}, // the default, 10
		{-1, 7, false},
		{4, 4, true},
		{2, 2, true},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.max), func(t *testing.T) {
			api, err := Load(context.Background(), []byte(spec), "", &Config{MaxNesting: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			var s any
			if err := json.Unmarshal(api.Operations[0].Definition.InputSchema, &s); err != nil {
				t.Fatal(err)
			}
			if got := nesting(s); got != tt.want {
				t.Errorf("nesting %d, want %d: %s", got, tt.want, api.Operations[0].Definition.InputSchema)
			}
			cut := len(api.Warnings) > 0 && api.Warnings[0].Code == "schema-nesting-cut"
			if cut != tt.cut {
				t.Errorf("warnings %v, want a nesting cut: %v", api.Warnings, tt.cut)
			}
		})
	}
}

func TestOpenAPI32(t *testing.T) {
	spec := `{"openapi":"3.2.0","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example"}],"paths":{"/search":{` +
		`"query":{"operationId":"search","requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"q":{"type":"string"}}}}}},"responses":{"200":{"description":"ok"}}},` +
		`"additionalOperations":{"PURGE":{"operationId":"purge","responses":{"204":{"description":"gone"}}}}}}}`
	api, err := Load(context.Background(), []byte(spec), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range api.Operations {
		got = append(got, op.Method+" "+op.Name+" "+op.Safety)
	}
	want := []string{"QUERY search READ", "PURGE purge WRITE"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
}

func TestLoadURL(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: /v2}]
paths:
  /a: {get: {operationId: a, parameters: [{$ref: "params.yaml#/P"}], responses: {"200": {description: ok}}}}
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/specs/api.yaml":
			w.Write([]byte(spec))
		case "/specs/params.yaml":
			w.Write([]byte("P: {name: p, in: query, schema: {type: string}}\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	u := srv.URL + "/specs/api.yaml"
	if _, err := LoadURL(ctx, u, &Config{AllowRemote: []string{srv.URL + "/specs/"}}); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("loopback spec URL: err %v, want ErrBlockedAddress", err)
	}
	api, err := LoadURL(ctx, u, &Config{AllowRemote: []string{srv.URL + "/specs/"}, AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	// The relative server and the relative $ref resolve against the URL.
	if got := api.Servers[0].URL; got != srv.URL+"/v2" {
		t.Errorf("server %q, want %q", got, srv.URL+"/v2")
	}
	if got := api.Operations[0].Params[0].Name; got != "p" {
		t.Errorf("parameter %q, want p from the remote $ref", got)
	}
}
