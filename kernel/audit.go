// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Status is how a call ended, as the audit log records it.
type Status string

// Call statuses.
const (
	StatusOK               Status = "ok"
	StatusToolError        Status = "tool_error"
	StatusDenied           Status = "denied"
	StatusUnknownTool      Status = "unknown_tool"
	StatusInvalidJSON      Status = "invalid_json"
	StatusInvalidArguments Status = "invalid_arguments"
	StatusExecutorError    Status = "executor_error"
	StatusHookError        Status = "hook_error"
	StatusGrantError       Status = "grant_error"
	// StatusAuditError: the call did not run because its intent could
	// not be written (in a record of the empty kind), or it ran and its
	// outcome could not be written at once (in the answer the caller
	// got; the outcome record is retried).
	StatusAuditError Status = "audit_error"
)

// RecordKind says what an [AuditRecord] records.
type RecordKind string

// The record kinds. The empty kind is a call the kernel ran or refused.
const (
	// RecordModel is a model request through the gateway: Tool is the
	// model's public name, CallID the request's id, Result a summary
	// (provider, tokens, finish) and never the conversation.
	RecordModel RecordKind = "model"
	// RecordProposal is a call a model proposed for one of the client's
	// own tools, decided by the kernel but run, if allowed, by the
	// client: Status is ok when it was passed on, denied otherwise.
	RecordProposal RecordKind = "proposal"
	// RecordIntent is written, and committed, before the executor of an
	// allowed call runs: principal, tool, call id, parent, the decision,
	// the justification and the arguments (redacted, as a call record
	// holds them), and in Grant the id of the call's grant. No hash of
	// the unredacted arguments is kept: it would let a reader of the log
	// test guesses of a masked secret.
	RecordIntent RecordKind = "intent"
	// RecordOutcome is committed after the executor returned and before
	// the result goes back: principal, tool, call id and parent as in
	// its intent, the status, the decision and the result. An intent
	// with no outcome after it is a call whose process stopped before
	// its outcome was written; [VerifyChain] lists them apart from
	// tampering.
	RecordOutcome RecordKind = "outcome"
)

// AuditSync is how durable a committed audit record is: what
// [AuditLog.Commit] waits for, as the stores implement it.
type AuditSync string

// The sync modes of the audit stores.
const (
	// SyncNormal survives a crash of the process: the record is handed
	// to the operating system — with SQLite, written to the process's
	// journal beside the database (see [JournaledAuditStore]) and moved
	// into the database behind, so that a power loss or an operating
	// system crash may lose the last commits — or committed by the
	// database server with its own synchronous_commit (PostgreSQL; on by
	// default).
	SyncNormal AuditSync = "normal"
	// SyncFull survives a power loss too: SQLite commits every record in
	// a transaction with synchronous=FULL, syncing the WAL; PostgreSQL
	// synchronous_commit is set on whatever the server's default,
	// waiting for its WAL flush.
	SyncFull AuditSync = "full"
)

// AuditRecord is one entry of the audit log: one call and how it ended.
// Arguments, justification and result are stored redacted.
type AuditRecord struct {
	// Seq numbers records from 1 without gaps.
	Seq           int64           `json:"seq"`
	Time          time.Time       `json:"time"`
	Principal     string          `json:"principal"`
	Tool          string          `json:"tool"`
	CallID        string          `json:"call_id,omitempty"`
	Status        Status          `json:"status"`
	Effect        Effect          `json:"effect,omitempty"`
	Rule          string          `json:"rule,omitempty"`
	Code          Code            `json:"code,omitempty"`
	Reason        string          `json:"reason,omitempty"`
	Justification string          `json:"justification,omitempty"`
	Args          json.RawMessage `json:"args,omitempty"`
	Result        string          `json:"result,omitempty"`
	IsError       bool            `json:"is_error,omitempty"`
	// Kind says what the record is: empty for a call the kernel ran (or
	// refused), else one of the Record kinds.
	Kind RecordKind `json:"kind,omitempty"`
	// Parent is the CallID of the record this one belongs under: for a
	// call a model made through the gateway, the model request's.
	Parent string `json:"parent,omitempty"`
	// Grant is the id of the grant the call ran under, in an intent and
	// in the record of a call whose intent and outcome were written as
	// one (see [CallMerger]).
	Grant string `json:"grant,omitempty"`
	// Prev is the Hash of the record before (zero for the first).
	Prev Hash `json:"prev"`
	// Hash covers Prev and every field above.
	Hash Hash `json:"hash"`
}

// Hash is a SHA-256 (or HMAC-SHA256) chain hash.
type Hash [sha256.Size]byte

// MarshalText encodes h in hex.
func (h Hash) MarshalText() ([]byte, error) {
	const hexDigits = "0123456789abcdef"
	out := make([]byte, 2*len(h))
	for i, b := range h {
		out[2*i], out[2*i+1] = hexDigits[b>>4], hexDigits[b&0xf]
	}
	return out, nil
}

// UnmarshalText decodes hex.
func (h *Hash) UnmarshalText(b []byte) error {
	if len(b) != 2*len(h) {
		return fmt.Errorf("kernel: hash is %d hex digits, want %d", len(b), 2*len(h))
	}
	for i := range h {
		hi, lo := unhex(b[2*i]), unhex(b[2*i+1])
		if hi > 15 || lo > 15 {
			return fmt.Errorf("kernel: hash is not hex")
		}
		h[i] = hi<<4 | lo
	}
	return nil
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 255
}

