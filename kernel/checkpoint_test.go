// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// chainOf appends recs' contents through a fresh log: a consistent chain,
// as someone rewriting the log without a key (or with it) would make.
func chainOf(t *testing.T, recs []AuditRecord, key []byte) *MemoryAuditStore {
	t.Helper()
	ctx := context.Background()
	store := NewMemoryAuditStore()
	l, err := NewAuditLog(ctx, &AuditConfig{Store: store, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := l.Append(ctx, &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return store
}

func TestCheckpoint(t *testing.T) {
	ctx := context.Background()
	key := []byte("the audit key, thirty-two bytes!")
	tests := []struct {
		name    string
		key     []byte // the log's
		cpKey   []byte // the checkpoint's
		tamper  func(recs []AuditRecord) []AuditRecord
		extra   int // records appended after the checkpoint
		want    []string
		chainOK bool // VerifyChain alone finds nothing
	}{
		{"intact", key, key, nil, 0, nil, true},
		{"grown-since", key, key, nil, 3, nil, true},
		{"intact-unkeyed", nil, nil, nil, 0, nil, true},
		{"truncated-head-rewritten", key, key, func(r []AuditRecord) []AuditRecord { return r[:7] }, 0, []string{"8 truncated"}, true},
		{"truncated-unkeyed", nil, nil, func(r []AuditRecord) []AuditRecord { return r[:3] }, 0, []string{"4 truncated"}, true},
		{"rewritten-unkeyed", nil, nil, func(r []AuditRecord) []AuditRecord {
			r[4].Result = "forged"
			return r
		}, 0, []string{"10 edited"}, true},
		{"rewritten-past-checkpoint", nil, nil, func(r []AuditRecord) []AuditRecord {
			r = append(r[:9], AuditRecord{Principal: "eve", Tool: "get"}, AuditRecord{Principal: "eve", Tool: "put"})
			return r
		}, 0, []string{"10 edited"}, true},
		{"forged-checkpoint", key, []byte("another key, also thirty-two b!!"), nil, 0, []string{"10 checkpoint"}, true},
		{"unsigned-checkpoint", key, nil, nil, 0, []string{"10 checkpoint"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := writeLog(t, 10, tt.key)
			cp, err := NewCheckpoint(ctx, store, tt.cpKey)
			if err != nil {
				t.Fatal(err)
			}
			// Through its text form, as the file is read back.
			b, err := json.Marshal(cp)
			if err != nil {
				t.Fatal(err)
			}
			if cp, err = ParseCheckpoint(b); err != nil {
				t.Fatal(err)
			}
			recs := store.Records()
			if tt.tamper != nil {
				recs = tt.tamper(recs)
			}
			for range tt.extra {
				recs = append(recs, AuditRecord{Principal: "ada", Tool: "get"})
			}
			if tt.tamper != nil || tt.extra > 0 {
				store = chainOf(t, recs, tt.key)
			}
			if rep, err := VerifyChain(ctx, store, tt.key); err != nil || rep.OK() != tt.chainOK {
				t.Fatalf("VerifyChain: %v %v", err, rep)
			}
			rep, err := VerifyChainCheckpoint(ctx, store, tt.key, cp)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range rep.Problems {
				got = append(got, fmt.Sprintf("%d %s", p.Seq, p.Kind))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%s", diff, rep)
			}
		})
	}
}

func TestParseCheckpoint(t *testing.T) {
	const good = `{"version":1,"records":3,"head":"` + "0000000000000000000000000000000000000000000000000000000000000000" + `","time":"2026-11-23T10:00:00Z"}`
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"good", good, true},
		{"unknown-member", `{"version":1,"records":3,"time":"2026-11-23T10:00:00Z","extra":1}`, false},
		{"version", `{"version":2,"records":3,"time":"2026-11-23T10:00:00Z"}`, false},
		{"negative", `{"version":1,"records":-1,"time":"2026-11-23T10:00:00Z"}`, false},
		{"no-time", `{"version":1,"records":3}`, false},
		{"short-head", `{"version":1,"records":3,"head":"00","time":"2026-11-23T10:00:00Z"}`, false},
		{"bad-mac", `{"version":1,"records":3,"time":"2026-11-23T10:00:00Z","mac":"zz"}`, false},
		{"trailing", good + `{}`, false},
		{"not-json", `checkpoint`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCheckpoint([]byte(tt.in))
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrMalformedCheckpoint)) {
				t.Errorf("err = %v, want ok %v or ErrMalformedCheckpoint", err, tt.ok)
			}
		})
	}
}

