// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

const checkpointConfig = `
audit:
  db: DB
  checkpoint:
    every: 1h
    sink: SINK
    ed25519_key_env: TG_TEST_CHECKPOINT_KEY
sources:
  - name: hello
    command:
      description: Say hello.
      argv: [printf, hello]
      safety: READ
`

// TestCheckpointsEd25519 takes Ed25519-signed checkpoints with the CLI
// and with serve's loop, and checks that verify finds a truncation behind
// them, a forged line and a checkpoint signed by another key.
func TestCheckpointsEd25519(t *testing.T) {
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(nil)
	t.Setenv("TG_TEST_CHECKPOINT_KEY", base64.StdEncoding.EncodeToString(priv.Seed()))
	db, sink := filepath.Join(dir, "audit.db"), filepath.Join(dir, "checkpoints.jsonl")
	cfgPath := filepath.Join(dir, "cfg.yaml")
	yaml := strings.NewReplacer("DB", db, "SINK", sink).Replace(checkpointConfig)
	os.WriteFile(cfgPath, []byte(yaml), 0o644)
	for range 5 {
		if out, _, err := runCLI(t, "call", "--config", cfgPath, "--principal", "agent", "hello"); err != nil {
			t.Fatalf("call: %v\n%s", err, out)
		}
	}
	// serve's loop: started by BuildServing, a last checkpoint when closed.
	f, err := config.Parse([]byte(yaml), "cfg")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.BuildServing(context.Background(), &config.BuildOptions{Logger: slog.New(slog.DiscardHandler), Getenv: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	data, err := os.ReadFile(sink)
	if err != nil {
		t.Fatal(err)
	}
	// Five calls make five to ten records: an intent and its outcome that
	// reach the store in one batch are one record.
	st, err := audit.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	err = st.DB().QueryRow(`SELECT COUNT(*) FROM audit`).Scan(&n)
	st.Close()
	if err != nil || n < 5 || n > 10 {
		t.Fatalf("the store holds %d records (%v), want 5 to 10", n, err)
	}
	cps, err := kernel.ParseCheckpoints(data)
	if err != nil || len(cps) != 1 || cps[0].Records != n || cps[0].VerifySignature(priv.Public().(ed25519.PublicKey)) != nil {
		t.Fatalf("serve's checkpoints (want %d records): %v %+v", n, err, cps)
	}
	// One more from the CLI, appended as a line.
	out, _, err := runCLI(t, "audit", "checkpoint", "--config", cfgPath)
	if err != nil {
		t.Fatalf("checkpoint: %v\n%s", err, out)
	}
	cp, err := kernel.ParseCheckpoint([]byte(out))
	if err != nil || cp.Sig == "" {
		t.Fatalf("CLI checkpoint: %v %+v", err, cp)
	}
	kernel.AppendCheckpoint(sink, cp)
	if out, _, err := runCLI(t, "audit", "verify", "--config", cfgPath, "--checkpoint", sink); err != nil {
		t.Fatalf("verify intact: %v\n%s", err, out)
	}
	// Another key's signature, through --public-key.
	other, _, _ := ed25519.GenerateKey(nil)
	out, _, err = runCLI(t, "audit", "verify", "--config", cfgPath, "--checkpoint", sink, "--public-key", base64.StdEncoding.EncodeToString(other))
	if ExitCode(err) != 1 || !strings.Contains(out, "Ed25519 signature does not verify") {
		t.Errorf("other key: %v\n%s", err, out)
	}
	// A forged line: more records claimed, signature left as it was.
	lines := strings.Split(strings.TrimSpace(string(readFile(t, sink))), "\n")
	var forged kernel.Checkpoint
	json.Unmarshal([]byte(lines[1]), &forged)
	forged.Records = 11
	fb, _ := json.Marshal(forged)
	forgedPath := filepath.Join(dir, "forged.jsonl")
	os.WriteFile(forgedPath, []byte(lines[0]+"\n"+string(fb)+"\n"), 0o644)
	out, _, err = runCLI(t, "audit", "verify", "--config", cfgPath, "--checkpoint", forgedPath)
	if ExitCode(err) != 1 || !strings.Contains(out, "checkpoint 2 of") {
		t.Errorf("forged line: %v\n%s", err, out)
	}
	// Truncated behind the checkpoints, the head rewritten to match.
	st, err = audit.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM audit WHERE seq > 2`, `UPDATE audit_head SET seq = 2, hash = (SELECT hash FROM audit WHERE seq = 2)`} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	out, _, err = runCLI(t, "audit", "verify", "--config", cfgPath, "--checkpoint", sink)
	if ExitCode(err) != 1 || !strings.Contains(out, "record 3 truncated") {
		t.Errorf("truncated: %v\n%s", err, out)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