// AuditStore persists the audit log. Implementations must be safe for
// concurrent use, though the kernel appends from one goroutine.
type AuditStore interface {
	// Append writes records, already numbered and chained, after the
	// existing ones, atomically, and records the last one as the head.
	Append(ctx context.Context, recs []AuditRecord) error
	// Head returns the Seq and Hash of the last record written through
	// Append (zero values when empty).
	Head(ctx context.Context) (seq int64, h Hash, err error)
	// Scan calls fn with every record in storage order. fn must not keep
	// the pointer or the record's Args, which may be reused.
	Scan(ctx context.Context, fn func(*AuditRecord) error) error
}

// SharedAuditStore is an [AuditStore] that several writers — processes
// on one SQLite file, replicas on one PostgreSQL database — append to.
// [AuditLog] uses AppendChained when the store has it, so that the chain
// is continued from the head as it is in the store, not as this process
// last saw it.
type SharedAuditStore interface {
	AuditStore
	// AppendChained appends recs as one transaction that excludes every
	// other writer: it reads the head inside the transaction, calls
	// chain with it, which numbers and hashes recs in place, then writes
	// them and records the last as the head. chain may be called again
	// if the transaction is retried; it is deterministic.
	AppendChained(ctx context.Context, recs []AuditRecord, chain func(headSeq int64, head Hash)) error
}

// JournaledAuditStore is a [SharedAuditStore] that keeps a journal of
// this process beside it, for [AuditLog] to commit to at audit.sync
// normal: a record is committed once it is written to the journal, with
// one write to the operating system and no sync (it survives a crash of
// the process, not a power loss), and the log moves journaled records
// into the store in batches behind the calls. Implementations must be
// safe for concurrent use; the log calls Journal from one goroutine at a
// time, and AppendJournaled and Recover from its writer.
type JournaledAuditStore interface {
	SharedAuditStore
	// Journaled reports whether the store keeps a journal: false when
	// every commit must be a transaction of the store (audit.sync full).
	Journaled() bool
	// Journal appends recs, neither numbered nor chained, to the
	// journal, numbered first, first+1, … there (numbers rise; gaps are
	// allowed), with one write. Once it returns nil they survive a
	// crash of the process. A failed write leaves none of recs in the
	// journal. With no records it writes nothing that is read back: it
	// tests that the journal can be written.
	Journal(first int64, recs []AuditRecord) error
	// AppendJournaled is AppendChained that also records, in the same
	// transaction, that the journal's records through number through are
	// in the store (0: recs holds none), so that they are never replayed;
	// their space in the journal may then be freed.
	AppendJournaled(ctx context.Context, recs []AuditRecord, through int64, chain func(headSeq int64, head Hash)) error
	// Recover moves into the store the records of the journals of
	// processes that stopped, each journal in its order, in
	// transactions that chain recs by calling chain (which numbers and
	// hashes recs in place from the head given, as AppendChained's
	// does), and removes those journals. A call whose intent and outcome
	// are in one transaction is written as one record, as a
	// [CallMerger] merges them. It returns how many journaled records
	// it moved.
	Recover(ctx context.Context, chain func(recs []AuditRecord, headSeq int64, head Hash)) (int, error)
}

// PendingAuditStore is an [AuditStore] that can hold committed records
// that are not in its chain yet: records in journals (see
// [JournaledAuditStore]). [VerifyChain] counts them, and pairs their
// intents and outcomes with the chain's.
type PendingAuditStore interface {
	// Pending calls fn with each record committed and not yet in the
	// store, in each journal's order. Their Seq, Prev and Hash are zero.
	// A journal whose end cannot be read (a write cut short by a crash,
	// a write under way, damage) is no error: it is described in notes.
	Pending(ctx context.Context, fn func(*AuditRecord) error) (notes []string, err error)
}

// chainHasher computes record hashes, keyed when the log has a key.
type chainHasher struct {
	h   hash.Hash
	buf []byte
	out []byte
}

func newChainHasher(key []byte) *chainHasher {
	if len(key) > 0 {
		return &chainHasher{h: hmac.New(sha256.New, key)}
	}
	return &chainHasher{h: sha256.New()}
}

