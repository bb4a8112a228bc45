// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

func runCall(e *env, args []string) error {
	fs := newFlags(e, "call", "--config FILE --principal ID TOOL [ARGS] [--justification TEXT] [--explain]",
		"Run one tool call through the whole kernel pipeline — policy, grant, validation, the\n"+
			"executor, the output firewall and the audit log — and print the result as JSON.\n"+
			"ARGS is a JSON object ('-' reads it from stdin). The config is the YAML file of\n"+
			"toolgate serve; see examples/kernel/toolgate.yaml. Rate limits are kept in the\n"+
			"audit database (limits.store sqlite, the default here), so that they hold across\n"+
			"calls and processes. Exit status 1 when the call ends in a tool error (denied,\n"+
			"invalid arguments, the tool failed).")
	configPath := fs.String("config", "", "the YAML config `FILE` (required)")
	principal := fs.String("principal", "", "the principal `ID` the call is made for (required)")
	justification := fs.String("justification", "", "why the call is made (`TEXT`); WRITE and DESTRUCTIVE tools need one")
	explain := fs.Bool("explain", false, "print the policy decision with every failed condition")
	mode := fs.String("mode", "", "response `MODE`: summary, table or raw (raw needs the admin role)")
	dbPath := fs.String("db", "", "the audit log SQLite `FILE` instead of the config's")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *configPath == "" || *principal == "" || len(pos) < 1 || len(pos) > 2 {
		fs.Usage()
		return fmt.Errorf("%w: call needs --config, --principal and a TOOL", ErrUsage)
	}
	switch kernel.Mode(*mode) {
	case kernel.ModeDefault, kernel.ModeSummary, kernel.ModeTable, kernel.ModeRaw:
	default:
		return fmt.Errorf("%w: --mode %q is not summary, table or raw", ErrUsage, *mode)
	}
	var callArgs json.RawMessage
	if len(pos) == 2 {
		if pos[1] == "-" {
			b, err := io.ReadAll(io.LimitReader(e.stdin, maxInput))
			if err != nil {
				return fmt.Errorf("%w: reading arguments: %w", ErrUsage, err)
			}
			callArgs = b
		} else {
			callArgs = json.RawMessage(pos[1])
		}
	}
	data, name, err := readInput(e, *configPath)
	if err != nil {
		return err
	}
	f, err := config.Parse(data, name)
	if err != nil {
		return err
	}
	b, err := f.Build(e.ctx, &config.BuildOptions{Getenv: e.getenv, AuditDB: *dbPath, LimitsStore: config.LimitsSQLite})
	if err != nil {
		return buildError(err)
	}
	if f.Limits.Store == "" && b.LimitsStore != config.LimitsSQLite {
		fmt.Fprintln(e.stderr, "toolgate call: no audit.db or limits.db: rate limits apply to this call alone")
	}
	out, callErr := b.Kernel.Call(e.ctx, &kernel.Request{
		Principal:     kernel.Principal{ID: *principal},
		Call:          tool.Call{ID: "call_1", Name: pos[0], Arguments: callArgs},
		Justification: *justification,
		Mode:          kernel.Mode(*mode),
		Explain:       *explain,
	})
	if err := b.Close(e.ctx); err != nil && callErr == nil {
		callErr = err
	}
	if callErr != nil {
		// The kernel could not record the call, or the log not close.
		return fmt.Errorf("%w: %w", ErrRuntime, callErr)
	}
	report := struct {
		Status   kernel.Status    `json:"status"`
		Result   tool.Result      `json:"result"`
		Decision *kernel.Decision `json:"decision,omitempty"`
	}{Status: out.Status, Result: out.Result}
	if *explain {
		report.Decision = &out.Decision
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		return err
	}
	if out.Result.IsError {
		fmt.Fprintf(e.stderr, "toolgate call: %s: %s\n", out.Status, out.Result.Text())
		return fmt.Errorf("%w: %w", ErrProblem, errReported)
	}
	return nil
}
