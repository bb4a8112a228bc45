// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

const meterSchema = `
CREATE TABLE IF NOT EXISTS meters (
	k     TEXT PRIMARY KEY,
	total REAL NOT NULL,
	ends  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS meters_ends ON meters (ends);`

// Meter is a [kernel.Meter] in a SQLite file: every process on the file
// draws on the same totals, each Reserve one IMMEDIATE transaction, so
// that concurrent reservations never together pass the limit. It is safe
// for concurrent use.
type Meter struct {
	db *sql.DB
}

var _ kernel.Meter = (*Meter)(nil)

// OpenMeter opens or creates the meters table in the database at path.
func OpenMeter(ctx context.Context, path string) (*Meter, error) {
	db, err := audit.OpenDB(ctx, path, meterSchema)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return &Meter{db: db}, nil
}

// Close closes the database.
func (m *Meter) Close() error { return m.db.Close() }

// Reserve implements [kernel.Meter].
func (m *Meter) Reserve(ctx context.Context, name string, amount, limit float64, period time.Duration) (time.Time, bool, time.Duration, error) {
	now := time.Now()
	start := kernel.Window(now, period)
	var ends int64
	var reset time.Duration
	if period > 0 {
		ends = start.Add(period).UnixNano()
		reset = start.Add(period).Sub(now)
	}
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return start, false, 0, fmt.Errorf("sqlite: meter: %w", err)
	}
	defer tx.Rollback()
	if period > 0 {
		// Windows that ended are of no use to anyone.
		if _, err := tx.ExecContext(ctx, `DELETE FROM meters WHERE ends > 0 AND ends < ?`, now.UnixNano()); err != nil {
			return start, false, 0, fmt.Errorf("sqlite: meter: %w", err)
		}
	}
	k := kernel.WindowKey(name, start)
	var total float64
	err = tx.QueryRowContext(ctx, `SELECT total FROM meters WHERE k = ?`, k).Scan(&total)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return start, false, 0, fmt.Errorf("sqlite: meter: %w", err)
	}
	if total+amount > limit {
		return start, false, reset, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meters (k, total, ends) VALUES (?, ?, ?)
		ON CONFLICT (k) DO UPDATE SET total = total + excluded.total`, k, amount, ends); err != nil {
		return start, false, 0, fmt.Errorf("sqlite: meter: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return start, false, 0, fmt.Errorf("sqlite: meter: %w", err)
	}
	return start, true, 0, nil
}

// Settle implements [kernel.Meter].
func (m *Meter) Settle(ctx context.Context, name string, delta float64, _ time.Duration, start time.Time) error {
	_, err := m.db.ExecContext(ctx, `UPDATE meters SET total = max(total + ?, 0) WHERE k = ?`, delta, kernel.WindowKey(name, start))
	if err != nil {
		return fmt.Errorf("sqlite: meter: %w", err)
	}
	return nil
}

var _ kernel.BatchMeter = (*Meter)(nil)

// ReserveAll implements [kernel.BatchMeter]: one IMMEDIATE transaction
// for every reservation of a request.
func (m *Meter) ReserveAll(ctx context.Context, rs []kernel.Reservation) ([]time.Time, int, time.Duration, error) {
	now := time.Now()
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, -1, 0, fmt.Errorf("sqlite: meter: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM meters WHERE ends > 0 AND ends < ?`, now.UnixNano()); err != nil {
		return nil, -1, 0, fmt.Errorf("sqlite: meter: %w", err)
	}
	starts := make([]time.Time, len(rs))
	keys := make([]string, len(rs))
	for i, r := range rs {
		starts[i] = kernel.Window(now, r.Period)
		keys[i] = kernel.WindowKey(r.Name, starts[i])
		var total float64
		err := tx.QueryRowContext(ctx, `SELECT total FROM meters WHERE k = ?`, keys[i]).Scan(&total)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, -1, 0, fmt.Errorf("sqlite: meter: %w", err)
		}
		if total+r.Amount > r.Limit {
			var reset time.Duration
			if r.Period > 0 {
				reset = starts[i].Add(r.Period).Sub(now)
			}
			return nil, i, reset, nil
		}
	}
	for i, r := range rs {
		var ends int64
		if r.Period > 0 {
			ends = starts[i].Add(r.Period).UnixNano()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meters (k, total, ends) VALUES (?, ?, ?)
			ON CONFLICT (k) DO UPDATE SET total = total + excluded.total`, keys[i], r.Amount, ends); err != nil {
			return nil, -1, 0, fmt.Errorf("sqlite: meter: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, -1, 0, fmt.Errorf("sqlite: meter: %w", err)
	}
	return starts, -1, 0, nil
}

// SettleAll implements [kernel.BatchMeter]: one transaction.
func (m *Meter) SettleAll(ctx context.Context, ss []kernel.Settlement) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: meter: %w", err)
	}
	defer tx.Rollback()
	for _, st := range ss {
		if _, err := tx.ExecContext(ctx, `UPDATE meters SET total = max(total + ?, 0) WHERE k = ?`, st.Delta, kernel.WindowKey(st.Name, st.Start)); err != nil {
			return fmt.Errorf("sqlite: meter: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: meter: %w", err)
	}
	return nil
}
