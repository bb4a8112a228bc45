// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package direct

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// prompt bounds how long a round trip may take to notice a cancelled
// context or a closed body: generous, so that a loaded machine does not
// fail the test, yet far below the minutes a hung round trip would take.
const prompt = 2 * time.Second

// counted is an httptest server that counts the connections it accepts
// and closes.
type counted struct {
	*httptest.Server
	mu     sync.Mutex
	opened int
	closed int
	change chan struct{} // a value after each open or close
}

func newCounted(t *testing.T, h http.Handler) *counted {
	t.Helper()
	s := &counted{Server: httptest.NewUnstartedServer(h), change: make(chan struct{}, 1)}
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		s.mu.Lock()
		switch state {
		case http.StateNew:
			s.opened++
		case http.StateClosed, http.StateHijacked:
			s.closed++
		}
		s.mu.Unlock()
		select {
		case s.change <- struct{}{}:
		default:
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// counts reports the connections opened and closed so far.
func (s *counted) counts() (opened, closed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened, s.closed
}

// waitClosed waits until the server has seen n connections closed.
func (s *counted) waitClosed(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(prompt)
	for {
		if _, closed := s.counts(); closed >= n {
			return
		}
		select {
		case <-s.change:
		case <-deadline:
			_, closed := s.counts()
			t.Fatalf("server saw %d connections closed, want %d", closed, n)
		}
	}
}

// serveRaw serves every connection accepted on a loopback TCP listener
// with handle, which has the wire to itself, and returns the listener's
// http:// URL and its count of accepted connections.
func serveRaw(tb testing.TB, handle func(c net.Conn)) (string, *atomic.Int32) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return "http://" + ln.Addr().String(), serve(tb, ln, handle)
}

// serve serves every connection accepted on ln with handle and returns
// the count of accepted connections. When the test ends ln is closed
// and every handler waited for.
func serve(tb testing.TB, ln net.Listener, handle func(c net.Conn)) *atomic.Int32 {
	var accepted atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			wg.Go(func() {
				defer c.Close()
				// A backstop: no handler outlives a stuck test by much.
				c.SetDeadline(time.Now().Add(30 * time.Second))
				handle(c)
			})
		}
	})
	tb.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return &accepted
}

// answerOnce reads one request from c and writes the answer to it, then
// closes its side and reads until the client closes: the answer is all
// the client gets.
func answerOnce(c net.Conn, answerTo func(*http.Request) []byte) {
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	io.Copy(io.Discard, req.Body)
	c.Write(answerTo(req))
	c.(interface{ CloseWrite() error }).CloseWrite()
	io.Copy(io.Discard, br)
}

// fixed is an answerOnce answer that is always b.
func fixed(b string) func(*http.Request) []byte {
	return func(*http.Request) []byte { return []byte(b) }
}

// idle is the number of idle connections tr keeps for the host of rawURL.
func idle(tr *Transport, rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if h := tr.hosts[u.Host]; h != nil {
		return len(h.idle)
	}
	return 0
}

