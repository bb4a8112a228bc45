// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/schema"
)

// TestBrokenCorners pins that a malformed part of a spec costs only what
// it touches (testdata/broken-corners.txtar says where each shape is
// from): the other operations become tools, and each part left out has a
// warning naming it by JSON Pointer.
func TestBrokenCorners(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/broken-corners.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	tests := []struct {
		file     string
		tools    []string
		broken   int
		warnings []string        // "pointer code" of the warnings about broken parts
		output   map[string]bool // whether these tools keep an output schema
	}{
		{
			file:  "slack.json",
			tools: []string{"chat_postMessage", "conversations_list", "users_info"},
			warnings: []string{
				"/definitions/objs_broken/items schema-items-array",
				"/definitions/objs_unmendable spec-part-dropped",
				"/paths/~1chat.postMessage/post/responses/200/schema/properties/attachments/items schema-items-array",
				"/paths/~1users.info/get/responses/200/schema spec-part-dropped",
			},
			output: map[string]bool{"chat_postMessage": true, "conversations_list": true, "users_info": false},
		},
		{
			file:  "digitalocean.yaml",
			tools: []string{"tags_create"},
			warnings: []string{
				"/paths/~1v2~1tags/post/requestBody/content/application~1json/schema/properties/$ref schema-invalid-property",
				"/paths/~1v2~1tags/post/responses/201/content/application~1json/schema/properties/tag/properties/$ref schema-invalid-property",
			},
		},
		{
			file:   "dangling.json",
			tools:  []string{"y", "w"},
			broken: 2,
			warnings: []string{
				"/components/securitySchemes/bad spec-part-dropped",
				"/paths/~1z spec-part-dropped",
				"/paths/~1w/get spec-part-dropped",
				"/paths/~1x/get/parameters/0 spec-part-dropped",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			api, err := Load(context.Background(), files[tt.file], "", nil)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			var names []string
			for _, op := range api.Operations {
				names = append(names, op.Name)
				if strings.Contains(string(op.Definition.InputSchema), `"$ref"`) || strings.Contains(string(op.Definition.OutputSchema), `"$ref"`) {
					t.Errorf("%s: a $ref is left in the schema", op.Name)
				}
				if want, ok := tt.output[op.Name]; ok && want != (op.Definition.OutputSchema != nil) {
					t.Errorf("%s: output schema %s", op.Name, op.Definition.OutputSchema)
				}
				for _, target := range []schema.Target{schema.OpenAIStrict, schema.Gemini, schema.Anthropic} {
					low, _, err := schema.LowerDefinition(target, &op.Definition, schema.NewNameMap(target))
					if err != nil {
						t.Errorf("%s: %s: %v", target, op.Name, err)
						continue
					}
					if probs := schema.Check(target, low.Name, low.InputSchema); len(probs) > 0 {
						t.Errorf("%s: %s: %v", target, op.Name, probs)
					}
				}
				if strictjson.Check(op.Definition.InputSchema, nil) != nil {
					t.Errorf("%s: input schema is not JSON", op.Name)
				}
			}
			if diff := cmp.Diff(tt.tools, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if api.Broken != tt.broken {
				t.Errorf("Broken = %d, want %d", api.Broken, tt.broken)
			}
			var got []string
			for _, w := range api.Warnings {
				if w.Code == "spec-part-dropped" || w.Code == "schema-invalid-property" || w.Code == "schema-items-array" {
					got = append(got, w.Pointer+" "+w.Code)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.warnings)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s\nall: %v", diff, api.Warnings)
			}
		})
	}
}

// TestItemsArray pins that the draft-04 tuple form of items, which
// OpenAPI 3.x does not allow, becomes a schema every provider accepts.
func TestItemsArray(t *testing.T) {
	tests := []struct {
		name, items string
		want        string
	}{
		{"one", `[{"type":"string"}]`, `{"type":"array","items":{"type":"string"}}`},
		{"several", `[{"type":"string"},{"type":"integer"}]`, `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}`},
		{"empty", `[]`, `{"type":"array"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := minimal(`[{"name":"q","in":"query","schema":{"type":"array","items":`+tt.items+`}}]`, `{}`)
			api, err := Load(context.Background(), []byte(spec), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			props := strictjson.Get(api.Operations[0].Definition.InputSchema, "properties")
			got := string(strictjson.Get(props, "q"))
			if want := strings.TrimSuffix(tt.want, "}") + `,"x-toolgate-in":"query"}`; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
			found := false
			for _, w := range api.Warnings {
				found = found || (w.Code == "schema-items-array" && w.Pointer == "/paths/~1x/get/parameters/0/schema/items")
			}
			if !found {
				t.Errorf("no schema-items-array warning: %v", api.Warnings)
			}
		})
	}
}
