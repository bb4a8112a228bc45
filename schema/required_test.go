// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClosedObjectRequired pins issue 16: strict lowering kept a
// "required" name that "properties" does not declare beside
// "additionalProperties": false, so no call could satisfy the schema, and
// Check (hence lint) called the lowered schema accepted.
func TestClosedObjectRequired(t *testing.T) {
	tests := []struct {
		name   string
		target Target
		in     string
		want   string
		codes  []string
	}{
		{
			name:   "openai-strict-open",
			target: OpenAIStrict,
			in:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`,
			want:   `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			codes:  []string{CodeObjectClosed, CodeRequiredPruned},
		},
		{
			name:   "openai-strict-closed-nested",
			target: OpenAIStrict,
			in:     `{"type":"object","properties":{"o":{"type":"object","properties":{},"required":["x"],"additionalProperties":false}},"required":["o"],"additionalProperties":false}`,
			want:   `{"type":"object","properties":{"o":{"type":"object","properties":{},"additionalProperties":false}},"required":["o"],"additionalProperties":false}`,
			codes:  []string{CodeRequiredPruned},
		},
		{
			name:   "anthropic-strict",
			target: AnthropicStrict,
			in:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["zz"]}`,
			want:   `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			codes:  []string{CodeObjectClosed, CodeRequiredPruned},
		},
		{
			name:   "declared-kept",
			target: OpenAIStrict,
			in:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			want:   `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if probs := Check(tt.target, "f", json.RawMessage(tt.in)); len(probs) == 0 && tt.codes != nil {
				t.Errorf("Check(%s) accepted a schema no call can satisfy", tt.target)
			}
			got, ws, err := Lower(tt.target, json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("lowered (-want +got):\n%s", diff)
			}
			var codes []string
			for _, w := range ws {
				codes = append(codes, w.Code)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("warning codes (-want +got):\n%s", diff)
			}
			if probs := Check(tt.target, "f", got); len(probs) > 0 {
				t.Errorf("Check rejects the lowered schema: %v", probs)
			}
		})
	}
}
