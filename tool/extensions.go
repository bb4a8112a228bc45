// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import "encoding/json"

// Extensions carries provider-specific values that must be written back to
// the same provider: keys are the constants below (or "vendor/field" for
// others), values raw JSON. Encoding sorts the keys, so output is stable.
type Extensions map[string]json.RawMessage

// Keys of [Extensions] that toolgate's codecs read and write.
const (
	// ExtOpenAIStrict is the "strict" flag of an OpenAI function tool.
	ExtOpenAIStrict = "openai/strict"
	// ExtAnthropicCacheControl is an Anthropic "cache_control" object.
	ExtAnthropicCacheControl = "anthropic/cache_control"
	// ExtAnthropicThinking holds the signed thinking blocks that preceded a
	// tool_use block; Anthropic requires them replayed before it.
	ExtAnthropicThinking = "anthropic/thinking"
	// ExtMCPMeta is an MCP "_meta" object.
	ExtMCPMeta = "mcp/_meta"
	// ExtMCPIcons is an MCP "icons" array.
	ExtMCPIcons = "mcp/icons"
	// ExtMCPExecution is an MCP "execution" object.
	ExtMCPExecution = "mcp/execution"
	// ExtGeminiThoughtSignature is the thought signature of a Gemini
	// functionCall part, which Gemini 3 requires on replay.
	ExtGeminiThoughtSignature = "gemini/thought_signature"
	// ExtGeminiBehavior is a Gemini function declaration's "behavior".
	ExtGeminiBehavior = "gemini/behavior"
	// ExtResponsesItemID is the "id" of an OpenAI Responses function_call
	// item (fc_…), distinct from its call_id.
	ExtResponsesItemID = "openai-responses/id"
	// ExtResponsesStatus is the "status" of a Responses item.
	ExtResponsesStatus = "openai-responses/status"
	// ExtLangChainReturnDirect and friends keep LangChain tool fields.
	ExtLangChainReturnDirect = "langchain/return_direct"
	// ExtBFCLOriginal keeps a BFCL definition's original parameters, which
	// are not JSON Schema.
	ExtBFCLOriginal = "bfcl/parameters"
	// ExtEmptyDescription (value true) marks a definition whose input
	// had "description": "", so that the same format writes it back:
	// the model has no empty-but-present description otherwise. See
	// [Definition.HasDescription].
	ExtEmptyDescription = SpellingPrefix + "empty_description"
)

// SpellingPrefix starts the keys of extensions that record how the input
// was written rather than what it says (a member present but empty, a
// member left out where leaving it out means something): the format that
// wrote them writes the same spelling back, and an encoder that has no
// use for one drops it without a warning, since nothing is lost.
const SpellingPrefix = "spelling/"

// IsSpelling reports whether key is a spelling extension (see
// [SpellingPrefix]).
func IsSpelling(key string) bool {
	return len(key) > len(SpellingPrefix) && key[:len(SpellingPrefix)] == SpellingPrefix
}

// HasDescription reports whether d's description is written: it is not
// empty, or the input had an empty one ([ExtEmptyDescription]).
func (d *Definition) HasDescription() bool {
	return d.Description != "" || d.Extensions.Get(ExtEmptyDescription) != nil
}

// Get returns the value stored under key, or nil.
func (e Extensions) Get(key string) json.RawMessage {
	if e == nil {
		return nil
	}
	return e[key]
}

// Set stores v under key, allocating the map if needed, and returns it.
func (e Extensions) Set(key string, v json.RawMessage) Extensions {
	if e == nil {
		e = make(Extensions)
	}
	e[key] = v
	return e
}

// Clone returns a copy of e whose values share no memory with e.
func (e Extensions) Clone() Extensions {
	if e == nil {
		return nil
	}
	c := make(Extensions, len(e))
	for k, v := range e {
		c[k] = append(json.RawMessage(nil), v...)
	}
	return c
}
