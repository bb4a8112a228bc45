// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// thousandTools writes a file of 1,000 OpenAI tools shaped like real ones:
// dotted names (mapped for Anthropic), optional properties, enums, nesting.
func thousandTools(t testing.TB, dir string) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"type":"function","function":{"name":"svc%d.get_record_%d","description":"Retrieve record %d with its owner, status and history; use it before updating the record.","parameters":{"type":"object","properties":{"id":{"type":"string","description":"Record id."},"fields":{"type":"array","items":{"type":"string","enum":["owner","status","history"]}},"limit":{"type":"integer","minimum":1,"maximum":100},"filter":{"type":"object","properties":{"since":{"type":"string","format":"date-time"},"status":{"oneOf":[{"type":"string"},{"type":"null"}]}}}},"required":["id"]}}}`, i%7, i, i)
	}
	b.WriteString("\n]\n")
	p := filepath.Join(dir, "tools-1000.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchmarkConvertProcess runs the toolgate binary, process start included,
// converting a 1,000-tool OpenAI file to Anthropic: the target is
// under 100 ms wall time per run.
func BenchmarkConvertProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "toolgate")
	build := exec.Command("go", "build", "-o", bin, "../../../../cmd/toolgate")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	input := thousandTools(b, dir)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, "convert", input, "--to", "anthropic", "-o", filepath.Join(dir, "out.json"))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("toolgate convert: %v\n%s", err, out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/run")
}
