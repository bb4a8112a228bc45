// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package store is the root of toolgate's shared-state backends: the
// stores behind the kernel's interfaces for rate limits
// ([kernel.Limiter]), grant revocations ([kernel.Revocations]) and the
// audit log ([kernel.AuditStore]) that several processes or replicas
// share. Each backend is a sub-package; this package holds no code.
//
//   - store/sqlite: rate limits in a SQLite file that every process on a
//     machine opens (the audit log's SQLite store is kernel/audit).
//   - store/postgres: the audit log, grant revocations, and the keys
//     made at run time with their spend and meters in PostgreSQL, for
//     replicas.
//   - store/redis: rate limits, the meters of keys' tokens and budgets,
//     and grant revocations in Redis, for replicas.
package store
