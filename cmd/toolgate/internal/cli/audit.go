// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

// AuditKeyEnv holds the audit chain's HMAC key when no config names one.
const auditKeyEnv = "TOOLGATE_AUDIT_KEY"

func runAudit(e *env, args []string) error {
	if len(args) == 0 || (args[0] != "verify" && args[0] != "list" && args[0] != "checkpoint") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(e.stdout, "Usage: toolgate audit verify|list|checkpoint [--db FILE] ...\n\nRun 'toolgate audit verify --help' (list, checkpoint) for flags.")
			return nil
		}
		fmt.Fprintln(e.stderr, "Usage: toolgate audit verify|list|checkpoint [--db FILE] ...")
		return ErrUsage
	}
	switch args[0] {
	case "verify":
		return runAuditVerify(e, args[1:])
	case "checkpoint":
		return runAuditCheckpoint(e, args[1:])
	}
	return runAuditList(e, args[1:])
}

func runAuditCheckpoint(e *env, args []string) error {
	fs := newFlags(e, "audit checkpoint", "[--db FILE] [--config FILE] [-o FILE]",
		"Write a checkpoint of the audit log's head: how many records it has, the hash of\n"+
			"the last and the time, signed (HMAC-SHA256) with the chain's key when it has one,\n"+
			"and with Ed25519 when audit.checkpoint.ed25519_key_env names a private key.\n"+
			"Keep it where whoever can write the database cannot; 'toolgate audit verify\n"+
			"--checkpoint FILE' then finds records deleted from the end or rewritten up to it.\n"+
			"Without a key the checkpoint is unsigned: it anchors the log only as long as the\n"+
			"file itself is safe.")
	db := fs.String("db", "", "the audit log SQLite `FILE` (default: the config's, else toolgate-audit.db)")
	cfg := fs.String("config", "", "read the database and key from this YAML config `FILE`")
	outPath := fs.String("o", "", "write the checkpoint to `FILE` instead of stdout")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	st, key, err := openAudit(e, *db, *cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	priv, _, err := checkpointKeys(e, *cfg)
	if err != nil {
		return err
	}
	cp, err := kernel.NewCheckpoint(e.ctx, st, key)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	if priv != nil {
		cp.Sign(priv)
	}
	b, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if key == nil && priv == nil {
		fmt.Fprintln(e.stderr, "toolgate audit checkpoint: the log has no key and no Ed25519 key is configured, so the checkpoint is unsigned")
	}
	if *outPath == "" {
		_, err := e.stdout.Write(b)
		return err
	}
	if err := os.WriteFile(*outPath, b, 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	return nil
}

// auditStore is what the audit commands read: the SQLite or the
// PostgreSQL store.
type auditStore interface {
	kernel.AuditStore
	List(ctx context.Context, f audit.Filter, fn func(*kernel.AuditRecord) error) error
	Close() error
}

// openAudit resolves the store and chain key from the flags: the
// config's store (SQLite file or PostgreSQL), else the SQLite file.
func openAudit(e *env, db, cfgPath string) (auditStore, []byte, error) {
	var key []byte
	if cfgPath != "" {
		data, name, err := readInput(e, cfgPath)
		if err != nil {
			return nil, nil, err
		}
		f, err := config.Parse(data, name)
		if err != nil {
			return nil, nil, err
		}
		if key, err = f.AuditKey(e.getenv); err != nil {
			return nil, nil, err
		}
		if f.Audit.Store == config.AuditPostgres {
			if db != "" {
				return nil, nil, fmt.Errorf("%w: --db is a SQLite file, and the config's audit.store is postgres", ErrUsage)
			}
			st, err := f.OpenPostgres(e.ctx, e.getenv)
			if err != nil {
				return nil, nil, buildError(err)
			}
			return st, orEnvKey(e, key), nil
		}
		if db == "" {
			db = f.Audit.DB
		}
	}
	key = orEnvKey(e, key)
	if db == "" {
		db = "toolgate-audit.db"
	}
	if _, err := os.Stat(db); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	st, err := audit.Open(e.ctx, db)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	return st, key, nil
}

// orEnvKey is key, else the key in TOOLGATE_AUDIT_KEY.
func orEnvKey(e *env, key []byte) []byte {
	if key == nil {
		key = config.DecodeKey(e.getenv(auditKeyEnv))
	}
	return key
}

func runAuditVerify(e *env, args []string) error {
	fs := newFlags(e, "audit verify", "[--db FILE] [--config FILE] [--json]",
		"Check the audit log's hash chain: every record against its hash, every link to the\n"+
			"record before, the sequence and the recorded head. An edited, deleted, inserted,\n"+
			"malformed (a column of the wrong type, NULL, a hash of the wrong length),\n"+
			"reordered or truncated record is named; exit status 1 when any is found. A call\n"+
			"whose intent has no outcome is listed as \"outcome unknown (the process\n"+
			"stopped)\": not damage, the exit status stays 0. Records committed to a\n"+
			"process's journal (audit.sync normal) and not yet in the chain are counted\n"+
			"and paired too, and a journal whose end cannot be read (a write cut short by\n"+
			"a crash) is named, not failed. A keyed\n"+
			"chain needs its key: audit.key_env in the config, or "+auditKeyEnv+". With\n"+
			"--checkpoint, records deleted from the end or rewritten up to a checkpoint taken\n"+
			"earlier (toolgate audit checkpoint) are found too, though the head was rewritten.")
	db := fs.String("db", "", "the audit log SQLite `FILE` (default: the config's, else toolgate-audit.db)")
	cfg := fs.String("config", "", "read the database and key from this YAML config `FILE`")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	cpPath := fs.String("checkpoint", "", "also check the log against the checkpoints in `FILE` (toolgate audit checkpoint, or serve's audit.checkpoint.sink: one a line)")
	pubKey := fs.String("public-key", "", "check the checkpoints' Ed25519 signatures with this public `KEY` (base64; default: the config's audit.checkpoint.ed25519_public_key)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	var cps []*kernel.Checkpoint
	if *cpPath != "" {
		data, _, err := readInput(e, *cpPath)
		if err != nil {
			return err
		}
		if cps, err = kernel.ParseCheckpoints(data); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrUsage, *cpPath, err)
		}
	}
	_, pub, err := checkpointKeys(e, *cfg)
	if err != nil {
		return err
	}
	if *pubKey != "" {
		if pub, err = config.ParsePublicKey(*pubKey); err != nil {
			return fmt.Errorf("%w: --public-key %w", ErrUsage, err)
		}
	}
	st, key, err := openAudit(e, *db, *cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	var rep *kernel.ChainReport
	if len(cps) > 0 {
		// Every checkpoint's signature, then the chain against the
		// last: a log rewritten or cut behind any of them is rewritten
		// or cut behind the last too.
		last := cps[len(cps)-1]
		rep, err = kernel.VerifyChainCheckpoint(e.ctx, st, key, last)
		if err == nil && pub != nil {
			for i, cp := range cps {
				if cp.VerifySignature(pub) != nil {
					rep.Problems = append(rep.Problems, kernel.ChainProblem{Seq: cp.Records, Kind: kernel.TamperCheckpoint,
						Detail: fmt.Sprintf("checkpoint %d of %s: its Ed25519 signature does not verify with the public key", i+1, *cpPath)})
				}
			}
		} else if err == nil && last.Sig != "" {
			fmt.Fprintln(e.stderr, "toolgate audit verify: the checkpoints carry Ed25519 signatures but no public key is given (--public-key or audit.checkpoint.ed25519_public_key); they were not checked")
		}
	} else {
		rep, err = kernel.VerifyChain(e.ctx, st, key)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(e.stdout, rep.String())
	}
	if !rep.OK() {
		return fmt.Errorf("%w: %w", ErrProblem, errReported)
	}
	return nil
}

func runAuditList(e *env, args []string) error {
	fs := newFlags(e, "audit list", "[--db FILE] [--principal ID] [--tool NAME] [--kind KIND] [--since T] [--limit N] [--json]",
		"List audit records, oldest first. --since takes a time (RFC 3339) or a duration\n"+
			"back from now (1h). Arguments and results are stored redacted. Columns: seq,\n"+
			"time, principal, tool, status, code, reason, kind (call: a call in one record;\n"+
			"intent and outcome: the two records of a call that ran; model, proposal) and\n"+
			"parent (the call id of the model request a record belongs under, or -).\n"+
			"--kind model lists the gateway's model requests: a model record's result holds\n"+
			"its front door, provider, key id, status, finish, latency, tokens, cost and the\n"+
			"calls the model made (names and argument hashes).\n"+
			"Records committed to a process's journal and not yet moved into the database\n"+
			"(audit.sync normal) come last, with seq -.")
	db := fs.String("db", "", "the audit log SQLite `FILE` (default: the config's, else toolgate-audit.db)")
	cfg := fs.String("config", "", "read the database from this YAML config `FILE`")
	principal := fs.String("principal", "", "only calls by this principal `ID`")
	toolName := fs.String("tool", "", "only calls of this tool `NAME`")
	kind := fs.String("kind", "", "only records of this `KIND`: model, proposal, intent, outcome or call")
	since := fs.String("since", "", "only records at or after `T`")
	limit := fs.Int("limit", 0, "only the last `N` matching records")
	asJSON := fs.Bool("json", false, "print a JSON array of records")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	filter := audit.Filter{Principal: *principal, Tool: *toolName, Kind: kernel.RecordKind(*kind), Limit: *limit}
	switch filter.Kind {
	case "", "call", kernel.RecordModel, kernel.RecordProposal, kernel.RecordIntent, kernel.RecordOutcome:
	default:
		return fmt.Errorf("%w: --kind %q is not one of model, proposal, intent, outcome, call", ErrUsage, *kind)
	}
	if *since != "" {
		if d, err := time.ParseDuration(*since); err == nil {
			filter.Since = time.Now().Add(-d)
		} else if t, err := time.Parse(time.RFC3339, *since); err == nil {
			filter.Since = t
		} else {
			return fmt.Errorf("%w: --since %q is neither an RFC 3339 time nor a duration", ErrUsage, *since)
		}
	}
	st, _, err := openAudit(e, *db, *cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	var recs []kernel.AuditRecord
	err = st.List(e.ctx, filter, func(r *kernel.AuditRecord) error {
		if *asJSON {
			c := *r
			c.Args = append(json.RawMessage(nil), r.Args...)
			recs = append(recs, c)
			return nil
		}
		// Kind and parent last, so that the columns before keep their
		// places; a call recorded in one record is "call".
		kind, parent := string(r.Kind), r.Parent
		if kind == "" {
			kind = "call"
		}
		if parent == "" {
			parent = "-"
		}
		// A record still in a journal has no number yet.
		seq := "-"
		if r.Seq > 0 {
			seq = strconv.FormatInt(r.Seq, 10)
		}
		_, err := fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", seq, r.Time.Format(time.RFC3339), r.Principal, r.Tool, r.Status, r.Code, oneLine(r.Reason), kind, oneLine(parent))
		return err
	})
	if err != nil {
		return errors.Join(ErrProblem, err)
	}
	if *asJSON {
		if recs == nil {
			recs = []kernel.AuditRecord{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(recs)
	}
	return nil
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// checkpointKeys reads the Ed25519 keys of audit.checkpoint from the
// config, when there is one.
func checkpointKeys(e *env, cfgPath string) (ed25519.PrivateKey, ed25519.PublicKey, error) {
	if cfgPath == "" {
		return nil, nil, nil
	}
	data, name, err := readInput(e, cfgPath)
	if err != nil {
		return nil, nil, err
	}
	f, err := config.Parse(data, name)
	if err != nil {
		return nil, nil, err
	}
	priv, err := f.CheckpointKey(e.getenv)
	if err != nil {
		return nil, nil, err
	}
	pub, err := f.CheckpointPublicKey(e.getenv)
	return priv, pub, err
}
