// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// LimitListener returns a listener that holds at most n accepted
// connections open at once: Accept waits, leaving further clients in the
// kernel's backlog, until one of them is closed. n <= 0 means no limit.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once, on the first Close.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// HTTPLimits are the limits of [NewHTTPServer]. A zero or negative
// duration means no limit.
type HTTPLimits struct {
	// ReadTimeout is how long a request, headers and body, may take to
	// arrive; a body sent a byte at a time is cut off. It does not bound
	// the response: the server clears the deadline once the body is read,
	// so a long tool call or an SSE stream runs on.
	ReadTimeout time.Duration
	// ReadHeaderTimeout is how long the request line and headers may
	// take to arrive.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long.
	IdleTimeout time.Duration
}

// NewHTTPServer returns an http.Server for h with the limits l. Pair it
// with [LimitListener] to cap the connections it holds.
func NewHTTPServer(h http.Handler, l *HTTPLimits) *http.Server {
	hs := &http.Server{
		Handler:           h,
		ReadTimeout:       max(l.ReadTimeout, 0),
		ReadHeaderTimeout: max(l.ReadHeaderTimeout, 0),
		IdleTimeout:       l.IdleTimeout,
	}
	if l.IdleTimeout <= 0 {
		// http.Server reads zero as "ReadTimeout's"; negative is none.
		hs.IdleTimeout = -1
	}
	return hs
}
