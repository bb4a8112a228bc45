// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gatewaytest_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// chunks posts body to srv over a raw connection and returns the HTTP/1.1
// chunks of the answer: each is one flushed write of the backend.
func chunks(t *testing.T, srv *httptest.Server, body string) []string {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
	}
	var out []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if n == 0 {
			return out
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b[:n]))
	}
}

// TestPerEvent checks that a PerEvent reply streams one SSE event per
// write, as a real server does, and that Seed cuts finer.
func TestPerEvent(t *testing.T) {
	events := []string{
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"b"}}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	}
	var lines [][]byte
	for _, e := range events {
		lines = append(lines, []byte(e))
	}
	answer := gatewaytest.ChatSSE(lines...)
	b := gatewaytest.NewBackend()
	srv := httptest.NewServer(b)
	defer srv.Close()

	b.Push(gatewaytest.Reply{Body: answer, PerEvent: true})
	got := chunks(t, srv, `{"model":"m","stream":true}`)
	if len(got) != len(events)+1 {
		t.Fatalf("%d writes, want one per event (%d): %q", len(got), len(events)+1, got)
	}
	for i, e := range events {
		if want := "data: " + e + "\n\n"; got[i] != want {
			t.Errorf("write %d = %q, want %q", i, got[i], want)
		}
	}
	if got[len(events)] != "data: [DONE]\n\n" {
		t.Errorf("last write %q", got[len(events)])
	}

	b.Push(gatewaytest.Reply{Body: answer, PerEvent: true})
	if got := chunks(t, srv, `{"model":"m"}`); len(got) != 1 || !strings.Contains(got[0], `"object":"chat.completion"`) {
		t.Errorf("a whole answer in %d writes: %q", len(got), got)
	}

	b.Push(gatewaytest.Reply{Body: answer, Seed: 7, PerEvent: true})
	if got := chunks(t, srv, `{"model":"m","stream":true}`); len(got) <= len(events)+1 || strings.Join(got, "") != string(answer) {
		t.Errorf("Seed cuts finer than events: %d writes", len(got))
	}
}
