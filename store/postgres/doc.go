// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package postgres keeps toolgate's audit log, grant revocations, keys
// made at run time, their spend and the meters of their tokens and
// budgets in PostgreSQL, so that several `toolgate serve` replicas, on
// one machine or many, append to one hash chain and share one grant
// ledger and one set of keys.
//
//	st, err := postgres.Open(ctx, os.Getenv("TOOLGATE_AUDIT_DSN"))
//	log, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
//
// # One chain
//
// Every batch is one transaction that locks the chain's head row (SELECT
// ... FOR UPDATE) before it reads it, so replicas take turns and the
// records are numbered 1..N without gaps or forks.
//
// # Keys, spend and meters
//
// [Store.Keys] is a [kernel.KeyStore]: a key made or revoked through one
// replica is seen by every other at its next lookup. [Store.Spend] adds
// each replica's sums with one upsert, so that they add up. [Store.Meter]
// is a [kernel.BatchMeter]: a request's reservations are one call of a
// function on the server, which locks the request's rows in key order,
// checks every limit and adds every amount or none; its settlements are
// another.
//
// # Migrations
//
// The schema is created, or brought up to date, when the store opens,
// under an advisory lock so that replicas starting together apply each
// migration once.
package postgres