// sum returns the hash of r over its canonical encoding: Prev, then each
// field length-prefixed in declaration order.
func (c *chainHasher) sum(r *AuditRecord) Hash {
	b := c.buf[:0]
	b = append(b, r.Prev[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(r.Seq))
	b = binary.BigEndian.AppendUint64(b, uint64(r.Time.UnixNano()))
	for _, s := range [...]string{r.Principal, r.Tool, r.CallID, string(r.Status), string(r.Effect), r.Rule, string(r.Code), r.Reason, r.Justification} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Args)))
	b = append(b, r.Args...)
	b = binary.AppendUvarint(b, uint64(len(r.Result)))
	b = append(b, r.Result...)
	if r.IsError {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	// Fields added later are hashed only when set, so that the records
	// written before them keep their hashes.
	if r.Kind != "" || r.Parent != "" || r.Grant != "" {
		for _, s := range [...]string{string(r.Kind), r.Parent} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	if r.Grant != "" {
		b = binary.AppendUvarint(b, uint64(len(r.Grant)))
		b = append(b, r.Grant...)
	}
	c.buf = b
	c.h.Reset()
	c.h.Write(b)
	c.out = c.h.Sum(c.out[:0])
	var out Hash
	copy(out[:], c.out)
	return out
}

// ErrAuditClosed is returned by [AuditLog.Append] after Close.
var ErrAuditClosed = errors.New("kernel: audit log closed")

// AuditConfig configures [NewAuditLog].
type AuditConfig struct {
	// Store persists records. Required.
	Store AuditStore
	// Key, when set, makes the chain an HMAC-SHA256 chain, so that
	// someone who can write the store but lacks the key cannot forge a
	// consistent chain. Verification needs the same key.
	Key []byte
	// MaxBatch bounds the records written in one Append of the store.
	// If zero, [DefaultAuditMaxBatch]; negative means no limit: whatever
	// is queued goes in one Append.
	MaxBatch int
	// MaxPending bounds records waiting to be written; Append blocks
	// beyond it. If zero, [DefaultAuditMaxPending]; negative means no
	// limit, and Append never blocks.
	MaxPending int
	// MaxArgsBytes bounds the arguments a record stores. Larger
	// arguments are replaced by a JSON object giving their size, their
	// SHA-256 and as much of their beginning as fits (see
	// [TruncatedArgs]), so that the chain still commits to the whole. If
	// zero, [DefaultAuditMaxArgsBytes]; negative means no limit.
	MaxArgsBytes int
}

// The defaults of [AuditConfig]'s limits, used when a field is zero.
const (
	DefaultAuditMaxBatch     = 1024
	DefaultAuditMaxPending   = 65536
	DefaultAuditMaxArgsBytes = 64 << 10
)

// TruncatedArgs is what an audit record stores in place of arguments
// longer than [AuditConfig.MaxArgsBytes], encoded as JSON: the length
// and SHA-256 of the whole (as redacted), and their first bytes as a
// string, cut on a character boundary so that the object stays within
// the limit (or 200 bytes, when the limit is smaller).
type TruncatedArgs struct {
	Truncated bool   `json:"$truncated"`
	Bytes     int    `json:"bytes"`
	SHA256    string `json:"sha256"`
	Head      string `json:"head"`
}

// truncateArgs returns the [TruncatedArgs] of args within limit bytes.
func truncateArgs(args []byte, limit int) []byte {
	sum := sha256.Sum256(args)
	t := TruncatedArgs{Truncated: true, Bytes: len(args), SHA256: hex.EncodeToString(sum[:])}
	empty, _ := json.Marshal(&t)
	budget := max(limit, 200) - len(empty)
	n := min(budget, len(args))
	for {
		for n > 0 && n < len(args) && !utf8.RuneStart(args[n]) {
			n--
		}
		t.Head = string(args[:n])
		out, err := json.Marshal(&t)
		if err == nil && (len(out) <= max(limit, 200) || n == 0) {
			return out
		}
		// Escapes made it longer than the bytes it holds.
		n /= 2
	}
}

// AuditLog appends records to a hash chain through a writer goroutine
// that batches them. Append only queues; Commit queues and waits for the
// record's batch to be in the store, so that concurrent callers share
// one transaction (group commit) — or, when the store keeps a journal
// ([JournaledAuditStore] at audit.sync normal), for the record to be in
// the journal, concurrent callers sharing one write, the writer moving
// the journal's records into the store behind; Flush waits for the queue
// to reach the store; Close flushes and stops the writer. Opening a log
// over a journaled store first replays the journals of processes that
// stopped. It is safe for concurrent use.
type AuditLog struct {
	store      AuditStore          // fixed at creation
	journal    JournaledAuditStore // non-nil: commits go to its journal
	jmax       int                 // with a journal: MaxPending, at most journalBacklog
	maxBatch   int
	maxPending int
	maxArgs    int           // negative: no limit
	done       chan struct{} // closed when the writer exits

	mu       sync.Mutex
	pending  []AuditRecord
	spare    []AuditRecord
	groups   []*commitGroup // groups[i]: the waiters of pending's chunk i, or nil
	spareGrp []*commitGroup
	slab     []byte        // where Append copies arguments; see keep
	nextSlab []byte        // the next slab, made by the writer outside the lock
	queued   int64         // records ever queued
	written  int64         // records ever written (or failed)
	progress chan struct{} // closed and replaced after each batch
	wake     chan struct{} // buffered 1: there is work
	closed   bool
	idle     bool          // the writer waits for wake
	writing  bool          // the writer or a committer is writing a batch; see lead
	retry    []AuditRecord // a committer's batch that failed, for the writer to retry
	err      error         // the store's error while it fails
	failed   atomic.Bool   // err != nil, readable without the lock
	slow     bool          // the last write took long enough to batch for

	// With a journal: records queued for it (jqueue) and the callers
	// waiting for its next write (jgroup); jwriting while a write is
	// under way; jnum the number last given; jerr the journal's error
	// while it fails; nums[i] the journal number of pending[i], 0 for a
	// record that could not be journaled.
	jqueue    []AuditRecord
	jspare    []AuditRecord
	jgroup    *commitGroup
	jwriting  bool
	jnum      int64
	jerr      error
	nums      []int64
	spareNums []int64

	// Writer state, owned by the writer goroutine.
	merger CallMerger // with a journal: pairs intents and outcomes across batches
	hasher *chainHasher
	seq    int64
	prev   Hash
}

// NewAuditLog opens a log over cfg.Store, continuing its chain from the
// store's head, and starts the writer.
func NewAuditLog(ctx context.Context, cfg *AuditConfig) (*AuditLog, error) {
	if cfg == nil || cfg.Store == nil {
		return nil, errors.New("kernel: audit log needs a store")
	}
	seq, head, err := cfg.Store.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("kernel: audit head: %w", err)
	}
	l := &AuditLog{
		store:      cfg.Store,
		maxBatch:   orDefault(cfg.MaxBatch, DefaultAuditMaxBatch),
		maxPending: orDefault(cfg.MaxPending, DefaultAuditMaxPending),
		maxArgs:    orDefault(cfg.MaxArgsBytes, DefaultAuditMaxArgsBytes),
		done:       make(chan struct{}),
		progress:   make(chan struct{}),
		wake:       make(chan struct{}, 1),
		hasher:     newChainHasher(cfg.Key),
		seq:        seq,
		prev:       head,
	}
	if js, ok := cfg.Store.(JournaledAuditStore); ok {
		// Records of processes that stopped first, so that the chain
		// holds them before this process's.
		if _, err := js.Recover(ctx, l.chainFrom); err != nil {
			return nil, fmt.Errorf("kernel: audit journal: %w", err)
		}
		if js.Journaled() {
			l.journal = js
			l.jmax = l.maxPending
			if l.jmax > journalBacklog {
				l.jmax = journalBacklog
			}
			go l.runJournal()
			return l, nil
		}
	}
	go l.run()
	return l, nil
}

