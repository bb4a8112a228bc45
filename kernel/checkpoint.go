// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Checkpoint anchors an audit log's head outside its store: how many
// records it had, the hash of the last and when. Kept where those who can
// write the store cannot, it lets [VerifyChainCheckpoint] detect records
// deleted from the end and records rewritten up to it, which the store's
// own head row, rewritten with them, cannot. With the chain's key it is
// signed (HMAC-SHA256), so that it cannot be forged without the key
// either.
type Checkpoint struct {
	// Version is [CheckpointVersion].
	Version int `json:"version"`
	// Records is the sequence number of the head: the log had records
	// 1..Records.
	Records int64 `json:"records"`
	// Head is the hash of record Records (zero when the log was empty).
	Head Hash `json:"head"`
	// Time is when the checkpoint was taken.
	Time time.Time `json:"time"`
	// MAC is the HMAC-SHA256 of the above with the chain's key, in hex;
	// empty for an unkeyed log.
	MAC string `json:"mac,omitempty"`
	// Sig is an Ed25519 signature of the same bytes, in base64, when the
	// checkpoint was signed with a private key ([Checkpoint.Sign]): anyone
	// with the public key can check it, and no one who holds only the
	// audit key (a replica, a database administrator) can forge it.
	Sig string `json:"sig,omitempty"`
}

// ErrCheckpointSignature reports a checkpoint whose Ed25519 signature is
// missing or does not verify.
var ErrCheckpointSignature = errors.New("kernel: the checkpoint's Ed25519 signature does not verify")

// Sign adds an Ed25519 signature made with priv.
func (cp *Checkpoint) Sign(priv ed25519.PrivateKey) {
	cp.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, cp.preimage()))
}

// VerifySignature checks the checkpoint's Ed25519 signature with pub; a
// checkpoint without one fails.
func (cp *Checkpoint) VerifySignature(pub ed25519.PublicKey) error {
	sig, err := base64.StdEncoding.DecodeString(cp.Sig)
	if cp.Sig == "" || err != nil || len(pub) != ed25519.PublicKeySize || !ed25519.Verify(pub, cp.preimage(), sig) {
		return ErrCheckpointSignature
	}
	return nil
}

// CheckpointVersion is the version of [Checkpoint] this package writes.
const CheckpointVersion = 1

// Checkpoint errors.
var (
	// ErrMalformedCheckpoint: the checkpoint could not be read.
	ErrMalformedCheckpoint = errors.New("kernel: malformed audit checkpoint")
)

// NewCheckpoint reads store's head and returns a checkpoint of it, signed
// with key when key is set.
func NewCheckpoint(ctx context.Context, store AuditStore, key []byte) (*Checkpoint, error) {
	seq, head, err := store.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("kernel: reading audit head: %w", err)
	}
	cp := &Checkpoint{Version: CheckpointVersion, Records: seq, Head: head, Time: time.Now().UTC().Truncate(time.Millisecond)}
	if len(key) > 0 {
		cp.MAC = hex.EncodeToString(cp.mac(key))
	}
	return cp, nil
}

// mac is the HMAC of the checkpoint's canonical encoding: a domain
// string, then version, records, head and time in Unix nanoseconds.
func (cp *Checkpoint) mac(key []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(cp.preimage())
	return h.Sum(nil)
}

// preimage is what a checkpoint's MAC and signature cover.
func (cp *Checkpoint) preimage() []byte {
	b := []byte("toolgate audit checkpoint\x00")
	b = binary.BigEndian.AppendUint64(b, uint64(cp.Version))
	b = binary.BigEndian.AppendUint64(b, uint64(cp.Records))
	b = append(b, cp.Head[:]...)
	return binary.BigEndian.AppendUint64(b, uint64(cp.Time.UnixNano()))
}

// maxCheckpointBytes bounds what ParseCheckpoint reads.
const maxCheckpointBytes = 4 << 10

