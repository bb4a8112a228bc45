// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/config"
)

// serve.yaml is two things: the demo `toolgate serve` runs (its live
// lines) and, commented out, an example of every other key. An example
// line is a "#" followed by a key or by indentation ("#limits:",
// "#  store: redis", "#  # a comment inside the example"); a "#" followed
// by one space and text, or an indented "#", is a note. A run of example
// lines is one example; a note, a blank line or a live line ends it.
//
// The examples cannot all be uncommented at once: some are alternatives
// to each other or to a live line (limits.store sqlite or redis; audit
// store postgres instead of the db line; policy.rules instead of
// `rules: []`). So each example is checked on its own, which is also how a
// user takes one: its lines uncommented, under the lines it is nested in
// (the nearest lines above it less indented than its first, live or
// example), every
// other line left blank so that an error names serve.yaml's line. An
// example that refers to another (a model to a provider, a fallback to
// another provider) must therefore be in the same run.

// example is one run of example lines of serve.yaml.
type example struct {
	// line is the run's first line, 1-based.
	line int
	// doc is the run uncommented under its parents, every other line
	// blank.
	doc []byte
}

// examples returns the examples of a commented config file, in file order.
func examples(t *testing.T, data []byte) []example {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	// code is each line as YAML: a live line as it is, an example line
	// without its "#", a note or blank line empty.
	code := make([]string, len(lines))
	isExample := make([]bool, len(lines))
	for i, l := range lines {
		switch rest, ok := strings.CutPrefix(l, "#"); {
		case ok:
			if strings.TrimSpace(rest) != "" && (!strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "  ")) {
				code[i], isExample[i] = rest, true
			}
		case !strings.HasPrefix(strings.TrimSpace(l), "#"):
			code[i] = l
		}
	}
	// structural reports whether line i holds YAML, not just a comment.
	structural := func(i int) bool {
		s := strings.TrimSpace(code[i])
		return s != "" && !strings.HasPrefix(s, "#")
	}
	indent := func(i int) int { return len(code[i]) - len(strings.TrimLeft(code[i], " ")) }
	var out []example
	for start := 0; start < len(lines); {
		if !isExample[start] {
			start++
			continue
		}
		end := start
		for end < len(lines) && isExample[end] {
			end++
		}
		doc := make([]string, len(lines))
		copy(doc[start:end], code[start:end])
		// The run is nested where its first line is: a run may go on
		// from list items of a live section (the demo's providers) to
		// top-level keys (models).
		ind := -1
		for i := start; i < end && ind < 0; i++ {
			if structural(i) {
				ind = indent(i)
			}
		}
		if ind < 0 {
			t.Errorf("serve.yaml:%d: an example with no key, only comments", start+1)
		}
		for i := start - 1; i >= 0 && ind > 0; i-- {
			if structural(i) && indent(i) < ind {
				doc[i], ind = code[i], indent(i)
			}
		}
		out = append(out, example{line: start + 1, doc: []byte(strings.Join(doc, "\n"))})
		start = end
	}
	return out
}

// TestPrintConfigDemo checks that what --print-config prints is the
// embedded file byte for byte, and that the file parses and checks.
func TestPrintConfigDemo(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"serve", "--print-config"}, nil, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if !bytes.Equal(out.Bytes(), defaultServeConfig) {
		t.Error("--print-config does not print the embedded serve.yaml")
	}
	f, err := config.Parse(defaultServeConfig, "serve.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestPrintConfigExamples checks that every commented-out example of
// serve.yaml parses and checks once uncommented.
func TestPrintConfigExamples(t *testing.T) {
	exs := examples(t, defaultServeConfig)
	// The file has an example for every section beside the demo's; far
	// fewer means the lines stopped being recognised as examples.
	if len(exs) < 20 {
		t.Fatalf("found %d examples in serve.yaml, want 20 or more", len(exs))
	}
	for _, ex := range exs {
		t.Run("line"+strconv.Itoa(ex.line), func(t *testing.T) {
			f, err := config.Parse(ex.doc, "serve.yaml")
			if err != nil {
				t.Fatalf("the example at line %d, uncommented, does not parse: %v\n%s", ex.line, err, bytes.TrimSpace(ex.doc))
			}
			if err := f.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPrintConfigDocumentsEveryKey checks that every key the parser
// accepts is in serve.yaml, live or in an example: a key added to the
// config package needs an example there.
func TestPrintConfigDocumentsEveryKey(t *testing.T) {
	fileType := reflect.TypeFor[config.File]()
	var want []string
	keyPaths(fileType, "", func(p string) { want = append(want, p) })
	have := map[string]bool{}
	docs := [][]byte{defaultServeConfig}
	for _, ex := range examples(t, defaultServeConfig) {
		docs = append(docs, ex.doc)
	}
	for _, doc := range docs {
		var n yaml.Node
		if err := yaml.Unmarshal(doc, &n); err != nil {
			t.Fatal(err)
		}
		usedPaths(&n, fileType, "", func(p string) { have[p] = true })
	}
	var missing []string
	for _, p := range want {
		if !have[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Errorf("serve.yaml shows no example of %s; add one, commented out", strings.Join(missing, ", "))
	}
	if len(want) < 100 || !slices.Contains(want, "providers[].generation_config.two_pass") {
		t.Errorf("found %d key paths in config.File, which is too few: %v", len(want), want)
	}
}

// yamlKey is the key of struct field f in the file; "" for none.
func yamlKey(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "-" {
		return k
	}
	return ""
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// keyPaths calls add with every key path of type t, a list's items
// written [] ("sources[].openapi.auth.api_key_env"). Maps (models,
// attributes) and JSON values (input_schema) are leaves.
func keyPaths(t reflect.Type, path string, add func(string)) {
	switch t.Kind() {
	case reflect.Pointer:
		keyPaths(t.Elem(), path, add)
	case reflect.Slice:
		keyPaths(t.Elem(), path+"[]", add)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if k := yamlKey(f); k != "" {
				add(joinPath(path, k))
				keyPaths(f.Type, joinPath(path, k), add)
			}
		}
	}
}

// usedPaths calls add with the key path of every key of n, a YAML node
// of type t, that t has; keyPaths writes the same paths.
func usedPaths(n *yaml.Node, t reflect.Type, path string, add func(string)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.DocumentNode:
		for _, c := range n.Content {
			usedPaths(c, t, path, add)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		for i := 0; i+1 < len(n.Content); i += 2 {
			for j := range t.NumField() {
				f := t.Field(j)
				if k := yamlKey(f); k != "" && k == n.Content[i].Value {
					add(joinPath(path, k))
					usedPaths(n.Content[i+1], f.Type, joinPath(path, k), add)
				}
			}
		}
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for _, c := range n.Content {
			usedPaths(c, t.Elem(), path+"[]", add)
		}
	}
}
