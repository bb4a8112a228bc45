// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
)

func TestDecodeAny(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    codec.Format
		wantErr error
	}{
		{"clear", `{"name":"a","inputSchema":{"type":"object"}}`, codec.MCP, nil},
		{"bare-function-agrees", `{"name":"a","description":"d","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}`, codec.OpenAI, nil},
		{"not-json", `{"a":`, "", strictjson.ErrSyntax},
		{"nothing", `{"a":1}`, "", ErrNoFormat},
		// Read as OpenAI the "nullable" keyword stays in the schema; read as
		// Gemini it becomes a null type: the formats disagree, but Gemini's
		// evidence is strong enough that this is not ambiguous.
		{"gemini-nullable", `{"name":"a","parameters":{"type":"object","properties":{"x":{"type":"string","nullable":true}}}}`, codec.Gemini, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, r, err := DecodeAny([]byte(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("DecodeAny = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if r.Format != tt.want || len(ts.Defs) != 1 {
				t.Errorf("DecodeAny read %s with %d definitions, want %s", r.Format, len(ts.Defs), tt.want)
			}
		})
	}
}

// TestDecodeAnyDisagreement builds a document two formats fit equally and
// read differently, and checks that it is reported, naming both.
func TestDecodeAnyDisagreement(t *testing.T) {
	// A bare function whose schema has one nullable property and one
	// BFCL-only type name: Gemini reads the nullable, BFCL maps the type,
	// and their evidence is close.
	in := `{"name":"a","parameters":{"type":"object","properties":{"x":{"type":"string","nullable":true},"y":{"type":"float"}}}}`
	r := Detect([]byte(in))
	if !r.Ambiguous {
		t.Fatalf("Detect = %s %.2f, not ambiguous; the test needs a closer case", r.Format, r.Confidence)
	}
	_, _, err := DecodeAny([]byte(in))
	var ae *AmbiguousError
	if !errors.As(err, &ae) || len(ae.Candidates) < 2 {
		t.Fatalf("DecodeAny = %v, want an *AmbiguousError with two candidates; scores %v", err, r.Scores)
	}
}
