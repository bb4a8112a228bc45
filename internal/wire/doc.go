// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package wire holds the small readers and writers the codecs share:
// typed reads of checked JSON values with errors that name a JSON
// Pointer, tool-name checks, member writers and the dropped-field
// warnings of an encoder.
//
// # Errors
//
// A value of the wrong shape is reported with [ShapeErr], which wraps
// codec.ErrUnknownShape; a definition no provider could accept with
// [DefErr], which wraps tool.ErrInvalidDefinition and starts with the
// codec's name. The codecs that name the place first (canonical,
// jsonschema, langchain, gemini, mcp) use [Errf], [PrefixedStr] and
// [PrefixedBool] instead.
//
// # Example
//
//	name, err := wire.Str(strictjson.Get(obj, "name"), wire.Member(ptr, "name"))
//	// err, when "name" is a number: unknown shape at /tools/0/name: want a string, got number
package wire
