// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

import (
	"flag"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/goldentest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestDecodeGolden(t *testing.T) {
	goldentest.Out(t, "testdata/decode.txtar", *update, func(in []byte) string {
		ts, err := DecodeTools(in)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		for _, d := range ts.Defs {
			b.WriteString(d.Name + ": " + string(d.InputSchema) + "\n")
			if d.OutputSchema != nil {
				b.WriteString(d.Name + " output: " + string(d.OutputSchema) + "\n")
			}
		}
		if ts.Single {
			b.WriteString("single\n")
		}
		for _, w := range ts.Warnings {
			b.WriteString("warning: " + w.String() + "\n")
		}
		return b.String()
	}, ".jsonl", ".json")
}
