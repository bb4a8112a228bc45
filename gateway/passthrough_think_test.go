// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/tool"
)

// ptThinkConfig is a differential run's configuration for a provider that
// reads reasoning in think tags (no tool parser): the text filter sits
// between the fast path and the client.
type ptThinkConfig struct {
	ptConfig
	tag  string // Provider.ThinkTag
	open bool   // Provider.ThinkOpen
}

var ptThinkConfigs = []ptThinkConfig{
	{ptConfig: ptConfig{name: "think-default-audit-capture", reasoning: ReasoningContent, audit: true, capture: true, usage: true, parsing: ParsingThinkTags}},
	{ptConfig: ptConfig{name: "think-tag-reason-tools", reasoning: ReasoningBoth, audit: true, tools: true, parsing: ParsingThinkTags}, tag: "reason"},
	{ptConfig: ptConfig{name: "think-open-small-events", reasoning: ReasoningPlain, audit: true, capture: true, maxEvent: 2048, parsing: ParsingThinkTags}, open: true},
	{ptConfig: ptConfig{name: "think-open-tag-reason", reasoning: ReasoningContent, usage: true, parsing: ParsingThinkTags}, tag: "reason", open: true},
}

// newPTThinkGateway is newPTGateway with c's think tag settings.
func newPTThinkGateway(t testing.TB, c ptThinkConfig, slow bool) *ptGateway {
	t.Helper()
	g := newPTGateway(t, c.ptConfig, slow)
	p := g.h.providers["p"]
	p.ThinkTag, p.ThinkOpen = c.tag, c.open
	return g
}

// thinkTexts are model outputs that probe the think tag reading: each is
// cut into content chunks at every place in the differential test and at
// random ones in the fuzzer.
var thinkTexts = []string{
	"Hello, world.",
	"<think>Let me think.</think>\n\nThe answer is 42.",
	"<thinking>plan</thinking>answer",
	"<reason>why</reason>because",
	"  \n<think>\nstep 1\nstep 2\n</think>\nDone.",
	"Answer first <think>then more</think> and done.",
	"a < b and c <= d, x<y>z, <thin and </th",
	"<think>never closed",
	"<think>",
	"</think>",
	"reasoning the template opened</think>answer",
	"reasoning</reason>answer <reason>again</reason> end",
	"<think>dup</think><think>second</think>tail",
	"answer<|im_end|>",
	"é😀\u2028 q\"\\ </think> ok",
	"<",
	"x<",
	"text then <think>unclosed at the end",
}

// thinkChat is a Chat stream whose content is text cut at cuts, with a
// start, a finish and usage around it.
func thinkChat(text string, cuts []int) []byte {
	lines := [][]byte{ptStart()}
	last := 0
	for _, c := range cuts {
		if c > last && c < len(text) {
			lines = append(lines, ptText(text[last:c]))
			last = c
		}
	}
	if last < len(text) {
		lines = append(lines, ptText(text[last:]))
	}
	lines = append(lines, ptStop("stop"), []byte(`{"id":"chatcmpl-x","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7}}`))
	return gatewaytest.ChatSSE(lines...)
}

// thinkStreams are the think tag probes: each text whole, one byte a
// chunk, cut in two at every place, and mixed with the backend's own
// reasoning fields and a native call.
func thinkStreams() []recorded {
	var out []recorded
	add := func(name string, body []byte) {
		out = append(out, recorded{name: "think/" + name, api: APIChat, body: body})
	}
	for i, text := range thinkTexts {
		add(fmt.Sprintf("%d/whole", i), thinkChat(text, nil))
		bytewise := make([]int, len(text))
		for j := range bytewise {
			bytewise[j] = j
		}
		add(fmt.Sprintf("%d/bytes", i), thinkChat(text, bytewise))
		for j := 1; j < len(text); j++ {
			add(fmt.Sprintf("%d/cut-%d", i, j), thinkChat(text, []int{j}))
		}
	}
	chat := gatewaytest.ChatSSE
	call := chunkLine(`"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get.weather","arguments":""}}]`, "null")
	args := func(s string) []byte {
		return chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":`+fmt.Sprintf("%q", s)+`}}]`, "null")
	}
	add("reasoning-field-then-tags", chat(ptStart(), chunkLine(`"reasoning_content":"r1"`, "null"), ptText("<think>t</think>"), ptText("answer"), chunkLine(`"reasoning_content":"r2"`, "null"), ptText(" more"), ptStop("stop")))
	add("reasoning-field-while-held", chat(ptStart(), ptText("</think>a <"), chunkLine(`"reasoning_content":"r","content":"b"`, "null"), ptText("c"), ptStop("stop")))
	add("reasoning-and-text-one-chunk", chat(ptStart(), ptText("<think>x</think>"), chunkLine(`"reasoning":"r","content":"<thi"`, "null"), chunkLine(`"reasoning":"s","content":"nk>y"`, "null"), ptText("</think>z"), ptStop("stop")))
	add("native-call-after-answer", chat(ptStart(), ptText("<think>plan</think>"), ptText("calling"), call, args(`{"city":`), args(`"Paris"}`), ptText("after"), ptStop("tool_calls")))
	add("native-call-in-reasoning", chat(ptStart(), ptText("<think>plan"), call, args(`{}`), ptText("more</think>ok"), ptStop("tool_calls")))
	add("text-after-finish", chat(ptStart(), ptText("<think>r</think>a"), ptStop("stop"), ptText("late"), ptText("<think>")))
	add("error-while-held", chat(ptStart(), ptText("</think>a"), ptText(" <th"), []byte(`{"error":{"message":"overloaded","type":"overloaded_error"}}`)))
	add("unfinished-held", sseBody(ptStart(), ptText("<think>r</think>a"), ptText("<")))
	add("template-then-tag", chat(ptStart(), ptText("a"), ptText("b"), ptText("<think>"), ptText("c"), ptText("</think>"), ptText("d"), ptText("e"), ptStop("stop")))
	add("escaped-tag", chat(ptStart(), ptText("x"), chunkLine(`"content":"\u003cthink\u003er"`, "null"), chunkLine(`"content":"\u003c/think>y"`, "null"), ptText("z"), ptStop("stop")))
	return out
}

