// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package postgres keeps toolgate's audit log and grant revocations in
// PostgreSQL, so that several `toolgate serve` replicas, on one machine
// or many, append to one hash chain and share one grant ledger.
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
// # Migrations
//
// The schema is created, or brought up to date, when the store opens,
// under an advisory lock so that replicas starting together apply each
// migration once.
package postgres
