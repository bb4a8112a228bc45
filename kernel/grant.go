// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Grant errors, in the order [Grants.Verify] checks them. Each is its own
// condition; all match ErrGrant with errors.Is.
var (
	ErrGrant           = errors.New("kernel: grant rejected")
	ErrMalformedGrant  = fmt.Errorf("%w: malformed token", ErrGrant)
	ErrRevoked         = fmt.Errorf("%w: token revoked", ErrGrant)
	ErrReplayed        = fmt.Errorf("%w: token already used", ErrGrant)
	ErrExpired         = fmt.Errorf("%w: token expired", ErrGrant)
	ErrSignature       = fmt.Errorf("%w: bad signature", ErrGrant)
	ErrWrongPrincipal  = fmt.Errorf("%w: token issued to another principal", ErrGrant)
	ErrWrongCapability = fmt.Errorf("%w: token issued for another tool", ErrGrant)
	ErrWrongArguments  = fmt.Errorf("%w: token issued for other arguments", ErrGrant)
)

// GrantKeyEnv is the environment variable [NewGrants] reads the signing
// key from when the config has none: at least 32 bytes, as text or
// base64.
const GrantKeyEnv = "TOOLGATE_GRANT_KEY"

// Revocations records revoked and used grant ids. Implementations must be
// safe for concurrent use; a shared implementation (a database, Redis)
// lets every replica see the same revocations.
type Revocations interface {
	// Revoke marks id revoked until until, after which the token has
	// expired anyway and the entry may be dropped.
	Revoke(ctx context.Context, id string, until time.Time) error
	// Revoked reports whether id is revoked.
	Revoked(ctx context.Context, id string) (bool, error)
	// Use marks id used until until and reports whether this was its
	// first use.
	Use(ctx context.Context, id string, until time.Time) (first bool, err error)
}

// GrantConfig configures [NewGrants].
type GrantConfig struct {
	// Key signs tokens; replicas that share it verify each other's
	// tokens. If empty, the GrantKeyEnv variable; if that is unset, a
	// random key, good for this process only.
	Key []byte
	// TTL is how long a token is valid. If zero, [DefaultGrantTTL]. A
	// token that never expires is not offered: a negative TTL is an
	// error.
	TTL time.Duration
	// Revocations stores revoked and used ids. If nil, in memory.
	Revocations Revocations
}

// DefaultGrantTTL is [GrantConfig.TTL] when it is zero.
const DefaultGrantTTL = time.Minute

// ErrInvalidGrantConfig reports a [GrantConfig] that [NewGrants] cannot
// use.
var ErrInvalidGrantConfig = errors.New("kernel: invalid grant config")

// Grants issues and verifies per-call tokens: HMAC-SHA256 over a
// canonical encoding of principal, capability, the SHA-256 of the exact
// argument bytes, an expiry and a random id. It is safe for concurrent
// use.
type Grants struct {
	key       []byte
	ttl       time.Duration
	rev       Revocations
	macs      sync.Pool
	idPrefix  [4]byte
	idCounter atomic.Uint64
}

// Grant is the decoded content of a token.
type Grant struct {
	ID         string
	Principal  string
	Capability string
	ArgsHash   [sha256.Size]byte
	Expires    time.Time
}

