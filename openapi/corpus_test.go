// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/yamljson"
	"github.com/toolgate/toolgate/schema"
)

// brokenSpecs are the corpus files that must fail to load, with the error
// they must fail with: specs broken on purpose, and a file of Stripe
// fixtures that is no spec at all.
var brokenSpecs = map[string]error{
	"stripe-old.yaml":       ErrInvalidSpec, // a duplicate mapping key at line 20725
	"stripe-fixtures3.json": ErrInvalidSpec, // fixtures, not a spec
}

// brokenCorners are corpus specs broken in a corner: they load, the
// broken parts are left out with a "spec-part-dropped" warning naming
// each, and every other operation becomes a tool.
var brokenCorners = map[string]bool{
	"xsoar.json": true, // a Swagger 2.0 $ref to a definition that does not exist
}

// realSpecs are checked operation by operation: one tool per
// non-deprecated operation, each accepted by strict providers once
// lowered.
var realSpecs = map[string]bool{
	"github-api.github.com.2022-07-18.json": true,
	"kubernetes-v1.12.2-swagger.json":       true,
	"openai-openapi.json":                   true,
	"stripe-spec3.2022-04-12.json":          true,
	"asana.yaml":                            true,
}

var toolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

func TestCorpus(t *testing.T) {
	dir := corpustest.Dir(t, "openapi")
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "meta-schemas" {
			return filepath.SkipDir // JSON Schemas of the format, not specs
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d specs under %s; the corpus is incomplete", len(files), dir)
	}
	seenReal := 0
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(strings.ReplaceAll(base, " ", "_"), func(t *testing.T) {
			api, err := LoadFile(context.Background(), f, nil)
			if want, broken := brokenSpecs[base]; broken {
				if err == nil {
					t.Fatalf("loaded a spec that is broken on purpose")
				}
				if !errors.Is(err, want) {
					t.Fatalf("error %v does not match %v", err, want)
				}
				if _, ok := errors.AsType[*SpecError](err); !ok {
					t.Fatalf("error %v is not a *SpecError naming the file", err)
				}
				if !strings.Contains(err.Error(), base) {
					t.Errorf("error %q does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if brokenCorners[base] {
				dropped := 0
				for _, w := range api.Warnings {
					if w.Code == "spec-part-dropped" {
						dropped++
						if w.Pointer == "" {
							t.Errorf("warning %v names no place", w)
						}
					}
				}
				want := countOperations(t, f)
				if dropped == 0 || len(api.Operations) == 0 || len(api.Operations)+api.Broken < want {
					t.Errorf("%d tools, %d broken, %d drop warnings; want every one of %d operations a tool or counted broken, with warnings",
						len(api.Operations), api.Broken, dropped, want)
				}
			}
			// Compiling every schema of the large real specs costs most of
			// a minute; their schemas are checked per provider below.
			checkAPI(t, api, !realSpecs[base])
			if realSpecs[base] {
				seenReal++
				want := countOperations(t, f)
				if got := len(api.Operations); got != want {
					t.Errorf("%d tools, want %d (one per non-deprecated operation)", got, want)
				}
				if !raceEnabled {
					checkProviders(t, api)
				}
			}
		})
	}
	if seenReal != len(realSpecs) {
		t.Errorf("checked %d real specs, want %d", seenReal, len(realSpecs))
	}
}

// TestCorpusValidate checks DESIGN.md's claim for kin-openapi: with
// example checking off, it loads every real spec (Swagger 2.0 after
// conversion); what it finds invalid is reported as a warning.
func TestCorpusValidate(t *testing.T) {
	if raceEnabled {
		t.Skip("single-goroutine and slow under the race detector; run without it")
	}
	dir := corpustest.Dir(t, "openapi")
	for base := range realSpecs {
		paths, _ := filepath.Glob(filepath.Join(dir, "*", base))
		if len(paths) != 1 {
			t.Fatalf("%s: found %d files", base, len(paths))
		}
		t.Run(base, func(t *testing.T) {
			api, err := LoadFile(context.Background(), paths[0], &Config{Validate: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range api.Warnings {
				if w.Code == "spec-unloadable" {
					t.Errorf("kin-openapi cannot load it: %s", w.Message)
				}
			}
		})
	}
}

// checkAPI checks what every loaded spec must satisfy.
func checkAPI(t *testing.T, api *API, compile bool) {
	t.Helper()
	names := map[string]bool{}
	for _, op := range api.Operations {
		d := &op.Definition
		if !toolName.MatchString(d.Name) {
			t.Errorf("%s %s: name %q breaks provider rules", op.Method, op.Path, d.Name)
		}
		if names[d.Name] {
			t.Errorf("name %q used twice", d.Name)
		}
		names[d.Name] = true
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		for _, s := range [][]byte{d.InputSchema, d.OutputSchema} {
			if s == nil {
				continue
			}
			if err := strictjson.Check(s, nil); err != nil {
				t.Fatalf("%s: schema is not strict JSON: %v", d.Name, err)
			}
			if !compile {
				continue
			}
			if _, err := schema.Resolve(s, nil); err != nil {
				t.Errorf("%s: schema does not compile: %v", d.Name, err)
			}
		}
		// Every input property says where it goes.
		n := 0
		_ = members(strictjson.Get(d.InputSchema, "properties"), func(k, v []byte) error {
			n++
			in := str(v, "x-toolgate-in")
			switch in {
			case "path", "query", "header", "cookie", "body":
			default:
				if !op.Generic {
					t.Errorf("%s: property %s has x-toolgate-in %q", d.Name, k, in)
				}
			}
			return nil
		})
		want := len(op.Params)
		if op.Body != nil {
			want += len(op.Body.Fields)
			if op.Body.Property != "" {
				want++
			}
		}
		if !op.Generic && n != want {
			t.Errorf("%s: %d input properties for %d parameters", d.Name, n, want)
		}
		if len(op.Definition.Description) == 0 {
			t.Errorf("%s: no description", d.Name)
		}
	}
}

// checkProviders lowers every tool for the strict targets and checks the
// result is accepted.
func checkProviders(t *testing.T, api *API) {
	t.Helper()
	for _, target := range []schema.Target{schema.OpenAIStrict, schema.Anthropic, schema.Gemini} {
		names := schema.NewNameMap(target)
		bad := 0
		for i := range api.Operations {
			d := &api.Operations[i].Definition
			low, _, err := schema.LowerDefinition(target, d, names)
			if err != nil {
				t.Errorf("%s: %s: lower: %v", target, d.Name, err)
				bad++
			} else if probs := schema.Check(target, low.Name, low.InputSchema); len(probs) > 0 {
				t.Errorf("%s: %s: %v", target, d.Name, probs[0])
				bad++
			}
			if bad > 5 {
				t.Fatalf("%s: stopping after %d failures", target, bad)
			}
		}
	}
}

// countOperations counts the non-deprecated operations of a spec with a
// plain decoder, independently of the loader.
func countOperations(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths" yaml:"paths"`
	}
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		// YAML through the module's one converter, which the
		// loader's builder does not depend on for counting.
		data, err = yamljson.Convert(data, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	err = json.Unmarshal(data, &doc)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range doc.Paths {
		for m, op := range item {
			if _, ok := methodKeys[m]; !ok {
				continue
			}
			if o, ok := op.(map[string]any); ok && o["deprecated"] == true {
				continue
			}
			n++
		}
	}
	return n
}
