// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

// migrations bring the schema up to date, in order; the number of the
// last one applied is kept in toolgate_schema. Each runs in the
// transaction that records it, under an advisory lock, so replicas
// starting together apply each once.
var migrations = []string{
	`CREATE TABLE toolgate_audit (
		id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		seq           BIGINT NOT NULL,
		time          BIGINT NOT NULL,
		principal     TEXT NOT NULL,
		tool          TEXT NOT NULL,
		call_id       TEXT NOT NULL,
		status        TEXT NOT NULL,
		effect        TEXT NOT NULL,
		rule          TEXT NOT NULL,
		code          TEXT NOT NULL,
		reason        TEXT NOT NULL,
		justification TEXT NOT NULL,
		args          BYTEA,
		result        TEXT NOT NULL,
		is_error      BOOLEAN NOT NULL,
		prev          BYTEA NOT NULL,
		hash          BYTEA NOT NULL
	);
	CREATE INDEX toolgate_audit_principal ON toolgate_audit (principal, id);
	CREATE INDEX toolgate_audit_tool ON toolgate_audit (tool, id);
	CREATE TABLE toolgate_audit_head (
		k    INTEGER PRIMARY KEY CHECK (k = 1),
		seq  BIGINT NOT NULL,
		hash BYTEA NOT NULL
	);
	INSERT INTO toolgate_audit_head (k, seq, hash) VALUES (1, 0, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea);`,
	`CREATE TABLE toolgate_grants_revoked (
		id    TEXT PRIMARY KEY,
		until BIGINT NOT NULL
	);
	CREATE INDEX toolgate_grants_revoked_until ON toolgate_grants_revoked (until);
	CREATE TABLE toolgate_grants_used (
		id    TEXT PRIMARY KEY,
		until BIGINT NOT NULL
	);
	CREATE INDEX toolgate_grants_used_until ON toolgate_grants_used (until);`,
	// A record's kind and parent (the model request a call belongs
	// under).
	`ALTER TABLE toolgate_audit ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT '';
	ALTER TABLE toolgate_audit ADD COLUMN IF NOT EXISTS parent TEXT NOT NULL DEFAULT '';`,
	// Keys made at run time, spend, and the meters of keys' tokens per
	// minute and budgets (keys.go, spend.go, meter.go).
	keysMigration,
	// The id of the grant a call ran under (intents; calls whose intent
	// and outcome were written as one).
	`ALTER TABLE toolgate_audit ADD COLUMN IF NOT EXISTS grant_id TEXT NOT NULL DEFAULT '';`,
}

// migrationLock is the advisory lock key migrations run under.
const migrationLock = 0x746f6f6c67617465 // "toolgate"

// Store is a [kernel.SharedAuditStore] in a PostgreSQL database. It is
// safe for concurrent use, and any number of processes may share the
// database.
type Store struct {
	pool *pgxpool.Pool // fixed at creation

	full atomic.Bool // synchronous_commit on for audit appends; see SetSync
}

var _ kernel.SharedAuditStore = (*Store)(nil)

