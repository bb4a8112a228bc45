// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

// The harness: every family supplies a table of cases in its own
// <family>_test.go; the table must fill every slot below, and every case is
// checked parsed whole and streamed in many chunkings.

// slots are the cases every family's table must hold (by case name).
var slots = []string{
	"none", "one", "parallel", "types", "empty", "around", "escapes",
	"malformed", "cut", "twice", "reasoning", "unknown",
}

type wantCall struct {
	Name string
	Args string
}

// outcome is the part of a Result a case pins; ids are checked apart.
type outcome struct {
	Content   string
	Reasoning string
	Calls     []wantCall
	Rejected  []string
	Codes     []string // warning codes, in order
	Unclosed  bool
}

type familyCase struct {
	name string
	in   string
	cfg  *Config // nil: testTools offered
	want outcome
}

var testTools = []tool.Definition{
	{Name: "get_weather", Description: "Current weather for a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"},"days":{"type":"integer"}},"required":["city"]}`)},
	{Name: "search", Description: "Search the web.", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"score":{"type":"number"},"exact":{"type":"boolean"},"note":{"anyOf":[{"type":"integer"},{"type":"null"}]},"tags":{"type":"array","items":{}},"filters":{"$ref":"#/$defs/f"},"none":{"type":"array"},"opts":{"type":"object","nullable":true}},"$defs":{"f":{"type":"object"}}}`)},
	{Name: "noop", Description: "Does nothing."},
}

// Shared expectations.
var (
	cParis   = wantCall{"get_weather", `{"city":"Paris"}`}
	cNews    = wantCall{"search", `{"query":"news"}`}
	cTypes   = wantCall{"search", `{"query":"q","limit":3,"score":2.5,"exact":false,"note":null,"tags":["a",1],"filters":{"lang":"en"},"none":[],"opts":{}}`}
	cNoop    = wantCall{"noop", `{}`}
	cEscapes = wantCall{"get_weather", `{"city":"Say \"hi\" \\ back\nslash 😀"}`}
)

// JSON bodies shared by the JSON families.
const (
	jParis   = `{"name": "get_weather", "arguments": {"city": "Paris"}}`
	jNews    = `{"name": "search", "arguments": {"query": "news"}}`
	jTypes   = `{"name": "search", "arguments": {"query": "q", "limit": 3, "score": 2.5, "exact": false, "note": null, "tags": ["a", 1], "filters": {"lang": "en"}, "none": [], "opts": {}}}`
	jNoop    = `{"name": "noop", "arguments": {}}`
	jEscapes = `{"name": "get_weather", "arguments": {"city": "Say \"hi\" \\ back\nslash 😀"}}`
	jBad     = `{"name": "get_weather", "arguments": {"city": }}`
	jCut     = `{"name": "search", "arguments": {"query": "ne`
	jUnknown = `{"name": "launch_rocket", "arguments": {"target": "moon"}}`
)

func one(c ...wantCall) outcome { return outcome{Calls: c} }

// familyTables maps each family to its table.
func familyTables() map[string][]familyCase {
	return map[string][]familyCase{
		"hermes":        hermesCases(),
		"qwen3-coder":   qwen3CoderCases(),
		"llama3-json":   llama3Cases(),
		"mistral":       mistralCases(),
		"pythonic":      pythonicCases(),
		"deepseek-v3":   deepseekV3Cases(),
		"deepseek-v3.1": deepseekV31Cases(),
		"kimi-k2":       kimiCases(),
		"glm-4.5":       glmCases(),
		"granite":       graniteCases(),
		"jamba":         jambaCases(),
		"internlm":      internlmCases(),
		"xlam":          xlamCases(),
		"gpt-oss":       harmonyCases(),
	}
}

// testSeed is the seed of the tests' call ids.
const testSeed = 1

