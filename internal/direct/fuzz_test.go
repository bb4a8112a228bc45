// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package direct

// FuzzRoundTrip holds a Transport to net/http's own on any bytes a
// server may answer with: both read the answer with ReadResponse, so
// whatever one makes of the bytes the other must make too, but for the
// differences listed in compareOutcomes with their reasons.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// outcome is what a client makes of an answer.
type outcome struct {
	Err              bool
	Status           string
	StatusCode       int
	Proto            string
	ProtoMajor       int
	ProtoMinor       int
	Header           http.Header
	ContentLength    int64
	TransferEncoding []string
	Close            bool
	Uncompressed     bool
	Body             string
	BodyErr          bool
	Trailer          http.Header

	err error // RoundTrip's, not compared
}

// roundTrip makes a request with rt and reads its answer, up to 1 MiB of
// its body.
func roundTrip(rt http.RoundTripper, method, u string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		panic(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return outcome{Err: true, err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return outcome{
		Status:           resp.Status,
		StatusCode:       resp.StatusCode,
		Proto:            resp.Proto,
		ProtoMajor:       resp.ProtoMajor,
		ProtoMinor:       resp.ProtoMinor,
		Header:           resp.Header,
		ContentLength:    resp.ContentLength,
		TransferEncoding: resp.TransferEncoding,
		Close:            resp.Close,
		Uncompressed:     resp.Uncompressed,
		Body:             string(b),
		BodyErr:          err != nil,
		Trailer:          resp.Trailer,
	}
}

func FuzzRoundTrip(f *testing.F) {
	seeds := []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 11\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 6) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
		"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
		"HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nraw bytes",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n",
		"",
	}
	for _, s := range seeds {
		f.Add(false, []byte(s))
	}
	f.Add(true, []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"))
	// The server listens on a Unix socket rather than TCP: a round trip
	// per input on loopback TCP leaves a connection in TIME_WAIT each,
	// and the tens of thousands a minute exhaust the ephemeral ports.
	// The Transport does not tell the two apart.
	ln, err := net.Listen("unix", filepath.Join(f.TempDir(), "s"))
	if err != nil {
		f.Fatal(err)
	}
	var answers sync.Map // request path to answer
	serve(f, ln, func(c net.Conn) {
		answerOnce(c, func(req *http.Request) []byte {
			a, _ := answers.Load(req.URL.Path)
			b, _ := a.([]byte)
			return b
		})
	})
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", ln.Addr().String())
	}
	var next atomic.Int64
	f.Fuzz(func(t *testing.T, head bool, answer []byte) {
		path := fmt.Sprintf("/%d", next.Add(1))
		answers.Store(path, answer)
		defer answers.Delete(path)
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		u := "http://backend.test" + path
		tr := New(&Config{Dial: dial})
		ref := &http.Transport{DialContext: dial, DisableCompression: true, DisableKeepAlives: true}
		got := roundTrip(tr, method, u)
		want := roundTrip(ref, method, u)
		tr.CloseIdleConnections()
		ref.CloseIdleConnections()
		if err := compareOutcomes(want, got); err != nil {
			t.Fatalf("%v\nanswer: %q", err, answer)
		}
	})
}

// compareOutcomes reports how got, a Transport's outcome, differs from
// want, net/http's, in ways that are not by design.
func compareOutcomes(want, got outcome) error {
	switch {
	case want.Err && got.Err:
		return nil
	case got.Err:
		// Since Go 1.24 net/http bounds the 1xx answers only by the
		// bytes of their heads; a Transport also stops at six of them.
		if errors.Is(got.err, errTooManyInformational) {
			return nil
		}
		return errors.New("direct failed where net/http did not: " + got.err.Error())
	case want.Err:
		return errors.New("net/http failed where direct did not: " + want.err.Error())
	}
	// net/http hands a 101 that switches protocols the connection as
	// its body; a Transport carries no upgrades and gives none.
	if want.StatusCode == http.StatusSwitchingProtocols {
		want.Body, want.BodyErr = "", false
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(outcome{})); diff != "" {
		return errors.New("outcome mismatch (-net/http +direct):\n" + diff)
	}
	return nil
}
