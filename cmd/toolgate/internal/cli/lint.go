// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
)

// The verdicts of lint, per tool and target.
const (
	verdictAccepted = "accepted"         // the provider takes it as it is
	verdictLowered  = "accepted-lowered" // it takes it after lowering
	verdictRejected = "rejected"         // not even after lowering
)

// lintEntry is lint's verdict on one tool for one target.
type lintEntry struct {
	Tool     string           `json:"tool"`
	Target   schema.Target    `json:"target"`
	Verdict  string           `json:"verdict"`
	Warnings []tool.Warning   `json:"warnings,omitempty"`
	Problems []schema.Problem `json:"problems,omitempty"`
}

type lintReport struct {
	File    string       `json:"file"`
	Format  codec.Format `json:"format"`
	Results []lintEntry  `json:"results"`
}

// toolTarget is the target whose rules the definition d is held to when
// written for target t: a tool that asks for OpenAI strict mode
// ("strict": true) is validated by OpenAI with the strict rules, and one
// that asks for Anthropic strict tool use by Anthropic's, whatever the
// command line said.
func toolTarget(t schema.Target, d *tool.Definition) schema.Target {
	switch t {
	case schema.OpenAI:
		if isTrue(d.Extensions.Get(tool.ExtOpenAIStrict)) {
			return schema.OpenAIStrict
		}
	case schema.Anthropic:
		if isTrue(d.Extensions.Get(anthropic.ExtStrict)) {
			return schema.AnthropicStrict
		}
	}
	return t
}

func isTrue(v []byte) bool { return string(bytes.TrimSpace(v)) == "true" }

// lintTools judges every tool for every target: accepted as it is by
// schema.Check, accepted after schema.LowerDefinition (the lowered tool must
// then pass Check), or rejected with the problems that remain.
func lintTools(defs []tool.Definition, targets []schema.Target) []lintEntry {
	var out []lintEntry
	for _, t := range targets {
		names := schema.NewNameMap(t)
		for i := range defs {
			d := &defs[i]
			e := lintEntry{Tool: d.Name, Target: t}
			tt := toolTarget(t, d)
			if probs := schema.Check(tt, d.Name, d.InputSchema); len(probs) == 0 {
				e.Verdict = verdictAccepted
				// Still reserve the name, so a later tool mapped onto it is caught.
				if _, err := names.Map(d.Name); err != nil {
					e.Verdict = verdictRejected
					e.Problems = []schema.Problem{{Pointer: "/name", Rule: "name-collision", Message: err.Error()}}
				}
				out = append(out, e)
				continue
			}
			lowered, warns, err := schema.LowerDefinition(tt, d, names)
			if err != nil {
				e.Verdict = verdictRejected
				e.Problems = []schema.Problem{{Rule: "lowering-failed", Message: err.Error()}}
				out = append(out, e)
				continue
			}
			e.Warnings = warns
			if probs := schema.Check(tt, lowered.Name, lowered.InputSchema); len(probs) > 0 {
				e.Verdict = verdictRejected
				e.Problems = probs
			} else {
				e.Verdict = verdictLowered
			}
			out = append(out, e)
		}
	}
	return out
}

func runLint(e *env, args []string) error {
	var targetNames stringList
	fs := newFlags(e, "lint", "[FILE] [--target T]... [--from FORMAT] [--json]", `
Check tool definitions against each provider's rules. For every tool and
target, lint says whether the provider accepts it as it is, accepts it after
toolgate lowers it (listing each change), or rejects it (with why).
The exit status is 1 when any tool is rejected for a requested target.

Targets: `+targetList()+` (default: all).`)
	fs.Var(&targetNames, "target", "check against `target` (repeatable)")
	from := fs.String("from", "", "input `format` (default: detected)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("%w: lint takes at most one FILE, got %d", ErrUsage, len(pos))
	}
	targets := schema.Targets
	if len(targetNames) > 0 {
		targets = nil
		for _, n := range targetNames {
			t, err := parseTarget(n)
			if err != nil {
				return err
			}
			targets = append(targets, t)
		}
	}
	var fromF codec.Format
	if *from != "" {
		if fromF, err = parseFormat(*from, inputFormats); err != nil {
			return err
		}
	}
	var file string
	if len(pos) == 1 {
		file = pos[0]
	}
	data, name, err := readInput(e, file)
	if err != nil {
		return err
	}
	tools, fromF, err := decodeFile(name, data, fromF)
	if err != nil {
		return err
	}
	rep := lintReport{File: name, Format: fromF, Results: lintTools(tools.Defs, targets)}
	rejected := 0
	for _, r := range rep.Results {
		if r.Verdict == verdictRejected {
			rejected++
		}
	}
	if *asJSON {
		if err := writeJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		for _, r := range rep.Results {
			fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", r.Tool, r.Target, r.Verdict)
			for _, w := range r.Warnings {
				fmt.Fprintf(e.stdout, "\tchanged %s\n", w)
			}
			for _, p := range r.Problems {
				fmt.Fprintf(e.stdout, "\tproblem %s\n", p)
			}
		}
	}
	if rejected > 0 {
		return fmt.Errorf("%w: %s: %d rejection(s)", ErrProblem, name, rejected)
	}
	return nil
}

func targetList() string {
	s := make([]string, len(schema.Targets))
	for i, t := range schema.Targets {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

func parseTarget(s string) (schema.Target, error) {
	for _, t := range schema.Targets {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("%w: unknown target %q (want one of %s)", ErrUsage, s, targetList())
}