// chainFrom numbers and hashes recs after the head given.
func (l *AuditLog) chainFrom(recs []AuditRecord, seq int64, head Hash) {
	l.seq, l.prev = seq, head
	l.chain(recs)
}

// commitGroup is what the callers of [AuditLog.Commit] whose records
// are in one chunk wait for: done is closed once the chunk was written,
// or once writing it failed, with err set before.
type commitGroup struct {
	done chan struct{}
	err  error
}

// argSlab is the size of the blocks queued records' arguments are copied
// into, so that a record costs no allocation of its own; arguments larger
// than a quarter of it get their own.
const argSlab = 32 << 10

// keep returns a copy of b in the current slab; l.mu is held. Earlier
// copies stay valid: a full slab is replaced, never reused, and each copy
// has its capacity cut to its length so that appending to it cannot reach
// the next.
func (l *AuditLog) keep(b []byte) []byte {
	if len(b) > argSlab/4 {
		return append([]byte(nil), b...)
	}
	if cap(l.slab)-len(l.slab) < len(b) {
		l.slab, l.nextSlab = l.nextSlab, nil
		if l.slab == nil {
			l.slab = make([]byte, 0, argSlab)
		}
	}
	start := len(l.slab)
	l.slab = append(l.slab, b...)
	return l.slab[start:len(l.slab):len(l.slab)]
}

// Err returns the store's error while the log cannot be written, nil
// once it can again. The kernel refuses to run calls meanwhile.
func (l *AuditLog) Err() error {
	if !l.failed.Load() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failure()
}

// failure is the store's error, else the journal's; l.mu is held.
func (l *AuditLog) failure() error {
	if l.err != nil {
		return l.err
	}
	return l.jerr
}

// Append queues a copy of rec, its Args included (cut to MaxArgsBytes;
// see [TruncatedArgs]), so the caller may
// reuse rec and its buffers once Append returns. Seq, Prev and Hash are
// assigned by the writer. It blocks while MaxPending records wait, until
// ctx is done. While the store fails it refuses the record with the
// store's error.
func (l *AuditLog) Append(ctx context.Context, rec *AuditRecord) error {
	if l.journal != nil {
		return l.commitJournal(ctx, rec, false, 0)
	}
	_, _, err := l.enqueue(ctx, rec, false)
	return err
}

// Commit is Append that waits until the record is in the store, as
// durable as the store's [AuditSync] makes it; records committed
// concurrently share the store's transactions. It returns the store's
// error if the attempt that carried the record failed: a record of kind
// [RecordIntent] is then not written at all but turned into a record of
// a call refused with [StatusAuditError], written once the store works
// again; any other record stays queued and is written then. While the
// store fails, an intent is refused at once, and any other record is
// queued and the error returned at once. When ctx is done first, the
// record may still be written.
//
// When nothing is being written and the store's last write was quick
// (an append in memory, not a database's commit), the caller writes the
// queue itself, on its own goroutine, rather than hand it to the writer's
// and wait for that to be scheduled: that write is not cancelled by ctx,
// so a store must bound its own writes (SQLite's busy timeout,
// PostgreSQL's statement deadline). Callers that arrive meanwhile wait,
// as above, for the next batch.
func (l *AuditLog) Commit(ctx context.Context, rec *AuditRecord) error {
	return l.commit(ctx, rec, 0)
}

// errCommitTimeout is commit's error when its timeout passed first.
var errCommitTimeout = errors.New("kernel: the audit log did not commit in time")

// commit is Commit waiting at most timeout, if positive; a timer costs
// less than a context of its own.
func (l *AuditLog) commit(ctx context.Context, rec *AuditRecord, timeout time.Duration) error {
	if l.journal != nil {
		return l.commitJournal(ctx, rec, true, timeout)
	}
	g, lead, err := l.enqueue(ctx, rec, true)
	if err != nil {
		return err
	}
	if lead != nil {
		return l.lead(lead)
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return errCommitTimeout
	}
}

// leadBatch is what a committer that leads writes: the queue it took,
// and the chunk its own record is in.
type leadBatch struct {
	batch  []AuditRecord
	groups []*commitGroup
	own    int
}

