// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/tool"
)

// bfclLike is a typical BFCL definition's parameters once mapped to
// standard JSON Schema (489 bytes, four properties, one enum, one array).
var bfclLike = json.RawMessage(`{"type": "object", "properties": {"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "The unit of temperature to return.", "default": "fahrenheit"}, "days": {"type": "integer", "description": "Number of forecast days, from 1 to 14."}, "fields": {"type": "array", "items": {"type": "string"}, "description": "Extra fields to include."}}, "required": ["location"]}`)

func BenchmarkLower(b *testing.B) {
	for _, t := range Targets {
		b.Run(string(t), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bfclLike)))
			for b.Loop() {
				if _, _, err := Lower(t, bfclLike); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLowerChecked(b *testing.B) {
	for _, t := range Targets {
		b.Run(string(t), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bfclLike)))
			for b.Loop() {
				if _, _, err := LowerChecked(t, bfclLike); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Check(Anthropic, "get_weather", bfclLike)
	}
}

// BenchmarkLowerCorpusBFCL lowers every BFCL definition (mapped to
// standard JSON Schema) for Anthropic, reporting definitions per second.
func BenchmarkLowerCorpusBFCL(b *testing.B) {
	defs := bfclDefinitions(b)
	for _, c := range []struct {
		name string
		fn   func(Target, json.RawMessage) (json.RawMessage, []tool.Warning, error)
	}{{"Lower", Lower}, {"LowerChecked", LowerChecked}} {
		for _, t := range []Target{Anthropic, OpenAIStrict, Gemini} {
			b.Run(c.name+"/"+string(t), func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					for _, d := range defs {
						if _, _, err := c.fn(t, d.schema); err != nil {
							b.Fatal(err)
						}
					}
					n += len(defs)
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "defs/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/def")
			})
		}
	}
}
