// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// The journal of a process: at audit.sync normal, [kernel.AuditLog]
// commits a record by appending it to a file of its process beside the
// database, with no fsync — on Linux a copy into a shared mapping of the
// file (see mmapFile), elsewhere one write(2) — and moves the records
// into the database in batches behind it. The file is named
//
//	<db>.journal.<pid>-<random>.<segment>
//
// and each segment is held under an exclusive flock(2) while its process
// lives, so that another process can tell a dead process's journal (the
// lock is free) and replay it. A journal is a sequence of frames:
//
//	length   uint32, little endian: the payload's length
//	checksum uint32, little endian: CRC-32C of the payload
//	payload  the record (see appendJournalRecord); empty: padding
//
// A frame cut short by a crash, or damaged, ends what is read of the
// file: the writer never appends after one (a write that fails is cut
// back), so it can only be the tail. Zeros to the end of the file (a
// mapped segment's allocated, unwritten rest) are its end.

// journalSegmentBytes is the size past which a journal starts a new
// segment, so that a process under constant load, whose journal is never
// wholly in the database, frees its journal a segment at a time.
const journalSegmentBytes = 4 << 20

// maxJournalFrame bounds a frame's payload as a reader takes it: a
// larger length is damage, not a record.
const maxJournalFrame = 1 << 30

// journalFrameHeader is the length and checksum before each payload.
const journalFrameHeader = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// journalFile is what the journal writes: an *os.File, or in tests a
// file that fails as a full disk does.
type journalFile interface {
	Write(p []byte) (int, error)
	Truncate(size int64) error
	Close() error
}

// journal is the journal of this process for one store.
type journal struct {
	prefix string // fixed: "<db>.journal."
	id     string // fixed: "<pid>-<random>"
	// create makes and locks a new segment file; tests replace it.
	create func(name string) (journalFile, error)
	// segBytes is the size past which a segment is followed by a new
	// one: journalSegmentBytes, smaller in tests.
	segBytes int64

	mu      sync.Mutex
	segs    []*segment // oldest first; the last is written
	size    int64      // bytes of whole frames in the last segment
	torn    bool       // a write failed part way: cut back to size first
	last    int64      // the number of the last record written
	applied int64      // records through this number are in the database
	nseg    int        // segments made
	buf     []byte
	closed  bool
}

type segment struct {
	f    journalFile
	name string
	last int64 // the number of the last record written to it
}

func newJournal(dbPath string) *journal {
	var r [6]byte
	rand.Read(r[:])
	return &journal{
		prefix:   dbPath + ".journal.",
		id:       strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(r[:]),
		create:   createSegment,
		segBytes: journalSegmentBytes,
	}
}

// createSegment makes the segment file name, locked, without a moment in
// which a recovering process could find it unlocked: it is made and
// locked under a temporary name that recovery does not read, then
// renamed.
//
// On Linux the segment's first journalSegmentBytes are allocated and
// mapped (see mmapFile): a full disk fails here, not at a store.
func createSegment(name string) (journalFile, error) {
	return createSegmentAlloc(name, journalSegmentBytes, nil)
}

// createSegmentAlloc is createSegment allocating prealloc bytes with
// alloc (nil: fallocate(2)).
func createSegmentAlloc(name string, prealloc int64, alloc func(fd int, size int64) error) (journalFile, error) {
	dir, base := filepath.Split(name)
	tmp := filepath.Join(dir, ".tmp-"+base)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	jf, err := mapSegment(f, prealloc, alloc)
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, name); err != nil {
		jf.Close()
		os.Remove(tmp)
		return nil, err
	}
	return jf, nil
}

