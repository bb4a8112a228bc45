// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gatewaytest

import (
	"bytes"
	"net/http"
	"testing"
)

func TestSink(t *testing.T) {
	var s Sink
	var _ http.Flusher = &s
	s.Header().Set("Content-Type", "text/event-stream")
	big := bytes.Repeat([]byte("x"), 10_000) // over the buffer, twice
	for _, p := range [][]byte{[]byte("data: a\n\n"), big, nil} {
		if n, err := s.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", len(p), n, err)
		}
	}
	s.WriteHeader(http.StatusTeapot) // after the body: not recorded
	s.Flush()
	if s.Code != http.StatusOK || s.Bytes != int64(9+len(big)) || s.Flushes != 1 || s.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("after a response: code %d, %d bytes, %d flushes, headers %v", s.Code, s.Bytes, s.Flushes, s.Header())
	}
	s.Reset()
	s.WriteHeader(http.StatusBadGateway)
	if s.Code != http.StatusBadGateway || s.Bytes != 0 || s.Flushes != 0 || len(s.Header()) != 0 {
		t.Errorf("after Reset: code %d, %d bytes, %d flushes, headers %v", s.Code, s.Bytes, s.Flushes, s.Header())
	}
}
