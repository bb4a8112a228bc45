// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package tool is toolgate's canonical model of a tool: its [Definition],
// a [Call] a model made and the [Result] that goes back.
//
// Every codec reads a provider's shape into these types and writes them out
// again; the kernel, the text-call parsers and the OpenAPI connector speak
// only this model.
//
// # Schemas stay raw
//
// Input and output schemas are kept as the raw JSON they arrived in, with key
// order preserved. Providers cache prompts by prefix, and a re-ordered key
// breaks the cache, so toolgate never re-serialises a schema it did not have
// to change. Only package schema interprets them.
//
// # Extensions
//
// Provider-specific fields that must survive a round trip (OpenAI "strict",
// Anthropic "cache_control", MCP "_meta", a Gemini thought signature) live in
// [Extensions], keyed by the constants below. A codec writes back the keys it
// owns and ignores the others.
//
// # Example
//
//	def := tool.Definition{
//		Name:        "get_weather",
//		Description: "Current weather for a city.",
//		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
//	}
package tool
