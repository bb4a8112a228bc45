// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/kernel"
)

// Errors of [Auth.Login]; callers branch on them to tell the user why.
var (
	// ErrUnknownToken is a token no principal has: neither one of
	// [AuthConfig.Tokens] nor a key of [AuthConfig.Keys].
	ErrUnknownToken = errors.New("server: unknown token")
	// ErrKeyRevoked is a key made at run time that was revoked.
	ErrKeyRevoked = errors.New("server: key revoked")
	// ErrKeyExpired is a key made at run time that has expired.
	ErrKeyExpired = errors.New("server: key expired")
	// ErrKeyStoreDown is a token that could not be looked up because
	// the key store cannot be reached.
	ErrKeyStoreDown = errors.New("server: key store unreachable")
	// ErrThrottled is a login from an address that failed too often.
	ErrThrottled = errors.New("server: too many failed authentications")
	// ErrTooManySessions is a login refused because the session table
	// is full.
	ErrTooManySessions = errors.New("server: too many sessions")
	// ErrInvalidConfig reports a config New or NewAuth cannot use.
	ErrInvalidConfig = errors.New("server: invalid config")
)

// Credentials is a set of the kinds of credential a route takes.
type Credentials uint8

// The kinds of credential.
const (
	// Bearer is "Authorization: Bearer TOKEN" (OpenAI SDKs, MCP clients,
	// Claude Code with ANTHROPIC_AUTH_TOKEN).
	Bearer Credentials = 1 << iota
	// APIKey is the x-api-key header (the Anthropic SDKs).
	APIKey
	// GoogAPIKey is the x-goog-api-key header (Google's SDKs), or
	// Google's key query parameter, which is moved into that header
	// before the route's handler sees the request.
	GoogAPIKey
	// Cookie is the console's session cookie, made by [Auth.Login].
	Cookie

	// Keys is every header credential: what the model routes take.
	Keys = Bearer | APIKey | GoogAPIKey
)

// names of the credentials, for refusals.
func (c Credentials) String() string {
	var parts []string
	for _, k := range []struct {
		c    Credentials
		name string
	}{{Bearer, "a bearer token"}, {APIKey, "x-api-key"}, {GoogAPIKey, "x-goog-api-key"}, {Cookie, "a console session"}} {
		if c&k.c != 0 {
			parts = append(parts, k.name)
		}
	}
	return strings.Join(parts, ", ")
}

// Defaults for the [AuthConfig] fields left zero.
const (
	DefaultSessionTTL  = 12 * time.Hour
	DefaultMaxSessions = 1000
	DefaultCookieName  = "toolgate_console"
	DefaultCookiePath  = "/ui"
	DefaultKeyCacheTTL = 500 * time.Millisecond
	// maxCachedKeys bounds the key cache; it is emptied when full.
	maxCachedKeys = 10000
)

