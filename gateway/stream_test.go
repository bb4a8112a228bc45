// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/sse"
)

var update = flag.Bool("update", false, "rewrite testdata goldens")

// recorded is one recorded backend stream, as SSE bytes.
type recorded struct {
	name string
	api  API
	body []byte
}

// recordedStreams reads every recorded stream of the gateway corpus and
// the Anthropic corpus. vercel/ai's .chunks.txt files hold one payload a
// line; they are framed as the API sends them, and a file that recorded
// several responses back to back is split into one stream each.
func recordedStreams(t testing.TB) []recorded {
	dir := corpustest.Dir(t, "gateway")
	var out []recorded
	apis := map[string]API{"openai-chat": APIChat, "openai-compatible": APIChat, "openai-responses": APIResponses, "anthropic": APIMessages}
	for sub, api := range apis {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			name := sub + "/" + filepath.Base(p)
			switch {
			case strings.HasSuffix(p, ".sse"):
				out = append(out, recorded{name, api, b})
			case strings.HasSuffix(p, ".chunks.txt"):
				for i, body := range frame(t, api, b) {
					n := name
					if i > 0 {
						n = fmt.Sprintf("%s#%d", name, i+1)
					}
					out = append(out, recorded{n, api, body})
				}
			}
		}
	}
	// The Anthropic SDKs' own recorded streams.
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "anthropic", "sse", "*.sse"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recorded{"anthropic-sdk/" + filepath.Base(p), APIMessages, b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// frame turns a .chunks.txt file into SSE bodies, one per response.
func frame(t testing.TB, api API, b []byte) [][]byte {
	kind := "events"
	if api == APIChat {
		kind = "chat"
	}
	bodies, err := gatewaytest.FrameChunks(kind, b)
	if err != nil {
		t.Fatal(err)
	}
	return bodies
}

// decodeStream runs body, cut into random pieces by rng (or whole when
// rng is nil), through the SSE reader, the decoder and the collector.
func decodeStream(t testing.TB, api API, body []byte, rng *rand.Rand) (*Turn, []Event, error) {
	dec, err := NewStreamDecoder(api)
	if err != nil {
		t.Fatal(err)
	}
	var src io.Reader = bytes.NewReader(body)
	if rng != nil {
		src = &pieces{b: body, rng: rng}
	}
	col := NewCollector()
	var all []Event
	err = pump(src, dec, 0, func(evs []Event) error {
		for _, e := range evs {
			if err := col.Add(e); err != nil {
				t.Fatalf("decoder broke the event order: %v (event %+v)", err, e)
			}
		}
		all = append(all, evs...)
		return nil
	})
	return col.Turn(), all, err
}

type pieces struct {
	b   []byte
	rng *rand.Rand
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := min(1+p.rng.IntN(64), len(p.b), len(b))
	copy(b, p.b[:n])
	p.b = p.b[n:]
	return n, nil
}

// summary is a turn as the golden records it: content by length and hash
// (the corpus's text stays in the corpus), calls whole.
func summary(tr *Turn, err error) string {
	var b strings.Builder
	h := func(s string) string {
		if s == "" {
			return "-"
		}
		sum := sha256.Sum256([]byte(s))
		return fmt.Sprintf("%d bytes sha256:%x", len(s), sum[:6])
	}
	fmt.Fprintf(&b, "id: %s\nmodel: %s\n", tr.ID, tr.Model)
	fmt.Fprintf(&b, "reasoning: %s\nsignature: %s\nredacted: %d\ntext: %s\n", h(tr.Reasoning), h(tr.Signature), len(tr.Redacted), h(tr.Text))
	for i, c := range tr.Calls {
		fmt.Fprintf(&b, "call %d: id=%s name=%s args=%s\n", i, c.ID, c.Name, c.Arguments)
	}
	fmt.Fprintf(&b, "finish: %s (%s)\n", tr.Finish, tr.StopReason)
	u := tr.Usage
	fmt.Fprintf(&b, "usage: in=%d out=%d reasoning=%d cache_read=%d cache_write=%d\n", u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.CacheReadTokens, u.CacheWriteTokens)
	for _, w := range tr.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if tr.Err != nil {
		fmt.Fprintf(&b, "backend error: %s\n", tr.Err.Type)
	}
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

// TestRecordedStreams decodes every recorded stream whole and in random
// pieces: the turns must be equal, every call's arguments must be one JSON
// object equal to what the stream's own fragments add up to (read the
// plain way, by referenceArgs), and the summaries must match the golden.
func TestRecordedStreams(t *testing.T) {
	streams := recordedStreams(t)
	if len(streams) < 40 {
		t.Fatalf("only %d recorded streams found", len(streams))
	}
	golden := filepath.Join("testdata", "recorded.txtar")
	ar := &txtar.Archive{}
	if !*update {
		var err error
		if ar, err = txtar.ParseFile(golden); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{}
	for _, f := range ar.Files {
		want[f.Name] = string(f.Data)
	}
	var files []txtar.File
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			whole, _, err := decodeStream(t, s.api, s.body, nil)
			got := summary(whole, err)
			files = append(files, txtar.File{Name: s.name, Data: []byte(got)})
			if !*update {
				if diff := cmp.Diff(want[s.name], got); diff != "" {
					t.Errorf("summary (-want +got):\n%s", diff)
				}
			}
			for seed := range uint64(20) {
				cut, _, err2 := decodeStream(t, s.api, s.body, rand.New(rand.NewPCG(seed, 1)))
				if diff := cmp.Diff(whole, cut); diff != "" || (err == nil) != (err2 == nil) {
					t.Fatalf("seed %d: chunking changed the turn (-whole +cut):\n%s\n%v / %v", seed, diff, err, err2)
				}
			}
			if err != nil {
				return // a stream the decoder refused: the golden pins why
			}
			ref := referenceArgs(t, s.api, s.body)
			if len(ref) != len(whole.Calls) {
				t.Fatalf("%d calls, the stream's fragments make %d", len(whole.Calls), len(ref))
			}
			for i, c := range whole.Calls {
				var obj map[string]any
				if err := json.Unmarshal(c.Arguments, &obj); err != nil {
					t.Errorf("call %d: arguments are not a JSON object: %v", i, err)
				}
				if ref[i] != "" && ref[i] != string(c.Arguments) {
					t.Errorf("call %d: arguments %q, the stream's fragments make %q", i, c.Arguments, ref[i])
				}
			}
			if len(whole.Calls) > 0 && whole.Finish != FinishToolCalls && whole.Finish != FinishError && whole.Finish != FinishLength {
				t.Errorf("a turn with calls finished %q", whole.Finish)
			}
		})
	}
	if *update {
		ar.Comment = []byte("Summaries of every recorded stream in ../shared/corpora/gateway and\n" +
			"../shared/corpora/anthropic/sse decoded by the gateway's stream decoders\n" +
			"(text and reasoning by length and hash; the corpus stays in the corpus).\n" +
			"Bugs pinned: tool indexes from 1 (Anthropic's compatible endpoint) renumbered\n" +
			"from 0; reasoning read from reasoning_content and from reasoning; an empty\n" +
			"input_json_delta giving {} not an error; usage from message_delta merged with\n" +
			"message_start (later wins) and cache tokens folded into input; a second\n" +
			"message_start continuing the same turn; a turn with calls ends tool_calls.\n" +
			"Rewrite with: go test ./gateway -run TestRecordedStreams -update\n")
		ar.Files = files
		if err := os.WriteFile(golden, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// referenceArgs adds up each call's argument fragments the plain way:
// decode every payload into maps and concatenate by the stream's own call
// key (Chat index, Anthropic block index, Responses item id). A call whose
// stream sent no fragments gets "" (it must have come whole elsewhere).
func referenceArgs(t testing.TB, api API, body []byte) []string {
	var order []string
	acc := map[string]*strings.Builder{}
	touch := func(k string) *strings.Builder {
		if acc[k] == nil {
			acc[k] = &strings.Builder{}
			order = append(order, k)
		}
		return acc[k]
	}
	r := sse.NewReader(bytes.NewReader(body), nil)
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		if string(ev.Data) == "[DONE]" {
			continue
		}
		var m map[string]any
		if json.Unmarshal(ev.Data, &m) != nil {
			continue
		}
		switch api {
		case APIChat:
			chs, _ := m["choices"].([]any)
			for _, ch := range chs {
				chm, _ := ch.(map[string]any)
				if chm["index"] != nil && chm["index"].(float64) != 0 {
					continue
				}
				delta, _ := chm["delta"].(map[string]any)
				tcs, _ := delta["tool_calls"].([]any)
				for j, tc := range tcs {
					tcm := tc.(map[string]any)
					k := fmt.Sprint(j)
					if idx, ok := tcm["index"].(float64); ok {
						k = fmt.Sprint(idx)
					}
					fn, _ := tcm["function"].(map[string]any)
					a, _ := fn["arguments"].(string)
					touch(k).WriteString(a)
				}
			}
		case APIMessages:
			switch m["type"] {
			case "content_block_start":
				cb, _ := m["content_block"].(map[string]any)
				if cb["type"] == "tool_use" {
					touch(fmt.Sprint(m["index"]))
				}
			case "content_block_delta":
				d, _ := m["delta"].(map[string]any)
				if d["type"] == "input_json_delta" && acc[fmt.Sprint(m["index"])] != nil {
					acc[fmt.Sprint(m["index"])].WriteString(d["partial_json"].(string))
				}
			}
		case APIResponses:
			switch m["type"] {
			case "response.output_item.added":
				it, _ := m["item"].(map[string]any)
				if it["type"] == "function_call" {
					touch(it["id"].(string))
				}
			case "response.function_call_arguments.delta":
				if b := acc[m["item_id"].(string)]; b != nil {
					b.WriteString(m["delta"].(string))
				}
			case "response.function_call_arguments.done":
				// Servers that stream no deltas send the arguments here.
				if b := acc[m["item_id"].(string)]; b != nil && b.Len() == 0 {
					b.WriteString(m["arguments"].(string))
				}
			}
		}
	}
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = acc[k].String()
		if out[i] == "" {
			out[i] = "{}"
		}
	}
	return out
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		api  API
		body string
		err  error
	}{
		{name: "chat-cut-before-finish", api: APIChat, body: "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", err: ErrIncomplete},
		{name: "chat-not-json", api: APIChat, body: "data: <html>\n\n", err: ErrMalformed},
		{name: "chat-duplicate-key", api: APIChat, body: "data: {\"id\":\"x\",\"id\":\"y\"}\n\n", err: ErrMalformed},
		{name: "chat-args-for-closed-call", api: APIChat, body: chatCalls(`{"index":0,"id":"a","function":{"name":"f","arguments":"{"}}`, `{"index":1,"id":"b","function":{"name":"g","arguments":"{}"}}`, `{"index":0,"function":{"arguments":"}"}}`), err: ErrMalformed},
		{name: "messages-cut", api: APIMessages, body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\"}}\n\n", err: ErrIncomplete},
		{name: "messages-wrong-type", api: APIMessages, body: "data: {\"type\":\"content_block_delta\",\"index\":\"zero\"}\n\n", err: ErrMalformed},
		{name: "responses-cut", api: APIResponses, body: "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\n", err: ErrIncomplete},
		{name: "sse-cut", api: APIChat, body: "data: {\"id\":\"x\"", err: sse.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := decodeStream(t, tt.api, []byte(tt.body), nil)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if strings.Contains(err.Error(), "html") || strings.Contains(err.Error(), "Hi") {
				t.Errorf("error %q echoes the stream", err)
			}
		})
	}
}

