// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package goldentest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// JSON renders v as indented JSON without HTML escaping, for goldens.
func JSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "marshal: " + err.Error()
	}
	return b.String()
}

// Warnings renders one "warning: …" line per warning.
func Warnings[W fmt.Stringer](ws []W) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// Pair returns the golden function of a decoder and its encoder: the
// decoded value as [JSON], then "== encoded ==" and what encode writes of
// it, or the first error.
func Pair[T any](decode func([]byte) (T, error), encode func(T) ([]byte, error)) func(in []byte) string {
	return func(in []byte) string {
		v, err := decode(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := encode(v)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("%s== encoded ==\n%s\n", JSON(v), out)
	}
}

// DecodeError is the report of an input the decoder refused.
func DecodeError(err error) string { return "decode error: " + err.Error() + "\n" }

// Report renders a decoded value as [JSON], what it encodes to and the
// encoder's warnings, or the error that stopped the encoder.
func Report[W fmt.Stringer](decoded any, encoded []byte, warns []W, encodeErr error) string {
	var b strings.Builder
	b.WriteString("decoded:\n")
	b.WriteString(strings.TrimSuffix(JSON(decoded), "\n") + "\n")
	if encodeErr != nil {
		b.WriteString("encode error: " + encodeErr.Error() + "\n")
		return b.String()
	}
	b.WriteString("encoded:\n")
	b.Write(encoded)
	b.WriteString("\n")
	b.WriteString(Warnings(warns))
	return b.String()
}

// Reported returns the golden function of a decoder and an encoder that
// warns: [DecodeError] when decode refuses the input, else [Report].
func Reported[T any, W fmt.Stringer](decode func([]byte) (T, error), encode func(T) ([]byte, []W, error)) func(in []byte) string {
	return func(in []byte) string {
		v, err := decode(in)
		if err != nil {
			return DecodeError(err)
		}
		out, warns, err := encode(v)
		return Report(v, out, warns, err)
	}
}
