// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The footprint: how much code one request touches.
//
// At a few hundred requests a second, each request finds the proxy's
// code out of the caches (the load generator, the backend and the
// kernel ran in between), and its CPU goes with the code it touches more
// than with the instructions it runs. -footprint counts that code: it
// runs each proxy under valgrind's callgrind, sends requests on one
// kept-alive connection, and for each round has callgrind count exactly
// one request (a request; counters zeroed; a request; dumped), whole
// process, every thread. It counts the distinct 64-byte lines of code
// executed, the instructions, and the misses of callgrind's simulated
// first-level caches (instruction; data, reads and writes). These do not
// depend on the machine's load, so a change of a few percent shows where
// a load run cannot place it; valgrind serializes threads, so they
// include some scheduling a real run does not.

// footprintConfig is one -footprint run.
type footprintConfig struct {
	toolgate, base, fakebackend string
	rounds                      int
}

// footprintWarmups are the requests sent before counting: caches, pools
// and lazily built state are made by then.
const footprintWarmups = 40

// runFootprint counts the code one non-streaming request touches in the
// bare relay, toolgate and (with base) another toolgate, and prints the
// medians and the ratio to the relay's.
func runFootprint(ctx context.Context, fc footprintConfig, w io.Writer) error {
	if fc.toolgate == "" || fc.fakebackend == "" {
		return fmt.Errorf("%w: -footprint needs -toolgate and -fakebackend binaries", errBadConfig)
	}
	if fc.rounds < 1 || fc.rounds > 1000 {
		return fmt.Errorf("%w: -rounds %d not in [1, 1000]", errBadConfig, fc.rounds)
	}
	for _, tool := range []string{"valgrind", "callgrind_control"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: -footprint needs %s on PATH (Debian: apt-get install valgrind)", errBadConfig, tool)
		}
	}
	events := [3]int{8, 54, 154}
	dir, err := os.MkdirTemp("", "loadgen-footprint-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "gateway", "gen"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "gateway", "gen", "chat-8.sse"), chatStream(events[0]), 0o644); err != nil {
		return err
	}
	fake, err := start(ctx, reListening, false, nil, fc.fakebackend, "-addr", "127.0.0.1:0", "-corpora", dir, "-pieces", "events")
	if err != nil {
		return err
	}
	defer fake.stop()
	cfgPath := filepath.Join(dir, "gw.yaml")
	if err := os.WriteFile(cfgPath, []byte(gatewayConfig(fake.url, events)), 0o600); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	type proxy struct {
		name   string
		args   []string
		gw     bool
		counts []footprint
	}
	proxies := []*proxy{
		{name: "relay", args: []string{self, "-relay-listen", "127.0.0.1:0", "-relay-to", fake.url}},
		{name: "toolgate", args: []string{fc.toolgate, "serve", "--config", cfgPath, "--addr", "127.0.0.1:0"}, gw: true},
	}
	if fc.base != "" {
		proxies = append(proxies, &proxy{name: "base", args: []string{fc.base, "serve", "--config", cfgPath, "--addr", "127.0.0.1:0"}, gw: true})
	}
	body := fmt.Appendf(nil, `{"model":%q,"messages":[{"role":"user","content":"Say hello."}],"max_tokens":64,"stream":false}`, modelFor(events[0]))
	for _, p := range proxies {
		out := filepath.Join(dir, p.name+".callgrind")
		args := append([]string{"--tool=callgrind", "--dump-instr=yes", "--compress-pos=no", "--compress-strings=no", "--cache-sim=yes", "--callgrind-out-file=" + out}, p.args...)
		// Callgrind does not take Go's asynchronous preemption signals.
		env := []string{"GODEBUG=asyncpreemptoff=1"}
		re, fromStderr := reListening, false
		if p.gw {
			env = append(env, "GATEWAY_TOKEN="+harnessToken)
			re, fromStderr = reMCP, true
		}
		c, err := start(ctx, re, fromStderr, env, "valgrind", args...)
		if err != nil {
			return fmt.Errorf("%s under valgrind: %w", p.name, err)
		}
		err = countRequests(ctx, c, p.gw, body, fc.rounds)
		// Killed, not interrupted: callgrind asserts on a Go program's
		// signal handling at exit, and the dumps are written already.
		c.cmd.Process.Kill()
		c.cmd.Wait()
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		for i := 1; i <= fc.rounds; i++ {
			f, err := os.Open(out + "." + strconv.Itoa(i))
			if err != nil {
				return fmt.Errorf("%s: callgrind's dump %d: %w", p.name, i, err)
			}
			fp, err := readFootprint(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: callgrind's dump %d: %w", p.name, i, err)
			}
			p.counts = append(p.counts, fp)
		}
	}
	fmt.Fprintf(w, "code one non-streaming request touches, whole process (callgrind, %d requests each, one counted at a time on a kept-alive connection); medians, ratios to the relay's\n", fc.rounds)
	fmt.Fprintf(w, "%-9s %17s %9s %16s %22s %22s\n", "proxy", "code lines", "min", "instructions", "L1 instruction misses", "L1 data misses")
	med := func(fs []footprint, f func(footprint) int64) int64 {
		v := make([]int64, len(fs))
		for i := range fs {
			v[i] = f(fs[i])
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	lines := func(f footprint) int64 { return int64(f.lines) }
	instr := func(f footprint) int64 { return f.instr }
	i1 := func(f footprint) int64 { return f.i1 }
	d1 := func(f footprint) int64 { return f.d1 }
	r := proxies[0].counts
	for _, p := range proxies {
		c := p.counts
		ratio := func(f func(footprint) int64) float64 { return float64(med(c, f)) / float64(max(med(r, f), 1)) }
		fmt.Fprintf(w, "%-9s %9d %6.2f× %9d %8d %6.2f× %14d %6.2f× %14d %6.2f×\n", p.name,
			med(c, lines), ratio(lines), slices.MinFunc(c, func(a, b footprint) int { return a.lines - b.lines }).lines,
			med(c, instr), ratio(instr), med(c, i1), ratio(i1), med(c, d1), ratio(d1))
	}
	return nil
}

// countRequests sends footprintWarmups requests to c on one connection,
// then rounds times a request, callgrind's counters zeroed, a request and
// a dump: dump i holds request i alone.
func countRequests(ctx context.Context, c *child, gw bool, body []byte, rounds int) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	defer client.CloseIdleConnections()
	send := func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/v1/chat/completions", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if gw {
			req.Header.Set("Authorization", "Bearer "+harnessToken)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte("harness")) {
			return fmt.Errorf("answer %d: %.200s", resp.StatusCode, b)
		}
		return nil
	}
	control := func(op string) error {
		out, err := exec.CommandContext(ctx, "callgrind_control", op, strconv.Itoa(c.cmd.Process.Pid)).CombinedOutput()
		if err != nil {
			return fmt.Errorf("callgrind_control %s: %w: %s", op, err, out)
		}
		return nil
	}
	for range footprintWarmups {
		if err := send(); err != nil {
			return err
		}
	}
	for range rounds {
		// The request before the counted one: the counted one follows
		// another within the same second, as at a few hundred a second
		// (the access log reuses the second's date).
		if err := send(); err != nil {
			return err
		}
		if err := control("-z"); err != nil {
			return err
		}
		if err := send(); err != nil {
			return err
		}
		if err := control("-d"); err != nil {
			return err
		}
	}
	return nil
}

