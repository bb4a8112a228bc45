// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package direct

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Config configures a [Transport]. The zero value of each field is its
// documented default.
type Config struct {
	// Fallback carries every request the Transport does not make itself
	// (see the package doc). If nil, [http.DefaultTransport].
	Fallback http.RoundTripper
	// Dial opens a connection. If nil, a [net.Dialer] with its defaults.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Proxy says which proxy, if any, carries a request, as
	// [http.Transport.Proxy] does; a request it gives a proxy goes to
	// Fallback. It is asked once per host. If nil, no request is proxied.
	Proxy func(*http.Request) (*url.URL, error)
	// MaxIdlePerHost bounds the idle connections kept for one host. If
	// zero, 64; a negative value keeps none.
	MaxIdlePerHost int
	// IdleTimeout is how long an idle connection is kept. If zero, 90
	// seconds.
	IdleTimeout time.Duration
}

// A Transport is an [http.RoundTripper] that makes plain HTTP/1.1 round
// trips on the caller's goroutine and hands every other request to its
// fallback. It is safe for concurrent use. It keeps a small record of
// every host it has been asked for, for its life: it is meant for a
// fixed set of backends, such as a gateway's providers.
type Transport struct {
	// fixed at creation
	fallback    http.RoundTripper
	dial        func(ctx context.Context, network, addr string) (net.Conn, error)
	proxy       func(*http.Request) (*url.URL, error)
	maxIdle     int
	idleTimeout time.Duration
	now         func() time.Time

	mu    sync.Mutex
	hosts map[string]*host
	sweep *time.Timer // armed while a connection is idle
}

// host is what the Transport keeps for one host:port.
type host struct {
	proxied bool    // Proxy gave the host's requests a proxy
	idle    []*conn // idle connections, the most recently used last
}

// conn is one connection, used by one round trip at a time.
type conn struct {
	c    net.Conn
	r    *countingReader
	w    *errWriter
	br   *bufio.Reader
	bw   *bufio.Writer
	key  string
	used time.Time // when it went idle
}

