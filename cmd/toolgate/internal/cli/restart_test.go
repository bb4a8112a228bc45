// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/skipnote"
)

// privateStores are a PostgreSQL and a Redis server of the test's own,
// which it may stop and start: the shared servers of .ci/run are not the
// test's to kill.
type privateStores struct {
	dir, pgBin        string
	pgPort, redisPort int
	asPostgres        bool
	t                 *testing.T
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startPrivateStores starts both servers, or skips the test when the
// machine has none (it fails with TOOLGATE_REQUIRE_STORES=1).
func startPrivateStores(t *testing.T) *privateStores {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatalf("%s, and TOOLGATE_REQUIRE_STORES=1", what)
		}
		t.Log(what)
		skipnote.Skip(t, "PostgreSQL and Redis servers", "install postgresql and redis-server; .ci/run installs them from Debian")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		missing("no PostgreSQL server binaries in /usr/lib/postgresql")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		missing("no redis-server")
	}
	// PostgreSQL refuses to run as root: then the cluster is the
	// postgres user's, in a directory it can reach.
	dir, err := os.MkdirTemp("", "toolgate-stores-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	s := &privateStores{dir: dir, pgBin: filepath.Dir(bins[len(bins)-1]), pgPort: freePort(t), redisPort: freePort(t), asPostgres: os.Getuid() == 0, t: t}
	os.MkdirAll(filepath.Join(dir, "pg"), 0o755)
	os.MkdirAll(filepath.Join(dir, "redis"), 0o755)
	if s.asPostgres {
		if out, err := exec.Command("chown", "postgres", filepath.Join(dir, "pg")).CombinedOutput(); err != nil {
			missing(fmt.Sprintf("cannot give the cluster to the postgres user: %v %s", err, out))
		}
	}
	t.Cleanup(func() {
		s.pg("stop", "-m", "immediate")
		s.redisStop()
		os.RemoveAll(dir)
	})
	if out, err := s.pgCmd("initdb", "-D", filepath.Join(dir, "pg", "data"), "-A", "trust", "-U", "toolgate", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.pgStart()
	s.redisStart()
	return s
}

func (s *privateStores) pgCmd(name string, args ...string) *exec.Cmd {
	bin := filepath.Join(s.pgBin, name)
	if s.asPostgres {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

func (s *privateStores) pg(args ...string) error {
	return s.pgCmd("pg_ctl", append([]string{"-D", filepath.Join(s.dir, "pg", "data")}, args...)...).Run()
}

func (s *privateStores) pgStart() {
	s.t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", s.pgPort, filepath.Join(s.dir, "pg"))
	if out, err := s.pgCmd("pg_ctl", "-D", filepath.Join(s.dir, "pg", "data"), "-l", filepath.Join(s.dir, "pg", "log"), "-w", "-o", opts, "start").CombinedOutput(); err != nil {
		s.t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
}

func (s *privateStores) redisStart() {
	s.t.Helper()
	out, err := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", fmt.Sprint(s.redisPort), "--dir", filepath.Join(s.dir, "redis"),
		"--save", "", "--appendonly", "no", "--daemonize", "yes", "--pidfile", filepath.Join(s.dir, "redis", "pid"), "--logfile", filepath.Join(s.dir, "redis", "log")).CombinedOutput()
	if err != nil {
		s.t.Fatalf("redis-server: %v\n%s", err, out)
	}
	for range 100 {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.redisPort)); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatal("redis did not start")
}

func (s *privateStores) redisStop() {
	b, err := os.ReadFile(filepath.Join(s.dir, "redis", "pid"))
	if err != nil {
		return
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		p.Kill()
	}
	for range 100 {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.redisPort)); err != nil {
			return
		} else {
			c.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeStoreRestart kills the audit database and then the limiter's
// Redis under a running `toolgate serve` and starts them again: while a
// store is down calls fail closed (an error result, the tool not run),
// every call acknowledged before is in the log, and once the store is
// back calls succeed and the chain continues, intact.
func TestServeStoreRestart(t *testing.T) {
	s := startPrivateStores(t)
	bin := buildToolgate(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	cfg := filepath.Join(dir, "restart.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`
audit: {store: postgres, key_env: AUDIT_KEY}
limits: {store: redis, read: 100000, window: 1h}
principals:
  - id: agent
auth:
  tokens:
    - principal: agent
      token_env: AGENT_TOKEN
sources:
  - name: touch
    command: {argv: [sh, -c, 'echo x >> %s'], safety: READ, description: Leave a mark.}
`, marker)), 0o644)
	dsn := fmt.Sprintf("postgres://toolgate@127.0.0.1:%d/postgres?sslmode=disable", s.pgPort)
	env := []string{"PATH=" + os.Getenv("PATH"), "TOOLGATE_AUDIT_DSN=" + dsn, fmt.Sprintf("TOOLGATE_REDIS_URL=redis://127.0.0.1:%d/0", s.redisPort),
		"AUDIT_KEY=an audit key of thirty-two bytes", "TOOLGATE_GRANT_KEY=a grant key of thirty-two bytes!", "AGENT_TOKEN=agent-token-1234567890"}
	r := startReplica(t, bin, cfg, env)
	ctx := context.Background()
	hc := &http.Client{Transport: bearerRT{"agent-token-1234567890"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "restart-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ok, failed := 0, 0
	call := func() bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			failed++
			return false
		}
		ok++
		return true
	}
	marks := func() int {
		b, _ := os.ReadFile(marker)
		return strings.Count(string(b), "x")
	}
	// untilOK calls until one succeeds, within the audit writer's
	// back-off (at most 5 s) and the clients' reconnection.
	untilOK := func(what string) {
		deadline := time.Now().Add(30 * time.Second)
		for !call() {
			if time.Now().After(deadline) {
				t.Fatalf("calls still fail 30 s after %s came back", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for range 20 {
		if !call() {
			t.Fatal("a call failed with both stores up")
		}
	}
	for _, store := range []string{"postgres", "redis"} {
		if store == "postgres" {
			s.pg("stop", "-m", "immediate", "-w")
		} else {
			s.redisStop()
		}
		// Fail closed: within a few calls the kernel refuses them, and a
		// refused call does not run the tool.
		before, refused := marks(), false
		for range 50 {
			if !call() {
				refused = true
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !refused {
			t.Fatalf("%s down: 50 calls, none refused", store)
		}
		ranWhileDown := marks() - before
		if ranWhileDown > ok {
			t.Fatalf("%s down: the tool ran %d times but only %d calls were acknowledged", store, ranWhileDown, ok)
		}
		if store == "postgres" {
			s.pgStart()
		} else {
			s.redisStart()
		}
		untilOK(store)
		for range 10 {
			if !call() {
				t.Fatalf("a call failed after %s came back", store)
			}
		}
	}
	cs.Close()
	r.cmd.Process.Signal(os.Interrupt)
	r.cmd.Wait()
	// Every acknowledged call is in the log, and the chain is intact.
	out, err := verifyPostgres(t, dir, dsn)
	if err != nil || !strings.Contains(out, "intact") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "audit", "list", "--config", filepath.Join(dir, "verify.yaml"), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct{ Status string }
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	okRecs := 0
	for _, rec := range recs {
		if rec.Status == "ok" {
			okRecs++
		}
	}
	if okRecs != ok || marks() != ok {
		t.Errorf("%d calls acknowledged, %d ok records in the log, the tool ran %d times (%d refused)", ok, okRecs, marks(), failed)
	}
	t.Logf("%d calls acknowledged, %d refused while a store was down; log intact", ok, failed)
}
