// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/goldentest"
	"github.com/toolgate/toolgate/tool"
)

func FuzzDecodeTools(f *testing.F) {
	goldentest.Seeds(f, "testdata/tools.txtar")
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"tools":[],"functions":[]}`))
	encode := func(ts *codec.Tools) ([]byte, error) {
		out, _, err := EncodeTools(ts)
		return out, err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		goldentest.RoundTrip(t, data, DecodeTools, encode, func(first, back *codec.Tools) string {
			d := cmp.Diff(first.Defs, back.Defs)
			if first.Single != back.Single {
				d += fmt.Sprintf("Single = %v after the round trip, want %v\n", back.Single, first.Single)
			}
			return d
		})
	})
}

func FuzzDecodeResponse(f *testing.F) {
	goldentest.Seeds(f, "testdata/response.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		goldentest.RoundTrip(t, data, DecodeResponse, noWarnings(EncodeResponse), nil)
	})
}

func FuzzDecodeResults(f *testing.F) {
	goldentest.Seeds(f, "testdata/results.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		goldentest.RoundTrip(t, data, DecodeResults, noWarnings(EncodeResults), nil)
	})
}

func FuzzDecodeChoice(f *testing.F) {
	goldentest.Seeds(f, "testdata/choice.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		goldentest.RoundTrip(t, data, DecodeChoice, noWarnings(EncodeChoice), func(first, back tool.Choice) string {
			if first.Mode == tool.ChoiceNone {
				first.DisableParallel = false // "none" has no such member
			}
			return cmp.Diff(first, back)
		})
	})
}

// noWarnings adapts an encoder for goldentest.RoundTrip, which compares
// values, not warnings.
func noWarnings[T any](enc func(T) ([]byte, []tool.Warning, error)) func(T) ([]byte, error) {
	return func(v T) ([]byte, error) {
		b, _, err := enc(v)
		return b, err
	}
}
