// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package gemini reads and writes Google Gemini's shapes for tools:
// function declarations, functionCall parts in a generateContent response,
// and functionResponse parts.
//
// # Definitions
//
// [DecodeTools] accepts a bare declaration, an array of declarations or of
// Tool objects, a Tool object ({"functionDeclarations": […]}) and a
// request body with "tools"; snake_case spellings too. A declaration's
// "parameters" is Gemini's OpenAPI 3.0 subset and is converted to standard
// JSON Schema on the way in (lower-case types; nullable folded into the
// type and enum); "parametersJsonSchema" is kept as it is.
//
// Two encoders differ only in where the schema goes:
//
//   - [EncodeTools] writes "parameters" (and "response"). Gemini reads it
//     as the OpenAPI subset, so lower the schema first with package
//     schema's Gemini target, which upper-cases types and removes $ref,
//     additionalProperties and the rest Gemini refuses. The CLI does this.
//   - [EncodeToolsJSONSchema] writes "parametersJsonSchema" (and
//     "responseJsonSchema"), which take standard JSON Schema.
//
// One tool (Single) is written as a bare declaration, to paste into a
// functionDeclarations array; a list as [{"functionDeclarations": […]}],
// to paste as a request's "tools".
//
// # Calls and results
//
// [DecodeResponse] and [EncodeResponse] convert a generateContent response
// to and from a [tool.Response]; a functionCall part's thoughtSignature,
// which Gemini 3 requires on replay, rides on the call under
// [tool.ExtGeminiThoughtSignature]. [DecodeResults] and [EncodeResults]
// convert functionResponse parts, following Gemini's {"output": …} /
// {"error": …} convention.
//
// # Example
//
//	tools, err := openai.DecodeTools(data)
//	out, warnings, err := gemini.EncodeToolsJSONSchema(tools)
package gemini