func newTransport(t *testing.T, cfg *Config) *Transport {
	tr := New(cfg)
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// get makes a GET round trip to rawURL and reads the whole answer.
func get(t *testing.T, tr http.RoundTripper, rawURL string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return resp.StatusCode, string(b)
}

func TestRoundTripAnswers(t *testing.T) {
	type answer struct {
		Status  int
		Body    string
		Trailer http.Header
	}
	tests := []struct {
		name       string
		method     string
		wire       string
		want       answer
		wantErr    error // from RoundTrip; errAny for any error
		wantBodyOK bool  // reading the body ends in io.EOF
	}{
		{
			name: "content-length",
			wire: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
			want: answer{Status: 200, Body: "hello"}, wantBodyOK: true,
		},
		{
			name: "chunked-with-trailer",
			wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
				"5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 11\r\n\r\n",
			want: answer{Status: 200, Body: "hello world", Trailer: http.Header{"X-Sum": {"11"}}}, wantBodyOK: true,
		},
		{
			name: "http10-read-to-close",
			wire: "HTTP/1.0 200 OK\r\n\r\nhello, until the end",
			want: answer{Status: 200, Body: "hello, until the end"}, wantBodyOK: true,
		},
		{
			name: "connection-close-read-to-close",
			wire: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello",
			want: answer{Status: 200, Body: "hello"}, wantBodyOK: true,
		},
		{
			name: "continue-and-early-hints",
			wire: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" +
				"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
			want: answer{Status: 201, Body: "ok"}, wantBodyOK: true,
		},
		{
			name: "five-informational",
			wire: strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 5) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
			want: answer{Status: 200, Body: "ok"}, wantBodyOK: true,
		},
		{
			name:    "six-informational",
			wire:    strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 6) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
			wantErr: errTooManyInformational,
		},
		{
			name: "switching-protocols-is-final",
			wire: "HTTP/1.1 101 Switching Protocols\r\n\r\n",
			want: answer{Status: 101}, wantBodyOK: true,
		},
		{
			// ReadResponse accepts any three digits; like net/http, a
			// status below 100 is a final answer, not an informational one.
			name: "status-below-100-is-final",
			wire: "HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok",
			want: answer{Status: 99, Body: "ok"}, wantBodyOK: true,
		},
		{
			name:   "head-has-no-body",
			method: http.MethodHead,
			wire:   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
			want:   answer{Status: 200}, wantBodyOK: true,
		},
		{
			name: "no-content",
			wire: "HTTP/1.1 204 No Content\r\n\r\n",
			want: answer{Status: 204}, wantBodyOK: true,
		},
		{
			name: "bare-lf",
			wire: "HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
			want: answer{Status: 200, Body: "ok"}, wantBodyOK: true,
		},
		{
			name: "truncated-body",
			wire: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
			want: answer{Status: 200, Body: "hello"},
		},
		{
			name: "truncated-chunk",
			wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
			want: answer{Status: 200, Body: "hel"},
		},
		{name: "malformed-status", wire: "HTTP/1.1 abc\r\n\r\n", wantErr: errAny},
		{name: "duplicate-content-length", wire: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", wantErr: errAny},
		{name: "negative-content-length", wire: "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\nok", wantErr: errAny},
		{name: "empty", wire: "", wantErr: errAny},
		{name: "only-informational", wire: "HTTP/1.1 100 Continue\r\n\r\n", wantErr: errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := serveRaw(t, func(c net.Conn) { answerOnce(c, fixed(tt.wire)) })
			tr := newTransport(t, nil)
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, err := http.NewRequest(method, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			if tt.wantErr != nil {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("RoundTrip succeeded with %d, want an error", resp.StatusCode)
				}
				if tt.wantErr != errAny && !errors.Is(err, tt.wantErr) {
					t.Fatalf("RoundTrip error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			defer resp.Body.Close()
			b, berr := io.ReadAll(resp.Body)
			if gotOK := berr == nil; gotOK != tt.wantBodyOK {
				t.Errorf("reading body: error %v, want an error: %v", berr, !tt.wantBodyOK)
			}
			got := answer{Status: resp.StatusCode, Body: string(b), Trailer: resp.Trailer}
			if len(got.Trailer) == 0 {
				got.Trailer = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// errAny stands for any error in a table.
var errAny = errors.New("any error")

func TestReuseAfterBodyEOF(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "answer to %s", r.URL.Path)
	}))
	tr := newTransport(t, nil)
	const n = 20
	for i := range n {
		status, body := get(t, tr, fmt.Sprintf("%s/%d", srv.URL, i))
		if want := fmt.Sprintf("answer to /%d", i); status != 200 || body != want {
			t.Fatalf("request %d: %d %q, want 200 %q", i, status, body, want)
		}
	}
	if opened, _ := srv.counts(); opened != 1 {
		t.Errorf("%d requests opened %d connections, want 1", n, opened)
	}
}

func TestNoBodyGoesBackWithoutRead(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/204" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		io.WriteString(w, "hello")
	}))
	tests := []struct {
		name   string
		method string
		path   string
		status int
	}{
		{name: "head", method: http.MethodHead, path: "/", status: 200},
		{name: "no-content", method: http.MethodGet, path: "/204", status: 204},
	}
	tr := newTransport(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			// Neither Read nor Close: the connection is idle already.
			if resp.StatusCode != tt.status || resp.Body != http.NoBody {
				t.Fatalf("got %d with body %T, want %d with http.NoBody", resp.StatusCode, resp.Body, tt.status)
			}
			if n := idle(tr, srv.URL); n != 1 {
				t.Errorf("%d idle connections, want 1", n)
			}
		})
	}
	wantNext(t, tr, srv, "hello", 1)
}

