// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// watch bounds one exchange with a backend (see [Provider]'s timeouts):
// the total timeout, counted from the start of the exchange, and the
// current wait, for the response's headers or for one read of its body,
// which the first-token and idle timeouts bound. One timer serves both:
// it fires no later than the earliest deadline in force, cancels the
// exchange if one has passed, and else sets itself for the next.
//
// A wait sets its deadline with an atomic store and clears it with
// another; it touches the timer only when its deadline comes before the
// time the timer is set for (a first read that may wait longer than the
// reads after it, a whole answer's first read under the total timeout).
// A stream is read in many small reads, a few an event: one timer armed
// for each cost more than the rest of the read.
type watch struct {
	cancel context.CancelFunc
	start  time.Time
	total  time.Duration // since start; <= 0 none

	// wait is the current wait's deadline, in nanoseconds since start;
	// 0 between waits. at is when the timer will fire, the same way; 0
	// while it is not set (or check is setting it again).
	wait atomic.Int64
	at   atomic.Int64

	mu      sync.Mutex // guards timer and stopped, and every change of at
	timer   *time.Timer
	stopped bool

	// fired says which deadline cancelled the exchange: firedTotal or
	// firedWait; 0 none. It is set before cancel is called.
	fired atomic.Int32
}

const (
	firedTotal = 1 + iota
	firedWait
)

// newWatch starts watching an exchange that cancel ends: its total
// timeout total and, when first > 0, a first wait of first.
func newWatch(cancel context.CancelFunc, total, first time.Duration) *watch {
	w := &watch{cancel: cancel, start: time.Now(), total: total}
	if first > 0 {
		w.wait.Store(int64(first))
	}
	w.mu.Lock()
	w.armLocked(w.next(first))
	w.mu.Unlock()
	return w
}

// next is the deadline the timer must fire by for a wait ending at
// wait (0: none): the earlier of it and the total.
func (w *watch) next(wait time.Duration) time.Duration {
	if w.total > 0 && (wait <= 0 || w.total < wait) {
		return w.total
	}
	return wait
}

// armLocked sets the timer to fire at (since start; 0 leaves it unset).
func (w *watch) armLocked(at time.Duration) {
	if at <= 0 || w.stopped {
		return
	}
	w.at.Store(int64(at))
	d := max(at-time.Since(w.start), 0)
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.check)
		return
	}
	w.timer.Reset(d)
}

// begin starts a wait of d.
func (w *watch) begin(d time.Duration) {
	dl := time.Since(w.start) + d
	w.wait.Store(int64(dl))
	// Stored before at is read: a check that missed it has cleared at
	// first, so the wait arms the timer itself.
	if at := w.at.Load(); at == 0 || int64(dl) < at {
		w.mu.Lock()
		if at := time.Duration(w.at.Load()); at == 0 || dl < at {
			w.armLocked(w.next(dl))
		}
		w.mu.Unlock()
	}
}

// end ends the current wait.
func (w *watch) end() { w.wait.Store(0) }

// check runs when the timer fires: it cancels the exchange if a deadline
// has passed, else sets the timer for the next.
func (w *watch) check() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.at.Store(0)
	now := time.Since(w.start)
	wait := time.Duration(w.wait.Load())
	var why int32
	switch {
	case w.total > 0 && now >= w.total:
		why = firedTotal
	case wait > 0 && now >= wait:
		why = firedWait
	default:
		w.armLocked(w.next(wait))
		w.mu.Unlock()
		return
	}
	w.stopped = true
	w.fired.Store(why)
	w.mu.Unlock()
	w.cancel()
}

// stop stops the timer; the exchange is over.
func (w *watch) stop() {
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
}

// err is the error of an exchange the watch cancelled, for a wait of d
// (0: not known); nil if it did not.
func (w *watch) err(what string, d time.Duration) error {
	switch w.fired.Load() {
	case firedTotal:
		return fmt.Errorf("%w: no answer within %v", errTimeout, w.total)
	case firedWait:
		return fmt.Errorf("%w: %s %v", errTimeout, what, d)
	}
	return nil
}

// watchedBody is a backend response's body whose every read waits at
// most idle (the first at most next), by its watch.
type watchedBody struct {
	rc   io.ReadCloser
	w    *watch
	idle time.Duration // <= 0 none
	next time.Duration // the next read's
}

func (b *watchedBody) Read(p []byte) (int, error) {
	wait := b.next
	b.next = b.idle
	if wait > 0 {
		b.w.begin(wait)
	}
	n, err := b.rc.Read(p)
	if wait > 0 {
		b.w.end()
	}
	if werr := b.w.err("no data for", wait); werr != nil {
		return n, werr
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	return b.rc.Close()
}