// NewGrants returns a grant issuer and verifier for cfg; nil means the
// defaults.
func NewGrants(cfg *GrantConfig) (*Grants, error) {
	var c GrantConfig
	if cfg != nil {
		c = *cfg
	}
	key := c.Key
	if len(key) == 0 {
		if env := os.Getenv(GrantKeyEnv); env != "" {
			key = []byte(env)
			if d, err := base64.StdEncoding.DecodeString(env); err == nil && len(d) >= 32 {
				key = d
			}
		}
	}
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("kernel: grant key: %w", err)
		}
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("%w: grant key is %d bytes; it needs at least 32", ErrInvalidGrantConfig, len(key))
	}
	if c.TTL < 0 {
		return nil, fmt.Errorf("%w: negative TTL %s", ErrInvalidGrantConfig, c.TTL)
	}
	g := &Grants{key: append([]byte(nil), key...), ttl: orDefault(c.TTL, DefaultGrantTTL), rev: c.Revocations}
	if g.rev == nil {
		g.rev = NewMemoryRevocations()
	}
	g.macs.New = func() any { return &macState{h: hmac.New(sha256.New, g.key), sum: make([]byte, 0, sha256.Size)} }
	var start [8]byte
	if _, err := rand.Read(g.idPrefix[:]); err != nil {
		return nil, fmt.Errorf("kernel: grant ids: %w", err)
	}
	if _, err := rand.Read(start[:]); err != nil {
		return nil, fmt.Errorf("kernel: grant ids: %w", err)
	}
	g.idCounter.Store(binary.BigEndian.Uint64(start[:]) >> 1)
	return g, nil
}

const grantVersion = 1

// encode appends the canonical encoding of g: a version byte, then
// length-prefixed id, principal and capability, the argument hash and the
// expiry in Unix nanoseconds.
func (g *Grant) encode(dst []byte) []byte {
	dst = append(dst, grantVersion)
	for _, s := range [...]string{g.ID, g.Principal, g.Capability} {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	dst = append(dst, g.ArgsHash[:]...)
	return binary.BigEndian.AppendUint64(dst, uint64(g.Expires.UnixNano()))
}

func decodeGrant(b []byte) (Grant, bool) {
	var g Grant
	if len(b) < 1 || b[0] != grantVersion {
		return g, false
	}
	b = b[1:]
	var fields [3]string
	for i := range fields {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) || k != uvarintLen(n) {
			return g, false
		}
		fields[i] = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	if len(b) != sha256.Size+8 {
		return g, false
	}
	g.ID, g.Principal, g.Capability = fields[0], fields[1], fields[2]
	copy(g.ArgsHash[:], b)
	g.Expires = time.Unix(0, int64(binary.BigEndian.Uint64(b[sha256.Size:])))
	return g, true
}

// uvarintLen is the length of n's shortest uvarint, the only one encode
// writes.
func uvarintLen(n uint64) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutUvarint(buf[:], n)
}

// macState is a pooled HMAC with buffers for its input and sum, so that
// signing does not make the caller's arrays escape through the hash.Hash
// interface.
type macState struct {
	h   hash.Hash
	in  []byte
	sum []byte
}

func (gs *Grants) sign(dst, payload []byte) []byte {
	m := gs.macs.Get().(*macState)
	m.h.Reset()
	m.in = append(m.in[:0], payload...)
	m.h.Write(m.in)
	m.sum = m.h.Sum(m.sum[:0])
	dst = append(dst, m.sum...)
	gs.macs.Put(m)
	return dst
}

var b64 = base64.RawURLEncoding

// Issue returns a token that lets principal call capability with exactly
// args until the TTL runs out.
func (gs *Grants) Issue(principal, capability string, args []byte) string {
	return string(gs.issue(nil, principal, capability, sha256.Sum256(args)))
}

func (gs *Grants) issue(dst []byte, principal, capability string, argsHash [sha256.Size]byte) []byte {
	var buf [256]byte
	payload, mac := gs.issueRaw(buf[:0], principal, capability, &argsHash, time.Now())
	return encodeToken(dst, payload, mac[:])
}

// issueRaw appends a grant's canonical payload to buf and returns it with
// its MAC, without the base64 text form. The grant expires the TTL after
// now, which the caller passes so that a call reads the clock once.
func (gs *Grants) issueRaw(buf []byte, principal, capability string, argsHash *[sha256.Size]byte, now time.Time) (payload []byte, mac [sha256.Size]byte) {
	// Ids need to be unique, not secret (the MAC protects the token): a
	// random per-issuer prefix and a counter avoid a getrandom call per
	// grant.
	var id [12]byte
	copy(id[:4], gs.idPrefix[:])
	binary.BigEndian.PutUint64(id[4:], gs.idCounter.Add(1))
	var idText [16]byte
	b64.Encode(idText[:], id[:])
	g := Grant{ID: string(idText[:]), Principal: principal, Capability: capability, ArgsHash: *argsHash, Expires: now.Add(gs.ttl)}
	payload = g.encode(buf)
	gs.sign(mac[:0], payload)
	return payload, mac
}