func newTestParser(t testing.TB, family string, cfg *Config) *Parser {
	t.Helper()
	if cfg == nil {
		cfg = &Config{Tools: testTools}
	}
	if cfg.Seed == 0 {
		// Ids are random per response unless seeded: the tests compare
		// the results of several scanners, so they ask for a seed.
		c := *cfg
		c.Seed = testSeed
		cfg = &c
	}
	p, err := New(family, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func project(r *Result) outcome {
	o := outcome{Content: r.Content, Reasoning: r.Reasoning, Unclosed: r.UnclosedReasoning}
	for _, c := range r.Calls {
		o.Calls = append(o.Calls, wantCall{c.Name, string(c.Arguments)})
	}
	for _, c := range r.Rejected {
		o.Rejected = append(o.Rejected, c.Name)
	}
	for _, w := range r.Warnings {
		o.Codes = append(o.Codes, w.Code)
	}
	return o
}

func TestFamilyTablesCoverSlots(t *testing.T) {
	tables := familyTables()
	for _, name := range Names() {
		cases, ok := tables[name]
		if !ok {
			t.Errorf("family %s has no test table", name)
			continue
		}
		have := map[string]bool{}
		for _, c := range cases {
			if strings.ContainsAny(c.name, " \t") {
				t.Errorf("%s: case name %q has a space", name, c.name)
			}
			have[c.name] = true
		}
		for _, s := range slots {
			if !have[s] {
				t.Errorf("family %s: no %q case", name, s)
			}
		}
	}
}

func TestFamilies(t *testing.T) {
	for family, cases := range familyTables() {
		for _, tc := range cases {
			t.Run(family+"/"+tc.name, func(t *testing.T) {
				p := newTestParser(t, family, tc.cfg)
				got := p.Parse(tc.in)
				if diff := cmp.Diff(tc.want, project(got)); diff != "" {
					t.Errorf("Parse(%q) (-want +got):\n%s", tc.in, diff)
				}
				checkIDs(t, family, got)
			})
		}
	}
}

// checkIDs checks that ids are unique and shaped as the family demands.
func checkIDs(t *testing.T, family string, r *Result) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range append(slices.Clone(r.Calls), r.Rejected...) {
		if c.ID == "" || seen[c.ID] {
			t.Errorf("call %s: id %q is empty or not unique", c.Name, c.ID)
		}
		seen[c.ID] = true
		if family == "mistral" && !isMistralID(c.ID) {
			t.Errorf("mistral call id %q is not nine alphanumerics", c.ID)
		}
	}
}

// streamed feeds in to a scanner in the given pieces and returns the
// result, checking that the events agree with it.
func streamed(t testing.TB, p *Parser, pieces []string) *Result {
	t.Helper()
	s := p.NewScanner()
	var events []Event
	for _, d := range pieces {
		events = append(events, s.Feed(d)...)
	}
	events = append(events, s.Close()...)
	r := s.Result()
	var content, reasoning strings.Builder
	var calls []tool.Call
	var warnings []tool.Warning
	for _, e := range events {
		switch e.Kind {
		case EventContent:
			content.WriteString(e.Text)
		case EventReasoning:
			reasoning.WriteString(e.Text)
		case EventCall:
			if e.Index != len(calls) {
				t.Errorf("call event index %d, want %d", e.Index, len(calls))
			}
			calls = append(calls, tool.Call{ID: e.ID, Name: e.Name})
		case EventArguments:
			if e.Index < len(calls) {
				calls[e.Index].Arguments = append(calls[e.Index].Arguments, e.Text...)
			}
		case EventWarning:
			warnings = append(warnings, *e.Warning)
		}
	}
	if got := strings.TrimSpace(content.String()); got != r.Content {
		t.Errorf("content events join to %q, result has %q", got, r.Content)
	}
	if got := strings.TrimSpace(reasoning.String()); got != r.Reasoning {
		t.Errorf("reasoning events join to %q, result has %q", got, r.Reasoning)
	}
	if diff := cmp.Diff(r.Calls, calls, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" && len(r.Calls)+len(calls) > 0 {
		t.Errorf("call events differ from the result (-result +events):\n%s", diff)
	}
	if diff := cmp.Diff(r.Warnings, warnings); diff != "" && len(r.Warnings)+len(warnings) > 0 {
		t.Errorf("warning events differ from the result (-result +events):\n%s", diff)
	}
	return r
}

// chunkings returns the ways a split-invariance test cuts in: one byte at a
// time, and n random chunkings from a fixed seed.
func chunkings(in string, n int, seed uint64) [][]string {
	out := [][]string{nil}
	for i := 0; i < len(in); i++ {
		out[0] = append(out[0], in[i:i+1])
	}
	r := rand.New(rand.NewPCG(seed, 0x7e57))
	for k := 0; k < n; k++ {
		var pieces []string
		maxLen := 1 + r.IntN(1+len(in)/2+k%17)
		for i := 0; i < len(in); {
			m := 1 + r.IntN(maxLen)
			if i+m > len(in) {
				m = len(in) - i
			}
			pieces = append(pieces, in[i:i+m])
			i += m
		}
		out = append(out, pieces)
	}
	return out
}

func resultDiff(want, got *Result) string {
	return cmp.Diff(want, got, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }))
}

func TestSplitInvariance(t *testing.T) {
	for family, cases := range familyTables() {
		for _, tc := range cases {
			t.Run(family+"/"+tc.name, func(t *testing.T) {
				p := newTestParser(t, family, tc.cfg)
				want := p.Parse(tc.in)
				for i, pieces := range chunkings(tc.in, 200, 1) {
					got := streamed(t, p, pieces)
					if diff := resultDiff(want, got); diff != "" {
						t.Fatalf("chunking %d %q differs from Parse (-parse +stream):\n%s", i, pieces, diff)
					}
				}
			})
		}
	}
}

