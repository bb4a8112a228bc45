// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

// crashRoundsEnv overrides the number of rounds of TestServeKill9.
const crashRoundsEnv = "TOOLGATE_CRASH_ROUNDS"

// TestServeKill9 is the write-ahead audit log under kill -9: a real
// `toolgate serve` on a SQLite audit log, 12 MCP clients calling a command
// tool that appends a line to a file, SIGKILL after 1–2 s, then again on
// the same database, several rounds. After each round, counting
// everything since the start:
//
//   - no tool run without an intent record: lines in the file ≤ intents;
//   - no acknowledged call without an outcome record: calls the clients
//     got a result for ≤ outcome records with status ok;
//   - no outcome without a run: outcomes ≤ lines;
//   - audit verify passes, and lists each intent with no outcome as
//     "outcome unknown (the process stopped)".
//
// The counts are totals rather than call by call because an MCP client
// does not learn the call id the server gives its call; the inequalities
// are what each call-by-call rule implies for the totals, and a single
// call recorded late or not at all breaks one of them.
func TestServeKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds toolgate and kills it")
	}
	rounds := 5
	if s := os.Getenv(crashRoundsEnv); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	bin := buildToolgate(t)
	dir := t.TempDir()
	db, marker := filepath.Join(dir, "audit.db"), filepath.Join(dir, "ran")
	cfg := filepath.Join(dir, "crash.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`
audit: {db: %s}
limits: {read: 1000000, window: 1h}
principals:
  - id: agent
auth:
  tokens:
    - principal: agent
      token_env: AGENT_TOKEN
sources:
  - name: touch
    command: {argv: [sh, -c, 'echo x >> %s'], safety: READ, description: Leave a mark.}
`, db, marker)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "AGENT_TOKEN=agent-token-1234567890", "TOOLGATE_GRANT_KEY=a grant key of thirty-two bytes!"}
	var acked int64
	for round := 1; round <= rounds; round++ {
		n := crashRound(t, bin, cfg, env)
		acked += n
		runs := int64(strings.Count(string(readFileOK(marker)), "x"))
		c := countKinds(t, db, false)
		t.Logf("round %d: %d calls acknowledged (%d in all), %d tool runs, %d intents, %d outcomes (%d ok)", round, n, acked, runs, c.intents, c.outcomes, c.ok)
		if runs > c.intents {
			t.Errorf("round %d: %d tool runs, only %d intent records", round, runs, c.intents)
		}
		if acked > c.ok {
			t.Errorf("round %d: %d calls acknowledged, only %d ok outcome records", round, acked, c.ok)
		}
		if c.outcomes > runs {
			t.Errorf("round %d: %d outcome records, only %d tool runs", round, c.outcomes, runs)
		}
		if n == 0 {
			t.Errorf("round %d: no call was acknowledged", round)
		}
		out, _, err := runCLI(t, "audit", "verify", "--db", db, "--json")
		if err != nil {
			t.Fatalf("round %d: verify: %v\n%s", round, err, out)
		}
		var rep kernel.ChainReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.UnknownCount != c.intents-c.outcomes || int64(len(rep.Unknown)) != min(rep.UnknownCount, 100) {
			t.Errorf("round %d: verify: %d problems, %d unknown outcomes (%d listed); want none and %d", round, len(rep.Problems), rep.UnknownCount, len(rep.Unknown), c.intents-c.outcomes)
		}
		if rep.UnknownCount > 0 {
			text, _, _ := runCLI(t, "audit", "verify", "--db", db)
			if !strings.Contains(text, "outcome unknown (the process stopped)") {
				t.Errorf("round %d: verify does not list the unknown outcomes:\n%s", round, text)
			}
		}
		// Replayed as the next serve would: nothing lost or doubled.
		if r := countKinds(t, db, true); r != c {
			t.Errorf("round %d: after replaying the journals %+v, before %+v", round, r, c)
		} else {
			t.Logf("round %d: %d records were in the killed process's journal", round, rep.Journaled)
		}
		if t.Failed() {
			return
		}
	}
}

// crashRound starts serve, runs 12 clients against it until it is
// killed 1–2 s in, and returns the calls acknowledged.
func crashRound(t *testing.T, bin, cfg string, env []string) int64 {
	t.Helper()
	r := startReplica(t, bin, cfg, env)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := &http.Client{Transport: bearerRT{"agent-token-1234567890"}, Timeout: 10 * time.Second}
	var acked atomic.Int64
	var wg sync.WaitGroup
	started := make(chan struct{}, 12)
	for range 12 {
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "crash-test", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: r.url, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
			started <- struct{}{}
			if err != nil {
				return // killed before it connected
			}
			defer cs.Close()
			for ctx.Err() == nil {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{}})
				if err != nil {
					return // the server is gone
				}
				if res.IsError {
					t.Errorf("a call failed with the server up: %+v", res.Content)
					return
				}
				acked.Add(1)
			}
		})
	}
	for range 12 {
		<-started
	}
	time.Sleep(time.Second + rand.N(time.Second))
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	r.cmd.Wait()
	wg.Wait()
	return acked.Load()
}

type kindCounts struct{ intents, outcomes, ok int64 }

// countKinds counts the records in the database and, unless replayed is
// set, those still in the journals of the killed process (audit.sync
// normal commits to a journal and moves records into the database
// behind). With replayed, the journals are replayed first, as the next
// process to open the log does, and must be empty after.
func countKinds(t *testing.T, db string, replayed bool) kindCounts {
	t.Helper()
	ctx := context.Background()
	st, err := audit.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if replayed {
		l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var c kindCounts
	count := func(r *kernel.AuditRecord) error {
		switch r.Kind {
		case kernel.RecordIntent:
			c.intents++
		case "":
			// A call whose intent and outcome reached the database
			// together, written as one record: both.
			c.intents++
			c.outcomes++
			if r.Status == kernel.StatusOK {
				c.ok++
			}
		case kernel.RecordOutcome:
			c.outcomes++
			if r.Status == kernel.StatusOK {
				c.ok++
			}
		default:
			t.Errorf("record %d of kind %q, status %s: want only intents and outcomes", r.Seq, r.Kind, r.Status)
		}
		return nil
	}
	if err := st.Scan(ctx, count); err != nil {
		t.Fatal(err)
	}
	var journaled int64
	notes, err := st.Pending(ctx, func(r *kernel.AuditRecord) error {
		journaled++
		return count(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if replayed && (journaled > 0 || len(notes) > 0) {
		t.Errorf("after replay: %d records still in journals, notes %q", journaled, notes)
	}
	return c
}

// readFileOK is the file's content, empty when it does not exist yet.
func readFileOK(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}
