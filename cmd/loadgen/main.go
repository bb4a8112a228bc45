// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Command loadgen is an open-loop HTTP load generator for the model
// gateway's speed figures: it sends Chat Completions POSTs at a fixed
// rate for a fixed time over a bounded number of keep-alive connections,
// whatever the server's pace, and prints the latency distribution
// (p50/p90/p99/max), the time to first body byte for streams, the rate
// achieved and the errors.
//
//	go run ./cmd/loadgen -url http://127.0.0.1:8686/v1/chat/completions \
//	    -rate 1000 -duration 10s -conns 64 -stream -model text -H 'authorization: Bearer T'
//
// Latency is measured from the moment a request was due, not from when a
// connection became free, so a server that falls behind shows it (no
// coordinated omission). It talks to loopback addresses only, and is
// bounded: at most -max-requests requests, -max-inflight at a time (a
// request due when that many are still open is counted as dropped), each
// ending at -timeout. With -pid it reads the CPU time of other processes
// (the gateway, the backend) from /proc before and after the measured
// phase and prints their CPU per request.
//
// With -compare it runs, in one invocation, the fake backend direct, a
// bare relay (a net/http handler forwarding the body with a pooled client
// and copying the answer back, flushing per read when it streams: the
// floor no Go gateway goes under) and `toolgate serve`, all three in front
// of the same cmd/fakebackend, under the same load, in alternation, and
// prints each proxy's CPU per request, its added p50/p99 over direct and
// the ratios toolgate/relay, non-streaming and streaming, with the CPU per
// streamed event from two stream lengths; last, one figure per speed
// target for the whole run (CPU pooled over the rounds, added p50 the
// median of the rounds), each marked met or MISSED:
//
//	go build -o /tmp/lg/toolgate ./cmd/toolgate && go build -o /tmp/lg/fakebackend ./cmd/fakebackend
//	go run ./cmd/loadgen -compare -toolgate /tmp/lg/toolgate -fakebackend /tmp/lg/fakebackend -rounds 3
//
// With -workers N it also runs every mode closed loop, saturated: N
// workers, each on its own connection, sending one request after another
// as fast as the target answers. That is how the gateway's issue first
// measured CPU per request; at a fixed rate each request also pays for
// waking the process up, and the ratios differ. The summary gives each
// target's throughput there instead of its added latency, and the verdict
// judges the CPU targets on these modes as well:
//
//	go run ./cmd/loadgen -compare -toolgate /tmp/lg/toolgate -fakebackend /tmp/lg/fakebackend -rounds 5 -workers 32
//
// Alone (without -compare), -workers N makes one closed-loop run in place
// of -rate.
//
// With -relay2 it also runs a second copy of the relay, and the verdict
// gives, beside each toolgate ÷ relay figure, the same figure for the
// second relay over the first: two copies of one program, so what it
// shows is how far the run's noise alone moves that figure.
//
// With -portkey DIR it also runs Portkey's open-source gateway
// (@portkey-ai/gateway, pinned in cmd/loadgen/portkey: run `npm ci` there;
// node on PATH) as a fourth target, with the headers it needs to use the
// fake backend as an OpenAI host, and prints Portkey's CPU per request
// and added latency over toolgate's:
//
//	(cd cmd/loadgen/portkey && npm ci)
//	go run ./cmd/loadgen -compare -toolgate /tmp/lg/toolgate -fakebackend /tmp/lg/fakebackend -portkey cmd/loadgen/portkey
//
// With -compare-mcp it runs MCP tools/call (the demo tracker's getTask)
// over streamable HTTP against `toolgate serve` with its SQLite audit log
// and against a bare go-sdk server in this binary with the same tool and
// the same GC settings, from -sessions go-sdk client sessions (each
// calling back to back, or open loop at -mcp-rate), in alternation, and
// prints each server's CPU per call and the ratio toolgate ÷ bare
// (-audit-dir /dev/shm keeps the audit log off the disk):
//
//	go run ./cmd/loadgen -compare-mcp -toolgate /tmp/lg/toolgate -rounds 3 -duration 4s -warmup 1s
//
// With -footprint it counts the code one non-streaming request touches,
// whole process, in the bare relay, toolgate and -base, each run under
// valgrind's callgrind: distinct 64-byte lines of code, instructions and
// the misses of simulated first-level caches, one request counted at a
// time on a kept-alive connection, for -rounds requests. At a few
// hundred requests a second a request finds its code and data out of
// the caches, which is what these count and a warm benchmark does not:
//
//	go run ./cmd/loadgen -footprint -toolgate /tmp/lg/toolgate -fakebackend /tmp/lg/fakebackend -rounds 15
//
// -relay-listen ADDR -relay-to URL runs the relay alone; -mcp-listen ADDR
// the bare MCP server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	var cfg config
	var headers headerFlag
	var pids pidFlag
	flag.StringVar(&cfg.url, "url", "", "the `URL` to POST to (loopback only)")
	flag.Float64Var(&cfg.rate, "rate", 1000, "requests per second")
	flag.IntVar(&cfg.workers, "workers", 0, "closed loop instead of -rate: `N` workers, each on its own connection, sending one request after another as fast as the server answers (its throughput and CPU at full load); with -compare: also run every mode so, saturated, after the modes at a rate")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Second, "how long to measure")
	flag.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "how long to send at the same rate before measuring")
	flag.IntVar(&cfg.conns, "conns", 64, "keep-alive connections at most")
	flag.IntVar(&cfg.maxInflight, "max-inflight", 5000, "open requests at most; a request due beyond it is dropped")
	flag.IntVar(&cfg.maxRequests, "max-requests", 2_000_000, "requests at most, warm-up included")
	flag.DurationVar(&cfg.timeout, "timeout", 10*time.Second, "time limit of one request")
	flag.BoolVar(&cfg.stream, "stream", false, "ask for a stream (stream: true)")
	flag.StringVar(&cfg.model, "model", "text", "the model name")
	flag.StringVar(&cfg.expect, "expect", "", "a string every answer must contain (else an error)")
	flag.Var(&headers, "H", "a request header `NAME: VALUE` (repeatable)")
	flag.Var(&pids, "pid", "a `NAME=PID` whose CPU time to report (repeatable)")
	var cc compareConfig
	compare := flag.Bool("compare", false, "run the fake backend direct, the bare relay and toolgate side by side")
	flag.StringVar(&cc.toolgate, "toolgate", "", "with -compare and -compare-mcp: the toolgate `binary`")
	flag.StringVar(&cc.fakebackend, "fakebackend", "", "with -compare: the fakebackend `binary`")
	flag.StringVar(&cc.base, "base", "", "with -compare: another toolgate `binary` to run beside (before/after)")
	flag.BoolVar(&cc.relay2, "relay2", false, "with -compare: a second copy of the bare relay beside, whose figures over the first's show how far the run's noise alone moves a ratio (an A/A run)")
	flag.Float64Var(&cc.streamRate, "stream-rate", 100, "with -compare: streaming requests per second")
	flag.IntVar(&cc.rounds, "rounds", 3, "with -compare and -compare-mcp: rounds, each running every mode against every target; with -footprint: requests counted per proxy")
	events := flag.String("events", "8,54,154", "with -compare: stream lengths `A,B,C` in SSE events: A non-streaming, B and C streaming (C−B gives the CPU per event)")
	flag.StringVar(&cc.gogc, "gogc", "", "with -compare: GOGC of the Go servers (default: inherited); with -compare-mcp: of both servers (default 800, toolgate serve's own)")
	flag.StringVar(&cc.portkey, "portkey", "", "with -compare: also run Portkey's gateway installed in `DIR` (cmd/loadgen/portkey after npm ci; node on PATH)")
	flag.StringVar(&cc.pieces, "pieces", "events", "with -compare: how the fake backend writes answers: events (one write per SSE event and a whole body in one, as a real server does) or random (pieces of 1–64 bytes, each flushed)")
	flag.Float64Var(&cc.portkeyRate, "portkey-rate", 200, "with -portkey: the highest rate Portkey is sent; when -rate is higher, every target runs non-streaming once more at this rate")
	footprint := flag.Bool("footprint", false, "count the code one non-streaming request touches in the bare relay, -toolgate and -base, each run under valgrind's callgrind (-rounds requests counted one at a time; valgrind on PATH)")
	compareMCP := flag.Bool("compare-mcp", false, "run MCP tools/call against toolgate serve (SQLite audit) and a bare go-sdk server side by side")
	var mc mcpCompareConfig
	flag.IntVar(&mc.sessions, "sessions", 32, "with -compare-mcp: MCP sessions")
	flag.StringVar(&mc.auditDir, "audit-dir", "", "with -compare-mcp: the `DIR` toolgate's audit log goes in (default: a temp dir), e.g. /dev/shm to leave the disk out")
	flag.Float64Var(&mc.rate, "mcp-rate", 0, "with -compare-mcp: tools/call per second over all sessions, open loop; 0: each session calls back to back")
	relayListen := flag.String("relay-listen", "", "internal: run the bare relay on this loopback `ADDR`")
	relayTo := flag.String("relay-to", "", "internal: the backend `URL` the relay forwards to")
	mcpListen := flag.String("mcp-listen", "", "internal: run the bare go-sdk MCP server on this loopback `ADDR`")
	flag.Parse()
	cfg.header = headers.h
	cfg.pids = append(pids, namedPID{"loadgen", os.Getpid()})
	// SIGTERM as well as ^C: the servers the harness started end with it
	// (their commands are bound to ctx), instead of outliving it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *relayListen != "" {
		if err := serveRelay(ctx, *relayListen, *relayTo, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *mcpListen != "" {
		if err := serveBareMCP(ctx, *mcpListen, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *compareMCP {
		mc.toolgate, mc.duration, mc.warmup, mc.rounds, mc.gogc, mc.timeout = cc.toolgate, cfg.duration, cfg.warmup, cc.rounds, cc.gogc, cfg.timeout
		if err := runCompareMCP(ctx, mc, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *footprint {
		fc := footprintConfig{toolgate: cc.toolgate, base: cc.base, fakebackend: cc.fakebackend, rounds: cc.rounds}
		if err := runFootprint(ctx, fc, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *compare {
		cc.rate, cc.duration, cc.warmup, cc.conns, cc.workers = cfg.rate, cfg.duration, cfg.warmup, cfg.conns, cfg.workers
		var err error
		if cc.events, err = parseEvents(*events); err == nil {
			err = runCompare(ctx, cc, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	res, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	res.print(os.Stdout, cfg)
}

type headerFlag struct{ h [][2]string }

func (f *headerFlag) String() string { return fmt.Sprint(f.h) }

func (f *headerFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return errors.New("want NAME: VALUE")
	}
	f.h = append(f.h, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	return nil
}

type pidFlag []namedPID

type namedPID struct {
	name string
	pid  int
}

func (f *pidFlag) String() string { return fmt.Sprint(*f) }

func (f *pidFlag) Set(s string) error {
	name, p, ok := strings.Cut(s, "=")
	var pid int
	if _, err := fmt.Sscanf(p, "%d", &pid); !ok || err != nil || pid <= 0 {
		return errors.New("want NAME=PID")
	}
	*f = append(*f, namedPID{name, pid})
	return nil
}

func (r *result) print(w io.Writer, cfg config) {
	mode := "non-streaming"
	if cfg.stream {
		mode = "streaming"
	}
	if cfg.workers > 0 {
		fmt.Fprintf(w, "%s %s closed loop workers=%d duration=%s\n", cfg.url, mode, cfg.workers, cfg.duration)
	} else {
		fmt.Fprintf(w, "%s %s rate=%.0f/s duration=%s conns=%d\n", cfg.url, mode, cfg.rate, cfg.duration, cfg.conns)
	}
	fmt.Fprintf(w, "sent=%d ok=%d errors=%d dropped=%d achieved=%.1f/s (ok per second of the measured phase)\n",
		r.sent, r.ok, r.errors, r.dropped, r.achieved)
	if r.firstErr != "" {
		fmt.Fprintf(w, "first error: %s\n", r.firstErr)
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d)/1e3) }
	fmt.Fprintf(w, "latency p50=%s p90=%s p99=%s max=%s mean=%s\n",
		us(r.latency.quantile(.5)), us(r.latency.quantile(.9)), us(r.latency.quantile(.99)), us(r.latency.max), us(r.latency.mean()))
	if cfg.stream {
		fmt.Fprintf(w, "ttfb    p50=%s p90=%s p99=%s max=%s mean=%s\n",
			us(r.ttfb.quantile(.5)), us(r.ttfb.quantile(.9)), us(r.ttfb.quantile(.99)), us(r.ttfb.max), us(r.ttfb.mean()))
	}
	for _, c := range r.cpu {
		per := 0.0
		if r.sent > 0 {
			per = float64(c.cpu) / float64(r.sent) / 1e3
		}
		fmt.Fprintf(w, "cpu %s: %.3fs = %.1fµs per request sent\n", c.name, c.cpu.Seconds(), per)
	}
	fmt.Fprintf(w, "loadavg %s\n", r.loadavg)
}
