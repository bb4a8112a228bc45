// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package codec holds what the provider codecs beneath it share: the
// [Format] names of the CLI and the [Tools] container.
//
// Each codec package (openai, responses, anthropic, mcp, gemini, langchain,
// bfcl, jsonschema, canonical) reads and writes one provider's shapes with
// the same function names: DecodeTools, EncodeTools, and, where the provider
// has them, DecodeResponse, EncodeResponse, DecodeResults and EncodeResults.
//
// # Example
//
//	tools, err := openai.DecodeTools(data)
//	out, warnings, err := anthropic.EncodeTools(tools)
package codec

import "github.com/toolgate/toolgate/tool"

// Format names a definition format, as the CLI's --from and --to take it.
type Format string

// The definition formats.
const (
	OpenAI          Format = "openai"
	OpenAIResponses Format = "openai-responses"
	Anthropic       Format = "anthropic"
	MCP             Format = "mcp"
	Gemini          Format = "gemini"
	LangChain       Format = "langchain"
	JSONSchema      Format = "jsonschema"
	Canonical       Format = "canonical"
	BFCL            Format = "bfcl" // input only
)

// Tools is a decoded list of definitions and how it arrived.
type Tools struct {
	Defs []tool.Definition
	// Single is true when the input held one tool not in a container; an
	// encoder then writes one tool rather than a JSON array.
	Single bool
	// Warnings report what the decoder changed or could not read.
	Warnings []tool.Warning
}
