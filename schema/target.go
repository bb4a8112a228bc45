// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"fmt"
	"strings"
)

// Target is a provider whose schema and name rules a tool is lowered to or
// checked against.
type Target string

// The targets. Strict variants apply the rules of the provider's strict
// (constrained decoding) mode on top of the plain ones.
const (
	OpenAI          Target = "openai"
	OpenAIStrict    Target = "openai-strict"
	Anthropic       Target = "anthropic"
	AnthropicStrict Target = "anthropic-strict"
	// Gemini is the "parameters" field: an OpenAPI 3.0 subset.
	Gemini Target = "gemini"
	// GeminiJSON is the "parametersJsonSchema" field: plain JSON Schema.
	GeminiJSON Target = "gemini-json"
	MCP        Target = "mcp"
)

// Targets lists every target, in a stable order.
var Targets = []Target{OpenAI, OpenAIStrict, Anthropic, AnthropicStrict, Gemini, GeminiJSON, MCP}

// ParseTarget returns the Target named s ("openai", "anthropic-strict", …),
// or an error matching ErrUnknownTarget that lists the known ones.
func ParseTarget(s string) (Target, error) {
	for _, t := range Targets {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, len(Targets))
	for i, t := range Targets {
		names[i] = string(t)
	}
	return "", fmt.Errorf("%w: %q (known: %s)", ErrUnknownTarget, s, strings.Join(names, ", "))
}