// write appends recs, numbered first, first+1, …, in one write. With no
// records it writes a padding frame: a test that the journal can be
// written. A write that fails leaves the journal as it was (it is cut
// back, now or before the next write).
func (j *journal) write(first int64, recs []kernel.AuditRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return errors.New("audit: journal closed")
	}
	if j.torn {
		if err := j.segs[len(j.segs)-1].f.Truncate(j.size); err != nil {
			return fmt.Errorf("audit: journal: cutting back a failed write: %w", err)
		}
		j.torn = false
	}
	if len(j.segs) == 0 || j.size >= j.segBytes {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	b := j.buf[:0]
	if len(recs) == 0 {
		b = append(b, make([]byte, journalFrameHeader)...)
		binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(nil, castagnoli))
	}
	for i := range recs {
		start := len(b)
		b = append(b, make([]byte, journalFrameHeader)...)
		b = appendJournalRecord(b, first+int64(i), &recs[i])
		payload := b[start+journalFrameHeader:]
		binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
		binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, castagnoli))
	}
	if cap(b) <= 1<<20 {
		j.buf = b
	} else {
		j.buf = nil
	}
	seg := j.segs[len(j.segs)-1]
	n, err := seg.f.Write(b)
	if err != nil {
		if n > 0 {
			// Part of it reached the file: cut it off, so that nothing
			// is ever appended after a torn frame.
			j.torn = seg.f.Truncate(j.size) != nil
		}
		return fmt.Errorf("audit: journal %s: %w", seg.name, err)
	}
	j.size += int64(len(b))
	if len(recs) > 0 {
		j.last = first + int64(len(recs)) - 1
		seg.last = j.last
	}
	return nil
}

// rotate starts a new segment; j.mu is held.
func (j *journal) rotate() error {
	name := fmt.Sprintf("%s%s.%06d", j.prefix, j.id, j.nseg+1)
	f, err := j.create(name)
	if err != nil {
		return fmt.Errorf("audit: journal: %w", err)
	}
	j.nseg++
	j.segs = append(j.segs, &segment{f: f, name: name})
	j.size = 0
	j.freeLocked()
	return nil
}

// markApplied records that the records through n are in the database,
// and removes the segments wholly in it but the one being written.
func (j *journal) markApplied(n int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.applied = max(j.applied, n)
	j.freeLocked()
}

func (j *journal) freeLocked() {
	k := 0
	for k < len(j.segs)-1 && j.segs[k].last <= j.applied {
		s := j.segs[k]
		os.Remove(s.name)
		s.f.Close()
		k++
	}
	if k > 0 {
		j.segs = slices.Delete(j.segs, 0, k)
	}
}

// close closes the journal's files, and removes them when every record
// in them is in the database; it reports whether it did.
func (j *journal) close() (removed bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return false
	}
	j.closed = true
	removed = j.applied >= j.last && !j.torn
	for _, s := range j.segs {
		if removed {
			os.Remove(s.name)
		}
		s.f.Close()
	}
	j.segs = nil
	return removed
}

// journalName is a journal segment's name split: the journal's id and
// the segment's number.
type journalName struct {
	path string
	id   string
	seg  int
}

// journalFiles lists the journal segments of the database at dbPath,
// grouped by journal, each journal's in order.
func journalFiles(dbPath string) (map[string][]journalName, []string, error) {
	prefix := dbPath + ".journal."
	matches, err := filepath.Glob(globEscape(prefix) + "*")
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string][]journalName)
	var ids []string
	for _, m := range matches {
		rest := strings.TrimPrefix(m, prefix)
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		seg, err := strconv.Atoi(rest[dot+1:])
		if err != nil || seg < 1 {
			continue
		}
		id := rest[:dot]
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], journalName{path: m, id: id, seg: seg})
	}
	for _, id := range ids {
		slices.SortFunc(byID[id], func(a, b journalName) int { return a.seg - b.seg })
	}
	slices.Sort(ids)
	return byID, ids, nil
}

