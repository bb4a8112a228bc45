// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import (
	"errors"
	"fmt"
)

// ChoiceMode is how a model is told to use the tools it is offered.
type ChoiceMode string

// The tool-choice modes, named as OpenAI names them; Anthropic's "any" is
// [ChoiceRequired] and its {"type":"tool"} is [ChoiceTool].
const (
	ChoiceAuto     ChoiceMode = "auto"
	ChoiceNone     ChoiceMode = "none"
	ChoiceRequired ChoiceMode = "required"
	ChoiceTool     ChoiceMode = "tool"
)

// Choice is a tool_choice in canonical form. The zero value is auto.
type Choice struct {
	Mode ChoiceMode `json:"mode,omitempty"`
	// Name is the tool the model must call when Mode is [ChoiceTool].
	Name string `json:"name,omitempty"`
	// DisableParallel asks for at most one call (OpenAI's
	// parallel_tool_calls false, Anthropic's disable_parallel_tool_use).
	DisableParallel bool `json:"disable_parallel,omitempty"`
}

// ErrInvalidChoice reports a tool choice that names no mode or tool.
var ErrInvalidChoice = errors.New("tool: invalid tool choice")

// ParseChoice reads the CLI spelling of a choice: auto, none, required
// (or any), or the name of a tool.
func ParseChoice(s string) (Choice, error) {
	switch s {
	case "", "auto":
		return Choice{Mode: ChoiceAuto}, nil
	case "none":
		return Choice{Mode: ChoiceNone}, nil
	case "required", "any":
		return Choice{Mode: ChoiceRequired}, nil
	}
	for _, r := range s {
		if r <= ' ' {
			return Choice{}, fmt.Errorf("%w: %q", ErrInvalidChoice, s)
		}
	}
	return Choice{Mode: ChoiceTool, Name: s}, nil
}