func encodeToken(dst, payload, mac []byte) []byte {
	n, m := b64.EncodedLen(len(payload)), b64.EncodedLen(len(mac))
	start := len(dst)
	dst = append(dst, make([]byte, n+1+m)...)
	b64.Encode(dst[start:], payload)
	dst[start+n] = '.'
	b64.Encode(dst[start+n+1:], mac)
	return dst
}

// checkRaw verifies a payload and MAC the kernel issued a moment ago in
// this process: signature, principal, capability and arguments. Nobody
// else has seen the grant yet, so it cannot have been revoked or used,
// and the checks need no allocation.
func (gs *Grants) checkRaw(payload []byte, mac *[sha256.Size]byte, principal, capability string, argsHash *[sha256.Size]byte) error {
	var want [sha256.Size]byte
	gs.sign(want[:0], payload)
	if !hmac.Equal(want[:], mac[:]) {
		return ErrSignature
	}
	b := payload[1:]
	var fields [3][]byte
	for i := range fields {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return ErrMalformedGrant
		}
		fields[i] = b[k : k+int(n)]
		b = b[k+int(n):]
	}
	if len(b) < sha256.Size {
		return ErrMalformedGrant
	}
	switch {
	case string(fields[1]) != principal:
		return ErrWrongPrincipal
	case string(fields[2]) != capability:
		return ErrWrongCapability
	case !hmac.Equal(b[:sha256.Size], argsHash[:]):
		return ErrWrongArguments
	}
	return nil
}

// Verify checks token for a call by principal to capability with args:
// revocation, expiry, signature, principal, capability and arguments, in
// that order, each failing with its own error. It returns the grant.
func (gs *Grants) Verify(ctx context.Context, token, principal, capability string, args []byte) (Grant, error) {
	return gs.verify(ctx, []byte(token), principal, capability, sha256.Sum256(args), false)
}

// Redeem is [Grants.Verify] for a token that may be used once: after the
// checks pass the token is marked used, and presenting it again fails
// with ErrReplayed.
func (gs *Grants) Redeem(ctx context.Context, token, principal, capability string, args []byte) (Grant, error) {
	return gs.verify(ctx, []byte(token), principal, capability, sha256.Sum256(args), true)
}

// Revoke revokes token; later verification fails with ErrRevoked.
func (gs *Grants) Revoke(ctx context.Context, token string) error {
	g, _, ok := splitToken([]byte(token))
	if !ok {
		return ErrMalformedGrant
	}
	return gs.rev.Revoke(ctx, g.ID, g.Expires)
}

// splitToken parses a token strictly: exactly two segments, payload and
// MAC, in the base64url alphabet with no padding, and a payload in
// canonical base64 that is exactly one grant with nothing after it.
// Any other spelling of the same bytes is malformed, so a signed payload
// has one token and nothing can ride along with it. ([Grants.verify]
// checks the MAC segment's length and bits.)
func splitToken(tok []byte) (g Grant, signed []byte, ok bool) {
	dot := bytes.IndexByte(tok, '.')
	if dot < 0 || bytes.IndexByte(tok[dot+1:], '.') >= 0 || !canonicalB64(tok[dot+1:]) || !canonicalB64(tok[:dot]) {
		return g, nil, false
	}
	var stack [512]byte
	buf := stack[:]
	if b64.DecodedLen(dot) > len(buf) {
		buf = make([]byte, b64.DecodedLen(dot))
	}
	n, err := b64Strict.Decode(buf, tok[:dot])
	if err != nil {
		return g, nil, false
	}
	g, ok = decodeGrant(buf[:n])
	return g, tok[:dot], ok
}

