// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sse

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type got struct {
	Events []Event
	Err    error // the sentinel, or nil at a clean end
	Line   int64
}

// readAll reads every event from r, copying the data.
func readAll(r *Reader) got {
	var g got
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return g
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				g.Err, g.Line = e.Err, e.Line
			} else {
				g.Err = err
			}
			return g
		}
		ev.Data = bytes.Clone(ev.Data)
		g.Events = append(g.Events, ev)
	}
}

func ev(name, data string) Event { return Event{Name: name, Data: []byte(data)} }

func TestReader(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		max    int
		want   []Event
		err    error
		atLine int64
	}{
		{name: "openai-chunks", in: "data: {\"a\":1}\n\ndata: [DONE]\n\n", want: []Event{ev("", `{"a":1}`), ev("", "[DONE]")}},
		{name: "named-events", in: "event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n", want: []Event{ev("message_start", "{}"), ev("ping", `{"type":"ping"}`)}},
		{name: "crlf", in: "event: x\r\ndata: 1\r\n\r\n", want: []Event{ev("x", "1")}},
		{name: "lone-cr", in: "data: 1\rdata: 2\r\r", want: []Event{ev("", "1\n2")}},
		{name: "multi-line-data", in: "data: a\ndata:b\ndata:  c\n\n", want: []Event{ev("", "a\nb\n c")}},
		{name: "comments-and-retry", in: ": keep-alive\nretry: 10\ndata: x\n\n", want: []Event{ev("", "x")}},
		{name: "event-without-data-not-dispatched", in: "event: x\n\ndata: y\n\n", want: []Event{ev("", "y")}},
		{name: "field-without-colon", in: "data\n\n", want: []Event{ev("", "")}},
		{name: "bom", in: "\xEF\xBB\xBFdata: x\n\n", want: []Event{ev("", "x")}},
		{name: "empty", in: "", want: nil},
		{name: "only-blank-lines", in: "\n\n\n", want: nil},
		{name: "cut-inside-line", in: "data: {\"a\":1}\n\ndata: {\"b\"", want: []Event{ev("", `{"a":1}`)}, err: ErrTruncated, atLine: 3},
		{name: "cut-before-blank-line", in: "data: 1\n\ndata: 2\n", want: []Event{ev("", "1")}, err: ErrTruncated, atLine: 4},
		{name: "line-too-long", in: "data: " + strings.Repeat("x", 100) + "\n\n", max: 64, err: ErrTooLarge, atLine: 1},
		{name: "line-too-long-unterminated", in: "data: " + strings.Repeat("x", 100), max: 64, err: ErrTooLarge, atLine: 1},
		{name: "event-too-large", in: strings.Repeat("data: 0123456789\n", 10) + "\n", max: 64, err: ErrTooLarge, atLine: 6},
		{name: "html-answer", in: "<html><body>502 Bad Gateway</body></html>", err: ErrTruncated, atLine: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := got{Events: tt.want, Err: tt.err, Line: tt.atLine}
			for _, mode := range []string{"whole", "one-byte", "half"} {
				var src io.Reader = strings.NewReader(tt.in)
				switch mode {
				case "one-byte":
					src = iotest.OneByteReader(src)
				case "half":
					src = iotest.HalfReader(src)
				}
				g := readAll(NewReader(src, &Config{MaxEventBytes: tt.max}))
				if diff := cmp.Diff(want, g, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
					t.Errorf("%s: (-want +got)\n%s", mode, diff)
				}
			}
			// A buffer of the caller's, the shortest taken and a large
			// one, reads the same; one too short is not taken.
			for _, size := range []int{minBuffer - 1, minBuffer, 16 << 10} {
				buf := make([]byte, size)
				r := NewReader(iotest.HalfReader(strings.NewReader(tt.in)), &Config{MaxEventBytes: tt.max, Buffer: buf})
				if took := &r.buf[0] == &buf[0]; took != (size >= minBuffer) {
					t.Errorf("buffer of %d bytes taken: %v", size, took)
				}
				if diff := cmp.Diff(want, readAll(r), cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
					t.Errorf("buffer of %d bytes: (-want +got)\n%s", size, diff)
				}
			}
		})
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("connection reset")
	r := NewReader(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom)), nil)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the reader's error", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Offset != 9 || e.Event != 2 {
		t.Fatalf("err = %#v, want offset 9 in event 2", err)
	}
	if strings.Contains(err.Error(), "data") {
		t.Errorf("error %q echoes the stream", err)
	}
}

// TestReaderMemoryBounded feeds a 64 MiB line with no newline: the reader
// must fail at its limit without buffering the whole line.
func TestReaderMemoryBounded(t *testing.T) {
	src := io.LimitReader(infinite('x'), 64<<20)
	r := NewReader(src, &Config{MaxEventBytes: 1 << 20})
	_, err := r.Next()
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if n := cap(r.buf); n > 2<<20 {
		t.Errorf("buffer grew to %d bytes", n)
	}
}

type infinite byte