// Open connects to the database at dsn (a postgres:// URL or key=value
// string) and applies the migrations it lacks.
func Open(ctx context.Context, dsn string) (*Store, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: migrating: %w", err)
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS toolgate_schema (version INTEGER NOT NULL)`); err != nil {
			return err
		}
		var v int
		err := tx.QueryRow(ctx, `SELECT version FROM toolgate_schema`).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			if _, err := tx.Exec(ctx, `INSERT INTO toolgate_schema (version) VALUES (0)`); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		if v > len(migrations) {
			return fmt.Errorf("the database's schema is version %d; this toolgate knows up to %d", v, len(migrations))
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
		}
		_, err = tx.Exec(ctx, `UPDATE toolgate_schema SET version = $1`, len(migrations))
		return err
	})
}

// Close closes the connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// SetSync sets how durable an audit append is when it returns:
// [kernel.SyncNormal] (the default) commits with the server's own
// synchronous_commit, which is on unless the server was configured
// otherwise: the record is then safe from a crash of toolgate and of the
// server. (Turning it off would save the server's WAL flush but lose the
// last commits when the server crashes, which a crash of PostgreSQL
// alone should not do to acknowledged calls.) [kernel.SyncFull] sets
// synchronous_commit on for the audit log's transactions whatever the
// server's default, waiting for its WAL flush and for its synchronous
// standbys, if configured. Set it before the store is used.
func (s *Store) SetSync(mode kernel.AuditSync) error {
	switch mode {
	case "", kernel.SyncNormal:
		s.full.Store(false)
	case kernel.SyncFull:
		s.full.Store(true)
	default:
		return fmt.Errorf("postgres: sync mode %q is not normal or full", mode)
	}
	return nil
}

// Pool returns the connection pool, for tests and tools that inspect the
// database.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Append implements [kernel.AuditStore]: the records must continue the
// chain as it is in the database, else nothing is written and the error
// is [audit.ErrStaleHead].
func (s *Store) Append(ctx context.Context, recs []kernel.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return s.appendTx(ctx, recs, func(seq int64, head kernel.Hash) error {
		if recs[0].Seq != seq+1 || recs[0].Prev != head {
			return fmt.Errorf("%w: record %d follows record %d", audit.ErrStaleHead, recs[0].Seq, seq)
		}
		return nil
	})
}

// AppendChained implements [kernel.SharedAuditStore]: the head row is
// locked FOR UPDATE and read inside the transaction.
func (s *Store) AppendChained(ctx context.Context, recs []kernel.AuditRecord, chain func(headSeq int64, head kernel.Hash)) error {
	if len(recs) == 0 {
		return nil
	}
	return s.appendTx(ctx, recs, func(seq int64, head kernel.Hash) error {
		chain(seq, head)
		return nil
	})
}

var columns = []string{"seq", "time", "principal", "tool", "call_id", "status", "effect", "rule", "code", "reason", "justification", "args", "result", "is_error", "prev", "hash", "kind", "parent", "grant_id"}

// appendTimeout bounds one append transaction: the audit log's callers
// wait for it, so a server that stops answering is a failed write, not a
// hang.
const appendTimeout = 30 * time.Second

func (s *Store) appendTx(ctx context.Context, recs []kernel.AuditRecord, prepare func(seq int64, head kernel.Hash) error) error {
	ctx, cancel := context.WithTimeout(ctx, appendTimeout)
	defer cancel()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// With full, synchronous_commit is set for this transaction in
		// the same round trip that locks the head.
		sync := "keep"
		if s.full.Load() {
			sync = "on"
		}
		seq, head, err := readHead(ctx, tx, sync)
		if err != nil {
			return err
		}
		if err := prepare(seq, head); err != nil {
			return err
		}
		rows := make([][]any, len(recs))
		for i := range recs {
			r := &recs[i]
			var args []byte
			if r.Args != nil {
				args = []byte(r.Args)
			}
			rows[i] = []any{r.Seq, r.Time.UnixNano(), r.Principal, r.Tool, r.CallID, string(r.Status), string(r.Effect),
				r.Rule, string(r.Code), r.Reason, r.Justification, args, r.Result, r.IsError, r.Prev[:], r.Hash[:], string(r.Kind), r.Parent, r.Grant}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"toolgate_audit"}, columns, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		last := &recs[len(recs)-1]
		_, err = tx.Exec(ctx, `UPDATE toolgate_audit_head SET seq = $1, hash = $2 WHERE k = 1`, last.Seq, last.Hash[:])
		return err
	})
}

// readHead reads the head; with sync set (inside a transaction), it
// locks the row, and unless sync is "keep" sets synchronous_commit to it
// for the transaction.
func readHead(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, sync string) (int64, kernel.Hash, error) {
	var out kernel.Hash
	var seq *int64
	var h []byte
	var err error
	switch sync {
	case "":
		err = q.QueryRow(ctx, `SELECT seq, hash FROM toolgate_audit_head WHERE k = 1`).Scan(&seq, &h)
	case "keep":
		err = q.QueryRow(ctx, `SELECT seq, hash FROM toolgate_audit_head WHERE k = 1 FOR UPDATE`).Scan(&seq, &h)
	default:
		var set string
		err = q.QueryRow(ctx, `SELECT set_config('synchronous_commit', $1, true), seq, hash FROM toolgate_audit_head WHERE k = 1 FOR UPDATE`, sync).Scan(&set, &seq, &h)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, out, &kernel.RecordError{Head: true, Detail: "the head row is missing"}
	}
	if err != nil {
		return 0, out, err
	}
	if seq == nil || *seq < 0 {
		return 0, out, &kernel.RecordError{Head: true, Detail: "column seq is NULL or negative"}
	}
	if len(h) != len(out) {
		return 0, out, &kernel.RecordError{Head: true, Detail: fmt.Sprintf("column hash is NULL or %d bytes, not %d", len(h), len(out))}
	}
	copy(out[:], h)
	return *seq, out, nil
}

// Head implements [kernel.AuditStore].
func (s *Store) Head(ctx context.Context) (int64, kernel.Hash, error) {
	return readHead(ctx, s.pool, "")
}

// Scan implements [kernel.AuditStore], in insertion order.
func (s *Store) Scan(ctx context.Context, fn func(*kernel.AuditRecord) error) error {
	return s.List(ctx, audit.Filter{}, fn)
}

// List calls fn for the records matching f, in log order, as
// [audit.Store.List] does.
func (s *Store) List(ctx context.Context, f audit.Filter, fn func(*kernel.AuditRecord) error) error {
	q := `SELECT ` + columnList + ` FROM toolgate_audit WHERE true`
	var args []any
	if f.Principal != "" {
		args = append(args, f.Principal)
		q += fmt.Sprintf(` AND principal = $%d`, len(args))
	}
	if f.Tool != "" {
		args = append(args, f.Tool)
		q += fmt.Sprintf(` AND tool = $%d`, len(args))
	}
	if f.Kind != "" {
		args = append(args, string(f.StoredKind()))
		q += fmt.Sprintf(` AND kind = $%d`, len(args))
	}
	if !f.Since.IsZero() {
		args = append(args, f.Since.UnixNano())
		q += fmt.Sprintf(` AND time >= $%d`, len(args))
	}
	q += ` ORDER BY id`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q = fmt.Sprintf(`SELECT * FROM (%s DESC LIMIT $%d) AS newest ORDER BY seq`, q, len(args))
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		r                                             kernel.AuditRecord
		seq, nanos                                    *int64
		isErr                                         *bool
		principal, tool, callID, status, effect, rule *string
		code, reason, just, result, kind, parent      *string
		grant                                         *string
		argBytes, prev, hash                          []byte
		last                                          int64
	)
	for rows.Next() {
		if err := rows.Scan(&seq, &nanos, &principal, &tool, &callID, &status, &effect, &rule, &code, &reason,
			&just, &argBytes, &result, &isErr, &prev, &hash, &kind, &parent, &grant); err != nil {
			return &kernel.RecordError{Seq: last + 1, Detail: err.Error()}
		}
		if seq == nil {
			return &kernel.RecordError{Seq: last + 1, Detail: fmt.Sprintf("column seq is NULL (the record after %d)", last)}
		}
		r.Seq, last = *seq, *seq
		for _, c := range [...]struct {
			name string
			null bool
		}{{"time", nanos == nil}, {"is_error", isErr == nil}, {"principal", principal == nil}, {"tool", tool == nil},
			{"call_id", callID == nil}, {"status", status == nil}, {"effect", effect == nil}, {"rule", rule == nil},
			{"code", code == nil}, {"reason", reason == nil}, {"justification", just == nil}, {"result", result == nil},
			{"kind", kind == nil}, {"parent", parent == nil}, {"grant_id", grant == nil}} {
			if c.null {
				return &kernel.RecordError{Seq: r.Seq, Detail: "column " + c.name + " is NULL"}
			}
		}
		for _, h := range [...]struct {
			name string
			b    []byte
		}{{"prev", prev}, {"hash", hash}} {
			if len(h.b) != len(r.Hash) {
				return &kernel.RecordError{Seq: r.Seq, Detail: fmt.Sprintf("column %s is NULL or %d bytes, not %d", h.name, len(h.b), len(r.Hash))}
			}
		}
		r.Time = time.Unix(0, *nanos).UTC()
		r.Principal, r.Tool, r.CallID, r.Rule, r.Reason, r.Justification, r.Result = *principal, *tool, *callID, *rule, *reason, *just, *result
		r.Status, r.Effect, r.Code = kernel.Status(*status), kernel.Effect(*effect), kernel.Code(*code)
		r.Kind, r.Parent, r.Grant = kernel.RecordKind(*kind), *parent, *grant
		r.Args = argBytes
		r.IsError = *isErr
		copy(r.Prev[:], prev)
		copy(r.Hash[:], hash)
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

const columnList = `seq, time, principal, tool, call_id, status, effect, rule, code, reason, justification, args, result, is_error, prev, hash, kind, parent, grant_id`