// wantNext checks that one more GET through tr answers 200 with body,
// and that the server has then seen opened connections in all.
func wantNext(t *testing.T, tr *Transport, srv *counted, body string, opened int) {
	t.Helper()
	if status, got := get(t, tr, srv.URL); status != 200 || got != body {
		t.Fatalf("next request: got %d %q, want 200 %q", status, got, body)
	}
	if n, _ := srv.counts(); n != opened {
		t.Errorf("opened %d connections, want %d", n, opened)
	}
}

func TestBodyClosedEarlyClosesConn(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, big)
	}))
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resp.Body.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := idle(tr, srv.URL); n != 0 {
		t.Errorf("%d idle connections after an early Close, want 0", n)
	}
	srv.waitClosed(t, 1)
	if _, body := get(t, tr, srv.URL); body != big {
		t.Fatalf("second answer has %d bytes, want %d", len(body), len(big))
	}
	if opened, _ := srv.counts(); opened != 2 {
		t.Errorf("opened %d connections, want 2", opened)
	}
}

func TestConnectionCloseNotReused(t *testing.T) {
	tests := []struct {
		name     string
		respond  bool // the server asks for the close
		reqClose bool // the request does
	}{
		{name: "server-asks", respond: true},
		{name: "request-asks", reqClose: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.respond {
					w.Header().Set("Connection", "close")
				}
				io.WriteString(w, "bye")
			}))
			tr := newTransport(t, nil)
			for range 3 {
				req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
				req.Close = tt.reqClose
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != "bye" {
					t.Fatalf("got %q, %v", b, err)
				}
				if n := idle(tr, srv.URL); n != 0 {
					t.Fatalf("%d idle connections after Connection: close, want 0", n)
				}
			}
			if opened, _ := srv.counts(); opened != 3 {
				t.Errorf("opened %d connections, want 3", opened)
			}
		})
	}
}

// closeAfterAnswer serves one request per connection with a keep-alive
// answer, the number of body bytes it read, and then writes goodbye and
// closes the connection, as a server with a short idle timeout does, and
// sends on closed once it has.
func closeAfterAnswer(goodbye string, closed chan<- struct{}) func(net.Conn) {
	return func(c net.Conn) {
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		n, _ := io.Copy(io.Discard, req.Body)
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%d", len(fmt.Sprint(n)), n)
		time.Sleep(10 * time.Millisecond)
		io.WriteString(c, goodbye)
		c.Close()
		closed <- struct{}{}
	}
}

func TestServerClosedIdleConn(t *testing.T) {
	tests := []struct {
		name    string
		goodbye string
	}{
		{name: "close"},
		// As net/http's server and nginx do when a header read times out.
		{name: "408-then-close", goodbye: "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			closed := make(chan struct{}, 8)
			u, accepted := serveRaw(t, closeAfterAnswer(tt.goodbye, closed))
			tr := newTransport(t, nil)
			if status, body := get(t, tr, u); status != 200 || body != "0" {
				t.Fatalf("got %d %q", status, body)
			}
			<-closed
			// The idle connection is closed: the peek finds it so, or the
			// write fails and the request goes again on a new connection.
			if status, body := get(t, tr, u); status != 200 || body != "0" {
				t.Fatalf("after an idle close: got %d %q", status, body)
			}
			<-closed
			payload := bytes.Repeat([]byte("p"), 1000)
			req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(payload))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatalf("POST after an idle close: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != "1000" {
				t.Errorf("got %d %q, want 200 and the server's count of 1000 body bytes", resp.StatusCode, b)
			}
			if n := accepted.Load(); n != 3 {
				t.Errorf("server accepted %d connections, want 3", n)
			}
		})
	}
}

// opaqueConn hides the connection's file descriptor, so that the peek
// cannot see a close and a write must find it.
type opaqueConn struct{ net.Conn }

func opaqueDial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return opaqueConn{c}, nil
}

