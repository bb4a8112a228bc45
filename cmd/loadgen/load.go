// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// config is one run.
type config struct {
	url         string
	rate        float64
	duration    time.Duration
	warmup      time.Duration
	conns       int
	maxInflight int
	maxRequests int
	timeout     time.Duration
	stream      bool
	model       string
	expect      string
	header      [][2]string
	pids        []namedPID
	// workers, if positive, makes the run closed loop: that many
	// workers, each on its own connection, sending one request after
	// another as fast as the server answers (rate is not used). The
	// server is saturated: what is measured is its throughput and its
	// CPU per request at full load.
	workers int
}

// result is what the measured phase saw.
type result struct {
	sent, ok, errors, dropped int
	achieved                  float64
	firstErr                  string
	latency, ttfb             histogram
	cpu                       []processCPU
	loadavg                   string
}

type processCPU struct {
	name string
	cpu  time.Duration
}

var (
	errNotLoopback = errors.New("not a loopback address")
	errBadConfig   = errors.New("bad configuration")
)

// checkLoopback refuses a URL whose host is not a loopback IP or
// "localhost".
func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %w", errBadConfig, err)
	}
	if u.Scheme != "http" {
		return fmt.Errorf("%w: scheme %q, want http", errBadConfig, u.Scheme)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: %q", errNotLoopback, host)
}

func (c *config) check() error {
	if err := checkLoopback(c.url); err != nil {
		return err
	}
	switch {
	case c.workers < 0 || c.workers > 4096:
		return fmt.Errorf("%w: workers %d not in [0, 4096]", errBadConfig, c.workers)
	case c.workers == 0 && (c.rate <= 0 || c.rate > 1e6):
		return fmt.Errorf("%w: rate %v not in (0, 1e6]", errBadConfig, c.rate)
	case c.duration <= 0 || c.warmup < 0:
		return fmt.Errorf("%w: duration %v, warmup %v", errBadConfig, c.duration, c.warmup)
	case c.conns <= 0 || c.maxInflight <= 0 || c.maxRequests <= 0 || c.timeout <= 0:
		return fmt.Errorf("%w: conns, max-inflight, max-requests and timeout must be positive", errBadConfig)
	}
	if n := c.rate * (c.warmup + c.duration).Seconds(); c.workers == 0 && n > float64(c.maxRequests) {
		return fmt.Errorf("%w: %.0f requests is more than max-requests %d", errBadConfig, n, c.maxRequests)
	}
	return nil
}

// outcome is one request's fate.
type outcome struct {
	latency, ttfb time.Duration
	err           error
	measured      bool
}

// run sends the warm-up and then the measured phase, open loop: request i
// is due at start + i/rate, and its latency counts from then.
func run(ctx context.Context, c config) (*result, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	body := fmt.Appendf(nil, `{"model":%q,"messages":[{"role":"user","content":"Say hello."}],"max_tokens":64,"stream":%t}`, c.model, c.stream)
	conns := c.conns
	if c.workers > 0 {
		conns = c.workers
	}
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: c.timeout}).DialContext,
		MaxConnsPerHost:     conns,
		MaxIdleConnsPerHost: conns,
		MaxIdleConns:        conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: c.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	p := phases{rate: c.rate, warmup: c.warmup, duration: c.duration, maxInflight: c.maxInflight, pids: c.pids, ttfb: c.stream}
	if c.workers > 0 {
		return p.driveClosed(ctx, c.workers, func(_ int, start time.Time) outcome { return do(ctx, client, c, body, start) })
	}
	return p.drive(ctx, func(_ int, due time.Time) outcome { return do(ctx, client, c, body, due) })
}

// phases is an open-loop schedule: a warm-up and a measured phase at one
// rate, at most maxInflight calls open at a time, the CPU time of pids
// read at the start and end of the measured phase.
type phases struct {
	rate             float64
	warmup, duration time.Duration
	maxInflight      int
	pids             []namedPID
	ttfb             bool // record outcome.ttfb
}

