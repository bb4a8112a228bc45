// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

// A key's fields other than its id, hash and revocation are one JSON
// document, so that adding a limit needs no migration.
const keysSchema = `
CREATE TABLE IF NOT EXISTS api_keys (
	id      TEXT PRIMARY KEY,
	hash    BLOB NOT NULL UNIQUE,
	body    TEXT NOT NULL,
	revoked INTEGER NOT NULL DEFAULT 0
);`

// Keys is a [kernel.KeyStore] in a SQLite file, usually the audit log's:
// every process on the machine sees a key made or revoked by another.
// It is safe for concurrent use.
type Keys struct {
	db *sql.DB
}

var _ kernel.KeyStore = (*Keys)(nil)

// OpenKeys opens or creates the keys table in the database at path.
func OpenKeys(ctx context.Context, path string) (*Keys, error) {
	db, err := audit.OpenDB(ctx, path, keysSchema)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return &Keys{db: db}, nil
}

// Close closes the database.
func (s *Keys) Close() error { return s.db.Close() }

// CreateKey implements [kernel.KeyStore].
func (s *Keys) CreateKey(ctx context.Context, k *kernel.Key) error {
	body, err := json.Marshal(k)
	if err != nil {
		return fmt.Errorf("sqlite: key: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO api_keys (id, hash, body, revoked) VALUES (?, ?, ?, ?)`, k.ID, k.Hash[:], string(body), unixNano(k.Revoked))
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return kernel.ErrKeyExists
	}
	if err != nil {
		return fmt.Errorf("sqlite: create key: %w", err)
	}
	return nil
}

// KeyByHash implements [kernel.KeyStore].
func (s *Keys) KeyByHash(ctx context.Context, h [sha256.Size]byte) (*kernel.Key, error) {
	return s.one(ctx, `SELECT hash, body, revoked FROM api_keys WHERE hash = ?`, h[:])
}

// KeyByID implements [kernel.KeyStore].
func (s *Keys) KeyByID(ctx context.Context, id string) (*kernel.Key, error) {
	return s.one(ctx, `SELECT hash, body, revoked FROM api_keys WHERE id = ?`, id)
}

func (s *Keys) one(ctx context.Context, q string, arg any) (*kernel.Key, error) {
	row := s.db.QueryRowContext(ctx, q, arg)
	k, err := scanKey(row.Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kernel.ErrNoKey
	}
	return k, err
}

// Keys implements [kernel.KeyStore].
func (s *Keys) Keys(ctx context.Context) ([]kernel.Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT hash, body, revoked FROM api_keys ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	defer rows.Close()
	var out []kernel.Key
	for rows.Next() {
		k, err := scanKey(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, *k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	return out, nil
}

// RevokeKey implements [kernel.KeyStore].
func (s *Keys) RevokeKey(ctx context.Context, id string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE api_keys SET revoked = CASE WHEN revoked = 0 THEN ? ELSE revoked END WHERE id = ?`, at.UnixNano(), id)
	if err != nil {
		return fmt.Errorf("sqlite: revoke key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return kernel.ErrNoKey
	}
	return nil
}

func scanKey(scan func(...any) error) (*kernel.Key, error) {
	var hash []byte
	var body string
	var revoked int64
	if err := scan(&hash, &body, &revoked); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("sqlite: key: %w", err)
	}
	var k kernel.Key
	if err := json.Unmarshal([]byte(body), &k); err != nil || len(hash) != sha256.Size {
		return nil, fmt.Errorf("sqlite: a key row is damaged")
	}
	copy(k.Hash[:], hash)
	k.Revoked = time.Time{}
	if revoked != 0 {
		k.Revoked = time.Unix(0, revoked).UTC()
	}
	return &k, nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
