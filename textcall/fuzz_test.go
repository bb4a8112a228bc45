// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// fuzzFamily checks, for any text, that parsing never panics, that the
// calls hold JSON objects, and that streaming the text in pieces chosen by
// seed gives exactly the parse of the whole.
func fuzzFamily(f *testing.F, family string) {
	for _, tc := range familyTables()[family] {
		f.Add(tc.in, uint64(len(tc.in)))
	}
	f.Add("<think>", uint64(1))
	f.Add("</think><tool_call>", uint64(2))
	// Implied openers, reasoning ended by a call, out-of-range numbers.
	f.Add("The user asks.</think>\n\n<tool_call>{\"name\": \"noop\", \"arguments\": {}}</tool_call>", uint64(3))
	f.Add("<think>hmm <tool_call>{\"name\": \"noop\", \"arguments\": {}}</tool_call> after", uint64(4))
	f.Add("<think>a <tool_call> b</think>c", uint64(5))
	f.Add("\n<think>x</think>y", uint64(6))
	f.Add("Intro. <|python_tag|>{\"name\": \"noop\", \"parameters\": {}}", uint64(7))
	f.Add("[search(score=1e999, tags=[-1E400])]", uint64(8))
	f.Add("<|tool_call_begin|>functions.noop.0<|tool_call_argument_begin|>{}<|tool_call_end|>", uint64(9))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		for _, cfg := range []*Config{nil, {ThinkOpen: true, MaxCallBytes: 64}, {MaxReasoningHoldBytes: 24, MaxCallBytes: 48}} {
			p := newTestParser(t, family, cfg)
			want := p.Parse(text)
			for _, c := range want.Calls {
				if len(c.Arguments) == 0 || c.Arguments[0] != '{' || !utf8.Valid(c.Arguments) {
					t.Fatalf("call %s has arguments %q, not a JSON object", c.Name, c.Arguments)
				}
			}
			r := rand.New(rand.NewPCG(seed, 1))
			var pieces []string
			for i := 0; i < len(text); {
				n := 1 + r.IntN(8)
				if i+n > len(text) {
					n = len(text) - i
				}
				pieces = append(pieces, text[i:i+n])
				i += n
			}
			got := streamed(t, p, pieces)
			if diff := resultDiff(want, got); diff != "" {
				t.Fatalf("streamed %q differs from Parse (-parse +stream):\n%s", pieces, diff)
			}
			checkOneByteDiscard(t, family, cfg, text)
			checkNoLateCalls(t, family, cfg, text, 1)
			sr, _, _ := streamArgsRun(t, family, cfg, pieces)
			// A bare JSON answer (llama3-json, xlam) may look like a
			// call until it breaks off, and is then content without a
			// warning; elsewhere output Parse reads cleanly never has a
			// call taken back.
			quiet := family == "llama3-json" || family == "xlam"
			for _, w := range sr.Warnings {
				if !quiet && len(want.Warnings) == 0 && w.Code == "call-withdrawn" {
					t.Fatalf("output Parse reads without a warning had a call withdrawn: %s", w.Message)
				}
			}
		}
	})
}

func FuzzHermes(f *testing.F)      { fuzzFamily(f, "hermes") }
func FuzzQwen3Coder(f *testing.F)  { fuzzFamily(f, "qwen3-coder") }
func FuzzLlama3JSON(f *testing.F)  { fuzzFamily(f, "llama3-json") }
func FuzzMistral(f *testing.F)     { fuzzFamily(f, "mistral") }
func FuzzPythonic(f *testing.F)    { fuzzFamily(f, "pythonic") }
func FuzzDeepSeekV3(f *testing.F)  { fuzzFamily(f, "deepseek-v3") }
func FuzzDeepSeekV31(f *testing.F) { fuzzFamily(f, "deepseek-v3.1") }
func FuzzKimiK2(f *testing.F)      { fuzzFamily(f, "kimi-k2") }
func FuzzGLM45(f *testing.F)       { fuzzFamily(f, "glm-4.5") }
func FuzzGranite(f *testing.F)     { fuzzFamily(f, "granite") }
func FuzzJamba(f *testing.F)       { fuzzFamily(f, "jamba") }
func FuzzInternLM(f *testing.F)    { fuzzFamily(f, "internlm") }
func FuzzXLAM(f *testing.F)        { fuzzFamily(f, "xlam") }
func FuzzGPTOSS(f *testing.F)      { fuzzFamily(f, "gpt-oss") }