// drive calls call(i, due) for every i due, each in its own goroutine,
// and collects the outcomes of the measured phase. A call due while
// maxInflight are open is counted as dropped and not made.
func (p phases) drive(ctx context.Context, call func(i int, due time.Time) outcome) (*result, error) {
	interval := time.Duration(float64(time.Second) / p.rate)
	nWarm := int(p.warmup / interval)
	nMeasured := int(p.duration / interval)
	outcomes := make(chan outcome, 1024)
	res := &result{}
	var collect sync.WaitGroup
	collect.Add(1)
	go func() {
		defer collect.Done()
		for o := range outcomes {
			if !o.measured {
				continue
			}
			if o.err != nil {
				res.errors++
				if res.firstErr == "" {
					res.firstErr = o.err.Error()
				}
				continue
			}
			res.ok++
			res.latency.record(o.latency)
			if p.ttfb {
				res.ttfb.record(o.ttfb)
			}
		}
	}()

	sem := make(chan struct{}, p.maxInflight)
	var reqs sync.WaitGroup
	var cpuBefore []time.Duration
	var measuredStart time.Time
	start := time.Now()
	for i := 0; i < nWarm+nMeasured && ctx.Err() == nil; i++ {
		measured := i >= nWarm
		if i == nWarm {
			cpuBefore = readCPU(p.pids)
			measuredStart = time.Now()
		}
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		if measured {
			res.sent++
		}
		select {
		case sem <- struct{}{}:
		default:
			if measured {
				res.dropped++
			}
			continue
		}
		reqs.Add(1)
		go func() {
			defer reqs.Done()
			defer func() { <-sem }()
			o := call(i, due)
			o.measured = measured
			outcomes <- o
		}()
	}
	reqs.Wait()
	elapsed := time.Since(measuredStart)
	cpuAfter := readCPU(p.pids)
	close(outcomes)
	collect.Wait()
	if measuredStart.IsZero() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: no call falls in the measured phase (duration %v at %v/s)", errBadConfig, p.duration, p.rate)
	}
	res.achieved = float64(res.ok) / max(elapsed.Seconds(), p.duration.Seconds())
	for i, pp := range p.pids {
		if cpuBefore[i] >= 0 && cpuAfter[i] >= 0 {
			res.cpu = append(res.cpu, processCPU{pp.name, cpuAfter[i] - cpuBefore[i]})
		}
	}
	res.loadavg = loadavg()
	return res, nil
}

// driveClosed runs workers loops, each making one call after another
// (call(w, start) for worker w, its latency counted from start) for the
// warm-up and the measured phase. A call counts when it ends inside the
// measured phase, the span over which the CPU time of pids is read.
func (p phases) driveClosed(ctx context.Context, workers int, call func(w int, start time.Time) outcome) (*result, error) {
	res := &result{}
	var mu sync.Mutex
	begin := time.Now()
	measureAt := begin.Add(p.warmup)
	end := measureAt.Add(p.duration)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				o := call(w, t0)
				t1 := time.Now()
				if t1.Before(measureAt) || t1.After(end) {
					continue
				}
				mu.Lock()
				res.sent++
				if o.err != nil {
					res.errors++
					if res.firstErr == "" {
						res.firstErr = o.err.Error()
					}
				} else {
					res.ok++
					res.latency.record(o.latency)
				}
				mu.Unlock()
			}
		})
	}
	sleepUntil(ctx, measureAt)
	cpuBefore := readCPU(p.pids)
	sleepUntil(ctx, end)
	cpuAfter := readCPU(p.pids)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.achieved = float64(res.ok) / p.duration.Seconds()
	for i, pp := range p.pids {
		if cpuBefore[i] >= 0 && cpuAfter[i] >= 0 {
			res.cpu = append(res.cpu, processCPU{pp.name, cpuAfter[i] - cpuBefore[i]})
		}
	}
	res.loadavg = loadavg()
	return res, nil
}

// sleepUntil returns at t or when ctx ends.
func sleepUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}

// loadavg is the first three fields of /proc/loadavg, or "".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// do sends one request and reads its answer to the end.
func do(ctx context.Context, client *http.Client, c config, body []byte, due time.Time) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return outcome{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range c.header {
		req.Header.Add(h[0], h[1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return outcome{err: err}
	}
	defer resp.Body.Close()
	var got bytes.Buffer
	var ttfb time.Duration
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 && ttfb == 0 {
			ttfb = time.Since(due)
		}
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return outcome{err: err}
		}
		if got.Len() > 1<<20 {
			return outcome{err: errors.New("answer over 1 MiB")}
		}
	}
	lat := time.Since(due)
	if resp.StatusCode != http.StatusOK {
		return outcome{err: fmt.Errorf("status %d: %.200s", resp.StatusCode, got.Bytes())}
	}
	if c.expect != "" && !bytes.Contains(got.Bytes(), []byte(c.expect)) {
		return outcome{err: fmt.Errorf("answer lacks %q: %.200s", c.expect, got.Bytes())}
	}
	return outcome{latency: lat, ttfb: ttfb}
}

// readCPU returns each process's user+system CPU time from
// /proc/PID/stat, or -1 where it cannot be read.
func readCPU(pids []namedPID) []time.Duration {
	out := make([]time.Duration, len(pids))
	for i, p := range pids {
		out[i] = -1
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/stat")
		if err != nil {
			continue
		}
		// The command name, field 2, may hold spaces: count from its ')'.
		s := string(b)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		f := strings.Fields(s[end+1:])
		// utime and stime are fields 14 and 15, in clock ticks (100 a
		// second on Linux); f[0] is field 3.
		if len(f) < 13 {
			continue
		}
		ut, err1 := strconv.ParseInt(f[11], 10, 64)
		st, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out[i] = time.Duration(ut+st) * (time.Second / 100)
	}
	return out
}