// enqueue queues a copy of rec. With wait, it returns the group of the
// chunk the record is in to wait for, or, when nothing is being written,
// the queue for the caller to write itself (see lead).
func (l *AuditLog) enqueue(ctx context.Context, rec *AuditRecord, wait bool) (*commitGroup, *leadBatch, error) {
	args := rec.Args
	if l.maxArgs >= 0 && len(args) > l.maxArgs {
		args = truncateArgs(args, l.maxArgs)
	}
	l.mu.Lock()
	for l.maxPending >= 0 && len(l.pending) >= l.maxPending && !l.closed && l.err == nil {
		ch := l.progress
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		l.mu.Lock()
	}
	if l.closed {
		l.mu.Unlock()
		return nil, nil, ErrAuditClosed
	}
	failed := l.err
	// While the store fails, an outcome still waits its turn (its call
	// ran; the record must not be lost), bounded by MaxPending; nothing
	// else is queued.
	if failed != nil && (!wait || rec.Kind == RecordIntent || (l.maxPending >= 0 && len(l.pending) >= l.maxPending)) {
		l.mu.Unlock()
		return nil, nil, failed
	}
	// A caller leads only for a store that writes fast: a slow store's
	// commit costs far more than the hand-off, and the writer gathers
	// more callers into each.
	lead := wait && failed == nil && !l.writing && !l.slow
	var g *commitGroup
	if wait && failed == nil && !lead {
		i := 0
		if l.maxBatch > 0 {
			i = len(l.pending) / l.maxBatch
		}
		for len(l.groups) <= i {
			l.groups = append(l.groups, nil)
		}
		if g = l.groups[i]; g == nil {
			g = &commitGroup{done: make(chan struct{})}
			l.groups[i] = g
		}
	}
	l.pending = append(l.pending, *rec)
	if len(args) > 0 {
		l.pending[len(l.pending)-1].Args = l.keep(args)
	}
	l.queued++
	if lead {
		// Nobody is writing: this caller writes the queue now, on its
		// own goroutine, rather than wait for the writer's to be run.
		l.writing = true
		lb := &leadBatch{batch: l.pending, groups: l.groups, own: 0}
		if l.maxBatch > 0 {
			lb.own = (len(l.pending) - 1) / l.maxBatch
		}
		l.pending, l.groups = l.spare[:0], l.spareGrp[:0]
		l.spare, l.spareGrp = nil, nil
		l.mu.Unlock()
		return nil, lb, nil
	}
	wake := l.idle
	l.idle = false
	l.mu.Unlock()
	if wake {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	if failed != nil {
		return nil, nil, failed
	}
	return g, nil, nil
}

// lead writes the queue a committer took: each chunk once, releasing its
// waiters. A chunk that fails, and those after it, go to the writer to be
// retried, their intents refused, and their waiters get the error. It
// returns the outcome of the leader's own chunk.
func (l *AuditLog) lead(lb *leadBatch) error {
	size := l.maxBatch
	if size <= 0 {
		size = len(lb.batch)
	}
	var own, failed error
	failedAt := -1
	for i, start := 0, 0; start < len(lb.batch); i, start = i+1, start+size {
		chunk := lb.batch[start:min(start+size, len(lb.batch))]
		err := failed
		if err == nil {
			err = l.attempt(chunk, 0, len(chunk))
		}
		if i < len(lb.groups) && lb.groups[i] != nil {
			lb.groups[i].err = err
			close(lb.groups[i].done)
		}
		if i == lb.own {
			own = err
		}
		if err != nil {
			refuseIntents(chunk)
			if failed == nil {
				failed, failedAt = err, start
			}
		}
	}
	l.mu.Lock()
	if failedAt >= 0 {
		l.retry = append(l.retry, lb.batch[failedAt:]...)
	}
	l.writing = false
	wake := len(l.pending) > 0 || len(l.retry) > 0 || l.closed
	clear(lb.batch)
	clear(lb.groups)
	if l.spare == nil {
		l.spare = lb.batch[:0]
	}
	if l.spareGrp == nil {
		l.spareGrp = lb.groups[:0]
	}
	l.mu.Unlock()
	if wake {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return own
}

// Flush waits until every record queued before the call is in the store.
// While the store fails it returns the error at once; the records stay
// queued.
func (l *AuditLog) Flush(ctx context.Context) error {
	l.mu.Lock()
	target := l.queued
	for l.written < target {
		if l.err != nil {
			err := l.err
			l.mu.Unlock()
			return err
		}
		ch := l.progress
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-l.done:
			l.mu.Lock()
			if l.written < target {
				l.mu.Unlock()
				return ErrAuditClosed
			}
			continue
		}
		l.mu.Lock()
	}
	err := l.err
	l.mu.Unlock()
	return err
}

// Close flushes the queue and stops the writer. Later Appends fail with
// ErrAuditClosed. It does not close the store.
func (l *AuditLog) Close(ctx context.Context) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	select {
	case <-l.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return l.Err()
}

// run is the writer: it exits when the log is closed and drained.
func (l *AuditLog) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for l.writing || (len(l.pending) == 0 && len(l.retry) == 0) {
			if l.closed && !l.writing && len(l.pending) == 0 && len(l.retry) == 0 {
				l.mu.Unlock()
				return
			}
			l.idle = true
			l.mu.Unlock()
			<-l.wake
			l.mu.Lock()
		}
		l.idle = false
		l.writing = true
		if len(l.retry) > 0 {
			// A committer's batch that failed; nobody waits for it.
			retry := l.retry
			l.retry = nil
			l.mu.Unlock()
			l.writeChunk(retry, 0, len(retry), nil)
			l.mu.Lock()
			l.writing = false
			l.mu.Unlock()
			continue
		}
		// Callers are waiting for this batch: let those already runnable
		// join it, so that a commit is shared by more, while they come.
		// A store that writes fast gains nothing from the wait.
		for i, n := 0, -1; i < 4 && l.slow && len(l.groups) > 0 && n < len(l.pending) && (l.maxBatch < 0 || len(l.pending) < l.maxBatch); i++ {
			n = len(l.pending)
			l.mu.Unlock()
			runtime.Gosched()
			l.mu.Lock()
		}
		batch, groups := l.pending, l.groups
		l.pending, l.groups = l.spare[:0], l.spareGrp[:0]
		l.spare, l.spareGrp = nil, nil
		needSlab := l.nextSlab == nil
		l.mu.Unlock()
		// Appenders take the next slab ready-made, so that allocating
		// and zeroing 32 KiB does not happen under the lock they share.
		var slab []byte
		if needSlab {
			slab = make([]byte, 0, argSlab)
		}

		// Write what was queued in chunks of MaxBatch; the queue keeps
		// filling meanwhile, so batches grow with load.
		// Commit numbered the chunks the same way.
		size := l.maxBatch
		if size <= 0 {
			size = len(batch)
		}
		for i, start := 0, 0; start < len(batch); i, start = i+1, start+size {
			var g *commitGroup
			if i < len(groups) {
				g = groups[i]
			}
			chunk := batch[start:min(start+size, len(batch))]
			l.writeChunk(chunk, 0, len(chunk), g)
		}
		clear(batch)
		clear(groups)
		l.mu.Lock()
		l.writing = false
		if l.spare == nil {
			l.spare = batch[:0]
		}
		if l.spareGrp == nil {
			l.spareGrp = groups[:0]
		}
		if l.nextSlab == nil {
			l.nextSlab = slab
		}
		l.mu.Unlock()
	}
}

