// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/toolgate/toolgate/kernel"
)

// keysMigration creates the tables of keys, spend and meters, and the
// two functions that reserve and settle a request's meters in one round
// trip each. A key's fields other than its id, hash and revocation are
// one JSON document, so that adding a limit needs no migration.
//
// Each statement may run again (a database whose recorded version was
// set back) without error.
//
// The functions lock a request's meter rows in key order, so that
// requests sharing meters (a key's and its principal's) wait for each
// other instead of deadlocking.
const keysMigration = `CREATE TABLE IF NOT EXISTS toolgate_keys (
		n       BIGINT GENERATED ALWAYS AS IDENTITY,
		id      TEXT PRIMARY KEY,
		hash    BYTEA NOT NULL UNIQUE,
		body    TEXT NOT NULL,
		revoked BIGINT NOT NULL DEFAULT 0
	);
	CREATE TABLE IF NOT EXISTS toolgate_spend (
		day         BIGINT NOT NULL,
		key_id      TEXT NOT NULL,
		principal   TEXT NOT NULL,
		model       TEXT NOT NULL,
		provider    TEXT NOT NULL,
		requests    BIGINT NOT NULL,
		input       BIGINT NOT NULL,
		cached      BIGINT NOT NULL,
		cache_write BIGINT NOT NULL,
		output      BIGINT NOT NULL,
		reasoning   BIGINT NOT NULL,
		cost_usd    DOUBLE PRECISION NOT NULL,
		unpriced    BIGINT NOT NULL,
		PRIMARY KEY (day, key_id, principal, model, provider)
	);
	CREATE TABLE IF NOT EXISTS toolgate_meters (
		k     TEXT PRIMARY KEY,
		total DOUBLE PRECISION NOT NULL,
		ends  BIGINT NOT NULL
	);
	CREATE INDEX IF NOT EXISTS toolgate_meters_ends ON toolgate_meters (ends);
	CREATE OR REPLACE FUNCTION toolgate_meter_reserve(ks TEXT[], amounts DOUBLE PRECISION[], limits DOUBLE PRECISION[], ends BIGINT[])
	RETURNS INTEGER LANGUAGE plpgsql AS $$
	DECLARE
		cur DOUBLE PRECISION;
	BEGIN
		INSERT INTO toolgate_meters (k, total, ends)
			SELECT u.k, 0, u.e FROM unnest(ks, ends) AS u(k, e) ORDER BY u.k
			ON CONFLICT (k) DO NOTHING;
		PERFORM 1 FROM toolgate_meters WHERE k = ANY (ks) ORDER BY k FOR UPDATE;
		FOR i IN 1 .. cardinality(ks) LOOP
			SELECT total INTO cur FROM toolgate_meters WHERE k = ks[i];
			IF cur + amounts[i] > limits[i] THEN
				RETURN i - 1;
			END IF;
		END LOOP;
		UPDATE toolgate_meters m SET total = m.total + u.a
			FROM unnest(ks, amounts) AS u(k, a) WHERE m.k = u.k;
		RETURN -1;
	END $$;
	CREATE OR REPLACE FUNCTION toolgate_meter_settle(ks TEXT[], deltas DOUBLE PRECISION[])
	RETURNS VOID LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM 1 FROM toolgate_meters WHERE k = ANY (ks) ORDER BY k FOR UPDATE;
		UPDATE toolgate_meters m SET total = GREATEST(m.total + u.d, 0)
			FROM unnest(ks, deltas) AS u(k, d) WHERE m.k = u.k;
	END $$;`

// Keys is a [kernel.KeyStore] in the store's database: every replica
// sees a key made or revoked by another at its next lookup. It is safe
// for concurrent use.
type Keys struct{ s *Store }

var _ kernel.KeyStore = (*Keys)(nil)

// Keys returns the key store on s's database.
func (s *Store) Keys() *Keys { return &Keys{s: s} }

// CreateKey implements [kernel.KeyStore].
func (k *Keys) CreateKey(ctx context.Context, key *kernel.Key) error {
	body, err := json.Marshal(key)
	if err != nil {
		return fmt.Errorf("postgres: key: %w", err)
	}
	_, err = k.s.pool.Exec(ctx, `INSERT INTO toolgate_keys (id, hash, body, revoked) VALUES ($1, $2, $3, $4)`,
		key.ID, key.Hash[:], string(body), unixNano(key.Revoked))
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == "23505" { // unique_violation
		return kernel.ErrKeyExists
	}
	if err != nil {
		return fmt.Errorf("postgres: create key: %w", err)
	}
	return nil
}

// KeyByHash implements [kernel.KeyStore].
func (k *Keys) KeyByHash(ctx context.Context, h [sha256.Size]byte) (*kernel.Key, error) {
	return k.one(ctx, `SELECT hash, body, revoked FROM toolgate_keys WHERE hash = $1`, h[:])
}

// KeyByID implements [kernel.KeyStore].
func (k *Keys) KeyByID(ctx context.Context, id string) (*kernel.Key, error) {
	return k.one(ctx, `SELECT hash, body, revoked FROM toolgate_keys WHERE id = $1`, id)
}

func (k *Keys) one(ctx context.Context, q string, arg any) (*kernel.Key, error) {
	key, err := scanKey(k.s.pool.QueryRow(ctx, q, arg).Scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, kernel.ErrNoKey
	}
	return key, err
}

// Keys implements [kernel.KeyStore]: in the order they were made.
func (k *Keys) Keys(ctx context.Context) ([]kernel.Key, error) {
	rows, err := k.s.pool.Query(ctx, `SELECT hash, body, revoked FROM toolgate_keys ORDER BY n`)
	if err != nil {
		return nil, fmt.Errorf("postgres: keys: %w", err)
	}
	defer rows.Close()
	var out []kernel.Key
	for rows.Next() {
		key, err := scanKey(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, *key)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: keys: %w", err)
	}
	return out, nil
}

// RevokeKey implements [kernel.KeyStore].
func (k *Keys) RevokeKey(ctx context.Context, id string, at time.Time) error {
	tag, err := k.s.pool.Exec(ctx, `UPDATE toolgate_keys SET revoked = CASE WHEN revoked = 0 THEN $1 ELSE revoked END WHERE id = $2`, at.UnixNano(), id)
	if err != nil {
		return fmt.Errorf("postgres: revoke key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return kernel.ErrNoKey
	}
	return nil
}

func scanKey(scan func(...any) error) (*kernel.Key, error) {
	var hash []byte
	var body *string
	var revoked *int64
	if err := scan(&hash, &body, &revoked); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("postgres: key: %w", err)
	}
	var k kernel.Key
	if body == nil || revoked == nil || len(hash) != sha256.Size || json.Unmarshal([]byte(*body), &k) != nil {
		// The row is not echoed: its body could hold an operator's
		// metadata.
		return nil, errors.New("postgres: a key row is damaged")
	}
	copy(k.Hash[:], hash)
	k.Revoked = time.Time{}
	if *revoked != 0 {
		k.Revoked = time.Unix(0, *revoked).UTC()
	}
	return &k, nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
