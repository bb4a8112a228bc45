// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver keeps the binary static
)

const limiterSchema = `
CREATE TABLE IF NOT EXISTS rate_calls (
	principal  TEXT NOT NULL,
	capability TEXT NOT NULL,
	t          INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_calls_key ON rate_calls (principal, capability, t);
CREATE INDEX IF NOT EXISTS rate_calls_t ON rate_calls (t);
CREATE TABLE IF NOT EXISTS rate_counts (
	principal  TEXT NOT NULL,
	capability TEXT NOT NULL,
	n          INTEGER NOT NULL,
	PRIMARY KEY (principal, capability)
);`

// BusyTimeout is how long a decision waits for another process's
// transaction on the same file before it fails (and the call is refused).
const BusyTimeout = 10 * time.Second

// Limiter is a [kernel.Limiter] in a SQLite file: an exact sliding log,
// one row per call inside the window, so that the file grows with the
// calls actually made, never with the configured limit. Any number of
// processes may share the file. It is safe for concurrent use.
type Limiter struct {
	db    *sql.DB
	calls atomic.Int64
	// Prepared once: preparing is a fifth of a decision's cost.
	expire, count, oldest, insert, bump *sql.Stmt
}

const (
	expireSQL = `DELETE FROM rate_calls WHERE principal = ? AND capability = ? AND t <= ?`
	countSQL  = `UPDATE rate_counts SET n = n - ? WHERE principal = ? AND capability = ? RETURNING n`
	oldestSQL = `SELECT min(t) FROM rate_calls WHERE principal = ? AND capability = ?`
	insertSQL = `INSERT INTO rate_calls (principal, capability, t) VALUES (?, ?, ?)`
	bumpSQL   = `INSERT INTO rate_counts (principal, capability, n) VALUES (?, ?, 1)
		ON CONFLICT (principal, capability) DO UPDATE SET n = n + 1`
)

var _ kernel.Limiter = (*Limiter)(nil)

// OpenLimiter opens or creates the limiter's table in the database at
// path, which may be the audit log's file.
func OpenLimiter(ctx context.Context, path string) (*Limiter, error) {
	db, err := audit.OpenDB(ctx, path, limiterSchema)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	l := &Limiter{db: db}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{{&l.expire, expireSQL}, {&l.count, countSQL}, {&l.oldest, oldestSQL}, {&l.insert, insertSQL}, {&l.bump, bumpSQL}} {
		if *p.stmt, err = db.PrepareContext(ctx, p.sql); err != nil {
			db.Close()
			return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
		}
	}
	return l, nil
}

// Close closes the database.
func (l *Limiter) Close() error { return l.db.Close() }

// sweepEvery is how many decisions of this process pass between sweeps
// of every key's expired calls (a key's own are dropped at each of its
// decisions).
const sweepEvery = 1024

// Allow implements [kernel.Limiter]. The window is measured on the
// wall clock, which the processes sharing the file share. A decision
// costs a few index lookups whatever the limit: the calls in a key's
// window are counted in rate_counts as they are added and expire.
func (l *Limiter) Allow(ctx context.Context, principal, capability string, limit int, window time.Duration) (bool, time.Duration, error) {
	if limit < 0 {
		return true, 0, nil
	}
	if limit == 0 {
		return false, window, nil
	}
	ok, retry, err := l.allow(ctx, principal, capability, limit, window)
	if err != nil {
		return false, 0, fmt.Errorf("sqlite: rate limit: %w", err)
	}
	return ok, retry, nil
}

func (l *Limiter) allow(ctx context.Context, principal, capability string, limit int, window time.Duration) (bool, time.Duration, error) {
	now := time.Now().UnixNano()
	since := now - int64(window)
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return false, 0, err
	}
	defer tx.Rollback()
	if l.calls.Add(1)%sweepEvery == 0 {
		if err := sweep(ctx, tx, since); err != nil {
			return false, 0, err
		}
	}
	res, err := tx.StmtContext(ctx, l.expire).ExecContext(ctx, principal, capability, since)
	if err != nil {
		return false, 0, err
	}
	gone, err := res.RowsAffected()
	if err != nil {
		return false, 0, err
	}
	var n int64
	err = tx.StmtContext(ctx, l.count).QueryRowContext(ctx, gone, principal, capability).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, 0, err
	}
	if n >= int64(limit) {
		var oldest int64
		if err := tx.StmtContext(ctx, l.oldest).QueryRowContext(ctx, principal, capability).Scan(&oldest); err != nil {
			return false, 0, err
		}
		// The expired calls' deletion is kept.
		if err := tx.Commit(); err != nil {
			return false, 0, err
		}
		return false, max(time.Duration(oldest+int64(window)-now), 0), nil
	}
	if _, err := tx.StmtContext(ctx, l.insert).ExecContext(ctx, principal, capability, now); err != nil {
		return false, 0, err
	}
	if _, err := tx.StmtContext(ctx, l.bump).ExecContext(ctx, principal, capability); err != nil {
		return false, 0, err
	}
	return true, 0, tx.Commit()
}

// sweep drops every key's calls that left the window, keeping the counts
// exact: it touches only expired rows, through the index on t, so each
// row is swept once.
func sweep(ctx context.Context, tx *sql.Tx, since int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT principal, capability, count(*) FROM rate_calls WHERE t <= ? GROUP BY principal, capability`, since)
	if err != nil {
		return err
	}
	type expired struct {
		principal, capability string
		n                     int64
	}
	var keys []expired
	for rows.Next() {
		var e expired
		if err := rows.Scan(&e.principal, &e.capability, &e.n); err != nil {
			rows.Close()
			return err
		}
		keys = append(keys, e)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, e := range keys {
		if _, err := tx.ExecContext(ctx, `UPDATE rate_counts SET n = n - ? WHERE principal = ? AND capability = ?`, e.n, e.principal, e.capability); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM rate_calls WHERE t <= ?`, since); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM rate_counts WHERE n <= 0`)
	return err
}
