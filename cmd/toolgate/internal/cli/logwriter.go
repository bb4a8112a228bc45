// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/toolgate/toolgate/gateway"
)

// serve's log lines, while it serves, are gathered and written at most
// logFlushEvery after the first of them, or as soon as logBufferBytes
// are waiting: one write(2) for many requests' lines instead of one each
// (at 1,000 requests/s that write was about a fortieth of the gateway's
// CPU). Envoy's access log works the same way, flushing every second by
// default; nginx's does with buffer= and flush=. Start-up, shutdown and
// every warning or error are written at once.
const (
	logFlushEvery  = 50 * time.Millisecond
	logBufferBytes = 32 << 10
)

// logWriter is the writer under serve's log handler. Until SetBuffered
// it writes through; while buffered it keeps whole records (slog writes
// one per Write) and flushes them on a timer, when they fill the buffer,
// on Flush and when buffering ends. It is safe for concurrent use.
type logWriter struct {
	mu       sync.Mutex
	w        io.Writer
	buf      []byte
	buffered bool
	timer    *time.Timer // made on the first buffered write
	armed    bool        // timer will fire
}

func newLogWriter(w io.Writer) *logWriter { return &logWriter{w: w} }

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.buffered {
		if err := l.flushLocked(); err != nil {
			return 0, err
		}
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	if len(l.buf) >= logBufferBytes {
		return len(p), l.flushLocked()
	}
	if !l.armed {
		l.armed = true
		if l.timer == nil {
			l.timer = time.AfterFunc(logFlushEvery, func() { l.Flush() })
		} else {
			l.timer.Reset(logFlushEvery)
		}
	}
	return len(p), nil
}

// Flush writes what is waiting.
func (l *logWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked()
}

func (l *logWriter) flushLocked() error {
	l.armed = false
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// SetBuffered turns buffering on or off; off flushes first.
func (l *logWriter) SetBuffered(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !on {
		l.flushLocked()
		if l.timer != nil {
			l.timer.Stop()
		}
	}
	l.buffered = on
}

// flushingHandler has w flush after every record at warning level or
// above, so that a problem is never held back behind the timer.
type flushingHandler struct {
	slog.Handler
	w *logWriter
	// acc is Handler when it writes access lines itself (found once
	// here, not asserted for every line), else nil.
	acc gateway.AccessHandler
}

// newFlushingHandler is h with w flushed after every record at warning
// level or above.
func newFlushingHandler(h slog.Handler, w *logWriter) flushingHandler {
	acc, _ := h.(gateway.AccessHandler)
	return flushingHandler{Handler: h, w: w, acc: acc}
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

// HandleAccess hands the gateway's access line on as the handler under
// h takes it; at info level it is not flushed.
func (h flushingHandler) HandleAccess(ctx context.Context, a gateway.AccessLine) error {
	if h.acc != nil {
		return h.acc.HandleAccess(ctx, a)
	}
	return h.Handle(ctx, a.Record())
}

func (h flushingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return newFlushingHandler(h.Handler.WithAttrs(as), h.w)
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return newFlushingHandler(h.Handler.WithGroup(name), h.w)
}