// countingReader counts what is read from a connection, so that a
// round trip knows whether any of an answer came, and bounds what is
// read while a limit is set.
type countingReader struct {
	c     net.Conn
	n     int64
	limit int64 // if not zero, the n past which a read fails
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.limit != 0 {
		left := r.limit - r.n
		if left <= 0 {
			return 0, errHeadTooLarge
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := r.c.Read(p)
	r.n += int64(n)
	return n, err
}

// errWriter keeps the error of a write to a connection, so that a
// round trip tells a connection that failed from a request body that
// did.
type errWriter struct {
	c   net.Conn
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	n, err := w.c.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// New returns a Transport configured by cfg, which may be nil.
func New(cfg *Config) *Transport {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	t := &Transport{fallback: c.Fallback, dial: c.Dial, proxy: c.Proxy, maxIdle: c.MaxIdlePerHost,
		idleTimeout: c.IdleTimeout, now: time.Now, hosts: map[string]*host{}}
	if t.fallback == nil {
		t.fallback = http.DefaultTransport
	}
	if t.dial == nil {
		t.dial = (&net.Dialer{}).DialContext
	}
	if t.maxIdle == 0 {
		t.maxIdle = 64
	}
	if t.idleTimeout <= 0 {
		t.idleTimeout = 90 * time.Second
	}
	return t
}

// errWriteFailed marks a request that could not be written on a
// connection.
var errWriteFailed = errors.New("direct: request not written")

// earlyAnswerWait is how long a round trip whose request could not be
// written waits for an answer the server may have sent before closing.
const earlyAnswerWait = 50 * time.Millisecond

// aLongTimeAgo is the deadline that stops a connection's blocked read
// or write when the round trip's context ends.
var aLongTimeAgo = time.Unix(1, 0)

// maxInformational bounds the 1xx answers read before the final one.
const maxInformational = 5

// errTooManyInformational is the error of an answer with more than
// maxInformational 1xx answers before the final one.
var errTooManyInformational = errors.New("direct: too many 1xx answers")

// maxHeadBytes bounds the bytes read for an answer's heads, the 1xx ones
// with the final one, as net/http's default MaxResponseHeaderBytes does:
// ReadResponse itself would read a header line without end.
const maxHeadBytes = 10 << 20

// errHeadTooLarge is the error of an answer whose heads exceed
// maxHeadBytes.
var errHeadTooLarge = errors.New("direct: answer head too large")

// RoundTrip implements [http.RoundTripper]. A request it makes itself
// fails with the context's error once its context is done, for the
// answer's body too.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	key, ok := t.direct(req)
	if !ok {
		return t.fallback.RoundTrip(req)
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		pc := t.get(key)
		reused := pc != nil
		if pc == nil {
			c, err := t.dial(ctx, "tcp", key)
			if err != nil {
				closeBody(req)
				return nil, err
			}
			pc = newConn(c, key)
		}
		resp, err := t.exchange(ctx, pc, req)
		if err == nil {
			return resp, nil
		}
		pc.c.Close()
		if cerr := ctxErr(ctx); cerr != nil {
			return nil, cerr
		}
		// A reused connection the server closed while it sat idle fails
		// the write, or the read with nothing of an answer read. A
		// request goes again on a new connection in the first case (a
		// server cannot act on a request it did not receive whole, so a
		// POST is safe to send again), and in the second when it is one
		// net/http would replay.
		if !reused || attempt > 0 || pc.r.n > 0 || !errors.Is(err, errWriteFailed) && !replayable(req) {
			return nil, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, err
			}
			body, berr := req.GetBody()
			if berr != nil {
				return nil, err
			}
			req = req.Clone(ctx)
			req.Body = body
		}
	}
}

// direct reports whether the Transport makes req itself, and the
// host:port it goes to.
func (t *Transport) direct(req *http.Request) (string, bool) {
	u := req.URL
	if u == nil || u.Scheme != "http" || u.Host == "" || !plainMethod(req.Method) ||
		req.Header.Get("Expect") != "" || !validHeader(req.Header) {
		return "", false
	}
	key := u.Host
	if u.Port() == "" {
		key = net.JoinHostPort(u.Hostname(), "80")
	}
	t.mu.Lock()
	h := t.hosts[key]
	t.mu.Unlock()
	if h == nil {
		h = &host{}
		if t.proxy != nil {
			if p, err := t.proxy(req); err != nil || p != nil {
				h.proxied = true
			}
		}
		t.mu.Lock()
		if old := t.hosts[key]; old != nil {
			h = old
		} else {
			t.hosts[key] = h
		}
		t.mu.Unlock()
	}
	return key, !h.proxied
}

func newConn(c net.Conn, key string) *conn {
	r := &countingReader{c: c}
	w := &errWriter{c: c}
	return &conn{c: c, r: r, w: w, br: bufio.NewReader(r), bw: bufio.NewWriter(w), key: key}
}

// plainMethod reports whether m is a method the Transport sends itself;
// any other (CONNECT, an extension, a malformed one) goes to the
// fallback, which checks it.
func plainMethod(m string) bool {
	switch m {
	case "", http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// validHeader reports whether h holds only names that are tokens and
// values without control characters but tab, which net/http's
// transport requires and [http.Request.Write] does not check: a header
// that fails goes to the fallback, which refuses it.
func validHeader(h http.Header) bool {
	for k, vs := range h {
		if k == "" {
			return false
		}
		for i := 0; i < len(k); i++ {
			if !isToken(k[i]) {
				return false
			}
		}
		for _, v := range vs {
			for i := 0; i < len(v); i++ {
				if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
					return false
				}
			}
		}
	}
	return true
}

// isToken reports whether c may appear in a header name (RFC 9110
// section 5.6.2).
func isToken(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// replayable reports whether net/http would send req again after a
// reused connection failed: an idempotent method, or an idempotency
// key, with a body it can make again.
func replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return req.Header.Get("Idempotency-Key") != "" || req.Header.Get("X-Idempotency-Key") != ""
}

// exchange writes req on pc and reads its answer's head.
func (t *Transport) exchange(ctx context.Context, pc *conn, req *http.Request) (*http.Response, error) {
	pc.r.n = 0
	pc.w.err = nil
	c := pc.c
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(aLongTimeAgo) })
	werr := req.Write(pc.bw)
	if werr == nil {
		werr = pc.bw.Flush()
	}
	if werr != nil {
		if pc.w.err == nil || !stop() {
			// The request's body failed, or the context ended: the
			// connection is left half written.
			stop()
			return nil, werr
		}
		// A server may answer before it has read the whole request (a
		// 413, say) and close: that answer is the one to hand on. It is
		// waited for briefly, and not past the context's end.
		stop = context.AfterFunc(ctx, func() { c.SetDeadline(aLongTimeAgo) })
		c.SetReadDeadline(time.Now().Add(earlyAnswerWait))
		resp, rerr := t.readHead(pc, req)
		if rerr != nil || !stop() {
			return nil, errors.Join(errWriteFailed, werr)
		}
		resp.Close = true
		c.SetReadDeadline(time.Time{})
		stop = context.AfterFunc(ctx, func() { c.SetDeadline(aLongTimeAgo) })
		return t.wrap(pc, req, resp, stop), nil
	}
	resp, err := t.readHead(pc, req)
	if err != nil {
		stop()
		return nil, err
	}
	return t.wrap(pc, req, resp, stop), nil
}

