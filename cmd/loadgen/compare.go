// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// compareConfig is one side-by-side run: the fake backend direct, the bare
// relay and toolgate (and Portkey), under the same open-loop load, in
// alternation.
type compareConfig struct {
	toolgate, fakebackend string  // the binaries
	base                  string  // another toolgate binary to run beside, as "base"; "" none
	relay2                bool    // a second copy of the relay beside, as "relay2": its figures over the first's are the rounds' noise (an A/A run)
	portkey               string  // the directory Portkey is installed in (npm ci); "" none
	portkeyRate           float64 // the highest rate Portkey is sent; a mode above it runs without Portkey
	rate, streamRate      float64
	duration, warmup      time.Duration
	rounds                int
	events                [3]int // stream lengths in SSE events: non-streaming, streaming, a longer stream
	conns                 int
	workers               int           // if positive, every mode runs once more closed loop with this many workers (saturated)
	gogc                  string        // GOGC of the Go servers; "" inherits
	settle                time.Duration // a proxy is idle after a run when it used under a tenth of a core over this; if zero, 200 ms
	pieces                string        // the fake backend's -pieces: "events" (as a real server writes) or "random"; "" is events
}

// target is one of the ways to the fake backend.
type target struct {
	name   string
	url    string // its root
	header [][2]string
	pid    int // the proxy's process; 0 for direct
}

// cmode is one kind of request: non-streaming or streaming, a stream
// length and a rate, or closed loop with a number of workers.
type cmode struct {
	name    string
	stream  bool
	events  int
	rate    float64
	workers int // closed loop (saturated) when positive; rate is then 0
}

// sample is what one target did in one round of one mode.
type sample struct {
	p50, p99 time.Duration
	cpu      float64 // µs of the proxy process per request sent to it
	backend  float64 // µs of the fake backend per request sent
	errors   int
	achieved float64
	rate     float64 // the rate asked for; 0 closed loop
}

// sustained reports whether the target kept up: no error or drop, and at
// least 95% of the rate asked for (closed loop: no error).
func (s sample) sustained() bool { return s.errors == 0 && s.achieved >= 0.95*s.rate }

const harnessToken = "loadgen-compare-token"

