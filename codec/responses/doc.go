// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package responses reads and writes the OpenAI Responses API shapes of
// tools: flat function tools ({"type":"function","name","parameters",
// "strict"}), the function_call and reasoning items of a response, the
// function_call_output items that carry results back, and tool_choice.
//
// # Definitions
//
// [DecodeTools] accepts one tool, a JSON array of tools and an object
// holding "tools" (a whole request body works); built-in tools are skipped
// with a warning. An absent "strict" is not strict: only a present flag is
// kept, in [tool.ExtOpenAIStrict], and [EncodeTools] always writes the
// flag (false when a definition has none), so that the tool means the same
// whatever the API's default. "output_schema", "defer_loading" and
// "allowed_callers" are kept; other formats drop them with a warning. Output is byte-stable: fixed key order,
// schemas as the bytes they arrived in.
//
// # Calls, reasoning and results
//
// [DecodeResponse] reads a response. A function_call item's call_id is
// the [tool.Call.ID] that pairs it with its output, and its item id (fc_…)
// is kept in [tool.ExtResponsesItemID]. Its "arguments" string is decoded
// once, strictly, and must hold a JSON object. Reasoning items that
// precede a call are kept on it under [ExtReasoning] (encrypted content
// included) so that a stateless conversation can replay them;
// [EncodeResponse] writes them back before the call. status and
// incomplete_details map to [tool.StopReason] and back. [DecodeResults]
// and [EncodeResults] read and write function_call_output items.
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
//	out, warnings, err := responses.EncodeTools(tools)
package responses
