// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxEventBytes is the largest event a [Reader] accepts when
// [Config.MaxEventBytes] is zero: far above any model API's chunk (a
// whole tool call's arguments arrive in one event from some backends), far
// below what would hurt a server reading many streams at once.
const DefaultMaxEventBytes = 4 << 20

// Sentinel errors, wrapped in an [*Error] that says where.
var (
	// ErrTooLarge reports a line or an event past the size limit.
	ErrTooLarge = errors.New("sse: event too large")
	// ErrTruncated reports a stream that ended inside an event: its
	// last line or its last event had no terminating blank line.
	ErrTruncated = errors.New("sse: stream ended inside an event")
)

// Error is a problem found at a place in the stream. It never holds the
// stream's content, which may be a model's output.
type Error struct {
	// Err is ErrTooLarge, ErrTruncated or the underlying reader's error.
	Err error
	// Offset is the byte offset in the stream where the problem was found.
	Offset int64
	// Line is the 1-based line number at Offset.
	Line int64
	// Event is the 1-based number of the event being read.
	Event int64
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v at line %d (byte %d, event %d)", e.Err, e.Line, e.Offset, e.Event)
}

func (e *Error) Unwrap() error { return e.Err }

// Config configures a [Reader]. A nil Config means the defaults.
type Config struct {
	// MaxEventBytes bounds one line and one event's joined data. If zero,
	// DefaultMaxEventBytes; negative means no limit.
	MaxEventBytes int
	// Buffer, if it holds at least 512 bytes, is the buffer the Reader
	// reads into, up to its length, instead of one of 4 KiB it makes: a
	// larger one takes what the stream has ready in fewer reads. The
	// Reader owns it until the caller is done with the Reader (it makes a
	// larger one when a line outgrows it).
	Buffer []byte
}

// Event is one dispatched event.
type Event struct {
	// Name is the "event:" field, empty when the stream sent none.
	Name string
	// Data is the "data:" lines joined with "\n". It is valid until the
	// next call of [Reader.Next]; copy it to keep it.
	Data []byte
	// ID is the last "id:" field seen, as the standard defines it.
	ID string
}

// Reader reads the events of a text/event-stream body as the WHATWG
// HTML standard defines them: lines end with CRLF, LF or CR; a line
// starting with ':' is a comment; "data" lines accumulate and a blank line
// dispatches; an event without data is not dispatched; a leading BOM is
// skipped. Unlike a browser, a stream that ends inside an event is an
// [ErrTruncated] error rather than silence, because a gateway must not
// turn a cut stream into a shorter answer.
//
// A Reader holds at most one line and one event in memory, each bounded
// by [Config.MaxEventBytes]. It is not safe for concurrent use.
type Reader struct {
	r   io.Reader
	max int

	buf      []byte // read but not yet consumed: buf[pos:end]
	pos, end int
	eof      bool
	err      error // the reader's error other than EOF

	offset    int64 // stream offset of buf[pos]
	lineStart int64 // stream offset of the last line returned
	line      int64 // lines completed so far
	events    int64 // events dispatched so far
	bom       bool  // the BOM check was done
	lastCR    bool  // the previous line ended with a lone CR: skip one LF

	data    []byte
	hasData bool
	name    []byte
	// lastName is the last event's name as a string.
	lastName string
	id       string
}

// NewReader returns a Reader of r. cfg may be nil.
func NewReader(r io.Reader, cfg *Config) *Reader {
	max := DefaultMaxEventBytes
	if cfg != nil && cfg.MaxEventBytes != 0 {
		max = cfg.MaxEventBytes
	}
	if max < 0 {
		max = int(^uint(0) >> 1)
	}
	var buf []byte
	if cfg != nil && len(cfg.Buffer) >= minBuffer {
		buf = cfg.Buffer
	} else {
		buf = make([]byte, 4096)
	}
	return &Reader{r: r, max: max, buf: buf}
}

// minBuffer is the shortest [Config.Buffer] a Reader takes.
const minBuffer = 512

func (r *Reader) errAt(err error) error {
	return &Error{Err: err, Offset: r.offset, Line: r.line + 1, Event: r.events + 1}
}

