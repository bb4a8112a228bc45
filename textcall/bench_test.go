// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchtest"
)

// hermesOutput builds a Hermes output of about size bytes holding calls
// calls, each after a paragraph of prose: what a long agent turn looks
// like.
func hermesOutput(size, calls int) string {
	var b strings.Builder
	seg := size / calls
	for i := 0; i < calls; i++ {
		start := b.Len()
		b.WriteString("Step ")
		fmt.Fprint(&b, i)
		b.WriteString(": I will look this up, then compare the figures with what the user gave and explain the difference. ")
		for b.Len()-start < seg/2 {
			b.WriteString("The quick brown fox jumps over the lazy dog; numbers 0123456789 and a < b > c. ")
		}
		b.WriteString("\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"")
		for b.Len()-start < seg-60 {
			b.WriteString("long query text with \\\"escapes\\\" and unicode é ")
		}
		fmt.Fprintf(&b, "\", \"limit\": %d, \"exact\": true, \"tags\": [\"a\", \"b\"]}}\n</tool_call>\n", i)
	}
	return b.String()
}

func TestHermesOutputShape(t *testing.T) {
	text := hermesOutput(100<<10, 50)
	r := newTestParser(t, "hermes", nil).Parse(text)
	if len(r.Calls) != 50 || len(r.Warnings) != 0 {
		t.Fatalf("%d calls, warnings %v; want 50 calls and none", len(r.Calls), r.Warnings)
	}
}

// reportCPU adds the process CPU time per op and per byte to b.
func reportCPU(b *testing.B, start time.Duration, bytesPerOp int) {
	cpu := benchtest.CPUTime() - start
	if cpu <= 0 || b.N == 0 {
		return
	}
	perOp := float64(cpu.Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp, "cpu-ns/op")
	b.ReportMetric(float64(bytesPerOp)/perOp*1e3, "cpu-MB/s")
}

// BenchmarkHermesParse is the non-streaming parse of a 100 KB output
// holding 50 calls.
func BenchmarkHermesParse(b *testing.B) {
	text := hermesOutput(100<<10, 50)
	p := newTestParser(b, "hermes", nil)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	start := benchtest.CPUTime()
	for b.Loop() {
		if r := p.Parse(text); len(r.Calls) != 50 {
			b.Fatal(len(r.Calls))
		}
	}
	reportCPU(b, start, len(text))
}

// BenchmarkHermesStream feeds the same output in deltas of 1 byte (the
// worst case) and of 4 bytes (about one token).
func BenchmarkHermesStream(b *testing.B) {
	text := hermesOutput(100<<10, 50)
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("delta=%d", n), func(b *testing.B) {
			p := newTestParser(b, "hermes", nil)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			start := benchtest.CPUTime()
			for b.Loop() {
				s := p.NewScanner()
				feedAll(s, text, n)
				s.Close()
				if len(s.Result().Calls) != 50 {
					b.Fatal("calls lost")
				}
			}
			reportCPU(b, start, len(text))
		})
	}
}

// feedAll feeds text to s in deltas of n bytes, with the least loop
// overhead for n == 1 so that the figures are the scanner's.
func feedAll(s *Scanner, text string, n int) {
	if n == 1 {
		for i := range len(text) {
			s.Feed(text[i : i+1])
		}
		return
	}
	for i := 0; i < len(text); i += n {
		s.Feed(text[i:min(i+n, len(text))])
	}
}

// BenchmarkHermesStreamVsParse alternates the parse of the 100 KB output
// and its stream in one-byte deltas within each iteration and reports the
// ratio of their times, which is what the target (at most 3×) is about:
// measured side by side, it holds still on a machine whose load changes.
func BenchmarkHermesStreamVsParse(b *testing.B) {
	text := hermesOutput(100<<10, 50)
	p := newTestParser(b, "hermes", nil)
	var parse, stream time.Duration
	for b.Loop() {
		t0 := time.Now()
		if r := p.Parse(text); len(r.Calls) != 50 {
			b.Fatal(len(r.Calls))
		}
		t1 := time.Now()
		s := p.NewScanner()
		feedAll(s, text, 1)
		s.Close()
		if r := s.Result(); len(r.Calls) != 50 {
			b.Fatal(len(r.Calls))
		}
		t2 := time.Now()
		parse += t1.Sub(t0)
		stream += t2.Sub(t1)
	}
	b.ReportMetric(float64(stream)/float64(parse), "stream/parse")
	b.ReportMetric(float64(parse.Nanoseconds())/float64(b.N), "parse-ns/op")
	b.ReportMetric(float64(stream.Nanoseconds())/float64(b.N), "stream-ns/op")
}

// BenchmarkHermesStreamPerDelta shows the cost of one one-byte delta for a
// short and a long output: it must not grow with the output's length.
func BenchmarkHermesStreamPerDelta(b *testing.B) {
	for _, size := range []int{10 << 10, 1 << 20} {
		text := hermesOutput(size, max(1, size/2048))
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			p := newTestParser(b, "hermes", nil)
			start := benchtest.CPUTime()
			for b.Loop() {
				s := p.NewScanner()
				for i := 0; i < len(text); i++ {
					s.Feed(text[i : i+1])
				}
				s.Close()
			}
			deltas := float64(b.N) * float64(len(text))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/deltas, "ns/delta")
			if cpu := benchtest.CPUTime() - start; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/deltas, "cpu-ns/delta")
			}
		})
	}
}

// floor does the least a streaming parser's Feed can do with a delta:
// keep its bytes and return one event for it, written in place.
type floor struct {
	ev  []Event
	buf []byte
}

//go:noinline
func (f *floor) feed(d string) []Event {
	f.ev = f.ev[:1]
	f.ev[0].Text = d
	n := len(f.buf)
	f.buf = f.buf[:n+len(d)]
	copy(f.buf[n:], d)
	return f.ev
}

// BenchmarkDeltaFloor is the cost of that least per one-byte delta on the
// same output, with the buffer sized once: the floor
// BenchmarkHermesStream/delta=1 is measured against.
func BenchmarkDeltaFloor(b *testing.B) {
	text := hermesOutput(100<<10, 50)
	f := &floor{ev: make([]Event, 1), buf: make([]byte, 0, len(text))}
	f.ev[0].Kind = EventContent
	start := benchtest.CPUTime()
	for b.Loop() {
		f.buf = f.buf[:0]
		for i := 0; i < len(text); i++ {
			f.feed(text[i : i+1])
		}
	}
	deltas := float64(b.N) * float64(len(text))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/deltas, "ns/delta")
	if cpu := benchtest.CPUTime() - start; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/deltas, "cpu-ns/delta")
	}
}