// b64Strict decodes token segments: [b64] that also refuses stray bits in
// the last character, which would otherwise give one payload many
// spellings.
var b64Strict = base64.RawURLEncoding.Strict()

// canonicalB64 reports whether s holds only the base64url alphabet: the
// decoder would skip line breaks, which makes another spelling of the
// same bytes.
func canonicalB64(s []byte) bool {
	for _, c := range s {
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

func (gs *Grants) verify(ctx context.Context, tok []byte, principal, capability string, argsHash [sha256.Size]byte, once bool) (Grant, error) {
	g, _, ok := splitToken(tok)
	if !ok {
		return Grant{}, ErrMalformedGrant
	}
	if revoked, err := gs.rev.Revoked(ctx, g.ID); err != nil {
		return Grant{}, fmt.Errorf("kernel: checking revocation: %w", err)
	} else if revoked {
		return Grant{}, ErrRevoked
	}
	if !time.Now().Before(g.Expires) {
		return Grant{}, ErrExpired
	}
	dot := len(tok) - b64.EncodedLen(sha256.Size) - 1
	if dot < 0 || tok[dot] != '.' {
		return Grant{}, ErrSignature
	}
	var macBuf [sha256.Size]byte
	if n, err := b64Strict.Decode(macBuf[:], tok[dot+1:]); err != nil || n != sha256.Size {
		return Grant{}, ErrSignature
	}
	var stack [512]byte
	payload := stack[:]
	if b64.DecodedLen(dot) > len(payload) {
		payload = make([]byte, b64.DecodedLen(dot))
	}
	n, err := b64Strict.Decode(payload, tok[:dot])
	if err != nil {
		// splitToken decoded it already; a second reading must agree.
		return Grant{}, ErrMalformedGrant
	}
	var want [sha256.Size]byte
	gs.sign(want[:0], payload[:n])
	if !hmac.Equal(want[:], macBuf[:]) {
		return Grant{}, ErrSignature
	}
	if g.Principal != principal {
		return Grant{}, ErrWrongPrincipal
	}
	if g.Capability != capability {
		return Grant{}, ErrWrongCapability
	}
	if !hmac.Equal(g.ArgsHash[:], argsHash[:]) {
		return Grant{}, ErrWrongArguments
	}
	if once {
		first, err := gs.rev.Use(ctx, g.ID, g.Expires)
		if err != nil {
			return Grant{}, fmt.Errorf("kernel: recording use: %w", err)
		}
		if !first {
			return Grant{}, ErrReplayed
		}
	}
	return g, nil
}

// MemoryRevocations is the in-process [Revocations]. Entries are dropped
// once their token has expired.
type MemoryRevocations struct {
	mu      sync.Mutex
	revoked map[string]time.Time
	used    map[string]time.Time
	adds    int
}

// NewMemoryRevocations returns an empty in-memory store.
func NewMemoryRevocations() *MemoryRevocations {
	return &MemoryRevocations{revoked: make(map[string]time.Time), used: make(map[string]time.Time)}
}

// Revoke implements [Revocations].
func (m *MemoryRevocations) Revoke(_ context.Context, id string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revoked[id] = until
	m.sweep()
	return nil
}

// Revoked implements [Revocations].
func (m *MemoryRevocations) Revoked(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.revoked) == 0 {
		return false, nil
	}
	_, ok := m.revoked[id]
	return ok, nil
}

// Use implements [Revocations].
func (m *MemoryRevocations) Use(_ context.Context, id string, until time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.used[id]; ok {
		return false, nil
	}
	m.used[id] = until
	m.sweep()
	return true, nil
}

// sweep drops expired entries every 1024 additions, so memory follows
// the number of live tokens.
func (m *MemoryRevocations) sweep() {
	m.adds++
	if m.adds%1024 != 0 {
		return
	}
	now := time.Now()
	for _, set := range [...]map[string]time.Time{m.revoked, m.used} {
		for id, until := range set {
			if now.After(until) {
				delete(set, id)
			}
		}
	}
}
