// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInvalidDefinition reports a definition that no provider could accept:
// an empty name or a schema that is not a JSON object.
var ErrInvalidDefinition = errors.New("tool: invalid definition")

// Definition is one tool in canonical form.
//
// The JSON encoding of a Definition is toolgate's "canonical" format; its
// field order is fixed so that the encoding is byte-stable.
type Definition struct {
	// Name is the tool's name as its author wrote it. Codecs map it to each
	// provider's name rules with package schema's reversible mapping.
	Name string `json:"name"`
	// Title is a short human-readable name (MCP "title").
	Title string `json:"title,omitempty"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, as raw JSON with key
	// order preserved. Nil means "no arguments" and is written as an empty
	// object schema by codecs whose provider requires one.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// OutputSchema is the JSON Schema of the structured result, if known.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Annotations are the behaviour hints MCP defines.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Behavior describes what the tool does, stated or inferred.
	Behavior *Behavior `json:"capability,omitempty"`
	// Security describes what calling the tool requires and exposes.
	Security *Security `json:"security,omitempty"`
	// Version is the tool's own version string, if it has one.
	Version string `json:"version,omitempty"`
	// Extensions carries provider fields that must survive a round trip.
	Extensions Extensions `json:"extensions,omitempty"`
}

// Validate reports whether d could be written for any provider: it has a
// name, and its schemas, when present, are JSON objects.
// It does not check provider-specific rules; see package schema for those.
func (d *Definition) Validate() error {
	if d.Name == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidDefinition)
	}
	if len(d.InputSchema) > 0 && firstByte(d.InputSchema) != '{' {
		return fmt.Errorf("%w: %q: input schema is not a JSON object", ErrInvalidDefinition, d.Name)
	}
	if len(d.OutputSchema) > 0 && firstByte(d.OutputSchema) != '{' {
		return fmt.Errorf("%w: %q: output schema is not a JSON object", ErrInvalidDefinition, d.Name)
	}
	return nil
}

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// Annotations are hints about a tool's behaviour, as MCP defines them.
// A nil field is unknown, which is not the same as false: MCP's defaults are
// destructive and open-world when unknown.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Action is what a tool does to the data it touches.
type Action string

// The actions a capability may state or inference may find.
const (
	ActionRead    Action = "read"
	ActionSearch  Action = "search"
	ActionCreate  Action = "create"
	ActionUpdate  Action = "update"
	ActionDelete  Action = "delete"
	ActionExecute Action = "execute"
	ActionSend    Action = "send"
	ActionCompute Action = "compute"
)

// Cost is a rough estimate of what one call costs to run.
type Cost string

// The cost estimates.
const (
	CostLow    Cost = "low"
	CostMedium Cost = "medium"
	CostHigh   Cost = "high"
)

// Behavior describes what a tool does. Explicit values always win over
// inferred ones; Inferred records which of the two this is.
type Behavior struct {
	Action Action `json:"action,omitempty"`
	// Domain is the area the tool works in: "web", "filesystem", "finance"…
	Domain string `json:"domain,omitempty"`
	// SideEffects is true when a call changes state outside the tool.
	SideEffects *bool `json:"side_effects,omitempty"`
	Idempotent  *bool `json:"idempotent,omitempty"`
	Cost        Cost  `json:"cost,omitempty"`
	// Inferred is true when the fields above were derived from the tool's
	// name and description rather than stated by its author.
	Inferred bool `json:"inferred,omitempty"`
}

// Classification is how sensitive the data a tool handles is.
type Classification string

// The data classifications, from least to most sensitive.
const (
	ClassPublic       Classification = "public"
	ClassInternal     Classification = "internal"
	ClassConfidential Classification = "confidential"
	ClassRestricted   Classification = "restricted"
)

// PIIHandling says whether and how a tool's data holds personal information.
type PIIHandling string

// The PII handling modes.
const (
	PIINone   PIIHandling = "none"
	PIIMay    PIIHandling = "may_contain"
	PIIRedact PIIHandling = "redact"
	PIIDeny   PIIHandling = "deny"
)

// Security describes what calling a tool requires and what it exposes.
type Security struct {
	RequiredPermissions []string       `json:"required_permissions,omitempty"`
	DataClassification  Classification `json:"data_classification,omitempty"`
	PII                 PIIHandling    `json:"pii,omitempty"`
}

// Bool returns a pointer to b, for the optional fields of [Annotations] and
// [Behavior].
func Bool(b bool) *bool { return &b }
