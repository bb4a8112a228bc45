// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// KeyPrefix starts every key [NewKey] makes, so that a leaked one is
// recognisable (secret scanners key on prefixes).
const KeyPrefix = "tg-"

// Errors of a [KeyStore].
var (
	// ErrNoKey is a key the store does not hold.
	ErrNoKey = errors.New("kernel: no such key")
	// ErrKeyExists is a key id or hash already in the store.
	ErrKeyExists = errors.New("kernel: key exists")
)

// Key is an API key made at run time for a principal, with what it may
// reach and how much. The secret itself is never kept: only its SHA-256.
type Key struct {
	// ID names the key in logs, spend and the admin API: "key_" and 16
	// hex digits, random, holding nothing of the secret.
	ID string `json:"id"`
	// Principal is who the key's requests act for.
	Principal string `json:"principal"`
	// Hash is the SHA-256 of the secret.
	Hash [sha256.Size]byte `json:"-"`
	// Models are the model names the key may use, as path.Match globs
	// ("gpt*"); empty allows every model.
	Models []string `json:"models,omitempty"`
	// RPM bounds requests per minute; zero is no bound.
	RPM int `json:"rpm,omitempty"`
	// MaxParallel bounds requests in flight at once; zero is no bound.
	MaxParallel int `json:"max_parallel,omitempty"`
	// TPM bounds tokens (input and output) per minute; zero is no bound.
	TPM int64 `json:"tpm,omitempty"`
	// Budget bounds what the key spends per period.
	Budget Budget `json:"budget,omitzero"`
	// Expires, when set, is when the key stops working.
	Expires time.Time `json:"expires,omitzero"`
	// Created is when the key was made; Revoked, when set, when it was
	// revoked.
	Created time.Time `json:"created"`
	Revoked time.Time `json:"revoked,omitzero"`
	// Metadata is the operator's, kept with the key.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Budget is what may be spent per period: USD (priced by the config's
// pricing) and tokens (input and output); zero is no bound. Period zero
// is for ever; otherwise windows of Period from the Unix epoch (a day
// from midnight UTC).
type Budget struct {
	USD    float64       `json:"usd,omitempty"`
	Tokens int64         `json:"tokens,omitempty"`
	Period time.Duration `json:"period,omitempty"`
}

// NewKey makes a key for principal: the secret to show once (KeyPrefix
// and 32 random bytes in base64url) and the Key to store, ID and Hash
// set, Created now.
func NewKey(principal string) (secret string, k *Key) {
	var raw [32]byte
	rand.Read(raw[:])
	secret = KeyPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	var id [8]byte
	rand.Read(id[:])
	return secret, &Key{ID: "key_" + hex.EncodeToString(id[:]), Principal: principal, Hash: sha256.Sum256([]byte(secret)), Created: time.Now().UTC()}
}

// ParseSpan reads a span as operators write one: 30d, 12h, 90m.
func ParseSpan(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n > 0 && fmt.Sprint(n) == days {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a span such as 30d or 12h", s)
	}
	return d, nil
}

// FormatSpan writes a span as ParseSpan reads it: 1d, 30d, 12h; "" for
// zero (for ever).
func FormatSpan(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}

// ParseExpiry reads when a key expires: a lifetime from now (30d, 12h)
// or an RFC 3339 time.
func ParseExpiry(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	d, err := ParseSpan(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a lifetime (30d, 12h) or an RFC 3339 time", s)
	}
	return now.Add(d), nil
}

// HashKey is the hash a store keeps of secret.
func HashKey(secret string) [sha256.Size]byte { return sha256.Sum256([]byte(secret)) }

// Check reports why k cannot be used at now, nil when it can.
func (k *Key) Check(now time.Time) error {
	switch {
	case !k.Revoked.IsZero() && !now.Before(k.Revoked):
		return fmt.Errorf("key %s was revoked", k.ID)
	case !k.Expires.IsZero() && !now.Before(k.Expires):
		return fmt.Errorf("key %s expired", k.ID)
	}
	return nil
}

// AllowsModel reports whether k may use model.
func (k *Key) AllowsModel(model string) bool {
	if len(k.Models) == 0 {
		return true
	}
	for _, g := range k.Models {
		if ok, _ := path.Match(g, model); ok {
			return true
		}
	}
	return false
}

// Validate checks the fields an operator sets.
func (k *Key) Validate() error {
	switch {
	case k.Principal == "":
		return errors.New("a key needs a principal")
	case k.RPM < 0 || k.MaxParallel < 0 || k.TPM < 0:
		return errors.New("rpm, tpm and max_parallel are zero (no bound) or positive")
	case k.Budget.USD < 0 || k.Budget.Tokens < 0 || k.Budget.Period < 0:
		return errors.New("a budget and its period are zero (none, for ever) or positive")
	}
	for _, g := range k.Models {
		if _, err := path.Match(g, ""); err != nil || strings.TrimSpace(g) == "" {
			return fmt.Errorf("model pattern %q is not a glob", g)
		}
	}
	return nil
}

// KeyStore keeps keys. Implementations are safe for concurrent use and
// shared by every process of a deployment (SQLite beside the audit log,
// PostgreSQL for replicas), so that a key made or revoked by one is seen
// by all. A store that cannot be reached returns an error, never a
// missing key: callers refuse the request (fail closed).
type KeyStore interface {
	// CreateKey adds k; ErrKeyExists when its ID or hash is taken.
	CreateKey(ctx context.Context, k *Key) error
	// KeyByHash returns the key whose secret hashes to h (revoked and
	// expired ones included: the caller checks), or ErrNoKey.
	KeyByHash(ctx context.Context, h [sha256.Size]byte) (*Key, error)
	// KeyByID returns a key by its ID, or ErrNoKey.
	KeyByID(ctx context.Context, id string) (*Key, error)
	// Keys returns every key, oldest first.
	Keys(ctx context.Context) ([]Key, error)
	// RevokeKey marks the key revoked at at; ErrNoKey when there is none.
	// Revoking a revoked key keeps its first time.
	RevokeKey(ctx context.Context, id string, at time.Time) error
}

// MemoryKeyStore is a [KeyStore] in memory, for tests and one process.
type MemoryKeyStore struct {
	mu     sync.Mutex
	byID   map[string]*Key
	byHash map[[sha256.Size]byte]*Key
}

// NewMemoryKeyStore returns an empty store.
func NewMemoryKeyStore() *MemoryKeyStore {
	return &MemoryKeyStore{byID: map[string]*Key{}, byHash: map[[sha256.Size]byte]*Key{}}
}

// CreateKey implements [KeyStore].
func (m *MemoryKeyStore) CreateKey(_ context.Context, k *Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID[k.ID] != nil || m.byHash[k.Hash] != nil {
		return ErrKeyExists
	}
	c := k.clone()
	m.byID[k.ID], m.byHash[k.Hash] = c, c
	return nil
}

// KeyByHash implements [KeyStore].
func (m *MemoryKeyStore) KeyByHash(_ context.Context, h [sha256.Size]byte) (*Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := m.byHash[h]; k != nil {
		return k.clone(), nil
	}
	return nil, ErrNoKey
}

// KeyByID implements [KeyStore].
func (m *MemoryKeyStore) KeyByID(_ context.Context, id string) (*Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := m.byID[id]; k != nil {
		return k.clone(), nil
	}
	return nil, ErrNoKey
}

// Keys implements [KeyStore].
func (m *MemoryKeyStore) Keys(context.Context) ([]Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Key, 0, len(m.byID))
	for _, k := range m.byID {
		out = append(out, *k.clone())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// RevokeKey implements [KeyStore].
func (m *MemoryKeyStore) RevokeKey(_ context.Context, id string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.byID[id]
	if k == nil {
		return ErrNoKey
	}
	if k.Revoked.IsZero() {
		k.Revoked = at.UTC()
	}
	return nil
}

func (k *Key) clone() *Key {
	c := *k
	c.Models = slices.Clone(k.Models)
	if k.Metadata != nil {
		c.Metadata = make(map[string]string, len(k.Metadata))
		for a, b := range k.Metadata {
			c.Metadata[a] = b
		}
	}
	return &c
}
