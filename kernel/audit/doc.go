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
// transaction per batch. Columns kind and parent, added later, are added
// to older databases when they are opened.
//
// # Durability
//
// A call's intent is committed before its tool runs and its outcome
// before its result is returned ([kernel.AuditLog.Commit]). [Open] commits
// with WAL and synchronous=NORMAL, which survives a crash of the process;
// [OpenSync] with [kernel.SyncFull] syncs the WAL at every commit, which
// survives a power loss too.
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
