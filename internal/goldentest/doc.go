// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package goldentest runs the txtar golden and round-trip fuzz tests of
// the codec packages: each archive under testdata holds prose naming what
// it pins, then input files each followed by the output they must produce.
//
// # Conventions
//
// Two layouts are in use. [Want] pairs "case.json" with "case.want"; the
// input loses its final newline and the output gains one. [Out] pairs
// "case.json" with "case.out" (the given suffixes are removed from the
// input name first); the input is trimmed of surrounding whitespace and
// the output kept as it is. With update set, both rewrite the archive from
// what the code produces, keeping the prose at its top.
//
// # Rendering
//
// [JSON], [Warnings], [Pair], [Report] and [DecodeError] render decoded
// values, encodings and warnings the same way in every package's goldens.
//
// # Fuzzing
//
// [Seeds] adds the inputs of golden archives to a fuzz corpus, and
// [RoundTrip] is the property every codec's decoder and encoder share:
// what decodes, encodes byte-stably and decodes again to the same value.
//
// # Example
//
//	var update = flag.Bool("update", false, "rewrite the golden files in testdata")
//
//	func TestGoldenTools(t *testing.T) {
//		goldentest.Want(t, "testdata/tools.txtar", *update, func(in []byte) string {
//			tools, err := DecodeTools(in)
//			if err != nil {
//				return "error: " + err.Error()
//			}
//			return fmt.Sprint(tools.Defs)
//		})
//	}
package goldentest