// journalRecoverEvery is how often a log with a journal looks for the
// journals of processes that stopped, to replay them.
const journalRecoverEvery = 30 * time.Second

// journalLinger is how long the writer of a log with a journal lets
// journaled records gather before it writes them to the store. Nobody
// waits for that write (the journal holds the records, and verify and
// list read it), so the linger costs no caller anything: it only makes
// each transaction carry more records, and lets more intents meet their
// outcomes and become one record. At 1 ms, MCP calls at 2,800/s made
// about three calls a transaction and the store's writes were an eighth
// of the server's CPU; at 10 ms the server's CPU per call fell by about
// a tenth (BENCHMARKS.md).
const journalLinger = 10 * time.Millisecond

// journalBacklog bounds the records a log with a journal keeps queued for
// the store, below MaxPending: they are safe in the journal already, and
// when the store is slower than the calls, a longer queue only costs
// memory and the garbage collector's time; callers wait instead.
const journalBacklog = 4096

// maxJournalRounds bounds the journal writes one committer makes for
// callers that queued while it wrote, before it hands the rest to the
// writer goroutine (which may be busy with the store: a later committer
// usually takes them first).
const maxJournalRounds = 64

// commitJournal is Append (wait false) and commit for a log whose store
// keeps a journal. A committer finding no journal write under way writes
// the queue itself, on its own goroutine, with one write; callers that
// queue meanwhile share the next write, which the committer also makes
// (up to maxJournalRounds), so that concurrent commits share writes. The
// writer goroutine moves journaled records into the store in batches.
func (l *AuditLog) commitJournal(ctx context.Context, rec *AuditRecord, wait bool, timeout time.Duration) error {
	args := rec.Args
	if l.maxArgs >= 0 && len(args) > l.maxArgs {
		args = truncateArgs(args, l.maxArgs)
	}
	l.mu.Lock()
	for l.jmax >= 0 && len(l.jqueue)+len(l.pending) >= l.jmax && !l.closed && l.failure() == nil {
		ch := l.progress
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		l.mu.Lock()
	}
	if l.closed {
		l.mu.Unlock()
		return ErrAuditClosed
	}
	// While the store or the journal fails, an intent is refused at
	// once, and so is a record nobody waits for; an outcome (its call
	// ran) is still written to the journal if it can be.
	if failed := l.failure(); failed != nil && (!wait || rec.Kind == RecordIntent || (l.maxPending >= 0 && len(l.jqueue)+len(l.pending) >= l.maxPending)) {
		l.mu.Unlock()
		return failed
	}
	l.jqueue = append(l.jqueue, *rec)
	if len(args) > 0 {
		l.jqueue[len(l.jqueue)-1].Args = l.keep(args)
	}
	l.queued++
	if !wait {
		wake := !l.jwriting && l.idle
		if wake {
			l.idle = false
		}
		l.mu.Unlock()
		if wake {
			l.signal()
		}
		return nil
	}
	if !l.jwriting {
		l.jwriting = true
		l.mu.Unlock()
		return l.journalLead()
	}
	g := l.jgroup
	if g == nil {
		g = &commitGroup{done: make(chan struct{})}
		l.jgroup = g
	}
	l.mu.Unlock()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return errCommitTimeout
	}
}

