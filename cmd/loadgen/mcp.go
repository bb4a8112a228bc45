// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP comparison (-compare-mcp) calls one tool over streamable HTTP
// on two servers: `toolgate serve` with the built-in demo tracker as a
// source and its SQLite audit log, and a bare go-sdk server in this
// binary (-mcp-listen) whose tool does the same work: a GET of one task
// through an in-process HTTP handler holding the demo tracker's tasks,
// the answer's JSON as the result's text. The harness imports nothing
// of toolgate's, so the bare server shares none of its code.

// mcpTool, mcpArgs and mcpAnswer are the call and what its result holds:
// the demo tracker's second task.
const (
	mcpTool   = "getTask"
	mcpAnswer = "Rotate the staging API keys"
)

var mcpArgs = map[string]any{"taskId": 2}

// mcpGOGC and mcpGOMEMLIMIT are the garbage collector settings both MCP
// servers run with unless -gogc says otherwise: those toolgate serve
// sets for itself when the environment sets none (mcpserver.GCPercent
// and mcpserver.MemoryLimit), set here in both environments so that the
// bare server runs with them too.
const (
	mcpGOGC       = "800"
	mcpGOMEMLIMIT = "512MiB"
)

// mcpCompareConfig is one side-by-side MCP run.
type mcpCompareConfig struct {
	toolgate         string // the binary
	sessions         int
	rate             float64 // calls per second over all sessions; 0: each session calls back to back
	duration, warmup time.Duration
	rounds           int
	gogc             string // GOGC of both servers; "" means mcpGOGC
	auditDir         string // where toolgate's audit.db goes; "" a temp dir
	timeout          time.Duration
}

