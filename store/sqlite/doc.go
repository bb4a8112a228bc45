// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package sqlite keeps toolgate's rate limits in a SQLite file, so that
// limits hold across processes on one machine — every `toolgate call`
// process, or a `serve` beside them.
//
//	l, err := sqlite.OpenLimiter(ctx, "toolgate-audit.db")
//	k, err := kernel.New(&kernel.Config{Limiter: l})
//
// # Several processes
//
// Each decision is one IMMEDIATE transaction: the processes take turns on
// SQLite's write lock (waiting up to [BusyTimeout]), and the N+1th call
// in a window is refused whichever process makes it.
//
// # Size
//
// The file holds one row per call inside the window and a count per
// principal and tool, so that it grows with the calls made, never with
// the configured limit, and a decision costs a few index lookups.
package sqlite