func TestRetryWhenWriteFails(t *testing.T) {
	// 8 MiB is more than the socket buffers hold, so the write must meet
	// the reset the server's closed socket answers the first bytes with.
	payload := bytes.Repeat([]byte("p"), 8<<20)
	tests := []struct {
		name         string
		body         func() io.Reader
		wantErr      bool
		wantAccepted int32
	}{
		// http.NewRequest sets GetBody for a *bytes.Reader.
		{name: "get-body", body: func() io.Reader { return bytes.NewReader(payload) }, wantAccepted: 2},
		// Without GetBody the body cannot be sent again.
		{name: "no-get-body", body: func() io.Reader { return io.MultiReader(bytes.NewReader(payload)) }, wantErr: true, wantAccepted: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			closed := make(chan struct{}, 8)
			u, accepted := serveRaw(t, closeAfterAnswer("", closed))
			tr := newTransport(t, &Config{Dial: opaqueDial})
			get(t, tr, u)
			<-closed
			req, err := http.NewRequest(http.MethodPost, u, tt.body())
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("RoundTrip succeeded, want an error")
				}
			} else {
				if err != nil {
					t.Fatalf("RoundTrip: %v", err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want := fmt.Sprint(len(payload)); string(b) != want {
					t.Errorf("server read %s body bytes, want %s", b, want)
				}
			}
			if n := accepted.Load(); n != tt.wantAccepted {
				t.Errorf("server accepted %d connections, want %d", n, tt.wantAccepted)
			}
		})
	}
}

func TestRetryWhenNothingRead(t *testing.T) {
	// A small request fits in the socket buffers: its write succeeds on
	// the connection the server closed, and the read finds the close.
	// As net/http, only a request it would replay goes again.
	tests := []struct {
		name         string
		method       string
		header       http.Header
		body         func() io.Reader
		wantErr      bool
		wantAccepted int32
	}{
		{name: "get", method: http.MethodGet, wantAccepted: 2},
		{name: "post", method: http.MethodPost, body: func() io.Reader { return strings.NewReader("x") }, wantErr: true, wantAccepted: 1},
		{name: "post-idempotency-key", method: http.MethodPost, header: http.Header{"Idempotency-Key": {"k"}},
			body: func() io.Reader { return strings.NewReader("x") }, wantAccepted: 2},
		{name: "post-body-fails", method: http.MethodPost, body: func() io.Reader { return iotest.ErrReader(errors.New("body broke")) },
			wantErr: true, wantAccepted: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			closed := make(chan struct{}, 8)
			u, accepted := serveRaw(t, closeAfterAnswer("", closed))
			tr := newTransport(t, &Config{Dial: opaqueDial})
			get(t, tr, u)
			<-closed
			var body io.Reader
			if tt.body != nil {
				body = tt.body()
			}
			req, err := http.NewRequest(tt.method, u, body)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := tr.RoundTrip(req)
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("RoundTrip succeeded, want an error")
				}
			} else {
				if err != nil {
					t.Fatalf("RoundTrip: %v", err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if n := accepted.Load(); n != tt.wantAccepted {
				t.Errorf("server accepted %d connections, want %d", n, tt.wantAccepted)
			}
		})
	}
}

func TestEarlyAnswer(t *testing.T) {
	// The server reads the head only, answers and closes with the body
	// unread, which resets the connection under the client's write.
	u, _ := serveRaw(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntoo large")
	})
	tr := newTransport(t, nil)
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(make([]byte, 8<<20)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip: %v, want the 413", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || string(b) != "too large" || err != nil {
		t.Errorf("got %d %q (read error %v), want 413 %q", resp.StatusCode, b, err, "too large")
	}
}

// stallServer answers /stall with a head and "partial" and then waits
// for the client to go, and any other path at once.
func stallServer(t *testing.T) (*counted, <-chan struct{}) {
	arrived := make(chan struct{}, 8)
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stall-head":
			arrived <- struct{}{}
			<-r.Context().Done()
		case "/stall-body":
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			arrived <- struct{}{}
			<-r.Context().Done()
		default:
			io.WriteString(w, "ok")
		}
	}))
	return srv, arrived
}

// wantStopped checks that a round trip failed with want, the context's
// error, within prompt of the context's end.
func wantStopped(t *testing.T, resp *http.Response, err, want error, took time.Duration) {
	t.Helper()
	if err == nil {
		resp.Body.Close()
		t.Fatalf("RoundTrip succeeded, want %v", want)
	}
	if !errors.Is(err, want) {
		t.Errorf("RoundTrip error %v, want %v", err, want)
	}
	if took > prompt {
		t.Errorf("RoundTrip returned %v after the context ended", took)
	}
}

