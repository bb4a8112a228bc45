// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package canonical reads and writes toolgate's own format: the JSON
// encoding of [tool.Definition], which carries every field of the model and
// so converts to and from itself without loss.
//
// # Strictness
//
// [DecodeTools] checks the document with internal/strictjson, then
// requires every member name to be one of the model's, in the exact case,
// before decoding; unknown enumeration values (an action, a PII mode) are
// errors too. Schemas and extension values are kept as raw bytes.
//
// # Byte stability
//
// [EncodeTools] writes members in field order, schemas as the bytes they
// hold and extensions sorted by key, without HTML escaping: the same input
// always gives the same bytes.
//
// # What it does not have
//
// The canonical form is toolgate's own for definitions: the package has
// only [DecodeTools] and [EncodeTools]. Calls, results and responses have
// their canonical form in package tool's JSON tags.
//
// # Example
//
//	tools, err := canonical.DecodeTools(data)
//	out, _, err := canonical.EncodeTools(tools)
package canonical
