// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package codec holds what the provider codecs beneath it share: the
// [Format] names of the CLI, the [Tools] container and [Error], the error
// every codec returns.
//
// # The function set
//
// Each codec package reads and writes one format's shapes with the same
// function names; every decoder takes the input's bytes and every encoder
// returns the bytes, the [tool.Warning] values saying what it could not
// carry, and an error:
//
//	DecodeTools / EncodeTools        definitions
//	DecodeResponse / EncodeResponse  a model's response: text, reasoning, calls
//	DecodeResults / EncodeResults    tool results sent back to the model
//	DecodeChoice / EncodeChoice      tool choice
//
// openai, responses, anthropic and gemini have all four pairs. Where a
// format has no such thing the package says so in its doc rather than
// invent a shape: langchain has no tool choice; mcp has one call and one
// result per message (DecodeCall, DecodeResult) and no response or
// choice; bfcl is input only (DecodeTools); jsonschema and canonical
// describe definitions only.
//
// # Errors
//
// Every decoder returns an [*Error] for input it cannot read, and every
// encoder for a value it cannot write, with the format, the JSON Pointer
// of the value at fault, the byte offset of that value in the input when
// known, and the cause. Its message is "FORMAT: POINTER: CAUSE" and never
// quotes the input's values. Branch on the cause with errors.Is
// ([ErrUnknownShape], [ErrCannotEncode], tool.ErrInvalidDefinition, the
// sentinels of strictjson) and on the location with errors.As.
//
// # Example
//
//	tools, err := openai.DecodeTools(data)
//	if ce, ok := errors.AsType[*codec.Error](err); ok {
//		fmt.Println(ce.Pointer, ce.Offset) // /0/function/name 42
//	}
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
	// Extensions holds what the document said around its tools that is
	// part of no definition, keyed like [tool.Extensions] by format: an
	// MCP tools/list result's nextCursor and _meta, the container a
	// Gemini list came in. The same format's encoder writes it back;
	// other encoders report it dropped.
	Extensions tool.Extensions `json:",omitempty"`
}
