// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package cli implements the toolgate subcommands. Each command is a
// function of its arguments and streams, so tests run it in-process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// Errors that decide the exit status; see [ExitCode].
var (
	// ErrUsage is a bad command line or unreadable input: exit 2.
	ErrUsage = errors.New("usage error")
	// ErrProblem means the command ran and found a problem, such as a lint
	// rejection: exit 1.
	ErrProblem = errors.New("problem found")
	// ErrRuntime means the command could not do its work although its
	// input was valid: a failed listen, a source that cannot connect, a
	// database that cannot be opened. Exit 1.
	ErrRuntime = errors.New("runtime failure")
)

// ExitCode maps an error returned by [Run] to the process exit status:
// 0 success, 1 a problem found or a runtime failure, 2 usage error or
// unreadable or invalid input (an invalid config file included).
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrUsage), errors.Is(err, config.ErrInvalid):
		return 2
	case errors.Is(err, ErrProblem), errors.Is(err, ErrRuntime):
		return 1
	default:
		return 2
	}
}

// buildError marks an error of [config.File.Build]: an invalid config
// stays as it is (exit 2), anything else is a runtime failure (exit 1).
func buildError(err error) error {
	if errors.Is(err, config.ErrInvalid) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrRuntime, err)
}

// env is what one command runs with.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// getenv reads the environment; only Run calls os.Getenv.
	getenv func(string) string
}

type command struct {
	summary string
	run     func(e *env, args []string) error
}

// commands is the table of subcommands; each lives in a file of its name.
// Add a command with one line here and one file beside this one.
var commands = map[string]command{
	"detect":  {summary: "tell which tool definition format a file is in", run: runDetect},
	"openapi": {summary: "turn an OpenAPI spec into tools, or call one of its operations", run: runOpenAPI},
	"convert": {summary: "convert tool definitions to another provider's format", run: runConvert},
	"lint":    {summary: "check tool definitions against each provider's rules", run: runLint},
	"parse":   {summary: "read the tool calls, content and reasoning in a model's raw text output", run: runParse},
	"prompt":  {summary: "print the system-prompt tools section for a text tool-call family", run: runPrompt},
	"serve":   {summary: "serve tools over MCP (stdio or HTTP), every call through the kernel", run: runServe},
	"call":    {summary: "run one tool call through policy, grant, validation, firewall and audit", run: runCall},
	"audit":   {summary: "verify the audit log's hash chain, or list its records", run: runAudit},
	"keys":    {summary: "make, list, show or revoke the model gateway's keys", run: runKeys},
	"spend":   {summary: "report the model gateway's requests, tokens and cost per key, principal, model or day", run: runSpend},
	"version": {summary: "print the module version and VCS revision toolgate was built from", run: runVersion},
}

// Run runs the toolgate command line args with the given streams.
// Diagnostics go to stderr; the error it returns decides the exit status
// ([ExitCode]). ctx's cancellation (the caller's signal handling, as in
// cmd/toolgate) stops a running server gracefully.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return ErrUsage
		}
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "toolgate: unknown command %q\n", args[0])
		usage(stderr)
		return ErrUsage
	}
	err := cmd.run(e, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil && !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "toolgate %s: %v\n", args[0], err)
	}
	return err
}

// errReported wraps an error whose message the command already printed.
var errReported = errors.New("reported")

func usage(w io.Writer) {
	fmt.Fprintln(w, "toolgate: the tool layer between language models and the tools they call")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: toolgate COMMAND [ARGS]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'toolgate COMMAND --help' for a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 the command found a problem or could not run (a failed listen,")
	fmt.Fprintln(w, "a source that cannot connect), 2 usage error or unreadable or invalid input.")
}

// newFlags returns a flag set for a command whose usage text names its
// arguments and describes it. Parse errors are usage errors.
func newFlags(e *env, name, args, desc string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", strings.TrimSpace("toolgate "+name+" "+args), strings.TrimSpace(desc))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments, as
// users type them ("convert tools.json --to anthropic").
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(io.Discard)
				return nil, err
			}
			return nil, fmt.Errorf("%w: %w", ErrUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
		if pos[len(pos)-1] == "--" {
			pos = append(pos[:len(pos)-1], args...)
			return pos, nil
		}
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// maxInput caps what a command reads from a file or stdin.
const maxInput = 256 << 20

// readInput reads the file named by path, or stdin when path is "" or "-".
// It returns the name to use in messages.
func readInput(e *env, path string) (data []byte, name string, err error) {
	if path == "" || path == "-" {
		data, err = io.ReadAll(io.LimitReader(e.stdin, maxInput+1))
		name = "<stdin>"
	} else {
		name = path
		var f *os.File
		f, err = os.Open(path)
		if err == nil {
			data, err = io.ReadAll(io.LimitReader(f, maxInput+1))
			f.Close()
		}
	}
	if err != nil {
		return nil, name, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if len(data) > maxInput {
		return nil, name, fmt.Errorf("%w: %s: larger than %d MiB", ErrUsage, name, maxInput>>20)
	}
	return data, name, nil
}

// locate rewrites a strictjson error found in the file name as
// "name:line:col: message", and marks it a usage error (unreadable input).
// Other errors are returned prefixed by the file name.
func locate(name string, data []byte, err error) error {
	if se, ok := errors.AsType[*strictjson.Error](err); ok {
		line, col := strictjson.LineCol(data, se.Offset)
		return fmt.Errorf("%w: %s:%d:%d: %w", ErrUsage, name, line, col, se)
	}
	return fmt.Errorf("%w: %s: %w", ErrUsage, name, err)
}