func TestCancelWaitingForHead(t *testing.T) {
	srv, arrived := stallServer(t)
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stall-head", nil)
	cancelled := make(chan time.Time, 1)
	go func() {
		<-arrived
		cancelled <- time.Now()
		cancel()
	}()
	resp, err := tr.RoundTrip(req)
	took := time.Since(<-cancelled)
	wantStopped(t, resp, err, context.Canceled, took)
	wantNext(t, tr, srv, "ok", 2)
}

func TestCancelReadingBody(t *testing.T) {
	srv, arrived := stallServer(t)
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stall-body", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, len("partial"))
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "partial" {
		t.Fatalf("read %q, %v", buf, err)
	}
	<-arrived
	cancelled := make(chan time.Time, 1)
	go func() {
		time.Sleep(20 * time.Millisecond) // most likely in the Read below by then; either order must work
		cancelled <- time.Now()
		cancel()
	}()
	n, err := resp.Body.Read(buf)
	took := time.Since(<-cancelled)
	if n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Read = %d, %v, want 0, context.Canceled", n, err)
	}
	if took > prompt {
		t.Errorf("Read returned %v after the cancel", took)
	}
	if _, err := resp.Body.Read(buf); err == nil {
		t.Error("Read after a failed Read succeeded")
	}
	if n := idle(tr, srv.URL); n != 0 {
		t.Errorf("%d idle connections, want 0", n)
	}
	wantNext(t, tr, srv, "ok", 2)
}

func TestCancelWritingBody(t *testing.T) {
	// The server reads the head and then nothing, so the 8 MiB body
	// fills the socket buffers and the write blocks.
	arrived, done := make(chan struct{}, 1), make(chan struct{})
	u, _ := serveRaw(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		arrived <- struct{}{}
		<-done
	})
	t.Cleanup(func() { close(done) }) // before serveRaw's, which waits for the handler
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(make([]byte, 8<<20)))
	cancelled := make(chan time.Time, 1)
	go func() {
		<-arrived
		time.Sleep(20 * time.Millisecond) // most likely blocked in the write by then; either order must work
		cancelled <- time.Now()
		cancel()
	}()
	resp, err := tr.RoundTrip(req)
	took := time.Since(<-cancelled)
	wantStopped(t, resp, err, context.Canceled, took)
}

func TestDeadline(t *testing.T) {
	srv, _ := stallServer(t)
	tests := []struct {
		name string
		path string
	}{
		{name: "head", path: "/stall-head"},
		{name: "body", path: "/stall-body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTransport(t, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+tt.path, nil)
			start := time.Now()
			resp, err := tr.RoundTrip(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v, want context.DeadlineExceeded", err)
			}
			if took := time.Since(start); took > prompt {
				t.Errorf("took %v for a 100ms deadline", took)
			}
		})
	}
}

// fallback is a RoundTripper that records what it is given.
type fallback struct {
	mu        sync.Mutex
	reqs      []*http.Request
	closeIdle int
}

func (f *fallback) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return &http.Response{StatusCode: http.StatusTeapot, Body: io.NopCloser(strings.NewReader("fallback")), Request: req}, nil
}

func (f *fallback) CloseIdleConnections() {
	f.mu.Lock()
	f.closeIdle++
	f.mu.Unlock()
}