func chatCalls(deltas ...string) string {
	var b strings.Builder
	for _, d := range deltas {
		fmt.Fprintf(&b, "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[%s]}}]}\n\n", d)
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// FuzzStreamDecoders feeds arbitrary events to every decoder: no panic,
// and whatever comes out keeps the event order the Collector checks.
func FuzzStreamDecoders(f *testing.F) {
	f.Add([]byte(chatCalls(`{"index":1,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}`, `{"index":1,"function":{"arguments":"1}"}}`)), uint8(0))
	f.Add([]byte("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\ndata: {\"type\":\"message_stop\"}\n\n"), uint8(1))
	f.Add([]byte("data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"id\":\"i\",\"call_id\":\"c\",\"name\":\"f\"}}\n\ndata: {\"type\":\"response.completed\",\"response\":{}}\n\n"), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		api := []API{APIChat, APIMessages, APIResponses}[int(which)%3]
		tr, _, _ := decodeStream(t, api, body, nil)
		for i, c := range tr.Calls {
			if c.Arguments != nil && len(c.Arguments) == 0 {
				t.Errorf("call %d closed with no arguments", i)
			}
		}
	})
}

// BenchmarkDecodeStream is the backend side of a streamed chunk: SSE
// framing, the strict JSON check and the decoder, per recorded event.
func BenchmarkDecodeStream(b *testing.B) {
	for _, name := range []string{"openai-chat/openai-python-gpt-4o-text.sse", "openai-compatible/vercel-deepseek-reasoning.chunks.txt", "anthropic/vercel-anthropic-clear-thinking.1.chunks.txt", "openai-responses/vercel-lmstudio-basic.1.chunks.txt"} {
		var s *recorded
		for _, r := range recordedStreams(b) {
			if r.name == name {
				s = &r
				break
			}
		}
		if s == nil {
			b.Fatalf("%s not found", name)
		}
		events := bytes.Count(s.body, []byte("\n\n"))
		b.Run(filepath.Base(filepath.Dir(name)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				dec, _ := NewStreamDecoder(s.api)
				if err := pump(bytes.NewReader(s.body), dec, 0, func([]Event) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
