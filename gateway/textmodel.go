// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/textcall"
)

// checkTextModel checks and completes p's open-model settings: the
// backend kind, the tool parser, the parsing format, the think tag and
// the two-pass keys.
func checkTextModel(p *Provider) error {
	switch p.Backend {
	case "":
		switch {
		case p.API == APIMessages:
			p.Backend = BackendAnthropic
		case p.API == APIGemini:
			p.Backend = BackendGemini
		case p.Compat:
			p.Backend = BackendCompat
		default:
			p.Backend = BackendOpenAI
		}
	case BackendOpenAI, BackendAnthropic, BackendGemini:
	case BackendCompat, BackendVLLM, BackendLlamaCpp, BackendOllama:
		p.Compat = true
	default:
		return fmt.Errorf("unknown backend %q", p.Backend)
	}
	if p.ToolParser == "openai" {
		p.ToolParser = ""
	}
	if p.ToolParser != "" {
		if _, err := textcall.Lookup(p.ToolParser); err != nil {
			return fmt.Errorf("tool parser: %w", err)
		}
	}
	switch p.Parsing {
	case "":
		// Open models print their reasoning in the text unless the
		// server splits it; the vendors' APIs split it themselves.
		p.Parsing = ParsingReasoningField
		if p.Compat {
			p.Parsing = ParsingThinkTags
		}
	case ParsingReasoningField, ParsingDirect, ParsingThinkTags:
	default:
		return fmt.Errorf("unknown parsing format %q", p.Parsing)
	}
	if p.ThinkTag != "" && !ValidThinkTag(p.ThinkTag) {
		return fmt.Errorf("think tag %q is not a tag name (letters, digits, _ and -)", p.ThinkTag)
	}
	switch p.TwoPass {
	case "", TwoPassOff:
		p.TwoPass = TwoPassOff
	case TwoPassOn, TwoPassAuto:
	default:
		return fmt.Errorf("unknown two-pass mode %q", p.TwoPass)
	}
	switch p.Continuation {
	case "":
		p.Continuation = ContinueAuto
	case ContinueAuto, ContinueFinalMessage, ContinuePrefill, ContinueNone:
	default:
		return fmt.Errorf("unknown continuation %q", p.Continuation)
	}
	if p.MaxThinkingTokens < 0 || p.MaxResponseTokens < 0 {
		return errors.New("a token budget is negative")
	}
	if p.TwoPass != TwoPassOff && p.MaxThinkingTokens == 0 {
		return errors.New("two passes need a thinking budget (max_thinking_tokens)")
	}
	if usesTwoPasses(p) {
		if p.API == APIResponses {
			return errors.New("two passes need a backend that continues a trailing assistant message; the Responses API does not")
		}
		if continuation(p) == ContinueNone {
			return fmt.Errorf("two passes need a backend that continues a trailing assistant message; %s does not (set continuation if it does)", p.Backend)
		}
	}
	return nil
}

// ValidThinkTag reports whether t can name a think tag: 1 to 64 letters,
// digits, _ and -, without brackets.
func ValidThinkTag(t string) bool {
	if t == "" || len(t) > 64 {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