func (b infinite) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestWriterRoundTrip(t *testing.T) {
	tests := []struct {
		name, event, data string
	}{
		{name: "plain", data: `{"a":1}`},
		{name: "named", event: "content_block_delta", data: `{"type":"content_block_delta"}`},
		{name: "newlines", data: "a\nb\r\nc\rd"},
		{name: "empty", data: ""},
		{name: "leading-space", data: "  x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			if err := w.Comment("ping\nevent: forged"); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(tt.event, []byte(tt.data)); err != nil {
				t.Fatal(err)
			}
			g := readAll(NewReader(&buf, nil))
			want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(tt.data)
			if diff := cmp.Diff(got{Events: []Event{ev(tt.event, want)}}, g, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	// The writer remembers the last name it let through: a name with a
	// line break is refused however often it comes, before and after
	// good ones.
	w := NewWriter(io.Discard)
	for i, name := range []string{"a\nevent: b", "a", "a", "a\nevent: b", "a\nevent: b", "\r", "b", "a"} {
		bad := strings.ContainsAny(name, "\r\n")
		if err := w.Write(name, nil); (err != nil) != bad {
			t.Errorf("write %d, name %q: err %v", i, name, err)
		}
	}
}

// reference is the standard's algorithm written the plain way: split into
// lines first, then interpret them. It is the oracle of FuzzReader.
func reference(in []byte) (events []Event, truncated bool) {
	s := string(in)
	s = strings.TrimPrefix(s, "\xEF\xBB\xBF")
	var lines []string
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			break
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	var data strings.Builder
	has, name, id := false, "", ""
	for _, l := range lines {
		if l == "" {
			if has {
				events = append(events, Event{Name: name, Data: []byte(strings.TrimSuffix(data.String(), "\n")), ID: id})
			}
			data.Reset()
			has, name = false, ""
			continue
		}
		if l[0] == ':' {
			continue
		}
		f, v, ok := strings.Cut(l, ":")
		if ok {
			v = strings.TrimPrefix(v, " ")
		}
		switch f {
		case "data":
			data.WriteString(v + "\n")
			has = true
		case "event":
			name = v
		case "id":
			if !strings.Contains(v, "\x00") {
				id = v
			}
		}
	}
	return events, s != "" || has || name != ""
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"), uint64(1))
	f.Add([]byte("event: x\r\ndata: 1\r\r\ndata: 2\r\n\r\n"), uint64(7))
	f.Add([]byte("\xEF\xBB\xBFid: 3\ndata\n\n: c\nevent: e\n"), uint64(3))
	if dir := os.Getenv("TOOLGATE_CORPORA"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "gateway", "*", "*.sse"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b, uint64(len(b)))
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		want, truncated := reference(in)
		rng := rand.New(rand.NewPCG(seed, 0))
		// The buffer is the reader's own, or one of the caller's from
		// the shortest taken to larger than the input.
		var buf []byte
		if n := int(seed % 4); n > 0 {
			buf = make([]byte, minBuffer<<(3*(n-1)))
		}
		g := readAll(NewReader(&chunked{b: in, rng: rng}, &Config{MaxEventBytes: -1, Buffer: buf}))
		if g.Err != nil && !(truncated && g.Err == ErrTruncated) {
			t.Fatalf("error %v (truncated=%v)", g.Err, truncated)
		}
		if truncated && g.Err == nil {
			t.Fatalf("no error for a truncated stream")
		}
		if len(g.Events) == 0 {
			g.Events = nil
		}
		if diff := cmp.Diff(want, g.Events); diff != "" {
			t.Fatalf("events differ from the reference (-want +got)\n%s", diff)
		}
	})
}

// chunked hands out its bytes in random pieces.
type chunked struct {
	b   []byte
	rng *rand.Rand
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := 1 + c.rng.IntN(len(c.b))
	n = min(n, len(p))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// TestIndexEOL checks indexEOL against bytes.IndexAny.
func TestIndexEOL(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, s := range []string{"", "a", "\n", "\r", "\r\n", "\n\r", "ab\rcd\n", "ab\ncd\r", long + "\r" + long, long + "\n", long, "\r" + long + "\n"} {
		if got, want := indexEOL([]byte(s)), bytes.IndexAny([]byte(s), "\r\n"); got != want {
			t.Errorf("indexEOL(%q) = %d, want %d", s, got, want)
		}
	}
}

// BenchmarkReader reads a recorded Chat Completions stream (text, 34
// events) from memory.
func BenchmarkReader(b *testing.B) {
	dir := os.Getenv("TOOLGATE_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpora")
	}
	data, err := os.ReadFile(filepath.Join(dir, "gateway", "openai-chat", "openai-python-gpt-4o-text.sse"))
	if err != nil {
		b.Skipf("corpora not found: %v", err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var rd bytes.Reader
	r := NewReader(&rd, nil)
	for b.Loop() {
		rd.Reset(data)
		*r = Reader{r: &rd, max: r.max, buf: r.buf, data: r.data}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 34 {
			b.Fatalf("%d events", n)
		}
	}
}
