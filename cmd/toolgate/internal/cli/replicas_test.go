// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replica is one `toolgate serve` process.
type replica struct {
	cmd *exec.Cmd
	url string
}

var mcpURL = regexp.MustCompile(`over MCP at (http://\S+)`)

// startReplica runs bin serve with cfg and env, and waits for its URL.
func startReplica(t *testing.T, bin, cfg string, env []string) *replica {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--config", cfg, "--addr", "127.0.0.1:0")
	cmd.Env = env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := mcpURL.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		return &replica{cmd: cmd, url: u}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return nil
}

type bearerRT struct{ tok string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// buildToolgate builds the toolgate binary into a temporary directory.
func buildToolgate(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "toolgate")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/toolgate/toolgate/cmd/toolgate").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestServeReplicas runs three real `toolgate serve` processes on one
// PostgreSQL audit log and one Redis limiter, calls a tool over MCP on
// all of them at once, and checks that the global limit held exactly,
// that the audit log is one intact chain holding every call, and reports
// the calls per second and latency. (Grants are issued and checked inside
// each call; their replay across replicas, which needs a downstream
// service redeeming them, is TestReplicasShareState's, in config.)
func TestServeReplicas(t *testing.T) {
	pgDSN := postgresDSN(t)
	redisURL := os.Getenv("TOOLGATE_TEST_REDIS_URL")
	if redisURL == "" {
		t.Fatal("TOOLGATE_TEST_REDIS_URL is not set, but PostgreSQL is: .ci/run starts both")
	}
	bin := buildToolgate(t)
	dir := t.TempDir()
	// The demo source's listTasks runs in the process, so the figures
	// are the server's and the stores', not a child process's. A
	// principal of this run's own keeps the shared Redis's windows of
	// earlier runs out of the count.
	const tool = "listTasks"
	principal := fmt.Sprintf("agent_%d", time.Now().UnixNano())
	const limit = 150
	stores := "audit: {store: postgres, key_env: AUDIT_KEY}\nlimits: {store: redis, read: 150, window: 1h}\ngrants: {store: redis}\n"
	baseline := os.Getenv("TOOLGATE_REPLICA_BASELINE") == "1"
	if baseline {
		// The same replicas without shared stores: no audit log, limits
		// in each process's memory. The difference is the stores' cost.
		stores = "limits: {store: memory, read: 100000, window: 1h}\n"
	}
	cfg := filepath.Join(dir, "replicas.yaml")
	os.WriteFile(cfg, []byte(stores+fmt.Sprintf(`principals:
  - id: %s
auth:
  tokens:
    - principal: %s
      token_env: AGENT_TOKEN
sources:
  - name: tasks
    demo: {}
`, principal, principal)), 0o644)
	env := []string{"PATH=" + os.Getenv("PATH"), "TOOLGATE_AUDIT_DSN=" + pgDSN, "TOOLGATE_REDIS_URL=" + redisURL,
		"AUDIT_KEY=an audit key of thirty-two bytes", "TOOLGATE_GRANT_KEY=a grant key shared by replicas!!", "AGENT_TOKEN=agent-token-1234567890"}
	var reps []*replica
	for range 3 {
		reps = append(reps, startReplica(t, bin, cfg, env))
	}
	ctx := context.Background()
	workers, each := 6, 40 // 240 calls against a limit of 150
	if n := os.Getenv("TOOLGATE_REPLICA_CALLS"); n != "" {
		fmt.Sscan(n, &each) // a longer run for the figures
	}
	var mu sync.Mutex
	var lat []time.Duration
	allowed, denied := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			r := reps[w%len(reps)]
			hc := &http.Client{Transport: bearerRT{"agent-token-1234567890"}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "replica-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for range each {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
				d := time.Since(t0)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				lat = append(lat, d)
				if res.IsError {
					denied++
				} else {
					allowed++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("3 replicas, %d MCP calls by %d clients: %.0f calls/s, p50 %v, p99 %v, max %v (baseline without stores: %v)",
		len(lat), workers, float64(len(lat))/elapsed.Seconds(), lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], baseline)
	if baseline {
		return
	}
	if allowed != limit || denied != workers*each-limit {
		t.Errorf("allowed %d, denied %d across 3 replicas; want exactly %d allowed", allowed, denied, limit)
	}
	// Stop the replicas (their audit writers flush), then one chain.
	for _, r := range reps {
		r.cmd.Process.Signal(os.Interrupt)
		r.cmd.Wait()
	}
	out, err := verifyPostgres(t, dir, pgDSN)
	if err != nil || !strings.Contains(out, "intact") {
		t.Errorf("verify: %v\n%s", err, out)
	}
	// Every call is in the log once, with the status its caller saw.
	want := map[string]int{"ok": limit, "denied": workers*each - limit}
	if got := callStatuses(t, "--config", filepath.Join(dir, "verify.yaml")); !cmp.Equal(got, want) {
		t.Errorf("calls in the audit log: %v, want %v", got, want)
	}
}

// verifyPostgres runs toolgate audit verify on the PostgreSQL log at dsn
// keyed as the replica tests key it, and returns its output; the config
// it writes into dir serves audit list too.
func verifyPostgres(t *testing.T, dir, dsn string) (string, error) {
	t.Helper()
	cfg := filepath.Join(dir, "verify.yaml")
	os.WriteFile(cfg, []byte("audit: {store: postgres, key_env: AUDIT_KEY}\n"), 0o644)
	t.Setenv("TOOLGATE_AUDIT_DSN", dsn)
	t.Setenv("AUDIT_KEY", "an audit key of thirty-two bytes")
	out, _, err := runCLI(t, "audit", "verify", "--config", cfg)
	return out, err
}