// bareTask is a task as the demo tracker encodes it.
type bareTask struct {
	ID          int    `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Status      string `json:"status"`
	Assignee    string `json:"assignee,omitempty"`
}

// bareTasks answers GET /v1/tasks/{id} with the demo tracker's three
// tasks, encoding the task on every request as the tracker does.
type bareTasks struct{}

var bareTaskList = [...]bareTask{
	{ID: 1, Title: "Write the release notes", Status: "doing", Assignee: "ada"},
	{ID: 2, Title: "Rotate the staging API keys", Status: "todo"},
	{ID: 3, Title: "Archive last quarter's reports", Description: "Old PDFs, nothing newer than March.", Status: "done", Assignee: "grace"},
}

func (bareTasks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/v1/tasks/"))
	if r.Method != http.MethodGet || err != nil || id < 1 || id > len(bareTaskList) {
		http.Error(w, `{"error":"no such task"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(bareTaskList[id-1])
}

// handlerTransport serves every request with a handler, without a
// socket, as the demo tracker's transport does for toolgate.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// getTaskArgs is the tool's input; the SDK derives and checks its
// schema.
type getTaskArgs struct {
	TaskID int `json:"taskId" jsonschema:"the task's id"`
}

// newBareMCP returns the bare server's handler: a go-sdk server with one
// tool, getTask, over streamable HTTP with the SDK's defaults.
func newBareMCP() http.Handler {
	hc := &http.Client{Transport: handlerTransport{bareTasks{}}, Timeout: 30 * time.Second}
	s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: mcpTool, Description: "Get one task by id."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in getTaskArgs) (*mcp.CallToolResult, any, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://tasks/v1/tasks/"+strconv.Itoa(in.TaskID), nil)
			if err != nil {
				return nil, nil, err
			}
			resp, err := hc.Do(req)
			if err != nil {
				return nil, nil, err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			if err != nil {
				return nil, nil, err
			}
			// The same result toolgate's openapi connector sends for
			// it: the body as text and as structured content.
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, IsError: resp.StatusCode != http.StatusOK}
			if !res.IsError {
				res.StructuredContent = json.RawMessage(body)
			}
			return res, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// serveBareMCP runs the bare MCP server on addr until ctx ends, printing
// "serving MCP at http://ADDR/mcp" once it accepts connections.
func serveBareMCP(ctx context.Context, addr string, w io.Writer) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", newBareMCP())
	return serveLoopback(ctx, addr, mux, func(a net.Addr) {
		fmt.Fprintf(w, "serving MCP at http://%s/mcp\n", a)
	})
}

var (
	reBareMCP = regexp.MustCompile(`serving MCP at (http://\S+)`)
	reMCPURL  = regexp.MustCompile(`over MCP at (http://\S+)`)
)

// toolgateMCPConfig is toolgate's config for the MCP run: the demo
// tracker as a source, the SQLite audit log at db with the default sync,
// and no rate limit (the run makes thousands of reads a second).
func toolgateMCPConfig(db string) string {
	return fmt.Sprintf(`audit: {db: %q}
limits: {read: -1}
principals:
  - id: agent
auth:
  tokens:
    - principal: agent
      token_env: GATEWAY_TOKEN
sources:
  - name: tasks
    demo: {}
`, db)
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpTarget is one of the two MCP servers.
type mcpTarget struct {
	name, url, token string
	pid              int
}

// runMCP opens cc.sessions sessions with the go-sdk client and calls the
// tool on them: each session one call after another when cc.rate is 0,
// else open loop at cc.rate (call i on session i mod sessions); it reads
// the CPU time of pids over the measured phase.
func runMCP(ctx context.Context, t mcpTarget, cc mcpCompareConfig, pids []namedPID) (*result, error) {
	if err := checkLoopback(t.url); err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConns: cc.sessions * 2, MaxIdleConnsPerHost: cc.sessions * 2, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	var rt http.RoundTripper = tr
	if t.token != "" {
		rt = bearer{t.token, tr}
	}
	hc := &http.Client{Transport: rt}
	sessions := make([]*mcp.ClientSession, cc.sessions)
	defer func() {
		for _, cs := range sessions {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "loadgen", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: t.url, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: session %d: %w", t.name, i, err)
		}
		sessions[i] = cs
	}
	call := func(i int, due time.Time) outcome {
		cctx, cancel := context.WithTimeout(ctx, cc.timeout)
		defer cancel()
		res, err := sessions[i%len(sessions)].CallTool(cctx, &mcp.CallToolParams{Name: mcpTool, Arguments: mcpArgs})
		lat := time.Since(due)
		if err != nil {
			return outcome{err: err}
		}
		if err := checkMCPResult(res); err != nil {
			return outcome{err: err}
		}
		return outcome{latency: lat}
	}
	p := phases{rate: cc.rate, warmup: cc.warmup, duration: cc.duration, maxInflight: 5000, pids: pids}
	if cc.rate == 0 {
		return p.driveClosed(ctx, len(sessions), call)
	}
	return p.drive(ctx, call)
}

// checkMCPResult wants the task's text and no error.
func checkMCPResult(res *mcp.CallToolResult) error {
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError || !strings.Contains(text.String(), mcpAnswer) {
		return fmt.Errorf("tools/call: isError %t: %.200s", res.IsError, text.String())
	}
	return nil
}

// runCompareMCP starts toolgate (demo source, SQLite audit) and the bare
// go-sdk server with the same GC settings, runs the MCP load against each
// in alternation for cc.rounds rounds and prints the figures and the
// ratio toolgate ÷ bare of the server CPU per call.
func runCompareMCP(ctx context.Context, cc mcpCompareConfig, w io.Writer) error {
	switch {
	case cc.toolgate == "":
		return fmt.Errorf("%w: -compare-mcp needs the -toolgate binary", errBadConfig)
	case cc.sessions <= 0 || cc.sessions > 1000:
		return fmt.Errorf("%w: -sessions %d not in [1, 1000]", errBadConfig, cc.sessions)
	case cc.rate < 0 || cc.rate > 1e6 || cc.duration <= 0 || cc.warmup < 0 || cc.rounds <= 0:
		return fmt.Errorf("%w: -mcp-rate must be in [0, 1e6], -duration and -rounds positive", errBadConfig)
	}
	if cc.timeout <= 0 {
		cc.timeout = 10 * time.Second
	}
	if cc.gogc == "" {
		cc.gogc = mcpGOGC
	}
	env := []string{"GOGC=" + cc.gogc, "GOMEMLIMIT=" + mcpGOMEMLIMIT}
	dir, err := os.MkdirTemp("", "loadgen-mcp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	auditDir := dir
	if cc.auditDir != "" {
		if auditDir, err = os.MkdirTemp(cc.auditDir, "loadgen-audit-"); err != nil {
			return err
		}
		defer os.RemoveAll(auditDir)
	}
	cfgPath := filepath.Join(dir, "tg.yaml")
	if err := os.WriteFile(cfgPath, []byte(toolgateMCPConfig(filepath.Join(auditDir, "audit.db"))), 0o600); err != nil {
		return err
	}
	tg, err := start(ctx, reMCPURL, true, append(env, "GATEWAY_TOKEN="+harnessToken), cc.toolgate, "serve", "--config", cfgPath, "--addr", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer tg.stop()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	bare, err := start(ctx, reBareMCP, false, env, self, "-mcp-listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer bare.stop()
	targets := []mcpTarget{
		{name: "toolgate", url: tg.url, token: harnessToken, pid: tg.cmd.Process.Pid},
		{name: "bare", url: bare.url, pid: bare.cmd.Process.Pid},
	}
	load := fmt.Sprintf("open loop at %.0f/s", cc.rate)
	if cc.rate == 0 {
		load = "closed loop (each session calls back to back)"
	}
	fmt.Fprintf(w, "# loadgen -compare-mcp: %d rounds; tools/call %s, %s, %d sessions (go-sdk client, streamable HTTP); %s measured after %s warm-up; GOGC=%s GOMEMLIMIT=%s; toolgate with its SQLite audit log in %s\n",
		cc.rounds, mcpTool, load, cc.sessions, cc.duration, cc.warmup, cc.gogc, mcpGOMEMLIMIT, auditDir)
	got := make([][]sample, len(targets))
	for round := range cc.rounds {
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for _, ti := range order {
			t := targets[ti]
			res, err := runMCP(ctx, t, cc, []namedPID{{t.name, t.pid}, {"loadgen", os.Getpid()}})
			if err != nil {
				return err
			}
			s := sample{p50: res.latency.quantile(.5), p99: res.latency.quantile(.99), errors: res.errors + res.dropped, achieved: res.achieved, rate: cc.rate}
			var client float64
			for _, pc := range res.cpu {
				per := float64(pc.cpu) / 1e3 / float64(max(res.sent-res.dropped, 1))
				if pc.name == t.name {
					s.cpu = per
				} else {
					client = per
				}
			}
			got[ti] = append(got[ti], s)
			fmt.Fprintf(w, "round %d  %-8s achieved %6.0f/s errors %d  p50 %6.0fµs p99 %7.0fµs  server CPU %6.1fµs/call  client CPU %6.1fµs/call  load %s\n",
				round+1, t.name, s.achieved, s.errors, us(s.p50), us(s.p99), s.cpu, client, res.loadavg)
			if res.firstErr != "" {
				fmt.Fprintf(w, "  first error: %s\n", res.firstErr)
			}
			if !s.sustained() {
				fmt.Fprintf(w, "  not sustained: %d of %d calls failed or were dropped, %.0f/s of %.0f/s\n", s.errors, res.sent, s.achieved, cc.rate)
			}
		}
	}
	printMCPSummary(w, targets, got)
	return nil
}

// printMCPSummary prints the ranges over the rounds and the per-round
// ratio toolgate ÷ bare of the server CPU per call.
func printMCPSummary(w io.Writer, targets []mcpTarget, got [][]sample) {
	fmt.Fprintf(w, "\n# summary over %d rounds (ranges; ratio per round)\n", len(got[0]))
	for ti, t := range targets {
		var cpu, p50, p99, rate []float64
		for _, s := range got[ti] {
			cpu = append(cpu, s.cpu)
			rate = append(rate, s.achieved)
			p50 = append(p50, us(s.p50))
			p99 = append(p99, us(s.p99))
		}
		line := fmt.Sprintf("  %-8s server CPU/call %s µs  calls/s %s  p50 %s µs  p99 %s µs", t.name, span(cpu, "%.1f"), span(rate, "%.0f"), span(p50, "%.0f"), span(p99, "%.0f"))
		if n := unsustained(got[ti]); n > 0 {
			line += fmt.Sprintf("  NOT SUSTAINED in %d of %d rounds", n, len(got[ti]))
		}
		fmt.Fprintln(w, line)
	}
	var ratio []float64
	for i := range got[0] {
		ratio = append(ratio, got[0][i].cpu/max(got[1][i].cpu, 1e-9))
	}
	fmt.Fprintf(w, "  toolgate ÷ bare: server CPU/call %s× (target ≤ 1.5×)\n", span(ratio, "%.2f"))
	// Over the whole run, as verdict pools the gateway's: the CPU per call
	// summed over the rounds, toolgate's over the bare server's.
	pool := pooled(got[0], got[1])
	status := "met"
	if pool > 1.5 {
		status = "MISSED"
	}
	fmt.Fprintf(w, "  toolgate ÷ bare pooled over the %d rounds: %.2f× (≤ 1.5×) %s\n", len(got[0]), pool, status)
}
