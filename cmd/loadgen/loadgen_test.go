// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	tests := []struct {
		name string
		q    float64
		want time.Duration
	}{
		{name: "p50", q: .5, want: 500 * time.Microsecond},
		{name: "p90", q: .9, want: 900 * time.Microsecond},
		{name: "p99", q: .99, want: 990 * time.Microsecond},
		{name: "max", q: 1, want: 1000 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := h.quantile(tt.q)
			// Buckets keep a value to within 1/subBuckets of itself.
			if diff := got - tt.want; diff < -tt.want/subBuckets || diff > tt.want/subBuckets {
				t.Errorf("quantile(%v) = %v, want %v ± 0.1%%", tt.q, got, tt.want)
			}
		})
	}
	if got := h.max; got != time.Millisecond {
		t.Errorf("max = %v, want 1ms", got)
	}
}

func TestBucketsCoverEveryValue(t *testing.T) {
	for _, v := range []uint64{0, 1, 63, 64, 127, 128, 129, 255, 256, 1000, 2047, 2048, 2049, 4095, 4096, 1 << 20, 1<<40 + 12345, 1<<63 - 1} {
		i := bucketOf(v)
		if v < lowOf(i) || v > highOf(i) {
			t.Errorf("%d in bucket %d = [%d, %d]", v, i, lowOf(i), highOf(i))
		}
		if w := highOf(i) - lowOf(i); v >= 2*subBuckets && w > v/subBuckets {
			t.Errorf("bucket of %d is %d wide, over 1/%d", v, w, subBuckets)
		}
	}
}

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		name string
		url  string
		want error
	}{
		{name: "ipv4", url: "http://127.0.0.1:8686/v1/chat/completions"},
		{name: "ipv6", url: "http://[::1]:8686/v1/chat/completions"},
		{name: "localhost", url: "http://localhost:8686/"},
		{name: "remote", url: "http://example.com/v1/chat/completions", want: errNotLoopback},
		{name: "private", url: "http://10.0.0.1/", want: errNotLoopback},
		{name: "https", url: "https://127.0.0.1/", want: errBadConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkLoopback(tt.url); !errors.Is(err, tt.want) {
				t.Errorf("checkLoopback(%q) = %v, want %v", tt.url, err, tt.want)
			}
		})
	}
}

// TestRun sends a short run to a server that streams an answer, and
// checks the counts and the figures.
func TestRun(t *testing.T) {
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"stream":true`) {
			http.Error(w, "want a stream", http.StatusBadRequest)
			return
		}
		got.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[]}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(2 * time.Millisecond)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	cfg := config{url: srv.URL, rate: 200, duration: 250 * time.Millisecond, warmup: 50 * time.Millisecond,
		conns: 4, maxInflight: 100, maxRequests: 1000, timeout: 5 * time.Second, stream: true, model: "text", expect: "[DONE]"}
	res, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := struct{ Sent, OK, Errors, Dropped int }{50, 50, 0, 0}
	if diff := cmp.Diff(want, struct{ Sent, OK, Errors, Dropped int }{res.sent, res.ok, res.errors, res.dropped}); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if n := got.Load(); n != 60 {
		t.Errorf("server got %d requests, want 60 (10 warm-up, 50 measured)", n)
	}
	if p50, ttfb := res.latency.quantile(.5), res.ttfb.quantile(.5); p50 < 2*time.Millisecond || ttfb >= p50 {
		t.Errorf("p50 %v, ttfb p50 %v: want p50 ≥ 2ms > ttfb", p50, ttfb)
	}
}

// TestRunCountsErrors checks that a status other than 200 and a missing
// expected string are errors, not successes.
func TestRunCountsErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"no"}}`, http.StatusTooManyRequests)
	}))
	defer srv.Close()
	cfg := config{url: srv.URL, rate: 100, duration: 100 * time.Millisecond, conns: 2, maxInflight: 10,
		maxRequests: 100, timeout: time.Second, model: "text"}
	res, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.ok != 0 || res.errors != 10 || !strings.Contains(res.firstErr, "status 429") {
		t.Errorf("ok %d errors %d first %q, want 0, 10 and a 429", res.ok, res.errors, res.firstErr)
	}
}