// AuthConfig configures [NewAuth]. The zero value knows no token and
// lets no anonymous request in.
type AuthConfig struct {
	// Tokens maps secret tokens to principals. A token is taken as a
	// bearer token, x-api-key or x-goog-api-key, wherever the route
	// takes that kind.
	Tokens map[string]kernel.Principal
	// KeyIDs names tokens for logs, traces and the console: token ->
	// id, such as "agent#1". A token without one is named "tok_" and
	// 12 hex digits of an HMAC under a key made at NewAuth: stable for
	// the process, and useless for guessing the token (a plain hash of
	// a weak token could be reversed from a log).
	KeyIDs map[string]string
	// Keys, when set, holds the keys made at run time (toolgate keys
	// create): a token that is not in Tokens is looked up there by its
	// hash, whatever its form, so that a malformed key costs the same
	// time as a wrong one. A revoked or expired key is refused; a store
	// that cannot be reached refuses the request with 503 (fail closed).
	Keys kernel.KeyStore
	// KeyCacheTTL is how long a key looked up in Keys is trusted before
	// it is looked up again, and so how long a revocation takes to be
	// seen by this process. If zero, [DefaultKeyCacheTTL].
	KeyCacheTTL time.Duration
	// Directory returns the principal, with its roles and attributes, of
	// a key's principal id. If nil, the principal is its id alone.
	Directory func(id string) kernel.Principal
	// Anonymous is the principal of requests without credentials on the
	// routes that take them ([Route.Anonymous]). If nil, none do.
	Anonymous *kernel.Principal
	// SessionTTL is how long a console session lasts. If zero,
	// [DefaultSessionTTL].
	SessionTTL time.Duration
	// MaxSessions bounds the console sessions held at once. If zero,
	// [DefaultMaxSessions].
	MaxSessions int
	// CookieName and CookiePath are the session cookie's. If empty,
	// [DefaultCookieName] and [DefaultCookiePath].
	CookieName, CookiePath string
	// Logger receives a debug line per refused request. If nil, none.
	Logger *slog.Logger
	// Registerer, if set, gets toolgate_http_refused_total.
	Registerer prometheus.Registerer
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// Auth turns credentials into identities, for every route of a server:
// one token table, one session table, and one failed-authentication
// throttle per client address. It is safe for concurrent use.
type Auth struct {
	// fixed at creation
	cfg     AuthConfig
	keys    map[[sha256.Size]byte]*Identity // shared by every request: never modified
	anon    *Identity                       // nil without an anonymous principal
	log     *slog.Logger
	refused *prometheus.CounterVec // nil without a Registerer
	backoff *authBackoff

	mu       sync.Mutex
	sessions map[string]session
	keyCache map[[sha256.Size]byte]cachedKey
}

// cachedKey is a lookup in the key store: the identity of a usable key,
// or why the token is refused.
type cachedKey struct {
	id  *Identity
	key *kernel.Key // nil for a token the store does not hold
	at  time.Time
}

type session struct {
	id      *Identity // shared by the session's requests: never modified
	expires time.Time
	// key is the hash of the key made at run time the session was
	// opened with, checked again on every request (through the key
	// cache), so that revoking the key ends the session; zero for a
	// token of the config.
	key [sha256.Size]byte
}

// NewAuth returns the authentication of cfg. cfg is copied.
func NewAuth(cfg *AuthConfig) (*Auth, error) {
	var c AuthConfig
	if cfg != nil {
		c = *cfg
	}
	a := &Auth{cfg: c, keys: map[[sha256.Size]byte]*Identity{}, sessions: map[string]session{}, keyCache: map[[sha256.Size]byte]cachedKey{}}
	if a.cfg.KeyCacheTTL <= 0 {
		a.cfg.KeyCacheTTL = DefaultKeyCacheTTL
	}
	var idKey [32]byte
	rand.Read(idKey[:])
	for tok, p := range c.Tokens {
		if tok == "" {
			return nil, fmt.Errorf("%w: empty token", ErrInvalidConfig)
		}
		if p.ID == "" {
			return nil, fmt.Errorf("%w: a token maps to a principal without an id", ErrInvalidConfig)
		}
		// Tokens are looked up by their SHA-256: the map's timing says
		// nothing about a prefix of the secret.
		id := c.KeyIDs[tok]
		if id == "" {
			mac := hmac.New(sha256.New, idKey[:])
			mac.Write([]byte(tok))
			id = "tok_" + hex.EncodeToString(mac.Sum(nil)[:6])
		}
		a.keys[sha256.Sum256([]byte(tok))] = &Identity{Principal: p, KeyID: id}
	}
	a.cfg.Tokens, a.cfg.KeyIDs = nil, nil // the hashes are all that is kept
	if c.Anonymous != nil {
		p := *c.Anonymous
		if p.ID == "" {
			return nil, fmt.Errorf("%w: the anonymous principal has no id", ErrInvalidConfig)
		}
		a.cfg.Anonymous = &p
		a.anon = &Identity{Principal: p, Anonymous: true}
	}
	if a.cfg.SessionTTL <= 0 {
		a.cfg.SessionTTL = DefaultSessionTTL
	}
	if a.cfg.MaxSessions <= 0 {
		a.cfg.MaxSessions = DefaultMaxSessions
	}
	if a.cfg.CookieName == "" {
		a.cfg.CookieName = DefaultCookieName
	}
	if a.cfg.CookiePath == "" {
		a.cfg.CookiePath = DefaultCookiePath
	}
	if a.cfg.Now == nil {
		a.cfg.Now = time.Now
	}
	a.log = c.Logger
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.backoff = newAuthBackoff(a.cfg.Now)
	if c.Registerer != nil {
		a.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_http_refused_total",
			Help: "HTTP requests refused (400, 401, 403, 404, 405, 413, 415, 429, 503), by status code.",
		}, []string{"code"})
		if err := c.Registerer.Register(a.refused); err != nil {
			return nil, fmt.Errorf("%w: metrics: %w", ErrInvalidConfig, err)
		}
	}
	return a, nil
}