// readHead reads the final answer to req, past any 1xx.
func (t *Transport) readHead(pc *conn, req *http.Request) (*http.Response, error) {
	pc.r.limit = pc.r.n + maxHeadBytes
	defer func() { pc.r.limit = 0 }()
	for i := 0; ; i++ {
		resp, err := http.ReadResponse(pc.br, req)
		if err != nil {
			return nil, err
		}
		// ReadResponse takes any three digits: as in net/http, only
		// 1xx but 101 is informational.
		if resp.StatusCode < 100 || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
		if i == maxInformational {
			return nil, errTooManyInformational
		}
	}
}

// wrap gives resp the body that returns pc to the pool at its end.
func (t *Transport) wrap(pc *conn, req *http.Request, resp *http.Response, stop func() bool) *http.Response {
	keep := !resp.Close && !req.Close && resp.StatusCode != http.StatusSwitchingProtocols
	b := &body{rc: resp.Body, pc: pc, t: t, stop: stop, keep: keep, ctx: req.Context()}
	if resp.Body == http.NoBody {
		b.release()
		return resp
	}
	resp.Body = b
	return resp
}

// body is an answer's body: read to its end, it gives its connection
// back; closed before, it closes it.
type body struct {
	rc   io.ReadCloser
	pc   *conn
	t    *Transport
	stop func() bool
	keep bool
	ctx  context.Context

	mu    sync.Mutex
	state int // open, or one of these:
}

// The states of a body past open.
const (
	released = 1 + iota // read to its end
	closed
)

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	state := b.state
	b.mu.Unlock()
	switch state {
	case released:
		return 0, io.EOF
	case closed:
		return 0, http.ErrBodyReadAfterClose
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.release()
	case err != nil:
		if cerr := ctxErr(b.ctx); cerr != nil {
			err = cerr
		}
		b.Close()
	}
	return n, err
}

// release ends the body at its end: the connection goes back to the
// pool when the round trip's context did not stop it.
func (b *body) release() {
	b.mu.Lock()
	if b.state != 0 {
		b.mu.Unlock()
		return
	}
	b.state = released
	b.mu.Unlock()
	if b.stop() && b.keep {
		b.t.put(b.pc)
		return
	}
	b.pc.c.Close()
}

func (b *body) Close() error {
	b.mu.Lock()
	if b.state != 0 {
		b.state = closed
		b.mu.Unlock()
		return nil
	}
	b.state = closed
	b.mu.Unlock()
	b.stop()
	return b.pc.c.Close()
}

// get takes the most recently used idle connection to key that is still
// open, or nil.
func (t *Transport) get(key string) *conn {
	now := t.now()
	for {
		t.mu.Lock()
		h := t.hosts[key]
		if h == nil || len(h.idle) == 0 {
			t.mu.Unlock()
			return nil
		}
		pc := h.idle[len(h.idle)-1]
		h.idle[len(h.idle)-1] = nil
		h.idle = h.idle[:len(h.idle)-1]
		t.mu.Unlock()
		if now.Sub(pc.used) < t.idleTimeout && pc.br.Buffered() == 0 && !peerClosed(pc.c) {
			return pc
		}
		pc.c.Close()
	}
}

// put keeps pc idle, or closes it when its host has enough.
func (t *Transport) put(pc *conn) {
	pc.used = t.now()
	t.mu.Lock()
	h := t.hosts[pc.key]
	if h == nil || len(h.idle) >= t.maxIdle {
		t.mu.Unlock()
		pc.c.Close()
		return
	}
	h.idle = append(h.idle, pc)
	if t.sweep == nil {
		t.sweep = time.AfterFunc(t.idleTimeout, t.sweepIdle)
	}
	t.mu.Unlock()
}

// sweepIdle closes the connections idle for longer than the timeout and
// arms itself again while any is left.
func (t *Transport) sweepIdle() {
	now := t.now()
	var old []*conn
	t.mu.Lock()
	t.sweep = nil
	var next time.Duration
	for _, h := range t.hosts {
		keep := h.idle[:0]
		for _, pc := range h.idle {
			if age := now.Sub(pc.used); age >= t.idleTimeout {
				old = append(old, pc)
			} else {
				keep = append(keep, pc)
				if left := t.idleTimeout - age; next == 0 || left < next {
					next = left
				}
			}
		}
		clear(h.idle[len(keep):])
		h.idle = keep
	}
	if next > 0 {
		t.sweep = time.AfterFunc(next, t.sweepIdle)
	}
	t.mu.Unlock()
	for _, pc := range old {
		pc.c.Close()
	}
}

// CloseIdleConnections closes the idle connections, the Transport's and
// its fallback's.
func (t *Transport) CloseIdleConnections() {
	var old []*conn
	t.mu.Lock()
	for _, h := range t.hosts {
		old = append(old, h.idle...)
		clear(h.idle)
		h.idle = h.idle[:0]
	}
	if t.sweep != nil {
		t.sweep.Stop()
		t.sweep = nil
	}
	t.mu.Unlock()
	for _, pc := range old {
		pc.c.Close()
	}
	if ci, ok := t.fallback.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// ctxErr is the error of a done context, its cause where it has one.
func ctxErr(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
