// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gatewaytest

import "net/http"

// Sink is an http.ResponseWriter for benchmarks of a handler: it keeps the
// status, the headers, the number of body bytes and of flushes, and copies
// the body through one fixed buffer of 4 KiB, as net/http's server copies
// it into its connection's buffer. httptest.ResponseRecorder keeps the
// whole body in a buffer that grows, and over a long stream that growth
// (copies and allocations no server makes) weighs in every figure per
// chunk. Reset makes a Sink ready for the next request, reusing its
// memory. A Sink is not safe for concurrent use.
type Sink struct {
	Code    int   // the status written; 200 once the body starts without one
	Bytes   int64 // body bytes written
	Flushes int   // calls of Flush

	hdr  http.Header
	buf  [4 << 10]byte
	used int
}

// Header returns the response's headers.
func (s *Sink) Header() http.Header {
	if s.hdr == nil {
		s.hdr = make(http.Header)
	}
	return s.hdr
}

// WriteHeader records the first status written.
func (s *Sink) WriteHeader(code int) {
	if s.Code == 0 {
		s.Code = code
	}
}

// Write copies p through the buffer.
func (s *Sink) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	n := len(p)
	for len(p) > 0 {
		if s.used == len(s.buf) {
			s.used = 0
		}
		c := copy(s.buf[s.used:], p)
		s.used += c
		p = p[c:]
	}
	s.Bytes += int64(n)
	return n, nil
}

// Flush empties the buffer, as a server's flush sends it.
func (s *Sink) Flush() {
	s.used = 0
	s.Flushes++
}

// Reset forgets the last response.
func (s *Sink) Reset() {
	s.Code, s.Bytes, s.Flushes, s.used = 0, 0, 0, 0
	clear(s.hdr)
}