// TestPassthroughThinkDifferential is TestPassthroughDifferential for
// providers that read reasoning in think tags: default tags, a custom
// tag, an opener the template printed, each over the think probes and
// every recorded and hostile Chat stream.
func TestPassthroughThinkDifferential(t *testing.T) {
	streams := append(thinkStreams(), streamsFor(t, APIChat)...)
	for _, c := range ptThinkConfigs {
		for i, st := range streams {
			t.Run(c.name+"/"+strings.ReplaceAll(st.name, " ", "_"), func(t *testing.T) {
				t.Parallel()
				seed := uint64(i + 1)
				slow := ptThinkRun(t, c, ptBackend{st.body, seed}, true)
				fast := ptThinkRun(t, c, ptBackend{st.body, seed}, false)
				if diff := cmp.Diff(slow, fast); diff != "" {
					t.Errorf("fast path differs from the decoder's (-slow +fast):\n%s", diff)
				}
			})
		}
	}
}

func ptThinkRun(t testing.TB, c ptThinkConfig, rt http.RoundTripper, slow bool) ptOutcome {
	t.Helper()
	g := newPTThinkGateway(t, c, slow)
	defer g.close()
	g.rt = rt
	return g.run(t)
}

// TestPassthroughThinkBackend runs the think probes behind gatewaytest's
// fake backend too, whose pieces are flushed one by one.
func TestPassthroughThinkBackend(t *testing.T) {
	for i, text := range thinkTexts {
		c := ptThinkConfigs[i%len(ptThinkConfigs)]
		body := thinkChat(text, []int{1, 3, 7, 12})
		seed := uint64(i + 1)
		slow := ptThinkRun(t, c, fakeBackend(t, body, seed), true)
		fast := ptThinkRun(t, c, fakeBackend(t, body, seed), false)
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("%s/%d: fast path differs from the decoder's (-slow +fast):\n%s", c.name, i, diff)
		}
	}
}

// FuzzPassthroughThink cuts arbitrary model text into content chunks at
// places drawn from seed and wants the same answer and records from a
// think-tags provider with the fast path on and off.
func FuzzPassthroughThink(f *testing.F) {
	for i, text := range thinkTexts {
		f.Add(text, uint64(i), uint8(i))
	}
	var slows, fasts []*ptGateway
	for _, c := range ptThinkConfigs {
		slows, fasts = append(slows, newPTThinkGateway(f, c, true)), append(fasts, newPTThinkGateway(f, c, false))
	}
	f.Cleanup(func() {
		for i := range slows {
			slows[i].close()
			fasts[i].close()
		}
	})
	f.Fuzz(func(t *testing.T, text string, seed uint64, mode uint8) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var cuts []int
		for j := 0; j < len(text); j += 1 + rng.IntN(6) {
			cuts = append(cuts, j)
		}
		body := thinkChat(text, cuts)
		i := int(mode) % len(ptThinkConfigs)
		slows[i].rt, fasts[i].rt = ptBackend{body, seed}, ptBackend{body, seed}
		slow, fast := slows[i].run(t), fasts[i].run(t)
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("fast path differs from the decoder's (-slow +fast):\n%s", diff)
		}
	})
}