// footprint is what one callgrind dump counted.
type footprint struct {
	lines int   // distinct 64-byte lines of code executed
	instr int64 // instructions executed
	// i1 and d1 are the misses of callgrind's simulated first-level
	// instruction and data caches (reads and writes), the host's sizes:
	// a request's code does not fit in the first, so a line may miss
	// more than once.
	i1, d1 int64
}

// readFootprint reads a callgrind dump written with --dump-instr=yes and
// --compress-pos=no: each cost line starts with an instruction address
// in hex; the summary line has the totals of the events line's events
// (Ir, and with --cache-sim=yes I1mr, D1mr and D1mw).
func readFootprint(r io.Reader) (footprint, error) {
	var fp footprint
	lines := map[uint64]struct{}{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var events []string
	summary := false
	for sc.Scan() {
		t := sc.Text()
		switch {
		case strings.HasPrefix(t, "0x"):
			addr, _, _ := strings.Cut(t[2:], " ")
			a, err := strconv.ParseUint(addr, 16, 64)
			if err != nil {
				return fp, fmt.Errorf("cost line %q: %w", t, err)
			}
			lines[a>>6] = struct{}{}
		case strings.HasPrefix(t, "events:"):
			events = strings.Fields(t[len("events:"):])
		case strings.HasPrefix(t, "summary:"):
			f := strings.Fields(t[len("summary:"):])
			if len(f) == 0 || len(f) > len(events) {
				return fp, fmt.Errorf("summary line %q for events %q", t, events)
			}
			for i, v := range f {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return fp, fmt.Errorf("summary line %q: %w", t, err)
				}
				switch events[i] {
				case "Ir":
					fp.instr, summary = n, true
				case "I1mr":
					fp.i1 = n
				case "D1mr", "D1mw":
					fp.d1 += n
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fp, err
	}
	if !summary {
		return fp, fmt.Errorf("no summary of instructions: not a callgrind dump")
	}
	fp.lines = len(lines)
	return fp, nil
}

func medianLines(fs []footprint) int {
	v := make([]int, len(fs))
	for i, f := range fs {
		v[i] = f.lines
	}
	slices.Sort(v)
	return v[len(v)/2]
}
