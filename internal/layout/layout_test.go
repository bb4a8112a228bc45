// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package layout

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/toolgate/toolgate"

// allowed maps a package (relative to the module; a trailing "/..." covers
// its sub-packages) to the module packages it may import. An entry "std"
// means the standard library only; third-party modules are checked by
// thirdParty.
var allowed = map[string][]string{
	"tool":                {},
	"internal/strictjson": {},
	"redact":              {"internal/strictjson"},
	"internal/layout":     {},
	"internal/corpustest": {"internal/skipnote"},
	"internal/skipnote":   {},
	"internal/benchtest":  {},
	"internal/goldentest": {"internal/strictjson"},
	"internal/yamljson":   {"internal/strictjson"},
	"internal/wire":       {"tool", "internal/strictjson", "codec"},
	"schema":              {"tool", "internal/strictjson"},
	"codec":               {"tool", "schema", "internal/strictjson"},
	"codec/detect":        {"tool", "schema", "internal/strictjson", "codec", "codec/...", "internal/wire"},
	"codec/...":           {"tool", "schema", "internal/strictjson", "codec", "internal/wire"},
	"textcall":            {"tool", "schema", "internal/strictjson"},
	"kernel":              {"tool", "schema", "redact", "internal/strictjson"},
	"kernel/...":          {"tool", "schema", "redact", "internal/strictjson", "kernel", "codec", "codec/..."},
	"openapi":             {"tool", "schema", "redact", "internal/strictjson", "internal/yamljson"},
	"source":              {"tool", "schema", "redact", "internal/strictjson", "kernel", "kernel/...", "codec", "codec/mcp", "openapi", "source/demo"},
	"source/demo":         {},
	"config":              {"tool", "schema", "redact", "internal/strictjson", "internal/yamljson", "kernel", "kernel/...", "source", "openapi", "mcpserver", "gateway", "store/...", "textcall", "server", "server/console", "server/admin", "server/telemetry"},
	"mcpserver":           {"tool", "schema", "redact", "internal/strictjson", "kernel", "kernel/...", "codec", "codec/mcp", "server"},
	"gateway/gatewaytest": {},
	"gateway":             {"tool", "schema", "redact", "internal/strictjson", "internal/sse", "internal/direct", "kernel", "kernel/...", "codec", "codec/...", "textcall", "server"},
	"store":               {"kernel", "kernel/...", "internal/strictjson", "tool"},
	"store/...":           {"kernel", "kernel/...", "internal/strictjson", "tool"},
	"internal/sse":        {},
	"internal/direct":     {},
	"server":              {"kernel", "tool", "schema", "redact", "internal/strictjson"},
	"server/console":      {"tool", "kernel", "kernel/...", "server"},
	"server/admin":        {"kernel", "server", "internal/strictjson"},
	"server/telemetry":    {},
	"cmd/toolgate":        {"cmd/toolgate/internal/cli"},
	// The CLI is the roof: it may import any package of the module.
	"cmd/toolgate/internal/cli": {"..."},
	"cmd/fakebackend":           {"gateway", "gateway/gatewaytest", "internal/sse"},
	"cmd/loadgen":               {},
	"examples/...":              {"..."},
}

// stdlibOnly lists packages that may import nothing outside the standard
// library and the module packages allowed above.
var stdlibOnly = map[string]bool{"tool": true, "internal/strictjson": true, "redact": true, "textcall": true, "internal/direct": true}

type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func TestImportDirection(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		rules, ok := rulesFor(rel)
		if !ok {
			t.Errorf("package %s has no entry in the layout table; add one that matches DESIGN.md", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				if stdlibOnly[rel] && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
					t.Errorf("%s imports %s; it may use the standard library only", rel, imp)
				}
				continue
			}
			target := strings.TrimPrefix(imp, module+"/")
			if !permits(rules, target) {
				t.Errorf("%s imports %s, which DESIGN.md's layout does not allow", rel, target)
			}
		}
	}
	if n == 0 {
		t.Fatal("go list found no packages")
	}
}

func rulesFor(rel string) ([]string, bool) {
	if r, ok := allowed[rel]; ok {
		return r, true
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if r, ok := allowed[dir+"/..."]; ok {
			return r, true
		}
	}
	return nil, false
}

func permits(rules []string, target string) bool {
	for _, r := range rules {
		switch {
		case r == "...":
			return true
		case r == target:
			return true
		case strings.HasSuffix(r, "/...") && strings.HasPrefix(target, strings.TrimSuffix(r, "...")):
			return true
		}
	}
	return false
}
