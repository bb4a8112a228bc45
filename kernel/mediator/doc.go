// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package mediator puts the kernel between a model and its tools for
// the common vendor shapes: hand [Handler.Handle] the model's response
// as it came — OpenAI Chat Completions, OpenAI Responses, Anthropic
// Messages, or an MCP tools/call request — and get back the tool results
// in the same shape, ready to append to the conversation.
//
// # Failures are results
//
// An unknown tool, a policy denial, arguments that are not a JSON object,
// a schema violation, an executor error and a hook abort each become a
// tool-error result that names the problem, so the model can correct
// itself and the agent loop never breaks. Only a response with no
// readable call at all is a Go error ([ErrUnreadable]).
//
// # Names and justifications
//
// When definitions were lowered for a provider through a
// [schema.NameMap], pass it in [Config.Names] and calls are mapped back to
// the registry's names. A justification comes from a call's
// "_justification" argument (removed before validation), from
// [Batch.Justification], or from a kernel before-hook.
//
// # Example
//
//	m, _ := mediator.New(&mediator.Config{Kernel: k})
//	results, _, err := m.Handle(ctx, codec.Anthropic, responseBody, &mediator.Batch{
//		Principal: kernel.Principal{ID: "ada"},
//	})
//	// results: {"role":"user","content":[{"type":"tool_result",...}]}
package mediator