// TestRunClosed runs closed loop: never more requests open than workers,
// each worker on one connection, every answer counted.
func TestRunClosed(t *testing.T) {
	var open, most, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := open.Add(1)
		defer open.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		io.Copy(io.Discard, r.Body)
		time.Sleep(2 * time.Millisecond)
		fmt.Fprint(w, `{"choices":[{"message":{"content":"ok"}}]}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	cfg := config{url: srv.URL, workers: 3, duration: 200 * time.Millisecond, warmup: 50 * time.Millisecond,
		conns: 64, maxInflight: 100, maxRequests: 1000, timeout: 5 * time.Second, model: "text", expect: "ok"}
	res, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.errors != 0 || res.ok == 0 || res.ok != res.sent {
		t.Errorf("sent %d ok %d errors %d (%s), want every one ok", res.sent, res.ok, res.errors, res.firstErr)
	}
	// Three workers, each waiting 2 ms an answer: at most 1,500/s.
	if res.achieved > 1500 || res.achieved < 100 {
		t.Errorf("achieved %.0f/s, want at most 3 workers' 1,500/s", res.achieved)
	}
	if m, c := most.Load(), conns.Load(); m != 3 || c != 3 {
		t.Errorf("%d requests open at most over %d connections, want 3 and 3", m, c)
	}
}

func TestConfigBounds(t *testing.T) {
	base := config{url: "http://127.0.0.1:1/", rate: 1000, duration: time.Second, conns: 1, maxInflight: 1, maxRequests: 1000, timeout: time.Second}
	tests := []struct {
		name string
		edit func(*config)
	}{
		{name: "too_many_requests", edit: func(c *config) { c.duration = 2 * time.Second }},
		{name: "zero_rate", edit: func(c *config) { c.rate = 0 }},
		{name: "zero_conns", edit: func(c *config) { c.conns = 0 }},
		{name: "negative_workers", edit: func(c *config) { c.workers = -1 }},
		{name: "too_many_workers", edit: func(c *config) { c.workers = 5000 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			if _, err := run(context.Background(), c); !errors.Is(err, errBadConfig) {
				t.Errorf("run = %v, want errBadConfig", err)
			}
		})
	}
}

// TestChatStream checks the harness's generated stream: n SSE events,
// the last [DONE], every content chunk carrying "harness".
func TestChatStream(t *testing.T) {
	for _, n := range []int{4, 8, 54} {
		s := string(chatStream(n))
		if got := strings.Count(s, "data: "); got != n {
			t.Errorf("chatStream(%d): %d events", n, got)
		}
		if got := strings.Count(s, "harness "); got != n-4 {
			t.Errorf("chatStream(%d): %d content chunks, want %d", n, got, n-4)
		}
		if !strings.HasSuffix(s, "data: [DONE]\n\n") {
			t.Errorf("chatStream(%d) does not end with [DONE]", n)
		}
	}
}

// TestRelay checks that the bare relay forwards the body and path and
// copies the status, content type and answer back, a stream as it comes.
func TestRelay(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprintf(w, "data: %s %s\n\n", r.URL.Path, body)
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer backend.Close()
	srv := httptest.NewServer(newRelay(backend.URL, 4))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	want := "data: /v1/chat/completions {\"x\":1}\n\ndata: [DONE]\n\n"
	if resp.StatusCode != http.StatusTeapot || resp.Header.Get("Content-Type") != "text/event-stream" || string(got) != want {
		t.Errorf("relay answered %d %q %q, want 418 text/event-stream %q", resp.StatusCode, resp.Header.Get("Content-Type"), got, want)
	}
}

// TestMain lets the test binary stand in for the harness's children,
// so that the comparisons run without building toolgate or the fake
// backend: with -relay-listen or -mcp-listen it is loadgen itself (the
// harness starts os.Executable); with LOADGEN_TEST_FAKE_TOOLGATE set, as
// "serve" it stands in for `toolgate serve` and with -addr for
// cmd/fakebackend.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		fake := os.Getenv("LOADGEN_TEST_FAKE_TOOLGATE") == "1"
		switch {
		case os.Args[1] == "-relay-listen" || os.Args[1] == "-mcp-listen":
			main()
			os.Exit(0)
		case os.Args[1] == "serve" && fake:
			fakeToolgate(os.Args[2:])
			os.Exit(0)
		case os.Args[1] == "-addr" && fake:
			fakeBackend(os.Args[1:])
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// fakeToolgate serves as `toolgate serve --config C --addr A` would: for
// the MCP comparison's config the bare MCP server at /mcp, for the
// gateway's the bare relay to its providers' base_url; both behind the
// bearer token, saying where on stderr as toolgate does.
func fakeToolgate(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	cfgPath := fs.String("config", "", "")
	addr := fs.String("addr", "", "")
	fs.Parse(args)
	b, err := os.ReadFile(*cfgPath)
	cfg := string(b)
	var h http.Handler
	switch base := regexp.MustCompile(`base_url: "(http://[^"]+)/v1"`).FindStringSubmatch(cfg); {
	case err != nil:
	case strings.Contains(cfg, "audit: {db: ") && strings.Contains(cfg, "demo: {}"):
		h = newBareMCP()
	case base != nil:
		h = newRelay(base[1], 4)
	}
	if h == nil {
		fmt.Fprintf(os.Stderr, "fake toolgate: config %q: %v\n", cfg, err)
		os.Exit(2)
	}
	if os.Getenv("GOGC") == "" {
		fmt.Fprintln(os.Stderr, "fake toolgate: GOGC unset")
		os.Exit(2)
	}
	want := "Bearer " + os.Getenv("GATEWAY_TOKEN")
	fakeServe(*addr, "toolgate: serving 5 tools over MCP at http://%s/mcp\n", os.Stderr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// fakeBackend serves as `fakebackend -addr A -corpora DIR` would serve the
// harness's streams: the stream its model names, or for stream: false a
// Chat completion with its text.
func fakeBackend(args []string) {
	fs := flag.NewFlagSet("fakebackend", flag.ExitOnError)
	addr := fs.String("addr", "", "")
	corpora := fs.String("corpora", "", "")
	pieces := fs.String("pieces", "", "")
	fs.Parse(args)
	if *pieces != "events" {
		fmt.Fprintf(os.Stderr, "fakebackend: the harness asked for -pieces %q, want events by default\n", *pieces)
		os.Exit(2)
	}
	fakeServe(*addr, "listening on http://%s\n", os.Stdout, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		name, ok := strings.CutPrefix(req.Model, "recorded:")
		stream, err := os.ReadFile(filepath.Join(*corpora, "gateway", filepath.FromSlash(name)))
		if !ok || err != nil {
			http.Error(w, "no such model", http.StatusNotFound)
			return
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"harness %d bytes"},"finish_reason":"stop"}]}`, len(stream))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
	}))
}

// fakeServe serves h on addr until interrupted, first printing hello
// (with the address) to w.
func fakeServe(addr, hello string, w io.Writer, h http.Handler) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		os.Exit(2)
	}
	fmt.Fprintf(w, hello, ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	srv := &http.Server{Handler: h}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	srv.Serve(ln)
}

// TestCompare runs the whole -compare harness on a tiny load with stand-ins
// for toolgate and the fake backend (see TestMain): two rounds of the
// three modes against direct, the relay, toolgate and a base, and the
// summary.
func TestCompare(t *testing.T) {
	t.Setenv("LOADGEN_TEST_FAKE_TOOLGATE", "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cc := compareConfig{toolgate: self, fakebackend: self, base: self, relay2: true, rate: 100, streamRate: 50, duration: 100 * time.Millisecond,
		warmup: 20 * time.Millisecond, rounds: 2, events: [3]int{8, 10, 20}, conns: 4, workers: 2, gogc: "400", settle: 20 * time.Millisecond}
	if err := runCompare(context.Background(), cc, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"round 2  streaming 20 events    base", "non-streaming 8 events:\n  relay    CPU/request",
		"  toolgate CPU/request", "  base     CPU/request", "CPU per streamed event ((20-event − 10-event) / 10):",
		"  relay2   CPU/request", "# against the targets, over the whole run", "CPU per streamed event:            toolgate",
		"# saturated: every mode again closed loop, 2 workers", "round 2  streaming 20 events, saturated relay2",
		"CPU per streamed event ((20-event − 10-event) / 10, saturated):", "CPU per streamed event, saturated: toolgate"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// The second relay's figures stand beside toolgate's in the verdict.
	for _, re := range []string{`toolgate ÷ relay CPU [0-9.]+× \(≤ 1\.3×\) (met|MISSED)  \[relay2: [0-9.]+×\]`,
		// Closed loop: throughput, not added latency.
		`non-streaming 8 events, saturated:\n  relay    CPU/request [0-9.–]+ µs  [0-9–]+ requests/s\n`,
		`non-streaming 8 events, saturated: toolgate ÷ relay CPU [0-9.]+× \(≤ 1\.3×\) (met|MISSED)  \[relay2: [0-9.]+×\]\n +toolgate ÷ relay requests/s [0-9.]+× \(no target\)  \[relay2: [0-9.]+×\]\n(streaming|non)`,
		`CPU per streamed event, saturated: toolgate [0-9.-]+ µs \(≤ 2 µs\) (met|MISSED)  \[relay [0-9.-]+ µs\]  \[relay2: [0-9.-]+ µs\]`,
		`toolgate's added p50 − the relay's [+-][0-9]+ µs \(≤ \+50 µs\) (met|MISSED)  \[relay2: [+-][0-9]+ µs\]`} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("output lacks %s:\n%s", re, got)
		}
	}
	if n := strings.Count(got, "errors 0 "); n != 2*6*5 || strings.Contains(got, "first error") {
		t.Errorf("%d runs without errors, want 60:\n%s", n, got)
	}
	// No added-latency target is judged on a closed-loop mode.
	if strings.Contains(got, "saturated:                 toolgate's added p50") || strings.Count(got, "toolgate's added p50") != 1 {
		t.Errorf("an added-p50 verdict for a closed-loop mode:\n%s", got)
	}
}

// TestBareMCP calls the bare server's tool: the demo tracker's task, and
// an error result for a task it does not hold.
func TestBareMCP(t *testing.T) {
	srv := httptest.NewServer(newBareMCP())
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpTool, Arguments: mcpArgs})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMCPResult(res); err != nil {
		t.Error(err)
	}
	want := `{"id":2,"title":"Rotate the staging API keys","status":"todo"}` + "\n"
	if got := res.Content[0].(*mcp.TextContent).Text; got != want {
		t.Errorf("getTask 2 = %q, want %q", got, want)
	}
	wantStruct := map[string]any{"id": 2.0, "title": mcpAnswer, "status": "todo"}
	if diff := cmp.Diff(wantStruct, res.StructuredContent); diff != "" {
		t.Errorf("getTask 2 structured content (-want +got):\n%s", diff)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpTool, Arguments: map[string]any{"taskId": 9}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || checkMCPResult(res) == nil {
		t.Errorf("getTask 9: isError %t, want an error result", res.IsError)
	}
}

// TestRunMCP runs the MCP load, open and closed loop, against the bare
// server in this process, with a bearer token it ignores.
func TestRunMCP(t *testing.T) {
	srv := httptest.NewServer(newBareMCP())
	defer srv.Close()
	tests := []struct {
		name string
		rate float64
	}{
		{name: "open_loop", rate: 200},
		{name: "closed_loop", rate: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := mcpCompareConfig{sessions: 4, rate: tt.rate, duration: 200 * time.Millisecond, warmup: 50 * time.Millisecond, timeout: 5 * time.Second}
			res, err := runMCP(context.Background(), mcpTarget{name: "bare", url: srv.URL, token: "x"}, cc, []namedPID{{"self", os.Getpid()}})
			if err != nil {
				t.Fatal(err)
			}
			if res.errors != 0 || res.dropped != 0 || res.ok == 0 || res.ok != res.sent {
				t.Errorf("sent %d ok %d errors %d dropped %d (first %q), want all ok", res.sent, res.ok, res.errors, res.dropped, res.firstErr)
			}
			if tt.rate > 0 && res.sent != 40 {
				t.Errorf("sent %d, want 40 (200/s for 200ms)", res.sent)
			}
			if len(res.cpu) != 1 || res.latency.quantile(.5) <= 0 {
				t.Errorf("cpu %v, p50 %v: want a CPU figure and a latency", res.cpu, res.latency.quantile(.5))
			}
		})
	}
}

// TestCompareMCP runs the whole MCP comparison on a tiny load, with this
// test binary as both servers (see TestMain): two rounds, both targets,
// the summary with the ratio.
func TestCompareMCP(t *testing.T) {
	t.Setenv("LOADGEN_TEST_FAKE_TOOLGATE", "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	auditDir := t.TempDir()
	cc := mcpCompareConfig{toolgate: self, sessions: 2, rate: 100, duration: 200 * time.Millisecond, warmup: 50 * time.Millisecond, rounds: 2, auditDir: auditDir}
	if err := runCompareMCP(context.Background(), cc, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"round 1  toolgate", "round 1  bare", "round 2  bare", "round 2  toolgate", "toolgate ÷ bare: server CPU/call", "toolgate ÷ bare pooled over the 2 rounds: ",
		"GOGC=800 GOMEMLIMIT=512MiB", "audit log in " + auditDir + "/loadgen-audit-"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// A short run under -race may fall behind its rate; it must not fail.
	if strings.Count(got, "errors 0 ") != 4 || strings.Contains(got, "first error") {
		t.Errorf("a call failed:\n%s", got)
	}
}

func TestCompareMCPConfigErrors(t *testing.T) {
	base := mcpCompareConfig{toolgate: "/nonexistent/toolgate", sessions: 32, duration: time.Second, rounds: 1}
	tests := []struct {
		name string
		edit func(*mcpCompareConfig)
	}{
		{name: "no_toolgate", edit: func(c *mcpCompareConfig) { c.toolgate = "" }},
		{name: "no_sessions", edit: func(c *mcpCompareConfig) { c.sessions = 0 }},
		{name: "negative_rate", edit: func(c *mcpCompareConfig) { c.rate = -1 }},
		{name: "no_rounds", edit: func(c *mcpCompareConfig) { c.rounds = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			if err := runCompareMCP(context.Background(), c, io.Discard); !errors.Is(err, errBadConfig) {
				t.Errorf("runCompareMCP = %v, want errBadConfig", err)
			}
		})
	}
}

// TestPortkeyRatios checks the Portkey ÷ toolgate line: ratios per round,
// rounds where toolgate added nothing, and rounds whose latency is left
// out because a target did not keep up.
func TestPortkeyRatios(t *testing.T) {
	ms := time.Millisecond
	ok := func(p50, p99 time.Duration, cpu float64) sample {
		return sample{p50: p50, p99: p99, cpu: cpu, achieved: 100, rate: 100}
	}
	tests := []struct {
		name           string
		direct, tg, pk []sample
		want           string
	}{
		{
			name:   "two_rounds",
			direct: []sample{ok(1*ms, 2*ms, 0), ok(1*ms, 2*ms, 0)},
			tg:     []sample{ok(2*ms, 4*ms, 100), ok(3*ms, 4*ms, 100)},
			pk:     []sample{ok(21*ms, 42*ms, 600), ok(31*ms, 22*ms, 500)},
			want:   "portkey ÷ toolgate: CPU/request 5.0–6.0×  added p50 15.0–20.0×  added p99 10.0–20.0×",
		},
		{
			name:   "toolgate_below_direct",
			direct: []sample{ok(2*ms, 2*ms, 0)},
			tg:     []sample{ok(1*ms, 3*ms, 100)},
			pk:     []sample{ok(30*ms, 12*ms, 500)},
			want:   "portkey ÷ toolgate: CPU/request 5.0×  added p50 —×  added p99 10.0×  (toolgate at or below direct: p50 in 1, p99 in 0 rounds)",
		},
		{
			name:   "portkey_not_sustained",
			direct: []sample{ok(1*ms, 2*ms, 0), ok(1*ms, 2*ms, 0)},
			tg:     []sample{ok(2*ms, 4*ms, 100), ok(2*ms, 4*ms, 100)},
			pk:     []sample{{p50: ms, errors: 10, rate: 100}, ok(11*ms, 22*ms, 700)},
			want:   "portkey ÷ toolgate: CPU/request 0.0–7.0×  added p50 10.0×  added p99 10.0×  (latency: 1 of 2 rounds left out, not sustained)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, portkeyRatios(tt.direct, tt.tg, tt.pk)); diff != "" {
				t.Errorf("portkeyRatios (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapWriter(t *testing.T) {
	var b strings.Builder
	c := &capWriter{w: &b, n: 5, name: "node"}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := c.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "abcde\n[the rest of node's stderr is dropped]\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// portkeyDir is where Portkey is installed for TestPortkey: the
// LOADGEN_PORTKEY_DIR variable, else ./portkey after npm ci.
func portkeyDir(t *testing.T) string {
	dir := os.Getenv("LOADGEN_PORTKEY_DIR")
	if dir == "" {
		dir = "portkey"
	}
	if _, _, err := portkeyCommand(dir); err != nil {
		t.Skipf("%v: run npm ci in cmd/loadgen/portkey (or set LOADGEN_PORTKEY_DIR) to test Portkey", err)
	}
	return dir
}

// TestPortkey starts Portkey's gateway and sends it a short streaming run
// in front of an in-process Chat backend, with the headers the harness
// sends. It skips without node or an installed Portkey.
func TestPortkey(t *testing.T) {
	dir := portkeyDir(t)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "no such path", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(chatStream(8))
	}))
	defer backend.Close()
	ctx := context.Background()
	pk, err := startPortkey(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer pk.stop()
	cfg := config{url: pk.url + "/v1/chat/completions", rate: 50, duration: 200 * time.Millisecond, warmup: 100 * time.Millisecond,
		conns: 4, maxInflight: 100, maxRequests: 1000, timeout: 10 * time.Second, stream: true, model: "gen", expect: "harness",
		header: portkeyHeaders(backend.URL), pids: []namedPID{{"portkey", pk.cmd.Process.Pid}}}
	res, err := run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.ok != res.sent || res.ok == 0 {
		t.Errorf("sent %d ok %d errors %d (first %q), want all ok", res.sent, res.ok, res.errors, res.firstErr)
	}
	if len(res.cpu) != 1 {
		t.Errorf("no CPU figure for Portkey: %v", res.cpu)
	}
}

// TestVerdict checks the run's line per target: CPU ratios pooled over the
// rounds, added p50 the median of the rounds, Portkey's figures beside the
// relay's, and the CPU per streamed event.
func TestVerdict(t *testing.T) {
	us := time.Microsecond
	s := func(p50 time.Duration, cpu float64) sample {
		return sample{p50: p50, cpu: cpu, achieved: 100, rate: 100}
	}
	targets := []target{{name: "direct"}, {name: "relay"}, {name: "toolgate"}, {name: "portkey"}}
	modes := []cmode{
		{name: "non-streaming 8 events", events: 8, rate: 1000},
		{name: "streaming 54 events", stream: true, events: 54, rate: 100},
		{name: "streaming 154 events", stream: true, events: 154, rate: 100},
		{name: "non-streaming 8 events at 200/s", events: 8, rate: 200},
	}
	// got[mode][target], two rounds each: the first round of the first
	// mode is 1.5× over the relay and the second 1.0×, 1.12× pooled;
	// added p50 over the relay's +20 and +100 µs, median +60.
	got := [][][]sample{
		{{s(1000*us, 0), s(1000*us, 0)}, {s(1300*us, 100), s(1300*us, 300)}, {s(1320*us, 150), s(1400*us, 300)}, nil},
		{{s(1000*us, 0), s(1000*us, 0)}, {s(1200*us, 500), s(1200*us, 500)}, {s(1300*us, 800), s(1300*us, 700)}, {s(9000*us, 4000), s(9000*us, 4000)}},
		{{s(1000*us, 0), s(1000*us, 0)}, {s(1200*us, 600), s(1200*us, 600)}, {s(1300*us, 950), s(1300*us, 850)}, {s(9000*us, 5000), s(9000*us, 5000)}},
		{{s(1000*us, 0), s(1000*us, 0)}, {s(1300*us, 300), s(1300*us, 300)}, {s(1100*us, 400), s(1100*us, 400)}, {s(3000*us, 2400), s(3000*us, 1600)}},
	}
	var b strings.Builder
	verdict(&b, targets, modes, got, compareConfig{rounds: 2, rate: 1000})
	want := `
