// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package anthropic reads and writes the Anthropic Messages shapes of
// tools: definitions ({"name","description","input_schema"}), the tool_use
// blocks of a message, the tool_result blocks that carry results back, and
// tool_choice.
//
// # Definitions
//
// [DecodeTools] accepts one tool, a JSON array of tools and an object
// holding "tools" (a whole request body works). "cache_control" is kept as
// [tool.ExtAnthropicCacheControl], and the other optional members under
// this package's Ext* keys, so that they survive a round trip.
// [EncodeTools] writes one tool or an array with a fixed key order and
// schemas as the bytes they arrived in, so its output is byte-stable;
// what the format cannot carry (title, output schema, annotations, OpenAI's
// strict flag…) comes back as warnings. It does not lower schemas: package
// schema does, before encoding.
//
// # Calls, thinking and results
//
// [DecodeResponse] reads a message: tool_use blocks become calls whose
// arguments are the "input" object, text blocks the content, thinking
// blocks the reasoning. Signed thinking and redacted_thinking blocks that
// precede a tool_use are kept, as they arrived, in
// [tool.ExtAnthropicThinking] of that call, and [EncodeResponse] writes
// them back first, as the API requires when a conversation is replayed.
// stop_reason maps to [tool.StopReason] and back, including pause_turn,
// refusal and model_context_window_exceeded; a message holding a tool_use
// block is a [tool.StopToolCalls] stop. [DecodeResults] and
// [EncodeResults] read and write tool_result blocks, with is_error, text
// and images.
//
// # Untrusted input
//
// Every decoder checks its input with internal/strictjson first (the
// *strictjson.Error it returns names the byte offset and pointer), then
// walks the raw bytes: names are case-sensitive, and a document of the
// wrong shape is an error wrapping [codec.ErrUnknownShape] that names the
// JSON Pointer. Decoded values share no memory with the input.
//
// # Example
//
//	tools, err := openai.DecodeTools(data)
//	if err != nil {
//		return err
//	}
//	out, warnings, err := anthropic.EncodeTools(tools)
package anthropic
