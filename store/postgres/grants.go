// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// Revocations is a [kernel.Revocations] in the store's database: revoked
// and used grant ids, each kept until its grant expires, so that a grant
// used on one replica is a replay on every other. It is safe for
// concurrent use.
type Revocations struct {
	s     *Store
	calls atomic.Int64
}

var _ kernel.Revocations = (*Revocations)(nil)

// Revocations returns the revocation store on s's database.
func (s *Store) Revocations() *Revocations { return &Revocations{s: s} }

// sweepEvery is how many additions pass between deletions of the entries
// whose grants have expired.
const sweepEvery = 1024

func (r *Revocations) sweep(ctx context.Context) error {
	if r.calls.Add(1)%sweepEvery != 0 {
		return nil
	}
	now := time.Now().UnixNano()
	for _, table := range []string{"toolgate_grants_revoked", "toolgate_grants_used"} {
		if _, err := r.s.pool.Exec(ctx, `DELETE FROM `+table+` WHERE until < $1`, now); err != nil {
			return err
		}
	}
	return nil
}

// Revoke implements [kernel.Revocations].
func (r *Revocations) Revoke(ctx context.Context, id string, until time.Time) error {
	if _, err := r.s.pool.Exec(ctx, `INSERT INTO toolgate_grants_revoked (id, until) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET until = GREATEST(toolgate_grants_revoked.until, excluded.until)`, id, until.UnixNano()); err != nil {
		return fmt.Errorf("postgres: revoke: %w", err)
	}
	if err := r.sweep(ctx); err != nil {
		return fmt.Errorf("postgres: revoke: %w", err)
	}
	return nil
}

// Revoked implements [kernel.Revocations].
func (r *Revocations) Revoked(ctx context.Context, id string) (bool, error) {
	var revoked bool
	if err := r.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM toolgate_grants_revoked WHERE id = $1)`, id).Scan(&revoked); err != nil {
		return false, fmt.Errorf("postgres: revoked: %w", err)
	}
	return revoked, nil
}

// Use implements [kernel.Revocations]: one INSERT ... ON CONFLICT DO
// NOTHING, so that of replicas redeeming one grant at once exactly one
// inserts the row and sees its first use.
func (r *Revocations) Use(ctx context.Context, id string, until time.Time) (bool, error) {
	tag, err := r.s.pool.Exec(ctx, `INSERT INTO toolgate_grants_used (id, until) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, id, until.UnixNano())
	if err != nil {
		return false, fmt.Errorf("postgres: use: %w", err)
	}
	if err := r.sweep(ctx); err != nil {
		return false, fmt.Errorf("postgres: use: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}
