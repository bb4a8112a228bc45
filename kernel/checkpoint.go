// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	b := []byte("toolgate audit checkpoint\x00")
	b = binary.BigEndian.AppendUint64(b, uint64(cp.Version))
	b = binary.BigEndian.AppendUint64(b, uint64(cp.Records))
	b = append(b, cp.Head[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(cp.Time.UnixNano()))
	h := hmac.New(sha256.New, key)
	h.Write(b)
	return h.Sum(nil)
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
	return &cp, nil
}