// signal wakes the writer goroutine.
func (l *AuditLog) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// journalLead writes the journal queue, for the party that set jwriting:
// one write, then the records queued meanwhile, up to maxJournalRounds
// writes, each releasing its waiters; the rest is left to the writer. The
// records written go to the store's queue with their journal numbers.
// A write that fails fails the log: its intents become records of calls
// refused, and every record of it is queued for the store unjournaled.
// It returns the outcome of the first write, which holds the caller's
// record.
func (l *AuditLog) journalLead() error {
	var own error
	for round := 0; ; round++ {
		l.mu.Lock()
		batch, g := l.jqueue, l.jgroup
		if len(batch) == 0 || round == maxJournalRounds {
			l.jwriting = false
			wake := len(batch) > 0 && l.idle
			if wake {
				l.idle = false
			}
			l.mu.Unlock()
			if wake {
				l.signal()
			}
			return own
		}
		l.jqueue, l.jgroup = l.jspare[:0], nil
		l.jspare = nil
		first := l.jnum + 1
		l.jnum += int64(len(batch))
		l.mu.Unlock()

		err := l.journal.Journal(first, batch)

		l.mu.Lock()
		if err != nil {
			l.jerr = fmt.Errorf("kernel: audit journal: %w", err)
			refuseIntents(batch)
		} else {
			l.jerr = nil
		}
		l.failed.Store(l.failure() != nil)
		l.pending = append(l.pending, batch...)
		for i := range batch {
			n := int64(0)
			if err == nil {
				n = first + int64(i)
			}
			l.nums = append(l.nums, n)
		}
		clear(batch)
		if l.jspare == nil {
			l.jspare = batch[:0]
		}
		werr := l.jerr
		wake := l.idle
		l.idle = false
		l.mu.Unlock()
		if g != nil {
			g.err = werr
			close(g.done)
		}
		if round == 0 {
			own = werr
		}
		if wake {
			l.signal()
		}
	}
}

// runJournal is the writer of a log with a journal: it journals what was
// queued with nobody waiting, moves journaled records into the store in
// batches (a call whose intent and outcome are in one batch as one
// record; see [CallMerger]), tests a failing journal with back-off, and
// replays the journals of processes that stopped every
// journalRecoverEvery. It exits when the log is closed and drained.
func (l *AuditLog) runJournal() {
	defer close(l.done)
	tick := time.NewTicker(journalRecoverEvery)
	defer tick.Stop()
	backoff := auditRetryMin
	for {
		l.mu.Lock()
		for !(len(l.jqueue) > 0 && !l.jwriting) && len(l.pending) == 0 {
			if l.closed && !l.jwriting && len(l.jqueue) == 0 {
				l.mu.Unlock()
				return
			}
			var probe <-chan time.Time
			if l.jerr != nil && !l.jwriting && !l.closed {
				probe = time.After(backoff)
			}
			l.idle = true
			l.mu.Unlock()
			select {
			case <-l.wake:
			case <-tick.C:
				l.journal.Recover(context.Background(), l.chainFrom) // tried again at the next tick
			case <-probe:
				l.probeJournal(&backoff)
			}
			l.mu.Lock()
		}
		l.idle = false
		if len(l.jqueue) > 0 && !l.jwriting {
			// Records nobody waits for, or callers a committer left.
			l.jwriting = true
			l.mu.Unlock()
			l.journalLead()
			continue
		}
		if !l.closed && (l.maxBatch < 0 || len(l.pending) < l.maxBatch) {
			// The records are safe in the journal and nobody waits for
			// this transaction: let more gather, so that its fixed cost
			// is shared by more of them.
			l.mu.Unlock()
			time.Sleep(journalLinger)
			l.mu.Lock()
		}
		batch, nums := l.pending, l.nums
		l.pending, l.nums = l.spare[:0], l.spareNums[:0]
		l.spare, l.spareNums = nil, nil
		needSlab := l.nextSlab == nil
		l.mu.Unlock()
		var slab []byte
		if needSlab {
			slab = make([]byte, 0, argSlab)
		}
		size := l.maxBatch
		if size <= 0 {
			size = len(batch)
		}
		for start := 0; start < len(batch); start += size {
			end := min(start+size, len(batch))
			// An intent and its outcome that are both here become one
			// record: the journal holds both, and the chain's cost is
			// per record.
			chunk := l.merger.Merge(batch[start:end])
			l.writeChunk(chunk, slices.Max(nums[start:end]), end-start, nil)
		}
		clear(batch)
		l.mu.Lock()
		if l.spare == nil {
			l.spare, l.spareNums = batch[:0], nums[:0]
		}
		if l.nextSlab == nil {
			l.nextSlab = slab
		}
		l.mu.Unlock()
	}
}

// probeJournal tests a failing journal with a write of no records, and
// clears the log's journal error when it succeeds.
func (l *AuditLog) probeJournal(backoff *time.Duration) {
	l.mu.Lock()
	if l.jwriting || l.jerr == nil {
		l.mu.Unlock()
		return
	}
	l.jwriting = true
	first := l.jnum + 1
	l.mu.Unlock()
	err := l.journal.Journal(first, nil)
	l.mu.Lock()
	l.jwriting = false
	if err == nil {
		l.jerr = nil
		*backoff = auditRetryMin
	} else {
		*backoff = min(2**backoff, auditRetryMax)
	}
	l.failed.Store(l.failure() != nil)
	l.mu.Unlock()
}

