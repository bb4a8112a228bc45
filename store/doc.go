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
//   - store/postgres: the audit log and grant revocations in
//     PostgreSQL, for replicas.
//   - store/redis: rate limits and grant revocations in Redis, for
//     replicas.
package store
