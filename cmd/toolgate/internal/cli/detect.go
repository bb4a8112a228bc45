// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"fmt"

	"github.com/toolgate/toolgate/codec/detect"
)

func runDetect(e *env, args []string) error {
	fs := newFlags(e, "detect", "[FILE] [--json]", `
Tell which tool definition format a file is in. Prints the most likely format
and a confidence for each format, with the structural evidence found. A
document that fits several formats (a bare {"name", "parameters"} object) is
reported as ambiguous; convert and lint then need --from.
The exit status is 1 when no format fits or the result is ambiguous.`)
	asJSON := fs.Bool("json", false, "print the result as JSON {format, confidence, scores, ambiguous, evidence}")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("%w: detect takes at most one FILE, got %d", ErrUsage, len(pos))
	}
	var file string
	if len(pos) == 1 {
		file = pos[0]
	}
	data, name, err := readInput(e, file)
	if err != nil {
		return err
	}
	r := detect.Detect(data)
	if r.Err != nil {
		return locateCodec(name, data, r.Err)
	}
	if *asJSON {
		if r.Evidence == nil {
			r.Evidence = []string{}
		}
		if err := writeJSON(e.stdout, r); err != nil {
			return err
		}
	} else {
		switch {
		case r.Format == "":
			fmt.Fprintln(e.stdout, "unknown")
		case r.Ambiguous:
			fmt.Fprintf(e.stdout, "ambiguous: %s\n", scoreSummary(r.Scores, 4))
		default:
			fmt.Fprintf(e.stdout, "%s (confidence %.2f)\n", r.Format, r.Confidence)
		}
		for _, s := range r.Scores {
			if s.Confidence > 0 {
				fmt.Fprintf(e.stdout, "  %-17s %.2f\n", s.Format, s.Confidence)
			}
		}
		for _, ev := range r.Evidence {
			fmt.Fprintf(e.stdout, "  evidence: %s\n", ev)
		}
	}
	switch {
	case r.Format == "":
		return fmt.Errorf("%w: %s: not in any tool definition format toolgate reads", ErrProblem, name)
	case r.Ambiguous:
		return fmt.Errorf("%w: %s: ambiguous; pass --from to convert or lint", ErrProblem, name)
	}
	return nil
}
