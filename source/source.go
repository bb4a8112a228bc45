// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"errors"

	"github.com/toolgate/toolgate/kernel"
)

// Source is a set of tools with their executors, ready for a kernel.
//
// Capabilities returns the source's tools as they were when the source
// was built (an upstream server listed at connection, a spec loaded once);
// it does no I/O, returns the same tools on every call and may be called
// from any goroutine. The returned slice is the caller's; the executors in
// it belong to the source and stay usable until Close. A tool that fails
// at run time (the API answered 500, the command exited non-zero, the
// upstream refused the call) is a [tool.Result] with IsError set from its
// executor, as [kernel.Executor] says, never an error from the source:
// errors belong to construction (a spec that does not load, a server that
// cannot be reached), which the constructors return.
//
// Close releases what the source holds (an upstream connection, a child
// process); executors of a closed source may fail every call. Call it
// once, after the server that runs the executors has stopped. Close on a
// source that holds nothing returns nil.
type Source interface {
	Capabilities() []kernel.Capability
	Close() error
}

// ErrInvalidConfig reports a source config that cannot be used; the
// message says which field.
var ErrInvalidConfig = errors.New("source: invalid config")

// Static is a source over capabilities built elsewhere, holding nothing to
// close: the source of Go functions, say.
type Static []kernel.Capability

// Capabilities returns a copy of s.
func (s Static) Capabilities() []kernel.Capability {
	return append([]kernel.Capability(nil), s...)
}

// Close returns nil.
func (Static) Close() error { return nil }
