// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"

	"github.com/toolgate/toolgate/tool"
)

// Executor runs one tool call.
//
// Execute receives arguments that the kernel has already decoded strictly
// and validated against the tool's input schema; call.Arguments holds
// exactly those bytes and must not be modified. A failure of the tool
// itself — the API said no, the command exited non-zero, the record does
// not exist — is a [tool.Result] with IsError set, which the model reads.
// A Go error means the executor could not run at all; the kernel turns it
// into a redacted tool error too, so the agent loop never breaks.
//
// Executors must be safe for concurrent use and must return when ctx is
// done.
type Executor interface {
	Execute(ctx context.Context, call tool.Call) (tool.Result, error)
}

// ExecutorFunc adapts a function to [Executor].
type ExecutorFunc func(ctx context.Context, call tool.Call) (tool.Result, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	return f(ctx, call)
}

// Middleware wraps an executor, for logging, metrics, retries or caching.
type Middleware func(Executor) Executor

// Chain wraps e in mw, applied right to left so that mw[0] is the
// outermost: Chain(e, a, b) runs a, then b, then e.
func Chain(e Executor, mw ...Middleware) Executor {
	for i := len(mw) - 1; i >= 0; i-- {
		e = mw[i](e)
	}
	return e
}
