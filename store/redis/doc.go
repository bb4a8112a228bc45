// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package redis keeps toolgate's rate limits, the meters of keys' tokens
// and budgets, and grant revocations in Redis, so that several `toolgate serve` replicas share them: the N+1th
// call in a window is refused whichever replica it lands on, and a grant
// used or revoked on one replica is used or revoked on all.
//
//	c, err := redis.Open(ctx, os.Getenv("TOOLGATE_REDIS_URL"))
//	grants, err := kernel.NewGrants(&kernel.GrantConfig{Key: key, Revocations: c.Revocations()})
//	k, err := kernel.New(&kernel.Config{Limiter: c.Limiter(), Grants: grants})
//
// # Rate limits
//
// A decision is one server-side script: it drops the calls that left the
// window from the key's sorted set, counts the rest and adds the call if
// there is room, atomically and on the Redis server's clock, so replicas
// whose clocks differ still share one window. Keys expire with their
// window, and a key holds one member per call inside it, never one per
// unit of the limit. An unreachable server is an error, and the kernel
// refuses the call.
//
// # Tokens and budgets
//
// [Meter] counts the gateway's keys' tokens per minute and budgets: one
// key per name and window. A request's reservations are one script over
// all its counters, which checks every limit before it adds to any (all
// or none), and its settlements another: one round trip each, whichever
// replica the request lands on.
//
// # Grants
//
// Revoked and used grant ids are keys that expire with their grant; a
// first use is SET NX, so of replicas redeeming one grant at once exactly
// one succeeds.
package redis