// Verify returns the identity of a token.
func (a *Auth) Verify(tok string) (Identity, bool) {
	if id := a.verify(tok); id != nil {
		return *id, true
	}
	return Identity{}, false
}

// verify returns the shared identity of a token, nil for none.
func (a *Auth) verify(tok string) *Identity {
	if tok == "" {
		return nil
	}
	return a.keys[sha256.Sum256([]byte(tok))]
}

// Anonymous returns the anonymous principal, nil when there is none.
func (a *Auth) Anonymous() *kernel.Principal {
	if a.cfg.Anonymous == nil {
		return nil
	}
	p := *a.cfg.Anonymous
	return &p
}

// RefuseFunc writes a refusal in a route's own shape: status is 401, 403
// or 429, msg a short sentence for the client. WWW-Authenticate and
// Retry-After are already set.
type RefuseFunc func(w http.ResponseWriter, r *http.Request, status int, msg string)

// RouteAuth is what a route takes.
type RouteAuth struct {
	// Accept are the credentials the route takes. A request that
	// carries only credentials of other kinds is refused, not taken as
	// anonymous.
	Accept Credentials
	// Anonymous lets a request without credentials in as
	// [AuthConfig.Anonymous], when there is one.
	Anonymous bool
	// Optional lets a request without credentials in with no identity
	// (the console's login page); the handler decides.
	Optional bool
	// Public skips authentication altogether (/healthz, /metrics).
	Public bool
	// Refuse writes the route's refusals. If nil, plain text.
	Refuse RefuseFunc
}

// Require returns h behind ra: the request's credentials are checked
// and its [Identity] put in its context, or it is refused in the route's
// shape. Around that, an address that failed authentication too often
// gets 429 with Retry-After, a refused credential takes one of the
// address's attempts, every 401 gets WWW-Authenticate, and refusals are
// logged at debug and counted in toolgate_http_refused_total.
func (a *Auth) Require(h http.Handler, ra RouteAuth) http.Handler {
	refuse := ra.Refuse
	if refuse == nil {
		refuse = func(w http.ResponseWriter, _ *http.Request, status int, msg string) { http.Error(w, msg, status) }
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, challenge: true}
		defer a.count(sw, r)
		if d := a.backoff.waitFor(r); d > 0 {
			sw.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
			refuse(sw, r, http.StatusTooManyRequests, "too many failed authentications; try again later")
			return
		}
		if ra.Public {
			h.ServeHTTP(sw, r)
			return
		}
		id, status, msg := a.identify(r, &ra)
		if msg != "" {
			if status == http.StatusUnauthorized {
				a.backoff.fail(clientAddr(r))
			}
			refuse(sw, r, status, msg)
			return
		}
		if id != nil {
			r = r.WithContext(context.WithValue(r.Context(), identityKey{}, id))
		}
		if ra.Accept&GoogAPIKey != 0 {
			r = withoutQueryKey(r)
		}
		h.ServeHTTP(sw, r)
	})
}

func (a *Auth) count(sw *statusWriter, r *http.Request) {
	if code := sw.code; refusedCodes[code] {
		a.log.Debug("request refused", "code", code, "method", r.Method, "path", r.URL.Path, "addr", clientAddr(r))
		if a.refused != nil {
			a.refused.WithLabelValues(strconv.Itoa(code)).Inc()
		}
	}
}

// identify finds the identity of r on a route taking ra: nil and no
// message for an optional route without credentials, a status and a
// message for a refusal.
func (a *Auth) identify(r *http.Request, ra *RouteAuth) (*Identity, int, string) {
	id, msg := a.identifyToken(r, ra)
	if msg == keyStoreDown {
		return nil, http.StatusServiceUnavailable, msg
	}
	if msg != "" {
		return nil, http.StatusUnauthorized, msg
	}
	return id, 0, ""
}