// slowWrite is how long a write of the store must take for the writer to
// let waiting callers join the next batch first: a database's commit
// takes longer, an append in memory far less.
const slowWrite = 50 * time.Microsecond

// The writer's back-off between attempts while the store fails.
const (
	auditRetryMin = 50 * time.Millisecond
	auditRetryMax = 5 * time.Second
)

// attempt writes chunk to the store once, chained from the head, and
// records the outcome: the log's error state, the count written (n: the
// records queued that chunk holds, two for a merged call) and progress.
// Only the party that set writing calls it.
func (l *AuditLog) attempt(chunk []AuditRecord, through int64, n int) error {
	start := time.Now()
	seq0, prev0 := l.seq, l.prev
	var err error
	if l.journal != nil {
		err = l.journal.AppendJournaled(context.Background(), chunk, through, func(seq int64, head Hash) {
			l.seq, l.prev = seq, head
			l.chain(chunk)
		})
	} else if shared, ok := l.store.(SharedAuditStore); ok {
		err = shared.AppendChained(context.Background(), chunk, func(seq int64, head Hash) {
			l.seq, l.prev = seq, head
			l.chain(chunk)
		})
	} else {
		l.chain(chunk)
		err = l.store.Append(context.Background(), chunk)
	}
	if err != nil {
		l.seq, l.prev = seq0, prev0
	}
	took := time.Since(start)
	l.mu.Lock()
	l.slow = took >= slowWrite
	if err == nil {
		l.err = nil
		l.written += int64(n)
	} else {
		l.err = fmt.Errorf("kernel: audit store: %w", err)
	}
	l.failed.Store(l.failure() != nil)
	close(l.progress)
	l.progress = make(chan struct{})
	werr := l.err
	l.mu.Unlock()
	return werr
}

// writeChunk writes chunk to the store and releases g's waiters after
// the first attempt. While the store fails, the log is failed — Err
// returns the error, Append refuses new records, so the kernel refuses
// calls — and the chunk is kept and retried with back-off: records
// already queued are not dropped, and once the store answers again the
// chunk is written, chained from the head, and the log works again. An
// intent whose first attempt failed is not written as one: its caller
// was told, and its call does not run, so it becomes the record of a
// refused call. After Close, one more attempt is made; if it fails the
// chunk is dropped and Close returns the error.
func (l *AuditLog) writeChunk(chunk []AuditRecord, through int64, n int, g *commitGroup) {
	backoff := auditRetryMin
	closed := l.isClosed() // before the attempt: one is made after Close
	err := l.attempt(chunk, through, n)
	if g != nil {
		g.err = err
		close(g.done)
		if err != nil {
			refuseIntents(chunk)
		}
	}
	for err != nil {
		if closed {
			l.mu.Lock()
			l.written += int64(n)
			close(l.progress)
			l.progress = make(chan struct{})
			l.mu.Unlock()
			return
		}
		select {
		case <-time.After(backoff):
		case <-l.wake: // Close
		}
		backoff = min(2*backoff, auditRetryMax)
		closed = l.isClosed()
		err = l.attempt(chunk, through, n)
	}
}

func (l *AuditLog) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// refuseIntents turns the intents of a chunk that could not be written
// into records of calls refused for that reason.
func refuseIntents(chunk []AuditRecord) {
	for i := range chunk {
		if r := &chunk[i]; r.Kind == RecordIntent {
			r.Kind, r.Status, r.Result, r.IsError = "", StatusAuditError, "", true
			r.Reason = "not run: its intent could not be written to the audit log"
		}
	}
}

// chain numbers and hashes recs after l.seq and l.prev; the writer
// goroutine owns them.
func (l *AuditLog) chain(recs []AuditRecord) {
	for i := range recs {
		r := &recs[i]
		l.seq++
		r.Seq = l.seq
		r.Prev = l.prev
		r.Hash = l.hasher.sum(r)
		l.prev = r.Hash
	}
}

// MemoryAuditStore is an [AuditStore] in memory, for tests and for
// kernels that ship their log elsewhere.
type MemoryAuditStore struct {
	mu      sync.Mutex
	recs    []AuditRecord
	headSeq int64
	head    Hash
}

// NewMemoryAuditStore returns an empty store.
func NewMemoryAuditStore() *MemoryAuditStore { return &MemoryAuditStore{} }

// Append implements [AuditStore].
func (m *MemoryAuditStore) Append(_ context.Context, recs []AuditRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, recs...)
	if n := len(recs); n > 0 {
		m.headSeq, m.head = recs[n-1].Seq, recs[n-1].Hash
	}
	return nil
}

// Head implements [AuditStore].
func (m *MemoryAuditStore) Head(context.Context) (int64, Hash, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.headSeq, m.head, nil
}

// Scan implements [AuditStore].
func (m *MemoryAuditStore) Scan(ctx context.Context, fn func(*AuditRecord) error) error {
	m.mu.Lock()
	recs := append([]AuditRecord(nil), m.recs...)
	m.mu.Unlock()
	for i := range recs {
		if err := fn(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Records returns a copy of the stored records, for tests that tamper
// with them.
func (m *MemoryAuditStore) Records() []AuditRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]AuditRecord(nil), m.recs...)
}

// SetRecords replaces the stored records without touching the head, as
// someone editing the store by hand would.
func (m *MemoryAuditStore) SetRecords(recs []AuditRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append([]AuditRecord(nil), recs...)
}