// TestOneByteDiscardText streams every case a byte at a time with
// DiscardText set, the memory-bounded mode a server uses: the events alone
// must carry the content, reasoning, calls and warnings Parse finds.
func TestOneByteDiscardText(t *testing.T) {
	for family, cases := range familyTables() {
		for _, tc := range cases {
			t.Run(family+"/"+tc.name, func(t *testing.T) {
				checkOneByteDiscard(t, family, tc.cfg, tc.in)
			})
		}
	}
}

// checkOneByteDiscard feeds text a byte at a time to a scanner that
// discards text and compares what its events add up to with Parse.
func checkOneByteDiscard(t *testing.T, family string, cfg *Config, text string) {
	t.Helper()
	want := newTestParser(t, family, cfg).Parse(text)
	dc := Config{Tools: testTools}
	if cfg != nil {
		dc = *cfg
	}
	dc.DiscardText = true
	pieces := make([]string, len(text))
	for i := range len(text) {
		pieces[i] = text[i : i+1]
	}
	p := newTestParser(t, family, &dc)
	s := p.NewScanner()
	var content, reasoning strings.Builder
	var calls []tool.Call
	collect := func(events []Event) {
		for _, e := range events {
			switch e.Kind {
			case EventContent:
				content.WriteString(e.Text)
			case EventReasoning:
				reasoning.WriteString(e.Text)
			case EventCall:
				calls = append(calls, tool.Call{ID: e.ID, Name: e.Name})
			case EventArguments:
				calls[e.Index].Arguments = append(calls[e.Index].Arguments, e.Text...)
			}
		}
	}
	for _, d := range pieces {
		collect(s.Feed(d))
	}
	collect(s.Close())
	got := s.Result()
	if got.Content != "" || got.Reasoning != "" {
		t.Errorf("DiscardText kept text: content %q, reasoning %q", got.Content, got.Reasoning)
	}
	got.Content = strings.TrimSpace(content.String())
	got.Reasoning = strings.TrimSpace(reasoning.String())
	if diff := resultDiff(want, got); diff != "" {
		t.Fatalf("one byte at a time with DiscardText differs from Parse (-parse +stream):\n%s", diff)
	}
	if diff := cmp.Diff(want.Calls, calls, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" && len(want.Calls)+len(calls) > 0 {
		t.Errorf("call events differ from Parse (-parse +events):\n%s", diff)
	}
}

// TestMarkersSplitEverywhere cuts each case in two at every byte, so every
// marker is split at every position.
func TestMarkersSplitEverywhere(t *testing.T) {
	for family, cases := range familyTables() {
		for _, tc := range cases {
			p := newTestParser(t, family, tc.cfg)
			want := p.Parse(tc.in)
			for i := 1; i < len(tc.in); i++ {
				got := streamed(t, p, []string{tc.in[:i], tc.in[i:]})
				if diff := resultDiff(want, got); diff != "" {
					t.Fatalf("%s/%s cut at %d differs from Parse (-parse +stream):\n%s", family, tc.name, i, diff)
				}
			}
		}
	}
}

// TestRoundTrip renders calls with each family's FormatCalls and parses
// them back.
func TestRoundTrip(t *testing.T) {
	calls := []tool.Call{
		{ID: "abcDEF123", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Say \"hi\" \\ 😀","days":3}`)},
		{ID: "XYZxyz789", Name: "search", Arguments: json.RawMessage(`{"query":"q","exact":true,"note":null,"tags":["a",1],"filters":{"lang":"en"}}`)},
		{ID: "nop000000", Name: "noop", Arguments: json.RawMessage(`{}`)},
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			f, _ := Lookup(name)
			text := f.FormatCalls(calls)
			r := newTestParser(t, name, nil).Parse(text)
			var got []wantCall
			for _, c := range r.Calls {
				got = append(got, wantCall{c.Name, string(c.Arguments)})
			}
			want := []wantCall{{"get_weather", string(calls[0].Arguments)}, {"search", string(calls[1].Arguments)}, {"noop", "{}"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("parse of %q (-want +got):\n%s\nwarnings: %v", text, diff, r.Warnings)
			}
			if r.Content != "" {
				t.Errorf("content %q, want none", r.Content)
			}
		})
	}
}

// TestParserConcurrentUse runs one Parser from several goroutines, as a
// gateway does; run it with -race.
func TestParserConcurrentUse(t *testing.T) {
	p := newTestParser(t, "hermes", nil)
	in := "<think>x</think>" + "<tool_call>" + jParis + "</tool_call>"
	want := p.Parse(in)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if diff := resultDiff(want, streamed(t, p, []string{in[:7], in[7:]})); diff != "" {
					t.Errorf("concurrent parse differs:\n%s", diff)
					return
				}
			}
		})
	}
	wg.Wait()
}