func TestFallback(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "direct")
	}))
	proxyURL, _ := url.Parse("http://proxy.invalid:3128")
	tests := []struct {
		name     string
		method   string
		url      string // if empty, the server's
		expect   string
		header   http.Header
		proxy    func(*http.Request) (*url.URL, error)
		fallback bool
	}{
		{name: "plain-http", fallback: false},
		{name: "https", url: "https://example.invalid/", fallback: true},
		{name: "proxied", proxy: func(*http.Request) (*url.URL, error) { return proxyURL, nil }, fallback: true},
		{name: "proxy-says-none", proxy: func(*http.Request) (*url.URL, error) { return nil, nil }, fallback: false},
		{name: "proxy-error", proxy: func(*http.Request) (*url.URL, error) { return nil, errors.New("bad proxy") }, fallback: true},
		{name: "expect-continue", method: http.MethodPost, expect: "100-continue", fallback: true},
		{name: "connect", method: http.MethodConnect, fallback: true},
		{name: "extension-method", method: "PROPFIND", fallback: true},
		{name: "header-name-not-token", header: http.Header{"X-A\r\nInjected: 1": {"v"}}, fallback: true},
		{name: "header-value-newline", header: http.Header{"X-A": {"v\r\nInjected: 1"}}, fallback: true},
		{name: "header-value-tab", header: http.Header{"X-A": {"a\tb"}}, fallback: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &fallback{}
			tr := newTransport(t, &Config{Fallback: fb, Proxy: tt.proxy})
			method, u := tt.method, tt.url
			if method == "" {
				method = http.MethodGet
			}
			if u == "" {
				u = srv.URL
			}
			req, err := http.NewRequest(method, u, strings.NewReader("body"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.expect != "" {
				req.Header.Set("Expect", tt.expect)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want, wantBody, wantReqs := 200, "direct", 0
			if tt.fallback {
				want, wantBody, wantReqs = http.StatusTeapot, "fallback", 1
			}
			if resp.StatusCode != want || string(b) != wantBody {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, b, want, wantBody)
			}
			if len(fb.reqs) != wantReqs || wantReqs == 1 && fb.reqs[0] != req {
				t.Errorf("fallback got %d requests, want %d (the caller's)", len(fb.reqs), wantReqs)
			}
		})
	}
}

func TestProxyAskedOncePerHost(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "direct")
	}))
	proxyURL, _ := url.Parse("http://proxy.invalid:3128")
	var mu sync.Mutex
	asked := map[string]int{}
	fb := &fallback{}
	tr := newTransport(t, &Config{Fallback: fb, Proxy: func(req *http.Request) (*url.URL, error) {
		mu.Lock()
		asked[req.URL.Host]++
		mu.Unlock()
		if req.URL.Host == "proxied.invalid" {
			return proxyURL, nil
		}
		return nil, nil
	}})
	for range 3 {
		if _, body := get(t, tr, srv.URL); body != "direct" {
			t.Fatalf("got %q, want direct", body)
		}
		if _, body := get(t, tr, "http://proxied.invalid/x"); body != "fallback" {
			t.Fatalf("got %q, want fallback", body)
		}
	}
	want := map[string]int{strings.TrimPrefix(srv.URL, "http://"): 1, "proxied.invalid": 1}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("Proxy calls per host (-want +got):\n%s", diff)
	}
	if len(fb.reqs) != 3 {
		t.Errorf("fallback got %d requests, want 3", len(fb.reqs))
	}
}

func TestMaxIdlePerHost(t *testing.T) {
	var both sync.WaitGroup
	both.Add(2)
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		both.Done()
		both.Wait() // two connections, each with a request in flight
		io.WriteString(w, "ok")
	}))
	tr := newTransport(t, &Config{MaxIdlePerHost: 1})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	if n := idle(tr, srv.URL); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
	srv.waitClosed(t, 1)
	if opened, closed := srv.counts(); opened != 2 || closed != 1 {
		t.Errorf("opened %d and closed %d connections, want 2 and 1", opened, closed)
	}
}

func TestNegativeMaxIdleKeepsNone(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	tr := newTransport(t, &Config{MaxIdlePerHost: -1})
	for range 2 {
		get(t, tr, srv.URL)
		if n := idle(tr, srv.URL); n != 0 {
			t.Fatalf("%d idle connections, want 0", n)
		}
	}
	if opened, _ := srv.counts(); opened != 2 {
		t.Errorf("opened %d connections, want 2", opened)
	}
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestIdleTimeout(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	clock := &fakeClock{now: time.Now()}
	tr := newTransport(t, &Config{IdleTimeout: time.Hour})
	tr.now = clock.Now
	get(t, tr, srv.URL)
	clock.Advance(time.Hour - time.Second)
	get(t, tr, srv.URL)
	if opened, _ := srv.counts(); opened != 1 {
		t.Fatalf("a connection idle for less than IdleTimeout was not reused: opened %d, want 1", opened)
	}
	clock.Advance(time.Hour)
	get(t, tr, srv.URL)
	if opened, _ := srv.counts(); opened != 2 {
		t.Errorf("a connection idle for IdleTimeout was reused: opened %d, want 2", opened)
	}
	srv.waitClosed(t, 1)
}

func TestCloseIdleConnections(t *testing.T) {
	var both sync.WaitGroup
	both.Add(2)
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pair" {
			both.Done()
			both.Wait()
		}
		io.WriteString(w, "ok")
	}))
	fb := &fallback{}
	tr := newTransport(t, &Config{Fallback: fb})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/pair", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	if n := idle(tr, srv.URL); n != 2 {
		t.Fatalf("%d idle connections, want 2", n)
	}
	tr.CloseIdleConnections()
	if n := idle(tr, srv.URL); n != 0 {
		t.Errorf("%d idle connections after CloseIdleConnections, want 0", n)
	}
	srv.waitClosed(t, 2)
	if fb.closeIdle != 1 {
		t.Errorf("fallback's CloseIdleConnections called %d times, want 1", fb.closeIdle)
	}
	get(t, tr, srv.URL)
	if opened, _ := srv.counts(); opened != 3 {
		t.Errorf("opened %d connections, want 3", opened)
	}
}

