// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package audit stores the kernel's hash-chained audit log in a SQLite
// file, through the pure-Go modernc.org/sqlite driver so that the toolgate
// binary stays static.
//
// # Layout
//
// Table audit holds one row per record, in append order (rowid), with the
// record's sequence number, its redacted arguments and result, the hash of
// the record before and its own hash. Table audit_head holds the sequence
// number and hash of the last record appended, written in the same
// transaction, so that cutting records off the end is detected. The
// kernel's [kernel.AuditLog] batches records into one multi-row INSERT
// transaction per batch. Columns kind, parent and grant_id, added later,
// are added to older databases when they are opened.
//
// # Durability
//
// A call's intent is committed before its tool runs and its outcome
// before its result is returned ([kernel.AuditLog.Commit]). [Open]
// (audit.sync normal) commits a record by appending it to a journal of
// the process beside the database, <db>.journal.<pid>-<random>.<n>, with
// one write(2) and no fsync, which survives a crash of the process; the
// log moves journaled records into the database in batches — a call
// whose intent and outcome are in one batch as one record
// ([kernel.CallMerger]) — and table audit_journal records, in the same
// transaction, how far each journal is in. Each journal is held under flock(2) by its process; the next
// [kernel.AuditLog] opened on the database ([Store.Recover]) replays the
// journals whose locks are free — their processes stopped — and removes
// them. [Store.Pending] reads what the journals hold beyond the database,
// for `audit verify` and `audit list`. [OpenSync] with [kernel.SyncFull]
// keeps no journal: every commit is a transaction that syncs the WAL,
// which survives a power loss too.
//
// A journal is a sequence of frames: a little-endian uint32 length, the
// CRC-32C of the payload, the payload (the record's number in the
// journal, its time, its fields length-prefixed; empty for padding). A
// frame cut short or damaged ends what is read of a journal and is
// reported, not failed: the writer never appends after one.
//
// # Example
//
//	st, err := audit.Open(ctx, "toolgate-audit.db")
//	log, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
//	k, err := kernel.New(&kernel.Config{Audit: log})
//	// ... calls ...
//	log.Close(ctx)
//	rep, err := kernel.VerifyChain(ctx, st, nil)
//	fmt.Println(rep) // audit log intact: 1234 records, head 1234
package audit
