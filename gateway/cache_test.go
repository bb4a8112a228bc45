// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
	"golang.org/x/tools/txtar"
)

// agentBodies are the recorded agents' requests of the goldens, by front
// door: tens of kilobytes of tool schemas each.
func agentBodies(t testing.TB) []struct {
	name string
	api  API
	body []byte
} {
	var out []struct {
		name string
		api  API
		body []byte
	}
	for _, f := range []struct {
		path string
		api  API
	}{
		{"testdata/agents.txtar", APIMessages},
		{"testdata/agents_responses.txtar", APIResponses},
		{"testdata/agents_chat.txtar", APIChat},
	} {
		ar, err := txtar.ParseFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasSuffix(file.Name, ".json") {
				out = append(out, struct {
					name string
					api  API
					body []byte
				}{file.Name, f.api, file.Data})
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no agent requests in testdata")
	}
	return out
}

// TestLowerCacheSameRequest checks that a backend request written with
// lowered schemas from the cache is byte for byte the one written without
// it, on its first use (a miss) and its second (a hit), for every backend
// API, and that the warnings are the same.
func TestLowerCacheSameRequest(t *testing.T) {
	lc := newLowerCache()
	for _, bd := range agentBodies(t) {
		for _, api := range []API{APIChat, APIMessages, APIResponses, APIGemini} {
			t.Run(bd.name+"/"+string(api), func(t *testing.T) {
				encode := func(lc *lowerCache) *Outbound {
					r, err := DecodeRequest(bd.api, bd.body, -1)
					if err != nil {
						t.Fatal(err)
					}
					o := &BackendOptions{API: api, Model: "m", Compat: api == APIChat, lower: lc}
					out, err := EncodeRequest(r, o)
					if err != nil {
						t.Fatal(err)
					}
					return out
				}
				want := encode(nil)
				for i := range 2 {
					got := encode(lc)
					if !bytes.Equal(want.Body, got.Body) {
						t.Errorf("use %d: the body differs from the uncached one", i+1)
					}
					if diff := cmp.Diff(want.Warnings, got.Warnings); diff != "" {
						t.Errorf("use %d: warnings (-want +got):\n%s", i+1, diff)
					}
				}
			})
		}
	}
}

// TestLowerCacheErrors checks that a schema that cannot be lowered fails
// as it does without the cache, and is not kept.
func TestLowerCacheErrors(t *testing.T) {
	lc := newLowerCache()
	d := &tool.Definition{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"a":{"$ref":"https://example.com/x.json"}}}`)}
	_, _, want := schema.LowerDefinition(schema.OpenAI, d, schema.NewNameMap(schema.OpenAI))
	_, _, got := lc.lowerDefinition(schema.OpenAI, d, schema.NewNameMap(schema.OpenAI))
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("error %v, want %v", got, want)
	}
	if want != nil && lc.order.Len() != 0 {
		t.Errorf("%d entries kept after an error, want 0", lc.order.Len())
	}
}

// TestLowerCacheBounded checks that the cache keeps at most
// maxLoweredEntries schemas, the most recent.
func TestLowerCacheBounded(t *testing.T) {
	lc := newLowerCache()
	for i := range maxLoweredEntries + 10 {
		d := &tool.Definition{Name: "t", InputSchema: fmt.Appendf(nil, `{"type":"object","description":"%d"}`, i)}
		if _, _, err := lc.lowerDefinition(schema.Anthropic, d, schema.NewNameMap(schema.Anthropic)); err != nil {
			t.Fatal(err)
		}
	}
	if n := lc.order.Len(); n != maxLoweredEntries {
		t.Errorf("%d entries, want %d", n, maxLoweredEntries)
	}
	if lc.get(lowerKey{}, nil) != nil {
		t.Error("an empty key found an entry")
	}
}

// TestParserCache checks that a provider's text parser is built once per
// request shape and tool set, that another tool set gets its own, and
// that the cache stays bounded.
func TestParserCache(t *testing.T) {
	p := &Provider{Name: "p", API: APIChat, ToolParser: "hermes", Parsing: ParsingThinkTags, parsers: newParserCache()}
	tools := func(name string) []tool.Definition {
		return []tool.Definition{{Name: name, InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	}
	filter := func(r *Request) *textFilter {
		var warns []tool.Warning
		f, err := newTextFilter(p, r, schema.NewCache(nil), &warns, false)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	r1 := &Request{Stream: true, Tools: tools("get_weather")}
	a, b := filter(r1), filter(&Request{Stream: true, Tools: tools("get_weather")})
	if p.parsers.order.Len() != 1 {
		t.Fatalf("%d parsers after the same tool set twice, want 1", p.parsers.order.Len())
	}
	if a.tp != b.tp {
		t.Error("two requests with the same tools have parsers of their own")
	}
	if a.scanner() == b.scanner() {
		t.Error("two requests share a scanner")
	}
	filter(&Request{Stream: true, Tools: tools("get_time")})
	filter(&Request{Stream: false, Tools: tools("get_weather")})
	bare := filter(&Request{Stream: true})
	if n := p.parsers.order.Len(); n != 3 {
		t.Errorf("%d parsers in the list, want 3 (two tool sets, non-streaming)", n)
	}
	// The parser for no tools is kept in its slot, and shared.
	if again := filter(&Request{Stream: true}); bare.tp == nil || again.tp != bare.tp {
		t.Error("two requests with no tools have parsers of their own")
	}
	if filter(&Request{Stream: false}).tp == bare.tp {
		t.Error("a non-streaming request with no tools has the streaming parser")
	}
	// The parser of get_time must not read get_weather's calls as calls.
	f := filter(&Request{Stream: false, Tools: tools("get_time")})
	var got []Event
	emit := func(e Event) error { got = append(got, e); return nil }
	if err := f.Feed(Event{Kind: EventText, Text: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"}, emit); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(emit); err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		if e.Kind == EventCall {
			t.Errorf("a call to %q, a tool not offered, was read as a call", e.Name)
		}
	}
	for i := range maxCachedParsers + 5 {
		filter(&Request{Tools: tools(fmt.Sprintf("t%d", i))})
	}
	if n := p.parsers.order.Len(); n != maxCachedParsers {
		t.Errorf("%d parsers, want the bound %d", n, maxCachedParsers)
	}
}

// TestFlushingReader checks the coalescing of a stream's writes: nothing
// is flushed before the first read, events written between two reads are
// flushed once, before the second, and an event that waited
// maxFlushDelay is flushed at once.
func TestFlushingReader(t *testing.T) {
	flushes := 0
	fr := &flushingReader{r: strings.NewReader("abc"), flush: func() error { flushes++; return nil }}
	buf := make([]byte, 1)
	fr.Read(buf)
	if flushes != 0 {
		t.Fatalf("%d flushes before anything was written", flushes)
	}
	fr.written()
	fr.written()
	if flushes != 0 {
		t.Fatalf("%d flushes between two reads, want 0 (held for the next read)", flushes)
	}
	fr.Read(buf)
	if flushes != 1 {
		t.Fatalf("%d flushes after the next read, want 1", flushes)
	}
	fr.Read(buf)
	if flushes != 1 {
		t.Fatalf("%d flushes after a read with nothing written, want 1", flushes)
	}
	fr.written()
	fr.since = fr.since.Add(-maxFlushDelay)
	fr.written()
	if flushes != 2 {
		t.Fatalf("%d flushes after an event waited %v, want 2", flushes, maxFlushDelay)
	}
	// A failed flush is the read's error: the client is gone.
	gone := errors.New("client gone")
	fr = &flushingReader{r: strings.NewReader("abc"), flush: func() error { return gone }}
	fr.written()
	if _, err := fr.Read(buf); !errors.Is(err, gone) {
		t.Errorf("Read = %v, want the flush's error", err)
	}
}

// BenchmarkLowerCache is the request side (decode and encode for a Chat
// backend) of the recorded agents' first turns, lowering their tools'
// schemas every time (cache=off) or from the cache (cache=on).
func BenchmarkLowerCache(b *testing.B) {
	for _, bd := range agentBodies(b) {
		if !strings.Contains(bd.name, "first") {
			continue
		}
		for _, api := range []API{APIChat, APIGemini} {
			for _, on := range []bool{false, true} {
				var lc *lowerCache
				if on {
					lc = newLowerCache()
				}
				b.Run(fmt.Sprintf("%s/backend=%s/cache=%t", bd.name, api, on), func(b *testing.B) {
					benchEncode(b, bd.api, bd.body, &BackendOptions{API: api, Model: "m", Compat: api == APIChat, lower: lc})
				})
			}
		}
	}
}

func benchEncode(b *testing.B, front API, body []byte, o *BackendOptions) {
	b.ReportAllocs()
	cpu0 := cpuNowInternal()
	for b.Loop() {
		r, err := DecodeRequest(front, body, -1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := EncodeRequest(r, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNowInternal()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
}

// slowReader returns one byte per read after its delay, then blocks
// until closed.
type slowReader struct {
	delays []time.Duration
	done   chan struct{}
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.delays) == 0 {
		<-r.done
		return 0, io.EOF
	}
	d := r.delays[0]
	r.delays = r.delays[1:]
	select {
	case <-time.After(d):
		p[0] = 'x'
		return 1, nil
	case <-r.done:
		return 0, io.EOF
	}
}

func (r *slowReader) Close() error { return nil }

// watched is a body of delays read under a watch with the given
// timeouts; cancelled reports whether the watch cancelled it.
func watched(delays []time.Duration, total, first, idle time.Duration) (b *watchedBody, cancelled *atomic.Bool) {
	done := make(chan struct{})
	cancelled = new(atomic.Bool)
	w := newWatch(func() { cancelled.Store(true); close(done) }, total, first)
	w.end() // the headers came at once
	next := first
	if next <= 0 {
		next = idle
	}
	return &watchedBody{rc: &slowReader{delays: delays, done: done}, w: w, idle: idle, next: next}, cancelled
}

// TestWatchedBody checks the timeouts of a backend's answer with its one
// lazily re-armed timer: reads that each come within the idle time never
// time out, however long the stream lasts; a read that waits past its
// bound fails with errTimeout soon after it, whether the bound is the
// idle time, a first read's longer one, or the total timeout.
func TestWatchedBody(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name               string
		total, first, idle time.Duration
		delays             []time.Duration // every read in time
		stallMin, stallMax time.Duration   // the stalled read's wait
		msg                string
	}{
		{name: "idle", idle: 100 * ms, delays: []time.Duration{90 * ms, 40 * ms, 80 * ms, 99 * ms, 10 * ms, 95 * ms},
			stallMin: 100 * ms, stallMax: 200 * ms, msg: "no data for 100ms"},
		// A first token slower than the idle time is in time; the read
		// after it is held to the idle time, not the first one's, whether
		// the first came late or early (before the timer set for it).
		{name: "first-longer-than-idle", first: 1000 * ms, idle: 100 * ms, delays: []time.Duration{900 * ms, 50 * ms},
			stallMin: 100 * ms, stallMax: 110 * ms, msg: "no data for 100ms"},
		{name: "first-early", first: 1000 * ms, idle: 100 * ms, delays: []time.Duration{10 * ms},
			stallMin: 100 * ms, stallMax: 110 * ms, msg: "no data for 100ms"},
		{name: "first-stalls", first: 300 * ms, idle: 100 * ms,
			stallMin: 300 * ms, stallMax: 310 * ms, msg: "no data for 300ms"},
		// Reads in time, but the whole exchange past the total.
		{name: "total", total: 250 * ms, idle: 100 * ms, delays: []time.Duration{90 * ms, 90 * ms},
			stallMin: 70 * ms, stallMax: 71 * ms, msg: "no answer within 250ms"},
		{name: "total-no-idle", total: 250 * ms, delays: []time.Duration{200 * ms},
			stallMin: 50 * ms, stallMax: 51 * ms, msg: "no answer within 250ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, cancelled := watched(tt.delays, tt.total, tt.first, tt.idle)
				buf := make([]byte, 1)
				for i := range tt.delays {
					if _, err := b.Read(buf); err != nil {
						t.Fatalf("read %d: %v, want no timeout", i, err)
					}
				}
				start := time.Now()
				_, err := b.Read(buf)
				if !errors.Is(err, errTimeout) || !cancelled.Load() {
					t.Fatalf("stalled read: %v (cancelled %v), want errTimeout", err, cancelled.Load())
				}
				if !strings.HasSuffix(err.Error(), tt.msg) {
					t.Errorf("error %q, want it to end %q", err, tt.msg)
				}
				if waited := time.Since(start); waited < tt.stallMin || waited > tt.stallMax {
					t.Errorf("timed out after %v, want %v-%v", waited, tt.stallMin, tt.stallMax)
				}
				b.Close()
			})
		})
	}
}

// TestWatchStops checks that a watch stopped before its deadline never
// cancels, and that a body closed in time leaves no timer behind.
func TestWatchStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, cancelled := watched([]time.Duration{10 * time.Millisecond}, time.Second, 0, 100*time.Millisecond)
		buf := make([]byte, 1)
		if _, err := b.Read(buf); err != nil {
			t.Fatal(err)
		}
		b.Close()
		time.Sleep(2 * time.Second)
		if cancelled.Load() {
			t.Error("cancelled after Close")
		}
		if err := b.w.err("no data for", 0); err != nil {
			t.Errorf("err after Close: %v", err)
		}
	})
}

// TestBatchWriter checks the gathering of a stream's writes: nothing
// reaches w before Flush, a batch is one write, the buffer is held only
// while a batch is open, a write past batchBytes writes out what was
// gathered first, and w's error is returned.
func TestBatchWriter(t *testing.T) {
	var got [][]byte
	w := writerFunc(func(p []byte) (int, error) { got = append(got, bytes.Clone(p)); return len(p), nil })
	b := &batchWriter{w: w}
	if err := b.Flush(); err != nil || len(got) != 0 || b.buf != nil {
		t.Fatalf("Flush of nothing: %v, %d writes, buffer held %v", err, len(got), b.buf != nil)
	}
	b.Write([]byte("ab"))
	b.Write([]byte("cd"))
	if len(got) != 0 || b.buf == nil {
		t.Fatalf("%d writes before Flush, buffer held %v", len(got), b.buf != nil)
	}
	if err := b.Flush(); err != nil || len(got) != 1 || string(got[0]) != "abcd" || b.buf != nil {
		t.Fatalf("Flush: %v, writes %q, buffer held %v; want one write of abcd and the buffer given back", err, got, b.buf != nil)
	}
	// Past the bound: what was gathered goes first, then the rest
	// gathers; a write larger than the buffer goes straight through.
	got = nil
	b.Write([]byte("x"))
	big := bytes.Repeat([]byte("y"), batchBytes)
	b.Write(big)
	huge := bytes.Repeat([]byte("z"), batchBytes+1)
	b.Write(huge)
	b.Flush()
	if len(got) != 3 || string(got[0]) != "x" || !bytes.Equal(got[1], big) || !bytes.Equal(got[2], huge) {
		t.Fatalf("writes of %d pieces, want x, then %d bytes, then %d", len(got), len(big), len(huge))
	}
	gone := errors.New("client gone")
	b = &batchWriter{w: writerFunc(func(p []byte) (int, error) { return 0, gone })}
	b.Write([]byte("ab"))
	if err := b.Flush(); !errors.Is(err, gone) || b.buf != nil {
		t.Errorf("Flush = %v, buffer held %v; want the writer's error and the buffer given back", err, b.buf != nil)
	}
	b.Write([]byte("ab"))
	if _, err := b.Write(big); !errors.Is(err, gone) {
		t.Errorf("Write past the bound = %v, want the writer's error", err)
	}
	b.release()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
