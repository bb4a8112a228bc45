// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/goldentest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestDetectGolden(t *testing.T) {
	goldentest.Out(t, "testdata/detect.txtar", *update, func(in []byte) string {
		r := Detect(in)
		var b strings.Builder
		fmt.Fprintf(&b, "format: %s\nconfidence: %.3f\nambiguous: %v\n", r.Format, r.Confidence, r.Ambiguous)
		if r.Err != nil {
			fmt.Fprintf(&b, "error: %v\n", r.Err)
		}
		for _, s := range r.Scores {
			if s.Confidence > 0 {
				fmt.Fprintf(&b, "score: %-16s %.3f\n", s.Format, s.Confidence)
			}
		}
		for _, e := range r.Evidence {
			b.WriteString("evidence: " + e + "\n")
		}
		return b.String()
	}, ".json")
}
