// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package sqlite keeps toolgate's rate limits in a SQLite file, so that
// limits hold across processes on one machine — every `toolgate call`
// process, or a `serve` beside them. Each decision is one IMMEDIATE
// transaction: the processes take turns on SQLite's write lock, and the
// N+1th call in a window is refused whichever process makes it.
package sqlite
