// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package strictjson is the one decoder toolgate uses for untrusted JSON:
// model output, tool arguments and definition files.
//
// [Check] accepts exactly one RFC 8259 value and rejects what
// encoding/json lets through: duplicate object names (compared after
// unescaping), invalid UTF-8, nesting past a limit and documents past a size
// limit. Every failure is an [*Error] naming the byte offset and the JSON
// Pointer of the value where it was found; [LineCol] turns the offset into a
// line and column for people.
//
// Once checked, a document is read without further allocation by [Members],
// [Elements], [Unquote] and [KindOf], which keep every sub-value as the raw
// bytes it arrived in. That is how schemas stay byte-stable. Decoders on a
// hot path walk by offset instead: [WalkObject], [WalkObjectRaw] and
// [WalkArray] hand each value's offset to a callback that may read the
// value itself, and [SkipValue], [SkipString] and [SkipSpace] find the end
// of what it does not read, so each byte is scanned about once. A decoder
// that skips whole schemas checks with [CheckEnds] instead, which records
// where the outer containers end in an [Ends]; [Ends.SkipValue] then skips
// them without reading them again.
//
// # Example
//
//	err := strictjson.Check([]byte(`{"a":1,"a":2}`), nil)
//	// err: strictjson: duplicate name "a" at /a (offset 7)
package strictjson
