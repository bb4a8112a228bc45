// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"cmp"
	"context"
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Tamper is a kind of damage [VerifyChain] finds.
type Tamper string

// Kinds of tampering.
const (
	// TamperEdited: a record's content no longer matches its hash, or its hash
	// no longer matches the next record's link.
	TamperEdited Tamper = "edited"
	// TamperDeleted: a sequence number is missing.
	TamperDeleted Tamper = "deleted"
	// TamperInserted: a record with a duplicate or out-of-range sequence number,
	// or records past the recorded head.
	TamperInserted Tamper = "inserted"
	// TamperReordered: a record is stored after a later one.
	TamperReordered Tamper = "reordered"
	// TamperTruncated: the log ends before the recorded head.
	TamperTruncated Tamper = "truncated"
	// TamperCheckpoint: the checkpoint given to [VerifyChainCheckpoint]
	// is not signed with the log's key.
	TamperCheckpoint Tamper = "checkpoint"
	// TamperMalformed: a stored row cannot be read as a record: a column
	// of the wrong type, NULL, a hash of the wrong length.
	TamperMalformed Tamper = "malformed"
)

// ErrMalformedRecord is matched by the [*RecordError] of a stored record
// that cannot be read.
var ErrMalformedRecord = errors.New("kernel: malformed audit record")

// RecordError is what an [AuditStore]'s Scan or Head returns for a
// stored row that cannot be read as a record. [VerifyChain] reports it
// as a problem of kind [TamperMalformed] naming the record, not as a
// failure to read the store.
type RecordError struct {
	// Seq is the record's sequence number; when that is what cannot be
	// read, the number the record would have after the one before it.
	Seq int64
	// Head is set when the row is the store's head, not a record.
	Head bool
	// Detail says what is wrong: "column seq holds text".
	Detail string
}

func (e *RecordError) Error() string {
	if e.Head {
		return "kernel: malformed audit head: " + e.Detail
	}
	return fmt.Sprintf("kernel: malformed audit record %d: %s", e.Seq, e.Detail)
}

// Is reports whether target is [ErrMalformedRecord].
func (e *RecordError) Is(target error) bool { return target == ErrMalformedRecord }

// ChainProblem is one finding of [VerifyChain].
type ChainProblem struct {
	Seq    int64  `json:"seq"`
	Kind   Tamper `json:"kind"`
	Detail string `json:"detail"`
}

func (p ChainProblem) String() string {
	return fmt.Sprintf("record %d %s: %s", p.Seq, p.Kind, p.Detail)
}

// ChainReport is the result of [VerifyChain].
type ChainReport struct {
	// Records is how many records were read.
	Records int64 `json:"records"`
	// Head is the sequence number of the head the store recorded.
	Head int64 `json:"head"`
	// Problems lists what was found, at most 100; empty means intact.
	Problems []ChainProblem `json:"problems,omitempty"`
	// More is set when problems beyond the first 100 were not listed.
	More bool `json:"more,omitempty"`
	// Unknown lists the first 100 calls whose intent has no outcome
	// after it: the process stopped between the two, before or after the
	// tool ran. They are not damage: a chain with them is intact.
	Unknown []UnknownOutcome `json:"unknown_outcomes,omitempty"`
	// UnknownCount counts them all.
	UnknownCount int64 `json:"unknown_outcome_count,omitempty"`
	// Journaled counts the records committed to journals and not yet in
	// the chain (see [PendingAuditStore]): a process moves its own in
	// batches, and the next process to open the log those of a process
	// that stopped. They are not damage.
	Journaled int64 `json:"journaled,omitempty"`
	// JournalNotes says where a journal stops being readable: the tail
	// of a write that a crash cut short (never acknowledged), a write
	// under way, or damage.
	JournalNotes []string `json:"journal_notes,omitempty"`
}

// UnknownOutcome is a call of a [ChainReport] whose outcome is unknown:
// the intent record's sequence number, time and names.
type UnknownOutcome struct {
	// Seq is zero for an intent still in a journal (Journaled).
	Seq       int64     `json:"seq"`
	Journaled bool      `json:"journaled,omitempty"`
	Time      time.Time `json:"time"`
	Principal string    `json:"principal"`
	Tool      string    `json:"tool"`
	CallID    string    `json:"call_id,omitempty"`
	Parent    string    `json:"parent,omitempty"`
}

