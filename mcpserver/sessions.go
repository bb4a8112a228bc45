// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for the session caps of [Config].
const (
	// DefaultMaxSessions bounds the HTTP sessions open at once.
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerPrincipal bounds one principal's sessions.
	DefaultMaxSessionsPerPrincipal = 100
)

// sessions caps the HTTP sessions the SDK's handler keeps. The SDK gives
// no hook for a session's creation, so the tracker watches the requests
// going through: a POST without Mcp-Session-Id that comes back with one
// opened a session, a DELETE answered 204 closed it, and every request
// naming a session makes it recent. Before a session is opened over a
// cap, the least recently used idle session (no POST running) in the
// capped set is closed; when every one is busy the request gets 503.
// Sessions the SDK closed itself (its idle timeout, a failed initialize)
// are dropped from the tracker when a cap is reached, so the tracker never
// holds more than the cap.
type sessions struct {
	srv          *mcp.Server
	max, perPrin int // <= 0: no cap
	now          func() time.Time

	mu        sync.Mutex
	byID      map[string]*session
	count     map[string]int // open and pending, by principal
	pending   int
	closeHook func(id string) // for tests
}

type session struct {
	id, principal string
	last          time.Time
	busy          int
}

func newSessions(srv *mcp.Server, max, perPrincipal int) *sessions {
	return &sessions{srv: srv, max: max, perPrin: perPrincipal, now: time.Now, byID: map[string]*session{}, count: map[string]int{}}
}

// Len is the number of sessions tracked.
func (t *sessions) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// wrap returns next behind the session caps; principal names the
// principal of a request.
func (t *sessions) wrap(next http.Handler, principal func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(sessionIDHeader); id != "" {
			t.serveExisting(next, w, r, id)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		p := principal(r)
		if !t.reserve(p) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many open sessions", http.StatusServiceUnavailable)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		id := sw.Header().Get(sessionIDHeader)
		t.mu.Lock()
		t.pending--
		if id != "" && sw.code == http.StatusOK && t.byID[id] == nil {
			t.byID[id] = &session{id: id, principal: p, last: t.now()}
		} else {
			t.release(p)
		}
		t.mu.Unlock()
	})
}

func (t *sessions) serveExisting(next http.Handler, w http.ResponseWriter, r *http.Request, id string) {
	t.mu.Lock()
	s := t.byID[id]
	if s != nil {
		s.last = t.now()
		if r.Method == http.MethodPost {
			s.busy++
		}
	}
	t.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w}
	next.ServeHTTP(sw, r)
	if s == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s.last = t.now()
	if r.Method == http.MethodPost {
		s.busy--
	}
	if r.Method == http.MethodDelete && sw.code == http.StatusNoContent && t.byID[id] == s {
		t.forget(s)
	}
}

// forget drops s; the caller holds mu.
func (t *sessions) forget(s *session) {
	delete(t.byID, s.id)
	t.release(s.principal)
}

// release gives back one of p's slots; the caller holds mu.
func (t *sessions) release(p string) {
	if t.count[p]--; t.count[p] <= 0 {
		delete(t.count, p)
	}
}

// reserve takes a slot for a new session of p, closing the least recently
// used idle sessions over the caps; false if every session in the way is
// busy.
func (t *sessions) reserve(p string) bool {
	t.mu.Lock()
	over := func() (bool, string) {
		switch {
		case t.max > 0 && len(t.byID)+t.pending >= t.max:
			return true, ""
		case t.perPrin > 0 && t.count[p] >= t.perPrin:
			return true, p
		}
		return false, ""
	}
	var victims []string
	if full, _ := over(); full {
		t.prune()
	}
	for {
		full, who := over()
		if !full {
			break
		}
		v := t.oldestIdle(who)
		if v == nil {
			t.mu.Unlock()
			t.close(victims)
			return false
		}
		t.forget(v)
		victims = append(victims, v.id)
	}
	t.pending++
	t.count[p]++
	t.mu.Unlock()
	t.close(victims)
	return true
}

// oldestIdle is the least recently used session with no POST running,
// of principal p or, if p is empty, of anyone; the caller holds mu. A
// linear scan: it runs only at a cap, over at most the cap.
func (t *sessions) oldestIdle(p string) *session {
	var v *session
	for _, s := range t.byID {
		if s.busy == 0 && (p == "" || s.principal == p) && (v == nil || s.last.Before(v.last)) {
			v = s
		}
	}
	return v
}

// prune drops sessions the SDK no longer has; the caller holds mu.
func (t *sessions) prune() {
	live := map[string]bool{}
	for ss := range t.srv.Sessions() {
		live[ss.ID()] = true
	}
	for id, s := range t.byID {
		if !live[id] {
			t.forget(s)
		}
	}
}

// close ends the sessions named, which removes them from the SDK's
// handler and ends their streams.
func (t *sessions) close(ids []string) {
	if len(ids) == 0 {
		return
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	for ss := range t.srv.Sessions() {
		if want[ss.ID()] {
			ss.Close()
			if t.closeHook != nil {
				t.closeHook(ss.ID())
			}
		}
	}
}

// principalOf is the principal ID a request to the SDK runs as.
func (s *Server) principalOf(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// statusWriter records the status the SDK wrote. It unwraps for
// http.ResponseController, so streams can still flush.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
