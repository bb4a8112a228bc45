// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package textcall reads the tool calls that open models print as text,
// whole or while the tokens stream in, and writes the prompt text that
// tells those models which tools they have.
//
// Models served without native tool calling (vLLM, llama.cpp, SGLang or a
// plain completions API) print their calls in the format their chat
// template taught them: Hermes <tool_call> blocks, Qwen3-Coder XML, bare
// Llama 3 JSON, Mistral [TOOL_CALLS], Python-style lists, DeepSeek and
// Kimi special tokens, GLM key/value tags, Harmony channels. A [Parser]
// for one [Family] turns that text into content, reasoning and
// [tool.Call] values with JSON-object arguments.
//
// # Families
//
// [Names] lists them: hermes, qwen3-coder, llama3-json, mistral,
// pythonic, deepseek-v3, deepseek-v3.1, kimi-k2, glm-4.5, granite, jamba,
// internlm, xlam and gpt-oss. [Lookup] also accepts the parser names of
// serving stacks (qwen3_coder, kimi_k2, openai, …). A family is one file
// declaring where its calls start and end and how the text between is
// read; one engine does the scanning for all of them.
//
// # Streaming
//
// [Parser.Parse] reads a whole output; a [Scanner] reads it in deltas of
// any size and returns [Event] values: content and reasoning text, the
// start of each call (index, id, name) and its arguments. Both run the
// same code, so streaming gives exactly the result of Parse however the
// text is cut. A call is reported once its text is complete, so nothing is
// ever taken back; text that might be the start of a marker is held until
// the next bytes tell. With [Config.StreamArguments], a call whose body is
// a JSON call object is announced as soon as its name and the start of its
// arguments are in, and its arguments are sent as they are written; such
// a call that then turns out broken is withdrawn with a warning, so a
// client that executes calls acts on [Scanner.Result], not on the
// events. Each byte is scanned once (a call that turns out not to be one
// has its text scanned a second time, as text), and the scanning buffer
// holds at most the call in progress ([Config.MaxCallBytes]) and text
// held while reasoning cannot be told from answer
// ([Config.MaxReasoningHoldBytes]); with [Config.DiscardText] the scanner
// keeps no other text either.
//
// # Reasoning
//
// Reasoning is split off first: a <think> or <thinking> block (or
// [Config.ThinkTag]) at the start of the output, or everything up to the
// closing tag when the chat template printed the opener
// ([Config.ThinkOpen]; an opener the model prints again is dropped).
// Blocks that open later in the answer (interleaved thinking) are
// reasoning too. Markers inside a closed block are never calls.
//
// Text that closes a block it never opened ("The user asks…</think>") is
// reasoning whose opener the template printed, as Qwen3 and DeepSeek-R1
// templates do, with an implied-reasoning-open warning; until the closing
// tag, a call marker or the end decides, such text is held back (see
// [Config.DisableImpliedReasoning] for the rule and the strict reading).
//
// A block still open at the end is all reasoning and is flagged
// ([Result.UnclosedReasoning]), unless a call marker of the family in it
// is followed by a complete call: the model went from thinking straight
// to the call, which then ends the reasoning (reasoning-closed-by-call).
// gpt-oss marks reasoning with its analysis channel instead.
//
// # Arguments
//
// JSON inside model output is checked by internal/strictjson (duplicate
// names, invalid UTF-8 and depth are refused) and kept as compact canonical
// bytes. Arguments a model wrote as a JSON string are decoded once. The
// families that print values as text (qwen3-coder, glm-4.5) have them
// coerced to the integer, number, boolean, object, array or null the
// tool's schema asks for (local $ref, anyOf, oneOf and nullable are
// followed); a value that will not coerce stays a string, with a warning.
//
// # Malformed output
//
// Nothing here panics on input. Complete calls are returned; a broken or
// cut-off call becomes content; each salvage is a [tool.Warning] with a
// stable code (malformed-call, partial-call, unclosed-call, empty-call,
// invalid-call, unknown-tool, uncoerced-argument, duplicate-argument,
// out-of-range-number, unclosed-reasoning, implied-reasoning-open,
// reasoning-closed-by-call, stray-reasoning-close, malformed-message,
// call-too-large, and call-withdrawn with [Config.StreamArguments]).
// A number no float64 can hold (1e999) is never written as a JSON number:
// it stays the text the model wrote. Warnings about
// one argument point at it: /tool_calls/N/arguments/NAME. Calls to tools
// that were not offered go to [Result.Rejected] unless
// [Config.AllowUnknownTools] is set.
//
// # Call ids
//
// Ids are unique within a response. A model's own id is kept when it has
// one (Kimi's functions.NAME:IDX); otherwise ids are generated, shaped by
// [Config.IDStyle]: "call_" and 24 alphanumerics, or the nine
// alphanumerics Mistral demands. Each response draws its own random seed
// for them, so ids do not repeat across the turns of a conversation;
// [Config.Seed] fixes the seed, making ids a function of it and the
// call's position, for tests and reproducible output.
//
// # Prompts
//
// [Family.Prompt] renders the system-prompt tools section a family's
// models were trained on, honouring [tool.Choice]; [Family.FormatCalls]
// and [Family.FormatResults] write earlier calls and their results back
// into the conversation.
//
// # Example
//
//	p, _ := textcall.New("hermes", &textcall.Config{Tools: tools})
//	r := p.Parse("<think>Paris.</think><tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>")
//	// r.Reasoning == "Paris."; r.Calls[0].Name == "get_weather"
//
//	s := p.NewScanner()
//	for delta := range deltas {
//		for _, ev := range s.Feed(delta) {
//			// forward ev to the client
//		}
//	}
//	s.Close()
package textcall
