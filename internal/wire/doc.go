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
//	// err, when "name" is a number: unknown shape at /tools/0/name: want a string, got number
package wire
