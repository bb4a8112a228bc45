// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

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