// keyStoreDown is the refusal when the key store cannot be reached.
const keyStoreDown = "the key store cannot be reached; try again later"

func (a *Auth) identifyToken(r *http.Request, ra *RouteAuth) (*Identity, string) {
	var presented Credentials
	tok := ""
	// The header map is read with canonical keys, not Header.Get, which
	// canonicalises its argument on every call.
	if v := first(r.Header["Authorization"]); v != "" {
		presented |= Bearer
		if ra.Accept&Bearer != 0 {
			scheme, t, ok := strings.Cut(v, " ")
			if !ok || !strings.EqualFold(scheme, "bearer") {
				return nil, "the Authorization header is not a bearer token"
			}
			tok = strings.TrimSpace(t)
		}
	}
	if v := first(r.Header["X-Api-Key"]); v != "" {
		presented |= APIKey
		if tok == "" && ra.Accept&APIKey != 0 {
			tok = v
		}
	}
	if v := first(r.Header["X-Goog-Api-Key"]); v != "" {
		presented |= GoogAPIKey
		if tok == "" && ra.Accept&GoogAPIKey != 0 {
			tok = v
		}
	}
	if ra.Accept&GoogAPIKey != 0 {
		// Google's key query parameter, taken where x-goog-api-key is.
		if v := queryKey(r); v != "" {
			presented |= GoogAPIKey
			if tok == "" {
				tok = v
			}
		}
	}
	if tok != "" {
		if id := a.verify(tok); id != nil {
			return id, ""
		}
		if a.cfg.Keys != nil {
			return a.lookupKey(r.Context(), tok)
		}
		return nil, "invalid API key"
	}
	if len(r.Header["Cookie"]) == 0 {
		// No cookie to parse.
	} else if ck, err := r.Cookie(a.cfg.CookieName); err == nil && ck.Value != "" {
		presented |= Cookie
		if ra.Accept&Cookie != 0 {
			if s, ok := a.session(ck.Value); ok {
				if s.key == ([sha256.Size]byte{}) {
					return s.id, ""
				}
				// Opened with a key made at run time: it must still be
				// good.
				switch _, err := a.findKey(r.Context(), s.key); {
				case err == nil:
					return s.id, ""
				case errors.Is(err, ErrKeyStoreDown):
					return nil, keyStoreDown
				}
				a.endSession(ck.Value)
				if !ra.Optional {
					return nil, "the key this console session was opened with was revoked or has expired; log in again"
				}
				return nil, ""
			}
			if !ra.Optional {
				return nil, "the console session has ended; log in again"
			}
			return nil, ""
		}
	}
	if presented != 0 {
		// Credentials of a kind the route does not take: refused, so
		// that a client learns it sent the wrong one.
		return nil, "this route takes " + ra.Accept.String() + ", not " + presented.String()
	}
	if ra.Anonymous && a.anon != nil {
		return a.anon, ""
	}
	if ra.Optional {
		return nil, ""
	}
	return nil, "authentication required: send " + ra.Accept.String()
}