// TestPassthroughThinkTakesChunks: the differential test passes
// trivially if the fast path never runs for a think-tags provider. It
// must write answer text past the reasoning itself, and leave to the
// filter reasoning in tags, text held at a possible tag and what follows
// it.
func TestPassthroughThinkTakesChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Provider
	}{
		{"default", Provider{Parsing: ParsingThinkTags}},
		{"custom-tag", Provider{Parsing: ParsingThinkTags, ThinkTag: "reason"}},
		{"think-open", Provider{Parsing: ParsingThinkTags, ThinkOpen: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := &chatEncoder{w: sse.NewWriter(&buf), o: EncodeOptions{Model: "m", Created: 1, ReasoningField: ReasoningContent}, usage: unknownUsage()}
			var warns []tool.Warning
			tf, err := newTextFilter(&tc.p, &Request{Stream: true}, nil, &warns, false)
			if err != nil {
				t.Fatal(err)
			}
			emitted := 0
			emit := func(e Event) error { emitted++; return enc.Encode(e) }
			fr := &flushingReader{flush: func() error { return nil }}
			pt := &chatPassthrough{dec: newChatDecoder(), enc: enc, fr: fr, h: &Handler{}, s: &served{}, tf: tf, emit: emit}
			open, close := "<think>", "</think>"
			if tc.p.ThinkTag != "" {
				open, close = "<reason>", "</reason>"
			}
			tag := open[:3]
			if tc.p.ThinkOpen {
				open = ""
			}
			tests := []struct {
				name string
				data []byte
				fast bool
			}{
				{"start", ptStart(), false},
				{"open", ptText(open + "plan"), false},
				{"reasoning", ptText(" more"), false},
				{"close", ptText(close), false},
				{"answer", ptText("The answer"), true},
				{"answer-again", ptText(" is"), true},
				{"held", ptText(" 42 <"), false},
				{"after-held", ptText("b"), false},
				{"answer-after", ptText(" end"), true},
				{"reasoning-field", chunkLine(`"reasoning_content":"r"`, "null"), true},
				{"tag-later", ptText(" " + tag), false},
				{"finish", ptStop("stop"), false},
			}
			for _, tt := range tests {
				before, n, written := emitted, pt.dec.n, buf.Len()
				evs, err := pt.Decode("", tt.data)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				for _, e := range evs {
					if err := tf.Feed(e, emit); err != nil {
						t.Fatal(err)
					}
				}
				if fast := evs == nil && emitted == before && pt.dec.n == n+1 && buf.Len() > written; fast != tt.fast {
					t.Errorf("%s: fast %v, want %v (events %v)", tt.name, fast, tt.fast, evs)
				}
			}
			if !strings.Contains(buf.String(), `"content":"The answer"`) {
				t.Errorf("answer not written:\n%s", buf.String())
			}
		})
	}
}

// TestPassthroughThinkAllocs: an answer chunk past the reasoning costs one
// allocation (the text the scanner reads) once the buffers have grown.
func TestPassthroughThinkAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	enc := &chatEncoder{w: sse.NewWriter(io.Discard), o: EncodeOptions{Model: "m", Created: 1}, usage: unknownUsage()}
	var warns []tool.Warning
	tf, err := newTextFilter(&Provider{Parsing: ParsingThinkTags}, &Request{Stream: true}, nil, &warns, false)
	if err != nil {
		t.Fatal(err)
	}
	emit := func(e Event) error { return enc.Encode(e) }
	fr := &flushingReader{flush: func() error { return nil }}
	pt := &chatPassthrough{dec: newChatDecoder(), enc: enc, fr: fr, h: &Handler{}, s: &served{}, tf: tf, emit: emit}
	for _, d := range [][]byte{ptStart(), ptText("<think>r</think>"), ptText("a")} {
		evs, _ := pt.Decode("", d)
		for _, e := range evs {
			tf.Feed(e, emit)
		}
	}
	text := ptText(`an answer "quoted" token`)
	n := testing.AllocsPerRun(100, func() {
		if evs, err := pt.Decode("", text); evs != nil || err != nil {
			t.Fatalf("text chunk not taken: %v %v", evs, err)
		}
	})
	if n > 1 {
		t.Errorf("%v allocations per chunk, want at most 1", n)
	}
}

// BenchmarkPassthroughThink is BenchmarkPassthroughChat for an
// openai_compat provider that reads reasoning in think tags (the default
// for one), whose answer has none: the load harness's configuration.
func BenchmarkPassthroughThink(b *testing.B) {
	for _, n := range []int{1, 256} {
		for _, fast := range []bool{true, false} {
			b.Run(fmt.Sprintf("chunks=%d/fast=%v", n, fast), func(b *testing.B) {
				p := Provider{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true}
				body := `{"model":"m","stream":true,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hi."}],"max_tokens":64,"temperature":0.2}`
				h := newBenchHandler(b, p, ptBackend{body: benchChunks(n)}, fast)
				if h.providers["p"].Parsing != ParsingThinkTags {
					b.Fatalf("parsing %q, want think tags", h.providers["p"].Parsing)
				}
				benchLoop(b, h, "/v1/chat/completions", body)
			})
		}
	}
}
