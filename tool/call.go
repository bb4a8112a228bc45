// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import "encoding/json"

// Call is one tool call a model made.
type Call struct {
	// ID pairs the call with its result. Providers shape ids differently
	// (call_…, toolu_…, nine alphanumerics for Mistral); codecs keep them.
	ID string `json:"id"`
	// Name is the tool name as the model wrote it.
	Name string `json:"name"`
	// Arguments is a JSON object, never a JSON string holding one: codecs
	// for providers that send arguments as a string decode it once.
	Arguments json.RawMessage `json:"arguments"`
	// Extensions holds provider state that must be replayed to the same
	// provider: thinking blocks, thought signatures, Responses item ids.
	Extensions Extensions `json:"extensions,omitempty"`
}

// StopReason is why a model stopped generating, in provider-neutral terms.
type StopReason string

// The stop reasons. A response that holds both text and a tool call stopped
// for [StopToolCalls], whichever provider wrote it.
const (
	StopEnd           StopReason = "end"
	StopToolCalls     StopReason = "tool_calls"
	StopMaxTokens     StopReason = "max_tokens"
	StopSequence      StopReason = "stop_sequence"
	StopContentFilter StopReason = "content_filter"
	StopPauseTurn     StopReason = "pause_turn"
	StopRefusal       StopReason = "refusal"
	StopOther         StopReason = "other"
)

// Response is what a model returned in one turn, in canonical form.
type Response struct {
	// Content is the answer text, without reasoning.
	Content string `json:"content,omitempty"`
	// Reasoning is the model's visible reasoning, if it gave any.
	Reasoning string     `json:"reasoning,omitempty"`
	Calls     []Call     `json:"tool_calls,omitempty"`
	Stop      StopReason `json:"stop,omitempty"`
	// ID is the provider's id of the response or message, if any.
	ID string `json:"id,omitempty"`
	// Model is the model that produced the response, if reported.
	Model      string     `json:"model,omitempty"`
	Extensions Extensions `json:"extensions,omitempty"`
}
