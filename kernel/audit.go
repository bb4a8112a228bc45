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
// that batches them. Append only queues; Flush waits for the queue to
// reach the store; Close flushes and stops the writer. It is safe for
// concurrent use.
type AuditLog struct {
	store      AuditStore // fixed at creation
	maxBatch   int
	maxPending int
	maxArgs    int           // negative: no limit
	done       chan struct{} // closed when the writer exits

	mu       sync.Mutex
	pending  []AuditRecord
	spare    []AuditRecord
	slab     []byte        // where Append copies arguments; see keep
	nextSlab []byte        // the next slab, made by the writer outside the lock
	queued   int64         // records ever queued
	written  int64         // records ever written (or failed)
	progress chan struct{} // closed and replaced after each batch
	wake     chan struct{} // buffered 1: there is work
	closed   bool
	idle     bool        // the writer waits for wake
	err      error       // the store's error while it fails
	failed   atomic.Bool // err != nil, readable without the lock

	// Writer state, owned by the writer goroutine.
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
	go l.run()
	return l, nil
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
	return l.err
}

// Append queues a copy of rec, its Args included (cut to MaxArgsBytes;
// see [TruncatedArgs]), so the caller may
// reuse rec and its buffers once Append returns. Seq, Prev and Hash are
// assigned by the writer. It blocks while MaxPending records wait, until
// ctx is done.
func (l *AuditLog) Append(ctx context.Context, rec *AuditRecord) error {
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
			return ctx.Err()
		}
		l.mu.Lock()
	}
	if l.closed {
		l.mu.Unlock()
		return ErrAuditClosed
	}
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return err
	}
	l.pending = append(l.pending, *rec)
	if len(args) > 0 {
		l.pending[len(l.pending)-1].Args = l.keep(args)
	}
	l.queued++
	wake := l.idle
	l.idle = false
	l.mu.Unlock()
	if wake {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return nil
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
		for len(l.pending) == 0 {
			if l.closed {
				l.mu.Unlock()
				return
			}
			l.idle = true
			l.mu.Unlock()
			<-l.wake
			l.mu.Lock()
		}
		batch := l.pending
		l.pending = l.spare[:0]
		l.spare = nil
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
		size := l.maxBatch
		if size < 0 {
			size = len(batch)
		}
		for start := 0; start < len(batch); start += size {
			l.writeChunk(batch[start:min(start+size, len(batch))])
		}
		clear(batch)
		l.mu.Lock()
		if l.spare == nil {
			l.spare = batch[:0]
		}
		if l.nextSlab == nil {
			l.nextSlab = slab
		}
		l.mu.Unlock()
	}
}

// The writer's back-off between attempts while the store fails.
const (
	auditRetryMin = 50 * time.Millisecond
	auditRetryMax = 5 * time.Second
)

// writeChunk writes chunk to the store. While the store fails, the log
// is failed — Err returns the error, Append refuses new records, so the
// kernel refuses calls — and the chunk is kept and retried with back-off:
// records already queued are not dropped, and once the store answers
// again the chunk is written, chained from the head, and the log works
// again. After Close, one more attempt is made; if it fails the chunk
// is dropped and Close returns the error.
func (l *AuditLog) writeChunk(chunk []AuditRecord) {
	seq0, prev0 := l.seq, l.prev
	backoff := auditRetryMin
	for {
		l.seq, l.prev = seq0, prev0
		var err error
		if shared, ok := l.store.(SharedAuditStore); ok {
			err = shared.AppendChained(context.Background(), chunk, func(seq int64, head Hash) {
				l.seq, l.prev = seq, head
				l.chain(chunk)
			})
		} else {
			l.chain(chunk)
			err = l.store.Append(context.Background(), chunk)
		}
		l.mu.Lock()
		giveUp := err != nil && l.closed
		if err == nil {
			l.err = nil
			l.failed.Store(false)
		} else {
			l.err = fmt.Errorf("kernel: audit store: %w", err)
			l.failed.Store(true)
		}
		if err == nil || giveUp {
			l.written += int64(len(chunk))
		}
		close(l.progress)
		l.progress = make(chan struct{})
		l.mu.Unlock()
		if err == nil || giveUp {
			return
		}
		select {
		case <-time.After(backoff):
		case <-l.wake: // Close
		}
		backoff = min(2*backoff, auditRetryMax)
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