// globEscape escapes the characters filepath.Match treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// appendJournalRecord appends the payload of a record: its number in the
// journal, its time, then each field length-prefixed, the error flag,
// and the grant length-prefixed when there is one. Seq, Prev and Hash
// are not written: the record is chained when it reaches the database.
func appendJournalRecord(b []byte, n int64, r *kernel.AuditRecord) []byte {
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendVarint(b, r.Time.UnixNano())
	for _, s := range [...]string{r.Principal, r.Tool, r.CallID, string(r.Status), string(r.Effect), r.Rule, string(r.Code),
		r.Reason, r.Justification, string(r.Args), r.Result, string(r.Kind), r.Parent} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	if r.IsError {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	// Fields added later follow, written only when set, so that a record
	// without them is written as before.
	if r.Grant != "" {
		b = binary.AppendUvarint(b, uint64(len(r.Grant)))
		b = append(b, r.Grant...)
	}
	return b
}

// JournalError says where a journal stops being readable: the frame at
// Offset, after the record numbered After, is cut short or damaged.
type JournalError struct {
	Offset int64
	After  int64
	Detail string
}

func (e *JournalError) Error() string {
	return fmt.Sprintf("unreadable from byte %d (after record %d): %s", e.Offset, e.After, e.Detail)
}

// readJournal calls fn with each record of a journal segment, in order,
// with its number. Its first error ends the reading and is returned; a
// frame that cannot be read ends it with a *JournalError. fn's record is
// valid only during the call. Numbers must rise (after last, the number
// of the previous segment's last record).
func readJournal(data []byte, last int64, fn func(n int64, r *kernel.AuditRecord) error) (int64, error) {
	var r kernel.AuditRecord
	zeros := zeroTail(data)
	off := 0
	for off < len(data) {
		bad := func(format string, args ...any) error {
			return &JournalError{Offset: int64(off), After: last, Detail: fmt.Sprintf(format, args...)}
		}
		if off >= zeros {
			// The allocated, never written rest of a mapped segment
			// (see mmapFile), or a padding frame last: the end, not a
			// torn frame.
			return last, nil
		}
		if len(data)-off < journalFrameHeader {
			return last, bad("%d bytes, not a whole frame header (a write cut short)", len(data)-off)
		}
		size := binary.LittleEndian.Uint32(data[off:])
		sum := binary.LittleEndian.Uint32(data[off+4:])
		if size > maxJournalFrame || int64(size) > int64(len(data)-off-journalFrameHeader) {
			return last, bad("a frame of %d bytes, %d left (a write cut short)", size, len(data)-off-journalFrameHeader)
		}
		payload := data[off+journalFrameHeader : off+journalFrameHeader+int(size)]
		if crc32.Checksum(payload, castagnoli) != sum {
			return last, bad("checksum mismatch")
		}
		if len(payload) > 0 {
			n, err := decodeJournalRecord(payload, &r)
			if err != nil {
				return last, bad("%v", err)
			}
			if n <= last {
				return last, bad("record number %d after %d", n, last)
			}
			last = n
			if err := fn(n, &r); err != nil {
				return last, err
			}
		}
		off += journalFrameHeader + int(size)
	}
	return last, nil
}

// zeroTail returns where the zero bytes that end data begin.
func zeroTail(data []byte) int {
	n := len(data)
	for n >= 8 && binary.LittleEndian.Uint64(data[n-8:]) == 0 {
		n -= 8
	}
	for n > 0 && data[n-1] == 0 {
		n--
	}
	return n
}

// decodeJournalRecord decodes a payload written by appendJournalRecord.
func decodeJournalRecord(p []byte, r *kernel.AuditRecord) (int64, error) {
	n, w := binary.Uvarint(p)
	if w <= 0 || n == 0 || n > 1<<62 {
		return 0, errors.New("bad record number")
	}
	p = p[w:]
	ns, w := binary.Varint(p)
	if w <= 0 {
		return 0, errors.New("bad time")
	}
	p = p[w:]
	var f [13]string
	for i := range f {
		l, w := binary.Uvarint(p)
		if w <= 0 || l > uint64(len(p)-w) {
			return 0, fmt.Errorf("field %d cut short", i+1)
		}
		f[i] = string(p[w : w+int(l)])
		p = p[w+int(l):]
	}
	if len(p) < 1 || p[0] > 1 {
		return 0, errors.New("bad end of record")
	}
	isErr := p[0] == 1
	var grant string
	if p = p[1:]; len(p) > 0 {
		l, w := binary.Uvarint(p)
		if w <= 0 || l == 0 || l != uint64(len(p)-w) {
			return 0, errors.New("bad grant (the field after the error flag)")
		}
		grant = string(p[w:])
	}
	*r = kernel.AuditRecord{
		Time: time.Unix(0, ns).UTC(), Principal: f[0], Tool: f[1], CallID: f[2], Status: kernel.Status(f[3]),
		Effect: kernel.Effect(f[4]), Rule: f[5], Code: kernel.Code(f[6]), Reason: f[7], Justification: f[8],
		Result: f[10], Kind: kernel.RecordKind(f[11]), Parent: f[12], IsError: isErr, Grant: grant,
	}
	if f[9] != "" {
		r.Args = []byte(f[9])
	}
	return int64(n), nil
}