func (u UnknownOutcome) String() string {
	s := fmt.Sprintf("record %d: %s called %s", u.Seq, u.Principal, u.Tool)
	if u.Journaled {
		s = fmt.Sprintf("journaled record: %s called %s", u.Principal, u.Tool)
	}
	if u.CallID != "" {
		s += " (call " + u.CallID + ")"
	}
	return s + " at " + u.Time.UTC().Format(time.RFC3339) + ": outcome unknown (the process stopped)"
}

// OK reports whether the chain is intact. Unknown outcomes do not make it
// damaged.
func (r *ChainReport) OK() bool { return len(r.Problems) == 0 }

func (r *ChainReport) String() string {
	var b strings.Builder
	if r.OK() {
		fmt.Fprintf(&b, "audit log intact: %d records, head %d", r.Records, r.Head)
	} else {
		fmt.Fprintf(&b, "audit log damaged: %d records, head %d", r.Records, r.Head)
		for _, p := range r.Problems {
			b.WriteString("\n  " + p.String())
		}
		if r.More {
			b.WriteString("\n  …")
		}
	}
	if r.Journaled > 0 {
		fmt.Fprintf(&b, "\n%d record(s) in journals not yet in the chain (committed; moved into it by their process, or by the next to open the log)", r.Journaled)
	}
	for _, n := range r.JournalNotes {
		b.WriteString("\n" + n + " (not tampering unless no process crashed)")
	}
	if r.UnknownCount > 0 {
		fmt.Fprintf(&b, "\n%d call(s) with outcome unknown (the process stopped), not tampering:", r.UnknownCount)
		for _, u := range r.Unknown {
			b.WriteString("\n  " + u.String())
		}
		if r.UnknownCount > int64(len(r.Unknown)) {
			b.WriteString("\n  …")
		}
	}
	return b.String()
}

// maxOpenIntents bounds the intents verification holds while it looks
// for their outcomes; intents beyond it are counted as unknown.
const maxOpenIntents = 1 << 20

// intents pairs intent records with their outcomes: an outcome closes the
// oldest open intent of the same principal, tool, call id and parent.
type intents struct {
	open  map[intentKey][]UnknownOutcome
	n     int
	extra int64 // intents past maxOpenIntents
}

type intentKey struct{ principal, tool, callID, parent string }

func (in *intents) see(r *AuditRecord, journaled bool) {
	switch r.Kind {
	case RecordIntent:
		if in.n >= maxOpenIntents {
			in.extra++
			return
		}
		if in.open == nil {
			in.open = make(map[intentKey][]UnknownOutcome)
		}
		k := intentKey{r.Principal, r.Tool, r.CallID, r.Parent}
		in.open[k] = append(in.open[k], UnknownOutcome{Seq: r.Seq, Journaled: journaled, Time: r.Time, Principal: r.Principal, Tool: r.Tool, CallID: r.CallID, Parent: r.Parent})
		in.n++
	case RecordOutcome:
		k := intentKey{r.Principal, r.Tool, r.CallID, r.Parent}
		// An outcome with no intent open is not reported: the chain
		// shows whether a record was removed.
		if q := in.open[k]; len(q) > 0 {
			if len(q) == 1 {
				delete(in.open, k)
			} else {
				in.open[k] = q[1:]
			}
			in.n--
		}
	}
}

