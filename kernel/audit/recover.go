// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/kernel"
)

// Journaled implements [kernel.JournaledAuditStore]: true at audit.sync
// normal, where a commit is a write to this process's journal.
func (s *Store) Journaled() bool { return s.jr != nil }

// Journal implements [kernel.JournaledAuditStore]: recs go to this
// process's journal beside the database with one write(2), not synced.
func (s *Store) Journal(first int64, recs []kernel.AuditRecord) error {
	if s.jr == nil {
		return errors.New("audit: the store keeps no journal at audit.sync full")
	}
	return s.jr.write(first, recs)
}

// AppendJournaled implements [kernel.JournaledAuditStore].
func (s *Store) AppendJournaled(ctx context.Context, recs []kernel.AuditRecord, through int64, chain func(headSeq int64, head kernel.Hash)) error {
	if len(recs) == 0 {
		return nil
	}
	name := ""
	if s.jr != nil && through > 0 {
		name = s.jr.id
	}
	err := s.appendTx(ctx, recs, name, through, func(seq int64, head kernel.Hash) error {
		chain(seq, head)
		return nil
	})
	if err == nil && name != "" {
		s.jr.markApplied(through)
	}
	return err
}

// recoverBatch is how many records of a dead journal one transaction
// moves.
const recoverBatch = 1024

// Recover implements [kernel.JournaledAuditStore]: each journal beside the
// database whose segments are all unlocked belongs to a process that
// stopped; its records not yet in the database (after the mark its
// process or an earlier recovery left) are appended in its order, with
// the mark moved in the same transactions, then its files are removed.
// Two processes recovering at once do not both replay a journal: each
// holds its segments' locks while it works, and a removed file is
// skipped.
func (s *Store) Recover(ctx context.Context, chain func(recs []kernel.AuditRecord, headSeq int64, head kernel.Hash)) (int, error) {
	files, ids, err := journalFiles(s.path)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, id := range ids {
		if s.jr != nil && id == s.jr.id {
			continue
		}
		n, err := s.recoverJournal(ctx, id, files[id], chain)
		total += n
		if err != nil {
			return total, fmt.Errorf("audit: replaying journal %s: %w", id, err)
		}
	}
	return total, nil
}

func (s *Store) recoverJournal(ctx context.Context, id string, segs []journalName, chain func([]kernel.AuditRecord, int64, kernel.Hash)) (int, error) {
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, sg := range segs {
		f, err := os.Open(sg.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		files = append(files, f)
		if lockFile(f) != nil {
			return 0, nil // its process lives, or another is replaying it
		}
	}
	var through int64
	err := s.db.QueryRowContext(ctx, `SELECT through FROM audit_journal WHERE name = ?`, id).Scan(&through)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	var batch []kernel.AuditRecord
	var batchLast int64
	total := 0
	// A call whose intent and outcome are both in a batch is written as
	// one record, as the journal's process would have.
	var merger kernel.CallMerger
	var before []kernel.AuditRecord
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		recs := merger.Merge(batch)
		err := s.appendTx(ctx, recs, id, batchLast, func(seq int64, head kernel.Hash) error {
			chain(recs, seq, head)
			return nil
		})
		total += len(batch)
		batch = batch[:0]
		return err
	}
	var last int64
	for _, f := range files {
		if !linked(f) {
			continue // removed since it was listed: in the database
		}
		data, err := io.ReadAll(f)
		if err != nil {
			return total, err
		}
		// A frame that cannot be read ends the segment: a write its
		// process did not finish, never acknowledged.
		last, err = readJournal(data, last, func(n int64, r *kernel.AuditRecord) error {
			if n <= through {
				if r.Kind == kernel.RecordIntent || r.Kind == kernel.RecordOutcome {
					before = append(before, kernel.AuditRecord{Kind: r.Kind, Principal: r.Principal, Tool: r.Tool, CallID: r.CallID, Parent: r.Parent})
				}
				return nil
			}
			if before != nil {
				// The intents already in the database unmerged, as far
				// as the journal still holds them, pair first.
				merger.Merge(before)
				before = nil
			}
			batch = append(batch, *r)
			batchLast = n
			if len(batch) >= recoverBatch {
				return flush()
			}
			return nil
		})
		if _, torn := errors.AsType[*JournalError](err); err != nil && !torn {
			return total, err
		}
	}
	if err := flush(); err != nil {
		return total, err
	}
	for _, sg := range segs {
		if err := os.Remove(sg.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return total, err
		}
	}
	// The mark goes once the files are gone: a process that finds them
	// still, after a crash here, skips what the mark covers.
	_, err = s.db.ExecContext(ctx, `DELETE FROM audit_journal WHERE name = ?`, id)
	return total, err
}

// Pending implements [kernel.PendingAuditStore]: the records of the
// journals beside the database, live or dead, that are not in it yet,
// journal by journal. A journal whose end cannot be read — a write cut
// short by a crash, a write under way, damage — is named in notes.
func (s *Store) Pending(ctx context.Context, fn func(*kernel.AuditRecord) error) (notes []string, err error) {
	marks := make(map[string]int64)
	rows, err := s.db.QueryContext(ctx, `SELECT name, through FROM audit_journal`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name string
		var through int64
		if err := rows.Scan(&name, &through); err != nil {
			rows.Close()
			return nil, err
		}
		marks[name] = through
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	files, ids, err := journalFiles(s.path)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		var last int64
		for _, sg := range files[id] {
			data, err := os.ReadFile(sg.path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return notes, err
			}
			var rerr error
			last, rerr = readJournal(data, last, func(n int64, r *kernel.AuditRecord) error {
				if n <= marks[id] {
					return nil
				}
				return fn(r)
			})
			if je, ok := errors.AsType[*JournalError](rerr); ok {
				notes = append(notes, "journal "+filepath.Base(sg.path)+": "+je.Error())
			} else if rerr != nil {
				return notes, rerr
			}
		}
	}
	return notes, ctx.Err()
}
