// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"fmt"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/store/postgres"
	"github.com/toolgate/toolgate/store/sqlite"
)

// KeyStore is the key store of keys.store, holding its database open
// until Close: SQLite's or PostgreSQL's.
type KeyStore interface {
	kernel.KeyStore
	Close() error
}

// SpendStore is the spend store beside the keys, holding its database
// open until Close.
type SpendStore interface {
	kernel.SpendStore
	Close() error
}

// pgKeys and pgSpend close the PostgreSQL store they are on; the keys
// and spend of one Build share one store, closed by both (closing a
// pool twice is harmless).
type pgKeys struct {
	kernel.KeyStore
	st *postgres.Store
}

func (k pgKeys) Close() error { return k.st.Close() }

type pgSpend struct {
	kernel.SpendStore
	st *postgres.Store
}

func (s pgSpend) Close() error { return s.st.Close() }

// keysDSNEnv is the variable holding the connection string of keys.store
// postgres: keys.dsn_env, else the audit log's.
func (f *File) keysDSNEnv() (key, env string) {
	if f.Keys.DSNEnv != "" {
		return "keys.dsn_env", f.Keys.DSNEnv
	}
	return "keys.store", f.Audit.DSNEnv // empty: DefaultAuditDSNEnv
}

// openKeysPG opens the PostgreSQL database of keys.store postgres.
func (f *File) openKeysPG(ctx context.Context, getenv func(string) string) (*postgres.Store, error) {
	key, env := f.keysDSNEnv()
	return f.openPostgres(ctx, key, env, getenv) // its errors name key
}

// OpenKeys opens the key store of keys.store: with postgres, the
// database in the variable keys.dsn_env names (else audit.dsn_env's,
// else [DefaultAuditDSNEnv]), read through getenv; else the SQLite file
// keys.db, else auditDB (pass the audit log's file in use, or "" for the
// file's audit.db). Nil, with no error, for store none or no file.
func (f *File) OpenKeys(ctx context.Context, auditDB string, getenv func(string) string) (KeyStore, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if f.Keys.Store == AuditPostgres {
		pg, err := f.openKeysPG(ctx, getenv)
		if err != nil {
			return nil, err
		}
		return pgKeys{pg.Keys(), pg}, nil
	}
	if auditDB == "" && f.Audit.Store != AuditPostgres {
		auditDB = f.Audit.DB
	}
	k, err := f.openKeys(ctx, auditDB)
	if err != nil || k == nil {
		return nil, err // a nil *sqlite.Keys is no store, not a nil one
	}
	return k, nil
}

// OpenSpend opens the spend store: the keys' database (see
// [File.OpenKeys]). Nil, with no error, when there is none.
func (f *File) OpenSpend(ctx context.Context, auditDB string, getenv func(string) string) (SpendStore, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if f.Keys.Store == AuditPostgres {
		pg, err := f.openKeysPG(ctx, getenv)
		if err != nil {
			return nil, err
		}
		return pgSpend{pg.Spend(), pg}, nil
	}
	if auditDB == "" && f.Audit.Store != AuditPostgres {
		auditDB = f.Audit.DB
	}
	path := f.keysPath(auditDB)
	if path == "" {
		return nil, nil
	}
	s, err := sqlite.OpenSpend(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("spend: %w", err)
	}
	return s, nil
}

// keysPath is the SQLite file of keys and spend; "" for none.
func (f *File) keysPath(auditDB string) string {
	if f.Keys.Store == "none" || f.Keys.Store == AuditPostgres {
		return ""
	}
	if f.Keys.DB != "" {
		return f.Keys.DB
	}
	return auditDB
}

func (f *File) openKeys(ctx context.Context, auditDB string) (*sqlite.Keys, error) {
	path := f.keysPath(auditDB)
	if path == "" {
		return nil, nil
	}
	k, err := sqlite.OpenKeys(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return k, nil
}

// buildKeys opens the keys of keys.store and, with providers, the spend
// beside them and the meter of keys' tokens and budgets when the limits
// store gave none: PostgreSQL's with keys in PostgreSQL (unless limits
// are in Redis, whose meter b already has), else the keys' SQLite file,
// so that a budget outlives a restart.
func (f *File) buildKeys(ctx context.Context, b *Built, auditDB string, getenv func(string) string) error {
	if f.Keys.Store == AuditPostgres {
		pg, err := f.openKeysPG(ctx, getenv)
		if err != nil {
			return err
		}
		b.Keys = pgKeys{pg.Keys(), pg}
		if len(f.Providers) > 0 {
			b.Spend = pgSpend{pg.Spend(), pg}
			if f.Limits.Store != StoreRedis {
				b.meter = pg.Meter()
			}
		}
		return nil
	}
	k, err := f.openKeys(ctx, auditDB)
	if err != nil || k == nil {
		return err
	}
	b.Keys = k
	if len(f.Providers) == 0 {
		return nil
	}
	path := f.keysPath(auditDB)
	sp, err := sqlite.OpenSpend(ctx, path)
	if err != nil {
		return fmt.Errorf("spend: %w", err)
	}
	b.Spend = sp
	if b.meter == nil {
		// Limits in memory: keys' budgets still outlive the process,
		// in the keys' file.
		if b.sqlMeter, err = sqlite.OpenMeter(ctx, path); err != nil {
			return fmt.Errorf("keys: %w", err)
		}
		b.meter = b.sqlMeter
	}
	return nil
}
