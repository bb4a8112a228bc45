// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package yamljson

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/corpustest"
)

// BenchmarkConvert converts a real 400 KB YAML spec, as the OpenAPI
// loader does.
func BenchmarkConvert(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpustest.Dir(b, "openapi"), "libopenapi-test-specs", "asana.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Convert(data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
