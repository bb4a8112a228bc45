// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

const spendSchema = `
CREATE TABLE IF NOT EXISTS spend (
	day         INTEGER NOT NULL,
	key_id      TEXT NOT NULL,
	principal   TEXT NOT NULL,
	model       TEXT NOT NULL,
	provider    TEXT NOT NULL,
	requests    INTEGER NOT NULL,
	input       INTEGER NOT NULL,
	cached      INTEGER NOT NULL,
	cache_write INTEGER NOT NULL,
	output      INTEGER NOT NULL,
	reasoning   INTEGER NOT NULL,
	cost_usd    REAL NOT NULL,
	unpriced    INTEGER NOT NULL,
	PRIMARY KEY (day, key_id, principal, model, provider)
);`

// SpendStore is a [kernel.SpendStore] in a SQLite file, usually the
// audit log's: one row per day, key, principal, model and provider,
// added to by every process. It is safe for concurrent use.
type SpendStore struct {
	db *sql.DB
}

var _ kernel.SpendStore = (*SpendStore)(nil)

// OpenSpend opens or creates the spend table in the database at path.
func OpenSpend(ctx context.Context, path string) (*SpendStore, error) {
	db, err := audit.OpenDB(ctx, path, spendSchema)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return &SpendStore{db: db}, nil
}

// Close closes the database.
func (s *SpendStore) Close() error { return s.db.Close() }

// AddSpend implements [kernel.SpendStore].
func (s *SpendStore) AddSpend(ctx context.Context, rows []kernel.Spend) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: spend: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO spend (day, key_id, principal, model, provider, requests, input, cached, cache_write, output, reasoning, cost_usd, unpriced)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (day, key_id, principal, model, provider) DO UPDATE SET
		requests = requests + excluded.requests, input = input + excluded.input, cached = cached + excluded.cached,
		cache_write = cache_write + excluded.cache_write, output = output + excluded.output, reasoning = reasoning + excluded.reasoning,
		cost_usd = cost_usd + excluded.cost_usd, unpriced = unpriced + excluded.unpriced`)
	if err != nil {
		return fmt.Errorf("sqlite: spend: %w", err)
	}
	defer stmt.Close()
	for _, r := range rows {
		if _, err := stmt.ExecContext(ctx, r.Day.UTC().Truncate(24*time.Hour).Unix(), r.KeyID, r.Principal, r.Model, r.Provider, r.Requests,
			r.InputTokens, r.CachedTokens, r.CacheWriteTokens, r.OutputTokens, r.ReasoningTokens, r.CostUSD, r.Unpriced); err != nil {
			return fmt.Errorf("sqlite: spend: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: spend: %w", err)
	}
	return nil
}

// Spend implements [kernel.SpendStore].
func (s *SpendStore) Spend(ctx context.Context, since time.Time) ([]kernel.Spend, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT day, key_id, principal, model, provider, requests, input, cached, cache_write, output, reasoning, cost_usd, unpriced
		FROM spend WHERE day >= ? ORDER BY day, key_id, principal, model, provider`, since.UTC().Truncate(24*time.Hour).Unix())
	if err != nil {
		return nil, fmt.Errorf("sqlite: spend: %w", err)
	}
	defer rows.Close()
	var out []kernel.Spend
	for rows.Next() {
		var r kernel.Spend
		var day int64
		if err := rows.Scan(&day, &r.KeyID, &r.Principal, &r.Model, &r.Provider, &r.Requests, &r.InputTokens, &r.CachedTokens,
			&r.CacheWriteTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CostUSD, &r.Unpriced); err != nil {
			return nil, fmt.Errorf("sqlite: spend: %w", err)
		}
		r.Day = time.Unix(day, 0).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: spend: %w", err)
	}
	return out, nil
}