func TestConcurrent(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%s %s", r.URL.Path, b)
	}))
	tr := newTransport(t, nil)
	const workers, each = 16, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				path := fmt.Sprintf("/%d/%d", w, i)
				var body io.Reader
				method := http.MethodGet
				if i%2 == 1 {
					method, body = http.MethodPost, strings.NewReader("posted")
				}
				req, _ := http.NewRequest(method, srv.URL+path, body)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Errorf("%s %s: %v", method, path, err)
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := path + " "
				if body != nil {
					want += "posted"
				}
				if err != nil || string(b) != want {
					t.Errorf("%s %s: %q, %v, want %q", method, path, b, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	// A request dials only when no connection is idle, so only when all
	// the others are in use.
	if opened, _ := srv.counts(); opened > workers {
		t.Errorf("opened %d connections for %d workers", opened, workers)
	}
}

func TestCloseDuringRead(t *testing.T) {
	srv, arrived := stallServer(t)
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/stall-body", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	<-arrived
	buf := make([]byte, len("partial"))
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := resp.Body.Read(buf)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // most likely blocked in Read by then; either order must work
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("Read blocked across a Close succeeded")
		}
	case <-time.After(prompt):
		t.Fatal("Read still blocked after Close")
	}
	if _, err := resp.Body.Read(buf); !errors.Is(err, http.ErrBodyReadAfterClose) {
		t.Errorf("Read after Close: %v, want http.ErrBodyReadAfterClose", err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := idle(tr, srv.URL); n != 0 {
		t.Errorf("%d idle connections, want 0", n)
	}
}

func TestReadAfterEOFAndClose(t *testing.T) {
	srv := newCounted(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "hello" {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
	for range 2 {
		if n, err := resp.Body.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Errorf("Read after EOF = %d, %v, want 0, io.EOF", n, err)
		}
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := resp.Body.Read(make([]byte, 8)); !errors.Is(err, http.ErrBodyReadAfterClose) {
		t.Errorf("Read after Close: %v, want http.ErrBodyReadAfterClose", err)
	}
	// The connection went back at EOF and a Close after does not take it.
	if n := idle(tr, srv.URL); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
}

func TestHeadTooLarge(t *testing.T) {
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	u, _ := serveRaw(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Big: ")
		// Endless, as a hostile server's would be; the write fails
		// once the client hangs up.
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	resp, err := tr.RoundTrip(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("RoundTrip succeeded, want an error")
	}
	if !errors.Is(err, errHeadTooLarge) {
		t.Errorf("error %v, want errHeadTooLarge", err)
	}
}

func BenchmarkRoundTrip(b *testing.B) {
	answer := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"qwen3-8b",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"The capital of France is Paris."},` +
		`"finish_reason":"stop"}],"usage":{"prompt_tokens":24,"completion_tokens":8,"total_tokens":32},"system_fingerprint":"b1"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()
	transports := []struct {
		name string
		rt   http.RoundTripper
	}{
		{name: "direct", rt: New(nil)},
		{name: "net-http", rt: &http.Transport{DisableCompression: true}},
	}
	for _, tt := range transports {
		b.Run("transport="+tt.name, func(b *testing.B) {
			defer tt.rt.(interface{ CloseIdleConnections() }).CloseIdleConnections()
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
				resp, err := tt.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || n != int64(len(answer)) {
					b.Fatalf("read %d bytes, %v", n, err)
				}
			}
		})
	}
}
