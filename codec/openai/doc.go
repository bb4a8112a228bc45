// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package openai reads and writes the OpenAI Chat Completions shapes of
// tools: definitions ({"type":"function","function":{…}}), the tool calls
// of a response, the role "tool" messages that carry results back, and
// tool_choice.
//
// # Definitions
//
// [DecodeTools] accepts one tool, a JSON array of tools, an object holding
// "tools" (a whole request body works), and the legacy shapes: a bare
// function object and a request's "functions" array. [EncodeTools] writes
// one tool or an array, with a fixed key order and schemas written as the
// bytes they arrived in, so its output is byte-stable; what the format
// cannot carry (title, output schema, annotations, other providers'
// extensions) comes back as warnings. The "strict" flag is kept as the
// [tool.ExtOpenAIStrict] extension.
//
// # Calls and results
//
// [DecodeResponse] reads a chat completion. A call's "arguments" is a JSON
// string: it is decoded once, strictly (duplicate keys and invalid UTF-8
// are errors), and must hold an object; the error names its JSON Pointer,
// such as /choices/0/message/tool_calls/1/function/arguments.
// finish_reason maps to [tool.StopReason] and back; a response holding a
// call is a [tool.StopToolCalls] stop whatever its finish_reason says.
// [DecodeResults] and [EncodeResults] read and write tool messages.
//
// # Untrusted input
//
// Every decoder checks its input with internal/strictjson first (the
// *strictjson.Error it returns names the byte offset and pointer), then
// walks the raw bytes: names are case-sensitive, and a document of the
// wrong shape is an error wrapping [codec.ErrUnknownShape] that names the
// JSON Pointer. Definitions share no memory with the input.
//
// # Example
//
//	tools, err := openai.DecodeTools(data)
//	if err != nil {
//		return err
//	}
//	out, warnings, err := anthropic.EncodeTools(tools)
package openai
