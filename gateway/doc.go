// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package gateway fronts model backends with the OpenAI Chat Completions,
// OpenAI Responses and Anthropic Messages APIs, translating between them,
// so that any client SDK can talk to any backend.
//
// # The handler
//
// [New] returns an http.Handler serving POST /v1/chat/completions,
// /v1/responses and /v1/messages, and GET /v1/models, over a set of
// [Provider] backends (OpenAI, Anthropic, and any OpenAI-compatible server:
// vLLM, SGLang, llama.cpp, Ollama, LM Studio, OpenRouter). A request is
// decoded into one [Request] ([DecodeRequest]), written for the backend
// ([EncodeRequest]: tools lowered for its schema rules, every change a
// warning in the x-toolgate-warnings header), sent with retries and
// fallbacks before the first byte, and its answer relayed in the client's
// API. A plain Chat Completions request to a Chat backend that adds
// nothing of its own (messages of text, sampling members the member table
// passes as they are) is checked and sent with the client's messages as
// they came, instead of decoded and written again. A streaming client's
// backend streams, with usage; a non-streaming client's answers whole
// where it can, and the gateway decodes that body into the same events.
//
// # One event stream
//
// Every backend stream is decoded into one sequence of [Event] values —
// start, reasoning and its signature, text, tool calls (opened, arguments
// in pieces, closed), usage, finish, warning, error — by a
// [StreamDecoder] for its API, and written out by a [StreamEncoder] for
// the client's. The decoders own the repairs clients rely on: tool-call
// indexes from 0 in call order whatever the backend sent, one call open
// at a time, arguments that always concatenate to a JSON object ("{}" for
// a call without any), a turn holding calls that finishes
// [FinishToolCalls], usage with cache tokens folded in, the finish held
// until the usage that follows it has arrived, and a stream cut before
// its end reported as [ErrIncomplete] rather than passed on as a shorter
// answer. The encoders own the client side: one block open at a time,
// usage sent last, and a failure after the first byte written as the
// API's own error event. [Collector] folds events into a whole [Turn].
//
// # Example
//
//	h, err := gateway.New(&gateway.Config{
//		Providers: []gateway.Provider{{Name: "local", API: gateway.APIChat,
//			BaseURL: "http://127.0.0.1:8000/v1", Model: "Qwen/Qwen3-14B", Compat: true}},
//		Models: map[string]string{"qwen3": "local"},
//	})
//	http.ListenAndServe("127.0.0.1:8787", h)
package gateway
