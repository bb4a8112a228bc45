// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"sync"
	"time"
)

// callContext is the context an executor runs under: the caller's context
// with the call's deadline and, for a capability with PassGrant, its grant
// token.
//
// The deadline is enforced without a timer until an executor asks for
// one: Deadline reports it, Err compares it with the clock, and the first
// Done makes a real context.WithDeadline whose channel closes on time.
// Most executors that wait on anything pass ctx to something that calls
// Done and so get the timer; a call whose executor never waits — a lookup
// in memory — pays for its deadline with one comparison, which the kernel
// makes after the executor returns and which discards a late result just
// as a fired timer would.
type callContext struct {
	context.Context           // the caller's
	deadline        time.Time // zero when the caller's earlier deadline governs
	token           string
	hasToken        bool

	mu     sync.Mutex
	timed  context.Context // made by the first Done, or by Err once expired
	cancel context.CancelFunc
	ended  bool // the call returned; like a cancelled context from then on
}

// Deadline implements [context.Context].
func (c *callContext) Deadline() (time.Time, bool) {
	if c.deadline.IsZero() {
		return c.Context.Deadline()
	}
	return c.deadline, true
}

// materialize makes the timed context; c.mu is held.
func (c *callContext) materialize() context.Context {
	if c.timed == nil {
		c.timed, c.cancel = context.WithDeadline(c.Context, c.deadline)
		if c.ended {
			c.cancel()
		}
	}
	return c.timed
}

// Done implements [context.Context].
func (c *callContext) Done() <-chan struct{} {
	if c.deadline.IsZero() {
		return c.Context.Done()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.materialize().Done()
}

// Err implements [context.Context].
func (c *callContext) Err() error {
	if c.deadline.IsZero() {
		return c.Context.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timed == nil {
		if err := c.Context.Err(); err != nil {
			return err
		}
		if c.ended {
			return context.Canceled
		}
		if !c.expired(time.Now()) {
			return nil
		}
		// Made now, already expired (no timer), so that context.Cause
		// and children see the same error.
	}
	return c.materialize().Err()
}

// Value implements [context.Context].
func (c *callContext) Value(key any) any {
	if _, ok := key.(grantKey); ok && c.hasToken {
		return c.token
	}
	if !c.deadline.IsZero() {
		c.mu.Lock()
		timed := c.timed
		c.mu.Unlock()
		if timed != nil {
			// context.Cause and context.WithCancel find the timed
			// context's cancellation through Value.
			return timed.Value(key)
		}
	}
	return c.Context.Value(key)
}

// expired reports whether the call's own deadline has passed at now.
func (c *callContext) expired(now time.Time) bool {
	return !c.deadline.IsZero() && !now.Before(c.deadline)
}

// release ends the call: a timer, if one was made, is stopped, and the
// context reports itself cancelled to anything that kept it.
func (c *callContext) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.cancel != nil {
		c.cancel()
	}
}
