// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package jsonschema reads and writes tools written as plain JSON Schema
// documents, the form many teams keep in a repository: the root "title"
// names the tool, "description" describes it, and the rest of the document
// is the input schema.
//
// # Extension keywords
//
// JSON Schema ignores keywords it does not know, so the document carries
// the rest of a [tool.Definition] in x- keywords:
//
//	x-capabilities   tool.Capability   {"action", "domain", "side_effects", "idempotent", "cost"}
//	x-security       tool.Security     {"required_permissions", "data_classification", "pii"}
//	x-annotations    tool.Annotations  {"title", "readOnlyHint", "destructiveHint", …}
//	x-title, x-version, x-output-schema, x-extensions
//
// With them a definition converts to a document and back without loss.
//
// # What it does not have
//
// A JSON Schema document describes a definition, not a conversation, so
// the package has only [DecodeTools] and [EncodeTools]: there is no
// response, result or tool-choice shape to read.
//
// # Example
//
//	{"title": "delete_invoice", "description": "Delete an invoice.",
//	 "type": "object", "properties": {"id": {"type": "string"}},
//	 "x-capabilities": {"action": "delete", "side_effects": true}}
//
//	tools, err := jsonschema.DecodeTools(data)
package jsonschema
