// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/toolgate/toolgate/kernel"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver keeps the binary static
)

const schemaSQL = `
CREATE TABLE IF NOT EXISTS audit (
	id            INTEGER PRIMARY KEY,
	seq           INTEGER NOT NULL,
	time          INTEGER NOT NULL,
	principal     TEXT NOT NULL,
	tool          TEXT NOT NULL,
	call_id       TEXT NOT NULL,
	status        TEXT NOT NULL,
	effect        TEXT NOT NULL,
	rule          TEXT NOT NULL,
	code          TEXT NOT NULL,
	reason        TEXT NOT NULL,
	justification TEXT NOT NULL,
	args          BLOB,
	result        TEXT NOT NULL,
	is_error      INTEGER NOT NULL,
	prev          BLOB NOT NULL,
	hash          BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_head (
	k    INTEGER PRIMARY KEY CHECK (k = 1),
	seq  INTEGER NOT NULL,
	hash BLOB NOT NULL
);`

const columns = `seq, time, principal, tool, call_id, status, effect, rule, code, reason, justification, args, result, is_error, prev, hash`

// Store is a [kernel.AuditStore] in a SQLite database file. Records are
// kept in the order they were appended (by rowid); the head row records
// the last appended record so that truncation is detectable. It is safe
// for concurrent use.
type Store struct {
	db *sql.DB
}

// Open opens or creates the database at path. WAL mode lets readers
// (`toolgate audit list`) run while the kernel writes.
func Open(ctx context.Context, path string) (*Store, error) {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("audit: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serialises anyway
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		db.Close()
		return nil, fmt.Errorf("audit: open %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// DB returns the database, for tests and tools that inspect it.
func (s *Store) DB() *sql.DB { return s.db }

// Append implements [kernel.AuditStore]: one transaction per batch.
func (s *Store) Append(ctx context.Context, recs []kernel.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Multi-row INSERTs: database/sql's per-statement overhead, not
	// SQLite, is the cost of single-row inserts.
	var full *sql.Stmt
	args := make([]any, 0, rowsPerInsert*16)
	for start := 0; start < len(recs); start += rowsPerInsert {
		chunk := recs[start:min(start+rowsPerInsert, len(recs))]
		args = args[:0]
		for i := range chunk {
			r := &chunk[i]
			isErr := 0
			if r.IsError {
				isErr = 1
			}
			args = append(args, r.Seq, r.Time.UnixNano(), r.Principal, r.Tool, r.CallID, string(r.Status), string(r.Effect),
				r.Rule, string(r.Code), r.Reason, r.Justification, []byte(r.Args), r.Result, isErr, r.Prev[:], r.Hash[:])
		}
		var err error
		if len(chunk) == rowsPerInsert {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, insertSQL(rowsPerInsert)); err != nil {
					return err
				}
				defer full.Close()
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, insertSQL(len(chunk)), args...)
		}
		if err != nil {
			return err
		}
	}
	last := &recs[len(recs)-1]
	if _, err := tx.ExecContext(ctx, `INSERT INTO audit_head (k, seq, hash) VALUES (1, ?, ?)
		ON CONFLICT(k) DO UPDATE SET seq = excluded.seq, hash = excluded.hash`, last.Seq, last.Hash[:]); err != nil {
		return err
	}
	return tx.Commit()
}

// rowsPerInsert is how many records one INSERT carries (16 parameters
// each, well under SQLite's limit).
const rowsPerInsert = 64

func insertSQL(rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO audit (" + columns + ") VALUES ")
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
	}
	return b.String()
}

// Head implements [kernel.AuditStore].
func (s *Store) Head(ctx context.Context) (int64, kernel.Hash, error) {
	var seq int64
	var h []byte
	var out kernel.Hash
	err := s.db.QueryRowContext(ctx, `SELECT seq, hash FROM audit_head WHERE k = 1`).Scan(&seq, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, out, nil
	}
	if err != nil {
		return 0, out, err
	}
	copy(out[:], h)
	return seq, out, nil
}

// Scan implements [kernel.AuditStore], in rowid order. The record and its
// Args are valid only during fn.
func (s *Store) Scan(ctx context.Context, fn func(*kernel.AuditRecord) error) error {
	return s.query(ctx, `SELECT `+columns+` FROM audit ORDER BY id`, nil, fn)
}

// Filter selects records for [Store.List]. Zero fields match anything.
type Filter struct {
	Principal string
	Tool      string
	Since     time.Time
	// Limit keeps only the newest Limit records (returned oldest first).
	// It is a query, not a resource limit: zero or negative returns every
	// matching record.
	Limit int
}

// List calls fn for the records matching f, in log order. The record and
// its Args are valid only during fn.
func (s *Store) List(ctx context.Context, f Filter, fn func(*kernel.AuditRecord) error) error {
	q := `SELECT ` + columns + ` FROM audit WHERE 1=1`
	var args []any
	if f.Principal != "" {
		q += ` AND principal = ?`
		args = append(args, f.Principal)
	}
	if f.Tool != "" {
		q += ` AND tool = ?`
		args = append(args, f.Tool)
	}
	if !f.Since.IsZero() {
		q += ` AND time >= ?`
		args = append(args, f.Since.UnixNano())
	}
	q += ` ORDER BY id`
	if f.Limit > 0 {
		q = `SELECT * FROM (` + q + ` DESC LIMIT ?) ORDER BY seq`
		args = append(args, f.Limit)
	}
	return s.query(ctx, q, args, fn)
}

func (s *Store) query(ctx context.Context, q string, args []any, fn func(*kernel.AuditRecord) error) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	// Low-cardinality columns are scanned as raw bytes and interned, so
	// that reading a million records does not allocate seven strings each.
	intern := make(map[string]string)
	str := func(b sql.RawBytes) string {
		if v, ok := intern[string(b)]; ok {
			return v
		}
		v := string(b)
		if len(intern) < 4096 {
			intern[v] = v
		}
		return v
	}
	var r kernel.AuditRecord
	var (
		nanos                                            int64
		principal, tool, status, effect, rule, code, why sql.RawBytes
		argBytes, prev, hash                             sql.RawBytes
		isErr                                            int
	)
	for rows.Next() {
		if err := rows.Scan(&r.Seq, &nanos, &principal, &tool, &r.CallID, &status, &effect, &rule, &code, &why,
			&r.Justification, &argBytes, &r.Result, &isErr, &prev, &hash); err != nil {
			return err
		}
		r.Time = time.Unix(0, nanos).UTC()
		r.Principal, r.Tool, r.Rule, r.Reason = str(principal), str(tool), str(rule), str(why)
		r.Status, r.Effect, r.Code = kernel.Status(str(status)), kernel.Effect(str(effect)), kernel.Code(str(code))
		r.Args = json.RawMessage(argBytes) // valid only during fn, as documented on Scan
		r.IsError = isErr != 0
		r.Prev, r.Hash = kernel.Hash{}, kernel.Hash{}
		copy(r.Prev[:], prev)
		copy(r.Hash[:], hash)
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}
