// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package codec

import (
	"errors"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// ErrUnknownShape reports a document, or a value in it, that is not the
// shape a codec reads. It is carried inside an [*Error], which names the
// format and the place, so its own text has no package prefix.
var ErrUnknownShape = errors.New("unknown shape")

// ErrCannotEncode reports a value an encoder cannot write in its format,
// such as a result without the call id the format pairs results by. Like
// [ErrUnknownShape] it is carried inside an [*Error].
var ErrCannotEncode = errors.New("cannot encode")

// Error is the error every decoder of every codec package returns for input
// it cannot read, and every encoder for a value it cannot write. Match it
// with errors.As; match its cause with errors.Is (for example
// [ErrUnknownShape], tool.ErrInvalidDefinition or a sentinel of
// internal/strictjson, whose located *strictjson.Error is kept as Err).
//
// Its message has one shape for every format:
//
//	FORMAT: POINTER: CAUSE
//
// for example "openai: /0/name: unknown shape: want a string, got number",
// with "document root" for the empty pointer. The message never holds the
// input's values, which may be secrets: only member names, kinds and the
// codec's own words.
type Error struct {
	// Format is the codec's format name ("openai", "mcp", ...).
	Format Format
	// Pointer is the JSON Pointer (RFC 6901) of the value at fault, in the
	// input for a decoder and in the format's output shape for an encoder.
	Pointer string
	// Offset is the byte offset into the input where the value at fault
	// starts, or -1 when it is not known (always for an encoder).
	Offset int64
	// Err is the cause.
	Err error
}

// maxShownPointer is the longest pointer Error prints whole.
const maxShownPointer = 120

func (e *Error) Error() string {
	var b strings.Builder
	if e.Format != "" {
		b.WriteString(string(e.Format))
		b.WriteString(": ")
	}
	switch p := e.Pointer; {
	case p == "":
		b.WriteString("document root")
	case len(p) > maxShownPointer:
		// The Pointer field keeps it whole; a person reads its ends.
		b.WriteString(p[:maxShownPointer/2])
		b.WriteString("/…")
		b.WriteString(p[len(p)-maxShownPointer/2:])
	default:
		b.WriteString(p)
	}
	b.WriteString(": ")
	if se, ok := e.Err.(*strictjson.Error); ok {
		// Its location is ours; print only what went wrong.
		b.WriteString(se.Err.Error())
		if se.Detail != "" {
			b.WriteString(": ")
			b.WriteString(se.Detail)
		}
	} else if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
