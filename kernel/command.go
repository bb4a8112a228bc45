// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/tool"
)

// Command is an [Executor] that runs a local program, without a shell.
//
// Each element of Argv may hold placeholders "{name}" that are replaced by
// the top-level argument of that name: a string by its value, anything
// else by its JSON text. A value that would start an element with '-' is
// refused unless an earlier element is "--", so a model cannot smuggle in
// options. The arguments are also written to stdin as JSON. Standard
// output becomes the result (JSON content when it is JSON); a non-zero
// exit is a tool error carrying standard error.
type Command struct {
	// Argv is the program and its argument templates. Required.
	Argv []string
	// Dir is the working directory. If empty, the current one.
	Dir string
	// Env is the environment. If nil, only PATH and HOME are passed, so
	// that the program does not inherit secrets.
	Env []string
	// Timeout bounds the run. If zero or negative, the command has no
	// timeout of its own: the kernel's per-call timeout (see
	// [Config.Timeout] and [Capability.Timeout]) bounds it.
	Timeout time.Duration
	// MaxOutput bounds standard output and standard error each. If zero,
	// [DefaultMaxOutput]; negative means no limit.
	MaxOutput int
	// Decode, if set, reads the program's standard output as the whole
	// result (an MCP CallToolResult, say), so a command can return images,
	// audio or resources. Output it cannot read becomes a tool error. If
	// nil, output that is a JSON object or array is a JSON part and anything
	// else text.
	Decode func(stdout []byte) (tool.Result, error)
}

// Secrets implements [SecretHolder]: the values of the Env entries whose
// names say they hold a credential (SVC_TOKEN, DB_PASSWORD, API_KEY,
// CLIENT_SECRET, SIGNING_KEY, … as [redact.Redactor.SecretKey] judges
// names, or ending in KEY), so that a kernel masks them wherever the
// command echoes them.
func (c *Command) Secrets() []string {
	names := redact.Default()
	var out []string
	for _, kv := range c.Env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		if names.SecretKey(name) || strings.HasSuffix(strings.ToLower(name), "key") {
			out = append(out, value)
		}
	}
	return out
}

// DefaultMaxOutput is [Command.MaxOutput] when it is zero.
const DefaultMaxOutput = 1 << 20

// Execute implements [Executor].
func (c *Command) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if len(c.Argv) == 0 {
		return tool.Result{}, errors.New("command has no program")
	}
	argv, msg := c.expand(call.Arguments)
	if msg != "" {
		return tool.ErrorResult(call.ID, msg), nil
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = minimalEnv()
	}
	cmd.WaitDelay = time.Second
	cmd.Stdin = bytes.NewReader(call.Arguments)
	limit := orDefault(c.MaxOutput, DefaultMaxOutput)
	stdout := &capped{max: limit}
	stderr := &capped{max: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return tool.ErrorResult(call.ID, "the command did not finish in time: "+ctx.Err().Error()), nil
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return tool.Result{}, fmt.Errorf("running %s: %w", argv[0], err)
		}
		msg := fmt.Sprintf("the command exited with status %d", ee.ExitCode())
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += ": " + s
		} else if s := strings.TrimSpace(stdout.String()); s != "" {
			msg += ": " + s
		}
		return tool.ErrorResult(call.ID, msg), nil
	}
	out := bytes.TrimSpace(stdout.buf.Bytes())
	if c.Decode != nil {
		if stdout.cut > 0 {
			return tool.ErrorResult(call.ID, fmt.Sprintf("the command's result is %d bytes over the output limit", stdout.cut)), nil
		}
		res, err := c.Decode(out)
		if err != nil {
			return tool.ErrorResult(call.ID, "the command's output is not a result toolgate can read: "+err.Error()), nil
		}
		res.CallID = call.ID
		return res, nil
	}
	res := tool.Result{CallID: call.ID}
	if k := strictjson.KindOf(out); (k == strictjson.Object || k == strictjson.Array) && strictjson.Check(out, nil) == nil {
		res.Content = []tool.Content{&tool.JSON{Value: append([]byte(nil), out...)}}
	} else {
		res.Content = []tool.Content{&tool.Text{Text: string(out)}}
	}
	if stdout.cut > 0 {
		res.Content = append(res.Content, &tool.Text{Text: fmt.Sprintf("[output cut: %d bytes over the limit]", stdout.cut)})
	}
	return res, nil
}

func minimalEnv() []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"}
}

// expand fills the argv templates from args. msg is a tool error.
func (c *Command) expand(args []byte) (argv []string, msg string) {
	argv = make([]string, len(c.Argv))
	afterDashes := false
	for i, tpl := range c.Argv {
		var b strings.Builder
		rest := tpl
		for {
			open := strings.IndexByte(rest, '{')
			if open < 0 {
				b.WriteString(rest)
				break
			}
			end := strings.IndexByte(rest[open:], '}')
			if end < 0 {
				b.WriteString(rest)
				break
			}
			name := rest[open+1 : open+end]
			b.WriteString(rest[:open])
			rest = rest[open+end+1:]
			if !isPlaceholder(name) {
				b.WriteString("{" + name + "}")
				continue
			}
			v := strictjson.Get(args, name)
			if v == nil {
				return nil, fmt.Sprintf("missing argument %q, which the command line needs", name)
			}
			s := string(v)
			if strictjson.KindOf(v) == strictjson.String {
				s, _ = strictjson.Unquote(v)
			}
			if strings.ContainsRune(s, 0) {
				return nil, fmt.Sprintf("argument %q contains a NUL byte", name)
			}
			b.WriteString(s)
		}
		argv[i] = b.String()
		if i > 0 && !afterDashes && argv[i] != tpl && strings.HasPrefix(argv[i], "-") && !strings.HasPrefix(tpl, "-") {
			return nil, fmt.Sprintf("a value may not start with '-' here (command line element %d)", i)
		}
		if tpl == "--" {
			afterDashes = true
		}
	}
	return argv, ""
}

// capped is a writer that keeps at most max bytes (all of them when max
// is negative) and counts the rest.
type capped struct {
	buf bytes.Buffer
	max int
	cut int
}

func (c *capped) Write(p []byte) (int, error) {
	if c.max < 0 {
		return c.buf.Write(p)
	}
	room := c.max - c.buf.Len()
	if room >= len(p) {
		return c.buf.Write(p)
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.cut += len(p) - max(room, 0)
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// isPlaceholder reports whether name may be an argument placeholder:
// letters, digits, '_', '-' and '.', so that shell-like text such as
// "${HOME:-x}" stays literal.
func isPlaceholder(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
