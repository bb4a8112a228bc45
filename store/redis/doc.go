// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package redis keeps toolgate's rate limits and grant revocations in
// Redis, so that several `toolgate serve` replicas share them: the N+1th
// call in a window is refused whichever replica it lands on, and a grant
// used or revoked on one replica is used or revoked on all.
//
// A rate-limit decision is one server-side script: it drops the calls
// that left the window from the key's sorted set, counts the rest and
// adds the call if there is room, atomically and on the Redis server's
// clock, so replicas whose clocks differ still share one window. Keys
// expire with their window, and a key holds one member per call inside
// it, never one per unit of the limit.
package redis