// fill reads more input, growing the buffer up to the line limit.
func (r *Reader) fill() {
	if r.pos > 0 {
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.pos, r.end = 0, n
	}
	if r.end == len(r.buf) {
		limit := r.max + 2 // the line plus its CRLF
		if limit < r.max {
			limit = r.max // overflow: no limit
		}
		if len(r.buf) >= limit {
			return
		}
		n := 2 * len(r.buf)
		if n > limit {
			n = limit
		}
		nb := make([]byte, n)
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	n, err := r.r.Read(r.buf[r.end:])
	r.end += n
	if err == io.EOF {
		r.eof = true
	} else if err != nil {
		r.err = err
	}
}

// indexEOL returns the index of the first CR or LF in b, or -1: two
// IndexByte scans, which are vectorised, where IndexAny with a set of
// two bytes is not (a quarter of a streamed chunk's CPU went to it).
func indexEOL(b []byte) int {
	n := bytes.IndexByte(b, '\n')
	head := b
	if n >= 0 {
		head = b[:n]
	}
	if r := bytes.IndexByte(head, '\r'); r >= 0 {
		return r
	}
	return n
}

// readLine returns the next line without its terminator; ok is false at
// the end of the input (with r.err set for a reader error).
func (r *Reader) readLine() (line []byte, ok bool, err error) {
	scanned := 0
	for {
		if r.lastCR && r.pos < r.end {
			if r.buf[r.pos] == '\n' {
				r.pos++
				r.offset++
			}
			r.lastCR = false
		}
		avail := r.buf[r.pos+scanned : r.end]
		if i := indexEOL(avail); i >= 0 {
			at := r.pos + scanned + i
			line = r.buf[r.pos:at]
			if len(line) > r.max {
				return nil, false, r.errAt(ErrTooLarge)
			}
			next := at + 1
			if r.buf[at] == '\r' {
				if next < r.end {
					if r.buf[next] == '\n' {
						next++
					}
				} else {
					r.lastCR = true
				}
			}
			r.lineStart = r.offset
			r.offset += int64(next - r.pos)
			r.pos = next
			r.line++
			return line, true, nil
		}
		scanned = r.end - r.pos
		if scanned > r.max {
			return nil, false, r.errAt(ErrTooLarge)
		}
		if r.eof || r.err != nil {
			if r.err != nil {
				return nil, false, r.errAt(r.err)
			}
			if scanned > 0 {
				return nil, false, r.errAt(ErrTruncated)
			}
			return nil, false, nil
		}
		r.fill()
	}
}

// skipBOM drops a byte order mark at the start of the stream.
func (r *Reader) skipBOM() {
	r.bom = true
	for r.end-r.pos < 3 && !r.eof && r.err == nil {
		r.fill()
	}
	if bytes.HasPrefix(r.buf[r.pos:r.end], []byte("\xEF\xBB\xBF")) {
		r.pos += 3
		r.offset += 3
	}
}

// Next returns the next event. At the end of a well-formed stream it
// returns io.EOF; a stream cut inside an event, a line or event past the
// limit, and the underlying reader's failure are *Error values.
func (r *Reader) Next() (Event, error) {
	r.data = r.data[:0]
	r.hasData = false
	r.name = r.name[:0]
	if !r.bom {
		r.skipBOM()
	}
	for {
		line, ok, err := r.readLine()
		if err != nil {
			return Event{}, err
		}
		if !ok {
			if r.hasData || len(r.name) > 0 {
				return Event{}, r.errAt(ErrTruncated)
			}
			return Event{}, io.EOF
		}
		if len(line) == 0 {
			if !r.hasData {
				r.name = r.name[:0]
				continue
			}
			r.events++
			data := r.data
			if n := len(data); n > 0 && data[n-1] == '\n' {
				data = data[:n-1]
			}
			if string(r.name) != r.lastName {
				// A stream names most of its events alike (Anthropic's
				// and OpenAI's, the same few names): the string is made
				// once per change of name, not once per event.
				r.lastName = string(r.name)
			}
			return Event{Name: r.lastName, Data: data, ID: r.id}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if len(r.data)+len(value)+1 > r.max {
				// Name the line just read, not the next one.
				return Event{}, &Error{Err: ErrTooLarge, Offset: r.lineStart, Line: r.line, Event: r.events + 1}
			}
			r.data = append(r.data, value...)
			r.data = append(r.data, '\n')
			r.hasData = true
		case "event":
			r.name = append(r.name[:0], value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.id = string(value)
			}
		}
		// "retry" and unknown fields are ignored, as the standard says.
	}
}

// Writer writes events in the text/event-stream format.
type Writer struct {
	w    io.Writer
	buf  []byte
	name string // the last event name found free of line breaks
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes one event: an "event:" line when name is not empty, one
// "data:" line per line of data, and the blank line that dispatches it.
// A name holding a line break would forge fields, so it is an error.
func (w *Writer) Write(name string, data []byte) error {
	// A stream's events repeat a few names: each is looked at once
	// while it repeats.
	if name != w.name {
		if strings.ContainsAny(name, "\r\n") {
			return fmt.Errorf("sse: event name holds a line break")
		}
		w.name = name
	}
	b := w.buf[:0]
	if name != "" {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	for {
		i := indexEOL(data)
		if i < 0 {
			break
		}
		b = append(b, "data: "...)
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, '\n', '\n')
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// Comment writes a comment line, which clients ignore; servers send one
// to keep an idle connection open.
func (w *Writer) Comment(text string) error {
	b := append(w.buf[:0], ": "...)
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == '\r' || c == '\n' {
			b = append(b, ' ')
		} else {
			b = append(b, c)
		}
	}
	b = append(b, '\n', '\n')
	w.buf = b
	_, err := w.w.Write(b)
	return err
}
