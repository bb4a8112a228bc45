// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package wire holds the small readers and writers the codecs share:
// typed reads of checked JSON values with errors that name a JSON
// Pointer, tool-name checks, member writers and the dropped-field
// warnings of an encoder.
//
// # Errors
//
// Every error the helpers return for bad input is a *codec.Error without
// a format: [ShapeErr] wraps codec.ErrUnknownShape, [DefErr]
// tool.ErrInvalidDefinition, [Errf] any sentinel, [ErrAt] any cause, each
// at a JSON Pointer. A codec's exported functions pass their error
// through [Fail], which names the format and, for a decoder, finds the
// byte offset of the pointer in the input ([PointerOffset]); a
// *strictjson.Error becomes the cause of a *codec.Error at its own place.
// Messages never quote the input's values.
//
// # Tools documents
//
// [Decoder] holds the state of a tools decoder and [Decoder.Tools] reads
// the containers the provider formats share (one tool, an array, an
// object holding "tools"); a codec embeds it and supplies the reader of
// one tool. [Decoder.Check] records where the document's outer
// containers end, so that [Decoder.Value] skips a schema without reading
// it again; [Decoder.Text], [Decoder.AddDef] and [Decoder.Strings] give a
// document's names and descriptions one allocation; [Decoder.Reset] lets
// a codec keep decoders in a pool. [EncodeTools] runs the encoding loop
// with a [ToolWriter].
// [AppendMeta], [DecodeAnnotations] and the other meta.go helpers read
// and write toolgate's own metadata for canonical and jsonschema.
//
// # Example
//
//	name, err := wire.Str(strictjson.Get(obj, "name"), wire.Member(ptr, "name"))
//	// err, when "name" is a number: /tools/0/name: unknown shape: want a string, got number
package wire