func FuzzParseCheckpoint(f *testing.F) {
	f.Add([]byte(`{"version":1,"records":3,"head":"0000000000000000000000000000000000000000000000000000000000000000","time":"2026-11-23T10:00:00Z","mac":"00"}`))
	f.Add([]byte(`{}`))
	key := []byte("the audit key, thirty-two bytes!")
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, err := ParseCheckpoint(data)
		if err != nil {
			if !errors.Is(err, ErrMalformedCheckpoint) {
				t.Fatalf("error %v does not match ErrMalformedCheckpoint", err)
			}
			return
		}
		// Whatever parses can be checked against a log without panicking.
		if _, err := VerifyChainCheckpoint(context.Background(), NewMemoryAuditStore(), key, cp); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCheckpointEd25519 signs checkpoints with a private key: the
// signature survives the text form, a changed field or another key fails
// it, and truncation behind a signed checkpoint is found by the chain
// check as with the HMAC.
func TestCheckpointEd25519(t *testing.T) {
	ctx := context.Background()
	pub, priv, _ := ed25519.GenerateKey(nil)
	otherPub, _, _ := ed25519.GenerateKey(nil)
	store := writeLog(t, 10, nil)
	cp, err := NewCheckpoint(ctx, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	cp.Sign(priv)
	b, _ := json.Marshal(cp)
	if cp, err = ParseCheckpoint(b); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		edit   func(c Checkpoint) Checkpoint
		pub    ed25519.PublicKey
		wantOK bool
	}{
		{"intact", func(c Checkpoint) Checkpoint { return c }, pub, true},
		{"other-key", func(c Checkpoint) Checkpoint { return c }, otherPub, false},
		{"records-lowered", func(c Checkpoint) Checkpoint { c.Records = 7; return c }, pub, false},
		{"head-changed", func(c Checkpoint) Checkpoint { c.Head[0] ^= 1; return c }, pub, false},
		{"time-changed", func(c Checkpoint) Checkpoint { c.Time = c.Time.Add(time.Second); return c }, pub, false},
		{"unsigned", func(c Checkpoint) Checkpoint { c.Sig = ""; return c }, pub, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.edit(*cp)
			err := c.VerifySignature(tt.pub)
			if (err == nil) != tt.wantOK || err != nil && !errors.Is(err, ErrCheckpointSignature) {
				t.Errorf("VerifySignature: %v", err)
			}
		})
	}
	// Truncated behind the signed checkpoint.
	trunc := chainOf(t, store.Records()[:6], nil)
	rep, err := VerifyChainCheckpoint(ctx, trunc, nil, cp)
	if err != nil || rep.OK() || rep.Problems[0].Kind != TamperTruncated {
		t.Errorf("truncation behind a signed checkpoint: %v %v", err, rep)
	}
}

// TestCheckpointFile appends checkpoints to a file and reads them back;
// a file whose records go backwards, or with a bad line, is refused
// naming the line.
func TestCheckpointFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "checkpoints.jsonl")
	store := writeLog(t, 3, nil)
	for range 3 {
		cp, err := NewCheckpoint(ctx, store, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := AppendCheckpoint(path, cp); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	cps, err := ParseCheckpoints(data)
	if err != nil || len(cps) != 3 || cps[2].Records != 3 {
		t.Fatalf("%d checkpoints, %v", len(cps), err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	back := lines[2] + "\n" + strings.Replace(lines[0], `"records":3`, `"records":2`, 1) + "\n"
	if _, err := ParseCheckpoints([]byte(back)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("backwards: %v", err)
	}
	if _, err := ParseCheckpoints([]byte(lines[0] + "\n{\"version\":1}\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info.Mode())
	}
}

// TestCheckpointLoop takes one checkpoint a tick and a last one at the
// end, going on after a failure.
func TestCheckpointLoop(t *testing.T) {
	tick := make(chan time.Time)
	var taken, written int
	var reported []error
	l := &CheckpointLoop{
		Take: func(context.Context) (*Checkpoint, error) {
			taken++
			if taken == 2 {
				return nil, errors.New("store down")
			}
			return &Checkpoint{Version: 1, Records: int64(taken)}, nil
		},
		Write:  func(*Checkpoint) error { written++; return nil },
		Report: func(err error) { reported = append(reported, err) },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx, tick); close(done) }()
	for range 3 {
		tick <- time.Now()
	}
	cancel()
	<-done
	if taken != 4 || written != 3 || len(reported) != 1 {
		t.Errorf("taken %d written %d reported %v", taken, written, reported)
	}
}
