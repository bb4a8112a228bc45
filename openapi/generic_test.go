// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"testing"

	"github.com/toolgate/toolgate/schema"
)

// TestGenericToolLowers checks that the generic HTTP tool, which no spec
// in the corpus produces, is accepted by every target once lowered.
func TestGenericToolLowers(t *testing.T) {
	d := genericOperation([]Server{{URL: "https://api.example"}}, nil).Definition
	for _, target := range schema.Targets {
		low, _, err := schema.LowerDefinition(target, &d, nil)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		if probs := schema.Check(target, low.Name, low.InputSchema); len(probs) > 0 {
			t.Errorf("%s: %v", target, probs)
		}
	}
}
