// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"sync"
	"time"
)

// Limiter counts calls in a sliding window per principal and capability.
// Implementations must be safe for concurrent use; a shared one (Redis)
// lets replicas share windows.
type Limiter interface {
	// Allow records a call by principal to capability now and reports
	// whether it is within limit calls per window. When it is not, the
	// call is not recorded and retry says when one would be allowed.
	Allow(ctx context.Context, principal, capability string, limit int, window time.Duration) (ok bool, retry time.Duration, err error)
}

// RateLimits are calls allowed per principal × capability per window, by
// safety class. Zero means the default; negative means no limit.
type RateLimits struct {
	// Read: if zero, [DefaultReadLimit]; negative means no limit.
	Read int
	// Write: if zero, [DefaultWriteLimit]; negative means no limit.
	Write int
	// Destructive: if zero, [DefaultDestructiveLimit]; negative means no
	// limit.
	Destructive int
	// Window: if zero, [DefaultRateWindow]; negative turns every rate
	// limit off.
	Window time.Duration
}

// The defaults of [RateLimits], used when a field is zero.
const (
	DefaultReadLimit        = 60
	DefaultWriteLimit       = 10
	DefaultDestructiveLimit = 2
	DefaultRateWindow       = time.Minute
)

func (l RateLimits) withDefaults() RateLimits {
	l.Read = orDefault(l.Read, DefaultReadLimit)
	l.Write = orDefault(l.Write, DefaultWriteLimit)
	l.Destructive = orDefault(l.Destructive, DefaultDestructiveLimit)
	if l.Window = orDefault(l.Window, DefaultRateWindow); l.Window < 0 {
		l.Read, l.Write, l.Destructive = -1, -1, -1
	}
	return l
}

func (l RateLimits) of(s Safety) int {
	switch s {
	case SafetyRead:
		return l.Read
	case SafetyWrite:
		return l.Write
	}
	return l.Destructive
}

// MemoryLimiter is the in-process [Limiter]: an exact sliding log of call
// times per key. Its memory follows the calls inside the window, never
// the configured limit: a key holds one time per call it made in the
// window, and keys with none are dropped.
type MemoryLimiter struct {
	mu    sync.Mutex
	logs  map[limitKey]*callLog
	calls int
}

type limitKey struct{ principal, capability string }

// callLog holds the times of the calls still in the window, oldest
// first, from head on; the slice before head is spent.
type callLog struct {
	times []time.Time
	head  int
}

// NewMemoryLimiter returns an empty limiter.
func NewMemoryLimiter() *MemoryLimiter {
	return &MemoryLimiter{logs: make(map[limitKey]*callLog)}
}

// Allow implements [Limiter].
func (m *MemoryLimiter) Allow(_ context.Context, principal, capability string, limit int, window time.Duration) (bool, time.Duration, error) {
	if limit < 0 {
		return true, 0, nil
	}
	if limit == 0 {
		return false, window, nil
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.calls%4096 == 0 {
		m.sweep(now, window)
	}
	k := limitKey{principal, capability}
	l := m.logs[k]
	if l == nil {
		l = &callLog{}
		m.logs[k] = l
	}
	l.expire(now, window)
	if l.len() >= limit {
		return false, window - now.Sub(l.times[l.head]), nil
	}
	l.times = append(l.times, now)
	return true, 0, nil
}

func (l *callLog) len() int { return len(l.times) - l.head }

// expire drops the calls that left the window, and gives memory back
// once most of the slice is spent or unused.
func (l *callLog) expire(now time.Time, window time.Duration) {
	for l.head < len(l.times) && now.Sub(l.times[l.head]) >= window {
		l.head++
	}
	n := l.len()
	switch {
	case n == 0:
		l.times, l.head = l.times[:0], 0
		if cap(l.times) > 64 {
			l.times = nil
		}
	case cap(l.times) > 64 && n < cap(l.times)/4:
		l.times, l.head = append(make([]time.Time, 0, 2*n), l.times[l.head:]...), 0
	case l.head >= len(l.times)/2 && l.head > 0:
		copy(l.times, l.times[l.head:])
		l.times, l.head = l.times[:n], 0
	}
}

// sweep drops keys with no call inside the window.
func (m *MemoryLimiter) sweep(now time.Time, window time.Duration) {
	for k, l := range m.logs {
		if l.len() == 0 || now.Sub(l.times[len(l.times)-1]) >= window {
			delete(m.logs, k)
		}
	}
}