// ParseCheckpoint reads a checkpoint as written by encoding/json from a
// [Checkpoint]: one object, no unknown members, at most 4 KiB. The
// signature is checked by [VerifyChainCheckpoint], which has the key.
func ParseCheckpoint(data []byte) (*Checkpoint, error) {
	if len(data) > maxCheckpointBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrMalformedCheckpoint, maxCheckpointBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cp Checkpoint
	if err := dec.Decode(&cp); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedCheckpoint, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the object", ErrMalformedCheckpoint)
	}
	switch {
	case cp.Version != CheckpointVersion:
		return nil, fmt.Errorf("%w: version %d, want %d", ErrMalformedCheckpoint, cp.Version, CheckpointVersion)
	case cp.Records < 0:
		return nil, fmt.Errorf("%w: negative record count", ErrMalformedCheckpoint)
	case cp.Time.IsZero():
		return nil, fmt.Errorf("%w: no time", ErrMalformedCheckpoint)
	case cp.MAC != "" && len(cp.MAC) != 2*sha256.Size:
		return nil, fmt.Errorf("%w: mac is %d hex digits, want %d", ErrMalformedCheckpoint, len(cp.MAC), 2*sha256.Size)
	}
	if cp.MAC != "" {
		if _, err := hex.DecodeString(cp.MAC); err != nil {
			return nil, fmt.Errorf("%w: mac is not hex", ErrMalformedCheckpoint)
		}
	}
	if cp.Sig != "" {
		if sig, err := base64.StdEncoding.DecodeString(cp.Sig); err != nil || len(sig) != ed25519.SignatureSize {
			return nil, fmt.Errorf("%w: sig is not a base64 Ed25519 signature", ErrMalformedCheckpoint)
		}
	}
	return &cp, nil
}

// maxCheckpointLines bounds the checkpoints ParseCheckpoints reads.
const maxCheckpointLines = 1 << 20

// ParseCheckpoints reads a file of checkpoints: one, as ParseCheckpoint
// reads it, or one a line as [AppendCheckpoint] writes them (blank lines
// skipped). Errors name the line. The records never decrease from one
// line to the next.
func ParseCheckpoints(data []byte) ([]*Checkpoint, error) {
	var cps []*Checkpoint
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(cps) >= maxCheckpointLines {
			return nil, fmt.Errorf("%w: more than %d checkpoints", ErrMalformedCheckpoint, maxCheckpointLines)
		}
		cp, err := ParseCheckpoint(line)
		if err != nil {
			if len(cps) == 0 && n == 0 {
				// Maybe one indented object over several lines.
				if one, err2 := ParseCheckpoint(data); err2 == nil {
					return []*Checkpoint{one}, nil
				}
			}
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if len(cps) > 0 && cp.Records < cps[len(cps)-1].Records {
			return nil, fmt.Errorf("line %d: %w: %d records after a checkpoint of %d: the log went backwards", n+1, ErrMalformedCheckpoint, cp.Records, cps[len(cps)-1].Records)
		}
		cps = append(cps, cp)
	}
	if len(cps) == 0 {
		return nil, fmt.Errorf("%w: no checkpoint", ErrMalformedCheckpoint)
	}
	return cps, nil
}

// AppendCheckpoint adds cp to the file at path as one JSON line and
// syncs it to disk, creating the file (mode 0600) when needed.
func AppendCheckpoint(path string, cp *Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("kernel: checkpoint sink: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("kernel: checkpoint sink: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("kernel: checkpoint sink: %w", err)
	}
	return f.Close()
}

// CheckpointLoop takes a checkpoint at every tick and hands it to write,
// and a last one when ctx ends; it returns then. A failed take or write is
// handed to report and the loop goes on (the next tick tries again).
type CheckpointLoop struct {
	// Take makes a checkpoint (NewCheckpoint, then Sign).
	Take func(context.Context) (*Checkpoint, error)
	// Write keeps it (AppendCheckpoint).
	Write func(*Checkpoint) error
	// Report receives failures; nil ignores them.
	Report func(error)
}

// Run runs the loop until ctx ends, ticking on tick.
func (l *CheckpointLoop) Run(ctx context.Context, tick <-chan time.Time) {
	once := func(ctx context.Context) {
		cp, err := l.Take(ctx)
		if err == nil {
			err = l.Write(cp)
		}
		if err != nil && l.Report != nil {
			l.Report(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			once(final)
			cancel()
			return
		case <-tick:
			once(ctx)
		}
	}
}