// report adds the intents left open to rep.
func (in *intents) report(rep *ChainReport) {
	var all []UnknownOutcome
	for _, q := range in.open {
		all = append(all, q...)
	}
	// The chain's first, then the journals', each by time.
	slices.SortFunc(all, func(a, b UnknownOutcome) int {
		if a.Journaled != b.Journaled {
			if a.Journaled {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		return a.Time.Compare(b.Time)
	})
	rep.UnknownCount = int64(len(all)) + in.extra
	rep.Unknown = all[:min(len(all), 100)]
	if len(rep.Unknown) == 0 {
		rep.Unknown = nil
	}
}

func (r *ChainReport) add(seq int64, kind Tamper, format string, args ...any) {
	if len(r.Problems) >= 100 {
		r.More = true
		return
	}
	r.Problems = append(r.Problems, ChainProblem{Seq: seq, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// VerifyChain reads every record of store and checks the chain: each
// record's hash over its content, each link to the record before, the
// sequence without gaps, duplicates or reordering, and the store's head.
// key must be the audit log's key (nil for a plain SHA-256 chain). The
// error is only for a store that cannot be read; damage is in the report.
// Records a [PendingAuditStore] holds in journals are counted apart, and
// their intents and outcomes paired with the chain's.
func VerifyChain(ctx context.Context, store AuditStore, key []byte) (*ChainReport, error) {
	return verifyChain(ctx, store, key, nil)
}

// VerifyChainCheckpoint is [VerifyChain] against a checkpoint taken
// earlier ([NewCheckpoint]): besides every check of VerifyChain, the log
// must still hold record cp.Records with the hash the checkpoint saw, so
// that records deleted from the end, or rewritten up to the checkpoint,
// are found even when the store's head row was rewritten with them. With
// a key, the checkpoint's signature must verify, and an unsigned
// checkpoint is a problem; without one, the signature is not checked.
// Problems found this way are of kind TamperTruncated, TamperEdited or
// TamperCheckpoint.
func VerifyChainCheckpoint(ctx context.Context, store AuditStore, key []byte, cp *Checkpoint) (*ChainReport, error) {
	if cp == nil {
		return nil, fmt.Errorf("%w: nil", ErrMalformedCheckpoint)
	}
	return verifyChain(ctx, store, key, cp)
}

func verifyChain(ctx context.Context, store AuditStore, key []byte, cp *Checkpoint) (*ChainReport, error) {
	h := newChainHasher(key)
	rep := &ChainReport{}
	if cp != nil && len(key) > 0 {
		switch mac, err := hex.DecodeString(cp.MAC); {
		case cp.MAC == "":
			rep.add(cp.Records, TamperCheckpoint, "the checkpoint is not signed, and the log has a key: it proves nothing")
		case err != nil || !hmac.Equal(mac, cp.mac(key)):
			rep.add(cp.Records, TamperCheckpoint, "the checkpoint's signature does not verify with this key")
		}
	}
	var cpHash Hash
	cpSeen := false
	// Per sequence number: 8-byte prefixes of the link and the hash are
	// enough to check links across storage order (the full hash of each
	// record is checked as it is read).
	type slot struct {
		prev, hash [8]byte
		seen       bool
	}
	var slots []slot
	var expect, last int64 = 1, 0
	var calls intents
	defer calls.report(rep)
	err := store.Scan(ctx, func(r *AuditRecord) error {
		rep.Records++
		calls.see(r, false)
		if h.sum(r) != r.Hash {
			rep.add(r.Seq, TamperEdited, "content does not match its hash")
		}
		if r.Seq < 1 || r.Seq > rep.Records+1<<20 {
			rep.add(r.Seq, TamperInserted, "sequence number out of range")
			return nil
		}
		for int64(len(slots)) < r.Seq {
			slots = append(slots, slot{})
		}
		s := &slots[r.Seq-1]
		if s.seen {
			rep.add(r.Seq, TamperInserted, "duplicate sequence number")
			return nil
		}
		s.seen = true
		if cp != nil && r.Seq == cp.Records {
			cpHash, cpSeen = r.Hash, true
		}
		copy(s.prev[:], r.Prev[:8])
		copy(s.hash[:], r.Hash[:8])
		if r.Seq < expect {
			rep.add(r.Seq, TamperReordered, "stored after record %d", last)
		}
		expect = max(expect, r.Seq+1)
		last = r.Seq
		return nil
	})
	if re, ok := errors.AsType[*RecordError](err); ok {
		// The scan stopped at the row: what follows it, and the head,
		// cannot be checked.
		rep.add(re.Seq, TamperMalformed, "%s", re.Detail)
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("kernel: reading audit log: %w", err)
	}
	for i := range slots {
		seq := int64(i) + 1
		s := &slots[i]
		switch {
		case !s.seen:
			rep.add(seq, TamperDeleted, "missing from the log")
		case i == 0:
			if s.prev != [8]byte{} {
				rep.add(seq, TamperEdited, "the first record links to a predecessor")
			}
		case slots[i-1].seen && s.prev != slots[i-1].hash:
			rep.add(seq-1, TamperEdited, "rewritten: record %d no longer links to it", seq)
		}
	}
	n := int64(len(slots))
	if cp != nil && cp.Records > 0 {
		at := cp.Time.UTC().Format(time.RFC3339)
		switch {
		case n < cp.Records:
			rep.add(n+1, TamperTruncated, "the log ends at record %d, but the checkpoint of %s saw record %d", n, at, cp.Records)
		case cpSeen && cpHash != cp.Head:
			rep.add(cp.Records, TamperEdited, "rewritten: does not match the checkpoint of %s", at)
		}
	}
	if ps, ok := store.(PendingAuditStore); ok {
		notes, err := ps.Pending(ctx, func(r *AuditRecord) error {
			rep.Journaled++
			calls.see(r, true)
			return nil
		})
		if err != nil {
			return rep, fmt.Errorf("kernel: reading audit journals: %w", err)
		}
		rep.JournalNotes = notes
	}
	headSeq, head, err := store.Head(ctx)
	if re, ok := errors.AsType[*RecordError](err); ok {
		rep.add(int64(len(slots)), TamperMalformed, "the recorded head: %s", re.Detail)
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("kernel: reading audit head: %w", err)
	}
	rep.Head = headSeq
	switch {
	case headSeq > n:
		rep.add(n+1, TamperTruncated, "the log ends at record %d but its head is record %d", n, headSeq)
	case headSeq < n:
		rep.add(headSeq+1, TamperInserted, "records after the head (record %d)", headSeq)
	case headSeq > 0 && slots[headSeq-1].seen && [8]byte(head[:8]) != slots[headSeq-1].hash:
		rep.add(headSeq, TamperEdited, "does not match the recorded head")
	}
	return rep, nil
}

// maxMergerOpen bounds the intents a [CallMerger] remembers as written
// without their outcome. Past it, an outcome of a call id used by two
// calls at once may be merged with the later call's intent: the pairing
// verification makes stays consistent, only which of the two records
// holds which arguments can be wrong.
const maxMergerOpen = 1 << 16

// CallMerger writes a call whose intent and outcome are moved into the
// chain together as one record, of the empty kind as a call refused
// before it ran: the intent's decision, justification, arguments and
// grant, the outcome's status, result, error flag and code (the
// intent's when the outcome has none), the outcome's time (when the
// call ended) and place. It pairs as [VerifyChain] does: an outcome
// closes the oldest open intent of the same principal, tool, call id and
// parent, and it remembers, across the batches it is given, the intents
// it left as intents, so that an outcome pairs with one of those before
// an intent of its own batch. An intent whose outcome is not in the
// batch stays an intent; an outcome whose intent is not stays an
// outcome. The journal keeps both records either way. The zero value is
// ready; it is not safe for concurrent use.
type CallMerger struct {
	open  map[intentKey]int // intents written unmerged, by key
	n     int               // their sum
	batch map[intentKey][]int
	drop  []bool
}

// Merge merges the calls of recs in place and returns the records to
// write, a prefix of recs in their order. Records past the prefix are
// left as they were moved and must not be used.
func (m *CallMerger) Merge(recs []AuditRecord) []AuditRecord {
	if m.batch == nil {
		m.batch = make(map[intentKey][]int)
	}
	merged := false
	for j := range recs {
		r := &recs[j]
		switch r.Kind {
		case RecordIntent:
			k := intentKey{r.Principal, r.Tool, r.CallID, r.Parent}
			m.batch[k] = append(m.batch[k], j)
		case RecordOutcome:
			k := intentKey{r.Principal, r.Tool, r.CallID, r.Parent}
			if c := m.open[k]; c > 0 {
				// Its intent is in an earlier batch (first in, first out).
				if c == 1 {
					delete(m.open, k)
				} else {
					m.open[k] = c - 1
				}
				m.n--
				continue
			}
			q := m.batch[k]
			if len(q) == 0 {
				continue
			}
			i := q[0]
			if len(q) == 1 {
				delete(m.batch, k)
			} else {
				m.batch[k] = q[1:]
			}
			if !merged {
				m.drop = append(m.drop[:0], make([]bool, len(recs))...)
				merged = true
			}
			m.drop[i] = true
			*r = mergeCall(&recs[i], r)
		}
	}
	for k, q := range m.batch {
		if m.n < maxMergerOpen {
			if m.open == nil {
				m.open = make(map[intentKey]int)
			}
			add := min(len(q), maxMergerOpen-m.n)
			m.open[k] += add
			m.n += add
		}
		delete(m.batch, k)
	}
	if !merged {
		return recs
	}
	out := recs[:0]
	for j := range recs {
		if !m.drop[j] {
			out = append(out, recs[j])
		}
	}
	return out
}

// mergeCall returns the one record of a call whose intent is in and
// outcome out.
func mergeCall(in, out *AuditRecord) AuditRecord {
	r := *in
	r.Kind = ""
	r.Time = out.Time
	r.Status, r.Result, r.IsError = out.Status, out.Result, out.IsError
	if out.Code != "" {
		r.Code = out.Code
	}
	return r
}