# against the targets, over the whole run: CPU pooled over the 2 rounds, added p50 the median of the rounds
non-streaming 8 events:            toolgate ÷ relay CPU 1.12× (≤ 1.3×) met
                                   toolgate's added p50 − the relay's +60 µs (≤ +50 µs) MISSED
streaming 54 events:               toolgate ÷ relay CPU 1.50× (≤ 1.5×) met
                                   portkey ÷ toolgate CPU 5.33× (≥ 5×) met  [portkey ÷ relay 8.00×]
streaming 154 events:              toolgate ÷ relay CPU 1.50× (≤ 1.5×) met
                                   portkey ÷ toolgate CPU 5.56× (≥ 5×) met  [portkey ÷ relay 8.33×]
non-streaming 8 events at 200/s:   toolgate ÷ relay CPU 1.33× (≤ 1.3×) MISSED
                                   portkey ÷ toolgate CPU 5.00× (≥ 5×) met  [portkey ÷ relay 6.67×]
                                   portkey ÷ toolgate added p50 20.0× (≥ 10×) met  [portkey ÷ relay 6.7×]
CPU per streamed event:            toolgate 1.50 µs (≤ 2 µs) met  [relay 1.00 µs]
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("verdict (-want +got):\n%s", diff)
	}
}

// TestReadFootprint reads a callgrind dump as --dump-instr=yes and
// --compress-pos=no write it: distinct 64-byte lines of the addresses,
// the summary's instructions; and refuses what is not one.
func TestReadFootprint(t *testing.T) {
	dump := `# callgrind format
version: 1
creator: callgrind-3.19.0
positions: instr
events: Ir I1mr D1mr D1mw
summary: 1234 50 7 3
fl=(1) /x.go
fn=(1) main.f
0x401000 3
0x401004 2
0x40103f 1
calls=1 0x402000
0x401010 40
0x402000 7
fn=(2) main.g
0x4010c0 1
totals: 1234
`
	fp, err := readFootprint(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	// Lines 0x401000>>6 (0x401000-0x40103f), 0x402000>>6, 0x4010c0>>6.
	if fp.lines != 3 || fp.instr != 1234 || fp.i1 != 50 || fp.d1 != 10 {
		t.Errorf("readFootprint = %+v, want 3 lines, 1234 instructions, 50 and 10 misses", fp)
	}
	for _, bad := range []string{"", "events: Ir\n0x401000 1\n", "events: Ir\nsummary: x\n", "events: Ir\nsummary: 3\n0xzz 1\n", "summary: 3\n", "events: I1mr\nsummary: 3\n"} {
		if _, err := readFootprint(strings.NewReader(bad)); err == nil {
			t.Errorf("readFootprint(%q) took it", bad)
		}
	}
	if m := medianLines([]footprint{{lines: 9}, {lines: 1}, {lines: 5}}); m != 5 {
		t.Errorf("medianLines = %d, want 5", m)
	}
}
