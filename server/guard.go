// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"container/list"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Failed authentication is slowed per client address with a token bucket:
// each 401 takes a token, a token comes back every [AuthFailureRefill],
// and an address whose bucket is empty gets 429 with Retry-After for every
// request until one comes back. A client with the right token never
// fails, so it never waits; a client guessing tokens gets
// [AuthFailureBurst] guesses at once and then one per refill period (ten a
// minute instead of thousands a second). A 429 rather than a delay holds
// no goroutine or connection on the server while the client waits.
const (
	// AuthFailureBurst is how many failed authentications an address may
	// make before it is slowed.
	AuthFailureBurst = 10
	// AuthFailureRefill is how often an address earns one more attempt.
	AuthFailureRefill = 6 * time.Second
	// authAddrs bounds the addresses remembered; the least recently seen
	// is forgotten first.
	authAddrs = 10000
)

// authBackoff is the per-address token buckets, in a bounded LRU.
type authBackoff struct {
	mu    sync.Mutex
	now   func() time.Time
	lru   *list.List // of *bucket, most recent first
	addrs map[string]*list.Element
	// n is len(addrs), read without mu: while it is 0, which it is
	// until an authentication fails and again once every bucket is
	// full, a request's address is not even looked at.
	n atomic.Int64
}

type bucket struct {
	addr   string
	tokens float64
	at     time.Time
}

func newAuthBackoff(now func() time.Time) *authBackoff {
	return &authBackoff{now: now, lru: list.New(), addrs: map[string]*list.Element{}}
}

// refill brings b's tokens up to date; the caller holds mu.
func (a *authBackoff) refill(b *bucket, now time.Time) {
	b.tokens = math.Min(AuthFailureBurst, b.tokens+float64(now.Sub(b.at))/float64(AuthFailureRefill))
	b.at = now
}

// waitFor is wait for r's address.
func (a *authBackoff) waitFor(r *http.Request) time.Duration {
	if a.n.Load() == 0 {
		return 0
	}
	return a.wait(clientAddr(r))
}

// wait reports how long addr must wait before it may try again; zero if
// it may now. A bucket found full again is dropped: a new one starts
// full, so nothing changes but the memory and the time it costs.
func (a *authBackoff) wait(addr string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.addrs[addr]
	if e == nil {
		return 0
	}
	b := e.Value.(*bucket)
	now := a.now()
	a.refill(b, now)
	if b.tokens >= AuthFailureBurst {
		a.lru.Remove(e)
		delete(a.addrs, addr)
		a.n.Store(int64(len(a.addrs)))
		return 0
	}
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(AuthFailureRefill))
}

// fail takes a token from addr's bucket.
func (a *authBackoff) fail(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	e := a.addrs[addr]
	if e == nil {
		if a.lru.Len() >= authAddrs {
			old := a.lru.Back()
			a.lru.Remove(old)
			delete(a.addrs, old.Value.(*bucket).addr)
		}
		e = a.lru.PushFront(&bucket{addr: addr, tokens: AuthFailureBurst, at: now})
		a.addrs[addr] = e
		a.n.Store(int64(len(a.addrs)))
	}
	a.lru.MoveToFront(e)
	b := e.Value.(*bucket)
	a.refill(b, now)
	b.tokens = math.Max(0, b.tokens-1)
}

// clientAddr is the address a request came from, without the port. The
// connection's address, not a forwarded header, which any client can set.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// refusedCodes are the statuses counted and logged as refusals; others
// are left alone so that the label set stays fixed.
var refusedCodes = map[int]bool{
	http.StatusBadRequest: true, http.StatusUnauthorized: true, http.StatusForbidden: true,
	http.StatusNotFound: true, http.StatusMethodNotAllowed: true, http.StatusRequestEntityTooLarge: true,
	http.StatusUnsupportedMediaType: true, http.StatusTooManyRequests: true, http.StatusServiceUnavailable: true,
}

// statusWriter records the status written and, when challenge is set,
// adds WWW-Authenticate to a 401 that lacks one. It unwraps for
// http.ResponseController, so streams can still flush.
type statusWriter struct {
	http.ResponseWriter
	code      int
	challenge bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
		if w.challenge && code == http.StatusUnauthorized && len(w.Header()["Www-Authenticate"]) == 0 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