// Login checks tok for the console's login form: the address's throttle,
// the token (one of [AuthConfig.Tokens] or a key of [AuthConfig.Keys]),
// then allow (a role check; its error is returned as it is). On success
// it starts a session and sets its cookie on w; a session opened with a
// key ends when the key is revoked or expires. A refused token is
// [ErrUnknownToken], [ErrKeyRevoked] or [ErrKeyExpired] (or
// [ErrKeyStoreDown]); a failure takes one of the address's attempts, so
// that tokens cannot be guessed through the form, and only that address
// is slowed.
func (a *Auth) Login(w http.ResponseWriter, r *http.Request, tok string, allow func(kernel.Principal) error) (Identity, error) {
	addr := clientAddr(r)
	if d := a.backoff.wait(addr); d > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
		return Identity{}, ErrThrottled
	}
	var keyHash [sha256.Size]byte
	id, ok := a.Verify(tok)
	if !ok {
		var err error = ErrUnknownToken
		if a.cfg.Keys != nil && tok != "" {
			h := sha256.Sum256([]byte(tok))
			var kid *Identity
			if kid, err = a.findKey(r.Context(), h); err == nil {
				id, keyHash = *kid, h
			}
		}
		if err != nil {
			if !errors.Is(err, ErrKeyStoreDown) {
				a.backoff.fail(addr)
			}
			return Identity{}, err
		}
	}
	id.Principal.Roles = slices.Clone(id.Principal.Roles) // the session's own copy
	if allow != nil {
		if err := allow(id.Principal); err != nil {
			a.backoff.fail(addr)
			return Identity{}, err
		}
	}
	var raw [32]byte
	rand.Read(raw[:])
	sid := hex.EncodeToString(raw[:])
	now := a.cfg.Now()
	a.mu.Lock()
	for k, s := range a.sessions {
		if now.After(s.expires) {
			delete(a.sessions, k)
		}
	}
	if len(a.sessions) >= a.cfg.MaxSessions {
		a.mu.Unlock()
		return Identity{}, ErrTooManySessions
	}
	// The session acts with the key it was opened with: its calls name
	// that key's id (a key made at run time's, else the token's).
	sess := id
	a.sessions[sid] = session{id: &sess, expires: now.Add(a.cfg.SessionTTL), key: keyHash}
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: a.cfg.CookieName, Value: sid, Path: a.cfg.CookiePath, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int(a.cfg.SessionTTL / time.Second)})
	return sess, nil
}

// Logout ends r's session, if any, and clears its cookie.
func (a *Auth) Logout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(a.cfg.CookieName); err == nil {
		a.mu.Lock()
		delete(a.sessions, ck.Value)
		a.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: a.cfg.CookieName, Value: "", Path: a.cfg.CookiePath, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

func (a *Auth) session(sid string) (session, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[sid]
	if !ok || a.cfg.Now().After(s.expires) {
		return session{}, false
	}
	return s, true
}

// endSession forgets the session sid.
func (a *Auth) endSession(sid string) {
	a.mu.Lock()
	delete(a.sessions, sid)
	a.mu.Unlock()
}

// lookupKey finds tok in the key store, through a cache of
// KeyCacheTTL: the identity of a usable key, or the refusal.
func (a *Auth) lookupKey(ctx context.Context, tok string) (*Identity, string) {
	id, err := a.findKey(ctx, sha256.Sum256([]byte(tok)))
	switch {
	case err == nil:
		return id, ""
	case errors.Is(err, ErrKeyStoreDown):
		return nil, keyStoreDown
	case errors.Is(err, ErrUnknownToken):
		return nil, "invalid API key"
	}
	return nil, "this key was revoked or has expired"
}

// findKey finds the key whose secret hashes to h in the key store,
// through a cache of KeyCacheTTL: the identity of a usable key, or
// [ErrUnknownToken], [ErrKeyRevoked], [ErrKeyExpired] or
// [ErrKeyStoreDown].
func (a *Auth) findKey(ctx context.Context, h [sha256.Size]byte) (*Identity, error) {
	now := a.cfg.Now()
	a.mu.Lock()
	c, ok := a.keyCache[h]
	a.mu.Unlock()
	if !ok || now.Sub(c.at) >= a.cfg.KeyCacheTTL || now.Before(c.at) {
		k, err := a.cfg.Keys.KeyByHash(ctx, h)
		switch {
		case errors.Is(err, kernel.ErrNoKey):
			c = cachedKey{at: now}
		case err != nil:
			a.log.Warn("key store lookup failed", "err", err)
			return nil, ErrKeyStoreDown // not cached: the next request tries again
		default:
			p := kernel.Principal{ID: k.Principal}
			if a.cfg.Directory != nil {
				p = a.cfg.Directory(k.Principal)
			}
			c = cachedKey{at: now, key: k, id: &Identity{Principal: p, KeyID: k.ID, Key: k}}
		}
		a.mu.Lock()
		if len(a.keyCache) >= maxCachedKeys {
			clear(a.keyCache)
		}
		a.keyCache[h] = c
		a.mu.Unlock()
	}
	if c.key == nil {
		return nil, ErrUnknownToken
	}
	if err := c.key.Check(now); err != nil {
		if !c.key.Revoked.IsZero() && !now.Before(c.key.Revoked) {
			return nil, ErrKeyRevoked
		}
		return nil, ErrKeyExpired
	}
	return c.id, nil
}

// first is the first value of a header, "" for none.
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