// chatStream is a Chat Completions stream of n SSE events (n ≥ 4): a
// role chunk, n-4 content chunks, the finish chunk, the usage chunk and
// [DONE]. Every content chunk holds the word "harness".
func chatStream(n int) []byte {
	const head = `{"id":"chatcmpl-harness","object":"chat.completion.chunk","created":1700000000,"model":"gen","choices":[{"index":0,"delta":`
	var b []byte
	b = append(b, "data: "+head+`{"role":"assistant","content":""},"finish_reason":null}]}`+"\n\n"...)
	for i := range n - 4 {
		b = fmt.Appendf(b, "data: %s{\"content\":\"harness %d \"},\"finish_reason\":null}]}\n\n", head, i)
	}
	b = append(b, "data: "+head+`{},"finish_reason":"stop"}]}`+"\n\n"...)
	b = fmt.Appendf(b, `data: {"id":"chatcmpl-harness","object":"chat.completion.chunk","created":1700000000,"model":"gen","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", n-4, n+6)
	return append(b, "data: [DONE]\n\n"...)
}

func modelFor(events int) string { return fmt.Sprintf("recorded:gen/chat-%d.sse", events) }

// gatewayConfig is toolgate's config: one openai_compat provider per
// stream length, as in the measurement.
func gatewayConfig(backend string, events [3]int) string {
	var b strings.Builder
	b.WriteString("principals:\n  - id: agent\nauth:\n  tokens:\n    - principal: agent\n      token_env: GATEWAY_TOKEN\nproviders:\n")
	for _, n := range events {
		fmt.Fprintf(&b, "  - name: fake_%d\n    model_name: %q\n    provider_backend: openai_compat\n    api_config: {base_url: %q}\n", n, modelFor(n), backend+"/v1")
	}
	b.WriteString("models:\n")
	for _, n := range events {
		fmt.Fprintf(&b, "  %q: fake_%d\n", modelFor(n), n)
	}
	return b.String()
}

// child is a server process the harness started.
type child struct {
	cmd *exec.Cmd
	url string
}

// start runs name args and waits for a line of its output (stdout, or
// stderr when fromStderr) to match re, whose first group is its URL.
// Its other output stream goes to the harness's stderr.
func start(ctx context.Context, re *regexp.Regexp, fromStderr bool, env []string, name string, args ...string) (*child, error) {
	return startLogged(ctx, re, fromStderr, os.Stderr, env, name, args...)
}

// startLogged is start with the child's other output stream (stderr
// unless fromStderr) going to errOut.
func startLogged(ctx context.Context, re *regexp.Regexp, fromStderr bool, errOut io.Writer, env []string, name string, args ...string) (*child, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	var out io.ReadCloser
	var err error
	if fromStderr {
		out, err = cmd.StderrPipe()
	} else {
		out, err = cmd.StdoutPipe()
		cmd.Stderr = errOut
	}
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		// Portkey draws a spinner on one line while it starts.
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if !ok {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("%s exited before it was ready", filepath.Base(name))
		}
		return &child{cmd: cmd, url: u}, nil
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s not ready within 30s", filepath.Base(name))
	}
}

func (c *child) stop() {
	c.cmd.Process.Signal(os.Interrupt)
	c.cmd.Wait()
}

var (
	reListening = regexp.MustCompile(`listening on (http://\S+)`)
	reMCP       = regexp.MustCompile(`over MCP at (http://[^/\s]+)`)
)

// runCompare starts the fake backend, the relay and toolgate, runs every
// mode against each in alternation for cc.rounds rounds and prints the
// figures and ratios to w.
func runCompare(ctx context.Context, cc compareConfig, w io.Writer) error {
	if cc.toolgate == "" || cc.fakebackend == "" {
		return fmt.Errorf("%w: -compare needs -toolgate and -fakebackend binaries", errBadConfig)
	}
	if cc.portkey != "" && (cc.portkeyRate <= 0 || cc.portkeyRate > 1e6) {
		return fmt.Errorf("%w: -portkey-rate %v not in (0, 1e6]", errBadConfig, cc.portkeyRate)
	}
	if min(cc.events[0], cc.events[1]) < 4 || cc.events[2] <= cc.events[1] || cc.events[2] > 10000 {
		return fmt.Errorf("%w: -events wants three lengths A,B,C with 4 ≤ A, 4 ≤ B < C ≤ 10000", errBadConfig)
	}
	dir, err := os.MkdirTemp("", "loadgen-compare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "gateway", "gen"), 0o755); err != nil {
		return err
	}
	for _, n := range cc.events {
		if err := os.WriteFile(filepath.Join(dir, "gateway", "gen", fmt.Sprintf("chat-%d.sse", n)), chatStream(n), 0o644); err != nil {
			return err
		}
	}
	var env []string
	if cc.gogc != "" {
		env = append(env, "GOGC="+cc.gogc)
	}
	pieces := cc.pieces
	if pieces == "" {
		pieces = "events"
	}
	fake, err := start(ctx, reListening, false, env, cc.fakebackend, "-addr", "127.0.0.1:0", "-corpora", dir, "-pieces", pieces)
	if err != nil {
		return err
	}
	defer fake.stop()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	rl, err := start(ctx, reListening, false, env, self, "-relay-listen", "127.0.0.1:0", "-relay-to", fake.url)
	if err != nil {
		return err
	}
	defer rl.stop()
	cfgPath := filepath.Join(dir, "gw.yaml")
	if err := os.WriteFile(cfgPath, []byte(gatewayConfig(fake.url, cc.events)), 0o600); err != nil {
		return err
	}
	tg, err := start(ctx, reMCP, true, append(env, "GATEWAY_TOKEN="+harnessToken), cc.toolgate, "serve", "--config", cfgPath, "--addr", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer tg.stop()
	auth := [][2]string{{"Authorization", "Bearer " + harnessToken}}
	targets := []target{
		{name: "direct", url: fake.url, pid: 0},
		{name: "relay", url: rl.url, pid: rl.cmd.Process.Pid},
		{name: "toolgate", url: tg.url, pid: tg.cmd.Process.Pid, header: auth},
	}
	if cc.base != "" {
		bg, err := start(ctx, reMCP, true, append(env, "GATEWAY_TOKEN="+harnessToken), cc.base, "serve", "--config", cfgPath, "--addr", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer bg.stop()
		targets = append(targets, target{name: "base", url: bg.url, pid: bg.cmd.Process.Pid, header: auth})
	}
	if cc.relay2 {
		r2, err := start(ctx, reListening, false, env, self, "-relay-listen", "127.0.0.1:0", "-relay-to", fake.url)
		if err != nil {
			return err
		}
		defer r2.stop()
		targets = append(targets, target{name: "relay2", url: r2.url, pid: r2.cmd.Process.Pid})
	}
	if cc.portkey != "" {
		pk, err := startPortkey(ctx, cc.portkey)
		if err != nil {
			return err
		}
		defer pk.stop()
		targets = append(targets, target{name: "portkey", url: pk.url, pid: pk.cmd.Process.Pid, header: portkeyHeaders(fake.url)})
	}
	modes := []cmode{
		{name: fmt.Sprintf("non-streaming %d events", cc.events[0]), events: cc.events[0], rate: cc.rate},
		{name: fmt.Sprintf("streaming %d events", cc.events[1]), stream: true, events: cc.events[1], rate: cc.streamRate},
		{name: fmt.Sprintf("streaming %d events", cc.events[2]), stream: true, events: cc.events[2], rate: cc.streamRate},
	}
	if cc.portkey != "" && cc.rate > cc.portkeyRate {
		// Portkey does not keep up with the non-streaming rate here, and
		// a Portkey that falls behind goes on working after the run, in
		// the next target's: everyone runs once more at its rate.
		modes = append(modes, cmode{name: fmt.Sprintf("non-streaming %d events at %.0f/s", cc.events[0], cc.portkeyRate), events: cc.events[0], rate: cc.portkeyRate})
	}
	if cc.workers > 0 {
		// The same requests closed loop: each proxy as busy as it can be,
		// where the cost of waking up for each request is shared out.
		for i, n := range cc.events {
			m := cmode{name: fmt.Sprintf("non-streaming %d events, saturated", n), stream: i > 0, events: n, workers: cc.workers}
			if m.stream {
				m.name = fmt.Sprintf("streaming %d events, saturated", n)
			}
			modes = append(modes, m)
		}
	}
	fakePID := fake.cmd.Process.Pid
	// got[mode][target] holds one sample per round.
	got := make([][][]sample, len(modes))
	for i := range got {
		got[i] = make([][]sample, len(targets))
	}
	fmt.Fprintf(w, "# loadgen -compare: %d rounds; non-streaming at %.0f/s, streaming at %.0f/s; %s measured after %s warm-up; %d connections; the backend writes %s\n",
		cc.rounds, cc.rate, cc.streamRate, cc.duration, cc.warmup, cc.conns, piecesText(pieces))
	if cc.workers > 0 {
		fmt.Fprintf(w, "# saturated: every mode again closed loop, %d workers each on its own connection\n", cc.workers)
	}
	if cc.portkey != "" {
		fmt.Fprintf(w, "# portkey: %s, in the modes at %.0f/s or less\n", cc.portkey, cc.portkeyRate)
	}
	for round := range cc.rounds {
		for mi, m := range modes {
			// Direct first (the proxies' added latency is over it), then
			// the proxies, in reverse order every other round.
			order := []int{0}
			for i := 1; i < len(targets); i++ {
				if round%2 == 0 {
					order = append(order, i)
				} else {
					order = append(order, len(targets)-i)
				}
			}
			for _, ti := range order {
				tt := targets[ti]
				if tt.name == "portkey" && m.rate > cc.portkeyRate {
					continue
				}
				c := config{url: tt.url + "/v1/chat/completions", rate: m.rate, duration: cc.duration, warmup: cc.warmup,
					conns: cc.conns, maxInflight: 5000, maxRequests: 2_000_000, timeout: 10 * time.Second,
					stream: m.stream, model: modelFor(m.events), expect: "harness", header: tt.header, workers: m.workers}
				c.pids = []namedPID{{"fake", fakePID}}
				if tt.pid != 0 {
					c.pids = append(c.pids, namedPID{tt.name, tt.pid})
				}
				res, err := run(ctx, c)
				if err != nil {
					return err
				}
				s := sample{p50: res.latency.quantile(.5), p99: res.latency.quantile(.99), errors: res.errors + res.dropped, achieved: res.achieved, rate: c.rate}
				for _, pc := range res.cpu {
					// Dropped requests were never sent: they cost the
					// servers nothing.
					per := float64(pc.cpu) / 1e3 / float64(max(res.sent-res.dropped, 1))
					switch pc.name {
					case "fake":
						s.backend = per
					case tt.name:
						s.cpu = per
					}
				}
				got[mi][ti] = append(got[mi][ti], s)
				fmt.Fprintf(w, "round %d  %-22s %-8s achieved %6.0f/s errors %d  p50 %6.0fµs p99 %7.0fµs  proxy CPU %6.1fµs/req  backend CPU %6.1fµs/req  load %s\n",
					round+1, m.name, tt.name, s.achieved, s.errors, us(s.p50), us(s.p99), s.cpu, s.backend, res.loadavg)
				if !s.sustained() {
					fmt.Fprintf(w, "  not sustained: %d of %d requests failed or were dropped, %.0f/s of %.0f/s\n", s.errors, res.sent, s.achieved, c.rate)
				}
				if res.firstErr != "" {
					fmt.Fprintf(w, "  first error: %s\n", res.firstErr)
				}
				if tt.pid != 0 {
					quiesce(ctx, tt.pid, cmp.Or(cc.settle, 200*time.Millisecond))
				}
			}
		}
	}
	printSummary(w, targets, modes, got, cc)
	return nil
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// span is "a–b" of values, or one value when they agree to 0.5.
func span(vs []float64, format string) string {
	if len(vs) == 0 {
		return "—"
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	if hi-lo < 0.005*max(1, hi) {
		return fmt.Sprintf(format, lo)
	}
	return fmt.Sprintf(format+"–"+format, lo, hi)
}

// printSummary prints, per mode, the ranges over the rounds of each
// proxy's CPU per request, its added latency over direct in the same
// round, and its ratios to the relay's; with Portkey, Portkey's figures
// over toolgate's (the targets: ≥ 10× the added latency
// non-streaming, ≥ 5× the CPU per request); then the CPU per streamed
// event.
func printSummary(w io.Writer, targets []target, modes []cmode, got [][][]sample, cc compareConfig) {
	fmt.Fprintf(w, "\n# summary over %d rounds (ranges; added = the proxy's minus direct's in the same round; ratios per round)\n", cc.rounds)
	tgi, pki := -1, -1
	for i, t := range targets {
		switch t.name {
		case "toolgate":
			tgi = i
		case "portkey":
			pki = i
		}
	}
	for mi, m := range modes {
		fmt.Fprintf(w, "%s:\n", m.name)
		d, r := got[mi][0], got[mi][1]
		for ti := 1; ti < len(targets); ti++ {
			t := got[mi][ti]
			if len(t) == 0 {
				fmt.Fprintf(w, "  %-8s not run at %.0f/s\n", targets[ti].name, m.rate)
				continue
			}
			var cpu, ratio, a50, diff50, a99, thr, thrRatio []float64
			for i := range d {
				cpu = append(cpu, t[i].cpu)
				ratio = append(ratio, t[i].cpu/max(r[i].cpu, 1e-9))
				a50 = append(a50, us(t[i].p50-d[i].p50))
				diff50 = append(diff50, us(t[i].p50-r[i].p50))
				a99 = append(a99, us(t[i].p99-d[i].p99))
				thr = append(thr, t[i].achieved)
				thrRatio = append(thrRatio, t[i].achieved/max(r[i].achieved, 1e-9))
			}
			line := fmt.Sprintf("  %-8s CPU/request %s µs", targets[ti].name, span(cpu, "%.1f"))
			if ti > 1 {
				line += fmt.Sprintf(" (%s× relay's)", span(ratio, "%.2f"))
			}
			if m.workers > 0 {
				// Closed loop, the latency is the workers over the
				// throughput: the throughput is the figure.
				line += fmt.Sprintf("  %s requests/s", span(thr, "%.0f"))
				if ti > 1 {
					line += fmt.Sprintf(" (%s× relay's)", span(thrRatio, "%.2f"))
				}
			} else {
				line += fmt.Sprintf("  added p50 %s µs", span(a50, "%.0f"))
				if ti > 1 {
					line += fmt.Sprintf(" (relay's %s µs)", span(diff50, "%+.0f"))
				}
				line += fmt.Sprintf("  added p99 %s µs", span(a99, "%.0f"))
			}
			if n := unsustained(t); n > 0 {
				line += fmt.Sprintf("  NOT SUSTAINED in %d of %d rounds", n, len(t))
			}
			fmt.Fprintln(w, line)
		}
		if tgi > 0 && pki > 0 && len(got[mi][pki]) > 0 {
			target := "targets ≥ 5× CPU"
			if !m.stream && m.workers == 0 {
				target = "targets ≥ 5× CPU, ≥ 10× added latency"
			}
			fmt.Fprintf(w, "  %s  [%s]\n", portkeyRatios(d, got[mi][tgi], got[mi][pki]), target)
		}
	}
	// CPU per streamed event: the difference of the two stream lengths,
	// at a rate and saturated.
	n := float64(cc.events[2] - cc.events[1])
	for _, pair := range streamPairs(modes) {
		a, b := got[pair[0]], got[pair[1]]
		how := ""
		if modes[pair[0]].workers > 0 {
			how = ", saturated"
		}
		fmt.Fprintf(w, "CPU per streamed event ((%d-event − %d-event) / %.0f%s):\n", cc.events[2], cc.events[1], n, how)
		for ti := 1; ti < len(targets); ti++ {
			var per []float64
			for i := range min(len(a[ti]), len(b[ti])) {
				per = append(per, (b[ti][i].cpu-a[ti][i].cpu)/n)
			}
			fmt.Fprintf(w, "  %-8s %s µs\n", targets[ti].name, span(per, "%.2f"))
		}
	}
	verdict(w, targets, modes, got, cc)
}

// streamPairs are the indexes in modes of the two streaming modes whose
// difference gives the CPU per streamed event: the pair at a rate, then
// the saturated pair when there is one.
func streamPairs(modes []cmode) [][2]int {
	var pairs [][2]int
	for _, closed := range []bool{false, true} {
		var idx []int
		for i, m := range modes {
			if m.stream && (m.workers > 0) == closed {
				idx = append(idx, i)
			}
		}
		if len(idx) == 2 {
			pairs = append(pairs, [2]int{idx[0], idx[1]})
		}
	}
	return pairs
}

// unsustained counts the rounds in which a target did not keep up.
func unsustained(ss []sample) int {
	n := 0
	for _, s := range ss {
		if !s.sustained() {
			n++
		}
	}
	return n
}

// portkeyRatios is the line of Portkey's figures over toolgate's, round
// by round: CPU per request, and added p50 and p99 over direct. The
// latency ratios leave out the rounds in which either did not keep up
// (queueing, not the proxy, sets the latency there) and count them; a
// round where toolgate added nothing measurable (its percentile at or
// below direct's) has no latency ratio and is counted instead.
func portkeyRatios(direct, tg, pk []sample) string {
	var cpu, r50, r99 []float64
	below50, below99, out := 0, 0, 0
	for i := range direct {
		cpu = append(cpu, pk[i].cpu/max(tg[i].cpu, 1e-9))
		if !tg[i].sustained() || !pk[i].sustained() {
			out++
			continue
		}
		if a := tg[i].p50 - direct[i].p50; a > 0 {
			r50 = append(r50, float64(pk[i].p50-direct[i].p50)/float64(a))
		} else {
			below50++
		}
		if a := tg[i].p99 - direct[i].p99; a > 0 {
			r99 = append(r99, float64(pk[i].p99-direct[i].p99)/float64(a))
		} else {
			below99++
		}
	}
	line := fmt.Sprintf("portkey ÷ toolgate: CPU/request %s×  added p50 %s×  added p99 %s×", span(cpu, "%.1f"), span(r50, "%.1f"), span(r99, "%.1f"))
	if below50+below99 > 0 {
		line += fmt.Sprintf("  (toolgate at or below direct: p50 in %d, p99 in %d rounds)", below50, below99)
	}
	if out > 0 {
		line += fmt.Sprintf("  (latency: %d of %d rounds left out, not sustained)", out, len(direct))
	}
	return line
}

// parseEvents reads "A,B,C".
func parseEvents(s string) ([3]int, error) {
	var e [3]int
	if _, err := fmt.Sscanf(s, "%d,%d,%d", &e[0], &e[1], &e[2]); err != nil {
		return e, errors.New("-events: want A,B,C")
	}
	return e, nil
}

// quiesce waits, for at most 25 intervals, until process pid uses less
// than a tenth of a core over one: a server that fell behind finishes its
// backlog before the next target's run. (CPU time is read in 10 ms ticks.)
func quiesce(ctx context.Context, pid int, interval time.Duration) {
	p := []namedPID{{"", pid}}
	prev := readCPU(p)[0]
	for range 25 {
		sleepUntil(ctx, time.Now().Add(interval))
		now := readCPU(p)[0]
		if ctx.Err() != nil || now < 0 || now-prev <= max(interval/10, 10*time.Millisecond) {
			return
		}
		prev = now
	}
}

// piecesText says how the fake backend writes, for the report.
func piecesText(pieces string) string {
	if pieces == "random" {
		return "pieces of 1–64 bytes, each flushed"
	}
	return "one SSE event per write, a whole body in one"
}
