// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/toolgate/toolgate/gateway"
)

// textHandler writes serve's log as slog.TextHandler does, byte for byte
// (TestTextHandlerSame and FuzzTextHandlerSame hold it to that), and the
// records of the gateway's access log, one a request, in one pass over a
// pooled buffer: a record whose attributes are all strings of printable
// ASCII, integers, booleans or durations, with non-empty keys. Any other
// record, and every handler WithAttrs or WithGroup derives, is the
// TextHandler's. At 1,000 requests/s the TextHandler's general path
// (its state, its pools, a rune check for every byte) was a few percent
// of the gateway's CPU.
type textHandler struct {
	std   *slog.TextHandler
	w     io.Writer // safe for concurrent writes: a *logWriter
	level slog.Leveler
}

// newTextHandler is a textHandler writing to w at opts' level; opts may
// not have a ReplaceAttr or AddSource (serve sets neither).
func newTextHandler(w io.Writer, opts *slog.HandlerOptions) *textHandler {
	var level slog.Leveler = slog.LevelInfo
	if opts != nil && opts.Level != nil {
		level = opts.Level
	}
	return &textHandler{std: slog.NewTextHandler(w, opts), w: w, level: level}
}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler { return h.std.WithAttrs(as) }
func (h *textHandler) WithGroup(name string) slog.Handler    { return h.std.WithGroup(name) }

var textBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxPooledText bounds the buffers kept for reuse: a rare long line
// does not stay in the pool.
const maxPooledText = 16 << 10

func (h *textHandler) Handle(ctx context.Context, r slog.Record) error {
	if !plainText(r.Message) {
		return h.std.Handle(ctx, r)
	}
	bp, b := startLine(r.Time)
	b = append(b, "level="...)
	b = appendText(b, r.Level.String())
	b = append(b, " msg="...)
	b = appendText(b, r.Message)
	plain := true
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" || !plainText(a.Key) {
			plain = false
			return false
		}
		b = append(b, ' ')
		b = appendText(b, a.Key)
		b = append(b, '=')
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			s := v.String()
			if !plainText(s) {
				plain = false
				return false
			}
			b = appendText(b, s)
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		default:
			plain = false
			return false
		}
		return true
	})
	var err error
	if plain {
		b = append(b, '\n')
		_, err = h.w.Write(b)
	} else {
		err = h.std.Handle(ctx, r)
	}
	endLine(bp, b)
	return err
}

// startLine returns a pooled buffer holding the time member of a line
// at t (none for the zero time), and the buffer's pointer for endLine.
func startLine(t time.Time) (*[]byte, []byte) {
	bp := textBuffers.Get().(*[]byte)
	b := (*bp)[:0]
	if !t.IsZero() {
		b = append(b, "time="...)
		b = appendTime(b, t)
		b = append(b, ' ')
	}
	return bp, b
}

// endLine returns the buffer b grew from *bp to the pool, unless a long
// line grew it too far.
func endLine(bp *[]byte, b []byte) {
	if cap(b) <= maxPooledText {
		*bp = b
		textBuffers.Put(bp)
	}
}

// HandleAccess writes the gateway's access line as Handle writes
// a.Record() ([gateway.AccessHandler]), straight from its fields; a line
// with any string outside printable ASCII goes to Handle.
func (h *textHandler) HandleAccess(ctx context.Context, a gateway.AccessLine) error {
	if !plainText(a.Principal) || !plainText(a.Key) || !plainText(a.Front) || !plainText(a.Model) || !plainText(a.Provider) || !plainText(a.Error) {
		return h.Handle(ctx, a.Record())
	}
	bp, b := startLine(a.Time)
	b = append(b, `level=INFO msg="`+gateway.AccessMessage+`" principal=`...)
	b = appendText(b, a.Principal)
	b = append(b, " key="...)
	b = appendText(b, a.Key)
	b = append(b, " front="...)
	b = appendText(b, a.Front)
	b = append(b, " model="...)
	b = appendText(b, a.Model)
	b = append(b, " provider="...)
	b = appendText(b, a.Provider)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(a.Status), 10)
	b = append(b, " duration="...)
	b = append(b, a.Duration.String()...)
	if a.Error != "" {
		b = append(b, " error="...)
		b = appendText(b, a.Error)
	}
	b = append(b, '\n')
	_, err := h.w.Write(b)
	endLine(bp, b)
	return err
}

// lastSecond is the text of the last second appendTime wrote, to the
// second ("2006-01-02T15:04:05"), and its zone ("Z07:00"): the records of
// one second share them.
type lastSecond struct {
	unix       int64
	loc        *time.Location
	date, zone string
}

var lastSec atomic.Pointer[lastSecond]

// appendTime appends t as the TextHandler writes a record's time: to the
// millisecond, truncated, in t's zone.
func appendTime(b []byte, t time.Time) []byte {
	t = t.Round(0)
	unix, ms := t.Unix(), t.Nanosecond()/1e6
	if ls := lastSec.Load(); ls != nil && ls.unix == unix && ls.loc == t.Location() {
		b = append(b, ls.date...)
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		return append(b, ls.zone...)
	}
	n := len(b)
	b = t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	const dateLen = len("2006-01-02T15:04:05")
	if len(b)-n > dateLen+4 && b[n+dateLen] == '.' {
		lastSec.Store(&lastSecond{unix: unix, loc: t.Location(), date: string(b[n : n+dateLen]), zone: string(b[n+dateLen+4:])})
	}
	return b
}

// plainText reports whether s is printable ASCII (space included), the
// strings whose quoting appendText decides without decoding runes.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= utf8.RuneSelf-1 { // 0x7f, DEL, is a control
			return false
		}
	}
	return true
}

// appendText appends s, printable ASCII, as the TextHandler writes a
// string: bare, or quoted (as strconv.Quote does: '"' and '\\' escaped)
// when it is empty or holds a space, '=' or '"'.
func appendText(b []byte, s string) []byte {
	quote := s == ""
	for i := 0; i < len(s) && !quote; i++ {
		c := s[i]
		quote = c == ' ' || c == '=' || c == '"'
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\', c)
		} else {
			b = append(b, c)
		}
	}
	return append(b, '"')
}
