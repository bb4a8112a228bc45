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
	"strconv"
	"strings"
	"sync"
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
	hash          BLOB NOT NULL,
	kind          TEXT NOT NULL DEFAULT '',
	parent        TEXT NOT NULL DEFAULT '',
	grant_id      TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS audit_head (
	k    INTEGER PRIMARY KEY CHECK (k = 1),
	seq  INTEGER NOT NULL,
	hash BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_journal (
	name    TEXT PRIMARY KEY,
	through INTEGER NOT NULL
);`

const columns = `seq, time, principal, tool, call_id, status, effect, rule, code, reason, justification, args, result, is_error, prev, hash, kind, parent, grant_id`

// addedColumns are the columns added after the first schema, with their
// definitions, for databases made before them.
var addedColumns = [...]struct{ name, def string }{
	{"kind", `TEXT NOT NULL DEFAULT ''`},
	{"parent", `TEXT NOT NULL DEFAULT ''`},
	{"grant_id", `TEXT NOT NULL DEFAULT ''`},
}

// nColumns is the number of parameters one record takes.
const nColumns = 19

// Store is a [kernel.AuditStore] in a SQLite database file. Records are
// kept in the order they were appended (by rowid); the head row records
// the last appended record so that truncation is detectable. It is safe
// for concurrent use.
type Store struct {
	db   *sql.DB  // fixed at creation
	path string   // the database file
	jr   *journal // this process's journal; nil at audit.sync full

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // prepared once: parsing was a fifth of a commit
}

// BusyTimeout is how long a writer waits for another process's write
// transaction on the same file before its append fails.
const BusyTimeout = 10 * time.Second

// ErrStaleHead is returned by [Store.Append] when the records given were
// not chained from the head in the database: another writer appended
// meanwhile, and writing them would fork the chain.
var ErrStaleHead = errors.New("audit: records are not chained from the stored head")

// Open opens or creates the database at path. WAL mode lets readers
// (`toolgate audit list`) run while the kernel writes. Any number of
// processes may open the same file: every write transaction begins
// IMMEDIATE, taking SQLite's write lock before it reads the head, and
// waits up to [BusyTimeout] for it.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenSync(ctx, path, kernel.SyncNormal)
}

// OpenSync is [Open] with the durability of a commit: [kernel.SyncNormal]
// (WAL with synchronous=NORMAL: a commit is in the operating system's
// hands, so it survives a crash of the process) or [kernel.SyncFull]
// (synchronous=FULL: the WAL is synced at every commit, so it survives a
// power loss). The empty mode is SyncNormal.
func OpenSync(ctx context.Context, path string, mode kernel.AuditSync) (*Store, error) {
	pragma := "NORMAL"
	switch mode {
	case "", kernel.SyncNormal:
	case kernel.SyncFull:
		pragma = "FULL"
	default:
		return nil, fmt.Errorf("audit: sync mode %q is not normal or full", mode)
	}
	db, err := openDB(ctx, path, schemaSQL, pragma)
	if err == nil {
		err = migrate(ctx, db)
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("audit: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, stmts: make(map[string]*sql.Stmt)}
	if pragma == "NORMAL" && journalLocks {
		s.jr = newJournal(path)
	}
	return s, nil
}

// migrate adds the columns a database made before them lacks, in one
// write transaction, so that processes opening it together add each
// once.
func migrate(ctx context.Context, db *sql.DB) error {
	has := func(q queryer) (map[string]bool, error) {
		rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info('audit')`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols := make(map[string]bool)
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return nil, err
			}
			cols[n] = true
		}
		return cols, rows.Err()
	}
	cols, err := has(db)
	if err != nil {
		return err
	}
	missing := false
	for _, c := range addedColumns {
		missing = missing || !cols[c.name]
	}
	if !missing {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if cols, err = has(tx); err != nil {
		return err
	}
	for _, c := range addedColumns {
		if !cols[c.name] {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE audit ADD COLUMN `+c.name+` `+c.def); err != nil {
				return fmt.Errorf("adding column %s: %w", c.name, err)
			}
		}
	}
	return tx.Commit()
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// OpenDB opens the SQLite database at path as toolgate's stores share it
// (WAL, a busy timeout of [BusyTimeout], immediate transactions, one
// connection) and runs schema, which must be idempotent. Several
// processes may open the same new file at once: switching it to WAL
// needs a lock that SQLite does not always wait for, so a busy open is
// tried again until BusyTimeout has passed.
func OpenDB(ctx context.Context, path, schema string) (*sql.DB, error) {
	return openDB(ctx, path, schema, "NORMAL")
}

// openDB is OpenDB with the synchronous pragma's value.
func openDB(ctx context.Context, path, schema, syncPragma string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+syncPragma+")")
	q.Add("_txlock", "immediate")
	deadline := time.Now().Add(BusyTimeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // one writer; SQLite serialises anyway
		if _, err = db.ExecContext(ctx, schema); err == nil {
			return db, nil
		}
		db.Close()
		var ce interface{ Code() int }
		if !errors.As(err, &ce) || ce.Code()&0xff != 5 /* SQLITE_BUSY */ || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Close closes the database, and this process's journal: removed when
// every record in it is in the database, else left for the next process
// to open the database to replay.
func (s *Store) Close() error {
	if s.jr != nil && s.jr.close() && s.jr.nseg > 0 {
		s.db.Exec(`DELETE FROM audit_journal WHERE name = ?`, s.jr.id)
	}
	s.mu.Lock()
	for q, st := range s.stmts {
		st.Close()
		delete(s.stmts, q)
	}
	s.mu.Unlock()
	return s.db.Close()
}

// stmt returns q prepared on the database. There are few distinct
// statements (one INSERT per batch size up to rowsPerInsert), so they are
// kept until Close. It must not be called inside a transaction: the
// database has one connection, which the transaction holds.
func (s *Store) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	s.mu.Lock()
	st := s.stmts[q]
	s.mu.Unlock()
	if st == nil {
		var err error
		if st, err = s.db.PrepareContext(ctx, q); err != nil {
			return nil, err
		}
		s.mu.Lock()
		if old := s.stmts[q]; old != nil {
			st.Close()
			st = old
		} else {
			s.stmts[q] = st
		}
		s.mu.Unlock()
	}
	return st, nil
}

// DB returns the database, for tests and tools that inspect it.
func (s *Store) DB() *sql.DB { return s.db }

// Append implements [kernel.AuditStore]: one transaction per batch. The
// records must continue the chain as it is in the database; if another
// writer appended since they were chained, nothing is written and the
// error is [ErrStaleHead]. Writers that share the file use
// [Store.AppendChained], as [kernel.AuditLog] does.
func (s *Store) Append(ctx context.Context, recs []kernel.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return s.appendTx(ctx, recs, "", 0, func(seq int64, head kernel.Hash) error {
		if recs[0].Seq != seq+1 || recs[0].Prev != head {
			return fmt.Errorf("%w: record %d follows record %d", ErrStaleHead, recs[0].Seq, seq)
		}
		return nil
	})
}

// AppendChained implements [kernel.SharedAuditStore]: the head is read
// inside the write transaction, so that appends from any number of
// processes give one chain without gaps or forks.
func (s *Store) AppendChained(ctx context.Context, recs []kernel.AuditRecord, chain func(headSeq int64, head kernel.Hash)) error {
	if len(recs) == 0 {
		return nil
	}
	return s.appendTx(ctx, recs, "", 0, func(seq int64, head kernel.Hash) error {
		chain(seq, head)
		return nil
	})
}

// appendTx writes recs in one IMMEDIATE transaction, calling prepare with
// the head read inside it before anything is written. With a journal
// name, it records in the same transaction that the journal's records
// through number through are in the database.
func (s *Store) appendTx(ctx context.Context, recs []kernel.AuditRecord, journal string, through int64, prepare func(seq int64, head kernel.Hash) error) error {
	// The statements are prepared before the transaction takes the
	// connection.
	var hq, up, full, part, mark *sql.Stmt
	var err error
	if journal != "" {
		if mark, err = s.stmt(ctx, upsertMarkSQL); err != nil {
			return err
		}
	}
	if hq, err = s.stmt(ctx, headSQL); err != nil {
		return err
	}
	if up, err = s.stmt(ctx, upsertHeadSQL); err != nil {
		return err
	}
	if len(recs) >= rowsPerInsert {
		if full, err = s.stmt(ctx, insertSQL(rowsPerInsert)); err != nil {
			return err
		}
	}
	if n := len(recs) % rowsPerInsert; n > 0 {
		if part, err = s.stmt(ctx, insertSQL(n)); err != nil {
			return err
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	seq, head, err := readHead(ctx, tx.StmtContext(ctx, hq))
	if err != nil {
		return err
	}
	if err := prepare(seq, head); err != nil {
		return err
	}
	// Multi-row INSERTs: database/sql's per-statement overhead, not
	// SQLite, is the cost of single-row inserts.
	args := make([]any, 0, min(len(recs), rowsPerInsert)*nColumns)
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
				r.Rule, string(r.Code), r.Reason, r.Justification, []byte(r.Args), r.Result, isErr, r.Prev[:], r.Hash[:],
				string(r.Kind), r.Parent, r.Grant)
		}
		ins := full
		if len(chunk) < rowsPerInsert {
			ins = part
		}
		if _, err := tx.StmtContext(ctx, ins).ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	last := &recs[len(recs)-1]
	if _, err := tx.StmtContext(ctx, up).ExecContext(ctx, last.Seq, last.Hash[:]); err != nil {
		return err
	}
	if mark != nil {
		if _, err := tx.StmtContext(ctx, mark).ExecContext(ctx, journal, through); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// rowsPerInsert is how many records one INSERT carries (nColumns
// parameters each, well under SQLite's limit).
const rowsPerInsert = 64

func insertSQL(rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO audit (" + columns + ") VALUES ")
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
	}
	return b.String()
}

// Head implements [kernel.AuditStore].
func (s *Store) Head(ctx context.Context) (int64, kernel.Hash, error) {
	return readHead(ctx, dbRower{s.db})
}

const (
	upsertMarkSQL = `INSERT INTO audit_journal (name, through) VALUES (?, ?)
		ON CONFLICT(name) DO UPDATE SET through = excluded.through`
	headSQL       = `SELECT seq, hash FROM audit_head WHERE k = 1`
	upsertHeadSQL = `INSERT INTO audit_head (k, seq, hash) VALUES (1, ?, ?)
		ON CONFLICT(k) DO UPDATE SET seq = excluded.seq, hash = excluded.hash`
)

// rower runs headSQL: a prepared statement, or the database.
type rower interface {
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

type dbRower struct{ db *sql.DB }

func (d dbRower) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return d.db.QueryRowContext(ctx, headSQL, args...)
}

func readHead(ctx context.Context, q rower) (int64, kernel.Hash, error) {
	var seq, h any
	var out kernel.Hash
	err := q.QueryRowContext(ctx).Scan(&seq, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, out, nil
	}
	if err != nil {
		return 0, out, err
	}
	n, ok := seq.(int64)
	if !ok || n < 0 {
		return 0, out, &kernel.RecordError{Head: true, Detail: "column seq holds " + typeName(seq) + ", not a record number"}
	}
	b, ok := h.([]byte)
	if !ok || len(b) != len(out) {
		return 0, out, &kernel.RecordError{Head: true, Detail: fmt.Sprintf("column hash holds %s of %d bytes, not a %d-byte blob", typeName(h), len(b), len(out))}
	}
	copy(out[:], b)
	return n, out, nil
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
	// Kind keeps only the records of one kind: "call" is a call recorded
	// in one record (an empty [kernel.AuditRecord.Kind]). If empty, every
	// kind.
	Kind  kernel.RecordKind
	Since time.Time
	// Limit keeps only the newest Limit records (returned oldest first).
	// It is a query, not a resource limit: zero or negative returns every
	// matching record.
	Limit int
}

// List calls fn for the records matching f, in log order, then for those
// committed to journals and not yet in the database (Seq zero; see
// [Store.Pending]). The record and its Args are valid only during fn.
func (s *Store) List(ctx context.Context, f Filter, fn func(*kernel.AuditRecord) error) error {
	var journaled []kernel.AuditRecord
	if _, err := s.Pending(ctx, func(r *kernel.AuditRecord) error {
		if (f.Principal == "" || r.Principal == f.Principal) && (f.Tool == "" || r.Tool == f.Tool) && f.kindOf(r) && !r.Time.Before(f.Since) {
			journaled = append(journaled, *r)
		}
		return nil
	}); err != nil {
		return err
	}
	if f.Limit > 0 && len(journaled) >= f.Limit {
		for i := len(journaled) - f.Limit; i < len(journaled); i++ {
			if err := fn(&journaled[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if f.Limit > 0 {
		f.Limit -= len(journaled)
	}
	if err := s.list(ctx, f, fn); err != nil {
		return err
	}
	for i := range journaled {
		if err := fn(&journaled[i]); err != nil {
			return err
		}
	}
	return nil
}

// StoredKind is the kind column the records f.Kind keeps hold: "" for
// "call".
func (f *Filter) StoredKind() kernel.RecordKind {
	if f.Kind == "call" {
		return ""
	}
	return f.Kind
}

// kindOf reports whether r is of the kind f keeps.
func (f *Filter) kindOf(r *kernel.AuditRecord) bool {
	return f.Kind == "" || r.Kind == f.StoredKind()
}

func (s *Store) list(ctx context.Context, f Filter, fn func(*kernel.AuditRecord) error) error {
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
	if f.Kind != "" {
		q += ` AND kind = ?`
		args = append(args, string(f.StoredKind()))
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
		seq, nanos, isErr                                any
		principal, tool, status, effect, rule, code, why sql.RawBytes
		callID, just, result, kind, parent, grant        sql.RawBytes
		argBytes, prev, hash                             sql.RawBytes
		last                                             int64
	)
	for rows.Next() {
		if err := rows.Scan(&seq, &nanos, &principal, &tool, &callID, &status, &effect, &rule, &code, &why,
			&just, &argBytes, &result, &isErr, &prev, &hash, &kind, &parent, &grant); err != nil {
			return &kernel.RecordError{Seq: last + 1, Detail: err.Error()}
		}
		// Someone with the file can put anything in any column: every
		// value is checked, and a row that is not a record is named.
		n, ok := seq.(int64)
		if !ok {
			return &kernel.RecordError{Seq: last + 1, Detail: "column seq holds " + typeName(seq) + ", not an integer (the record after " + strconv.FormatInt(last, 10) + ")"}
		}
		r.Seq, last = n, n
		bad := func(col string, v any) error {
			return &kernel.RecordError{Seq: n, Detail: "column " + col + " holds " + typeName(v) + ", not an integer"}
		}
		ns, ok := nanos.(int64)
		if !ok {
			return bad("time", nanos)
		}
		e, ok := isErr.(int64)
		if !ok || (e != 0 && e != 1) {
			if ok {
				return &kernel.RecordError{Seq: n, Detail: "column is_error holds " + strconv.FormatInt(e, 10) + ", not 0 or 1"}
			}
			return bad("is_error", isErr)
		}
		for _, h := range [...]struct {
			col string
			b   sql.RawBytes
		}{{"prev", prev}, {"hash", hash}} {
			if len(h.b) != len(r.Hash) {
				return &kernel.RecordError{Seq: n, Detail: fmt.Sprintf("column %s is NULL or %d bytes, not %d", h.col, len(h.b), len(r.Hash))}
			}
		}
		r.CallID, r.Justification, r.Result = string(callID), string(just), string(result)
		r.Time = time.Unix(0, ns).UTC()
		r.Principal, r.Tool, r.Rule, r.Reason = str(principal), str(tool), str(rule), str(why)
		r.Status, r.Effect, r.Code = kernel.Status(str(status)), kernel.Effect(str(effect)), kernel.Code(str(code))
		r.Kind, r.Parent, r.Grant = kernel.RecordKind(str(kind)), string(parent), string(grant)
		r.Args = json.RawMessage(argBytes) // valid only during fn, as documented on Scan
		r.IsError = e != 0
		r.Prev, r.Hash = kernel.Hash{}, kernel.Hash{}
		copy(r.Prev[:], prev)
		copy(r.Hash[:], hash)
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// typeName names the SQLite type of a scanned value.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case int64:
		return "an integer"
	case float64:
		return "a real"
	case string:
		return "text"
	case []byte:
		return "a blob"
	}
	return fmt.Sprintf("%T", v)
}
