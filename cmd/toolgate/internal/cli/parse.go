// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

const parseHelp = `
Reads the raw text a model printed (FILE, or stdin when FILE is - or
absent) and prints what it holds as one JSON object:

  {"content": "...", "reasoning": "...",
   "tool_calls": [{"id": "...", "name": "...", "arguments": {...}}],
   "warnings": [{"pointer": "...", "code": "...", "message": "..."}]}

content and reasoning are null when absent; arguments is a JSON object.
Reasoning in <think>…</think> (or <thinking>, or the --think-tag) at the
start of the output is split off first, and tool-call markers inside a
closed block are not calls. Broken or cut-off calls become content with a
warning.

Reasoning whose opener the chat template printed (Qwen3, DeepSeek-R1):
with --think-open the output is read as reasoning from its first byte (an
opener the model prints again is dropped). Without the flag, text that
ends in a closing tag it never opened ("The user asks…</think>answer")
is reasoning, with an "implied-reasoning-open" warning; until that tag, a
call or the end tells, such text is held back, so with --stream a plain
answer arrives at the end. --think-open=false keeps it content and drops
the tag with a "stray-reasoning-close" warning. A block that never closes
is all reasoning, unless a complete call follows in it: the call then
ends the reasoning ("reasoning-closed-by-call").

Generated call ids are random for each run; --seed N (N > 0) makes them
reproducible.

With --tools, calls to tools not in the file are left out of tool_calls
(with an "unknown-tool" warning) unless --allow-unknown is given, and
families that print argument values as text (qwen3-coder, glm-4.5) have
them converted to the types the tool's schema asks for.

With --stream the input is read as it arrives and each event is printed
as soon as it is known, one JSON object per line:
  {"type":"content","text":"..."}      {"type":"reasoning","text":"..."}
  {"type":"call","index":0,"id":"...","name":"..."}
  {"type":"arguments","index":0,"text":"{...}"}
  {"type":"warning","warning":{...}}
followed by the final object on one line. A call is printed once its text
is complete; text that may start a marker is held back until it is known.

With --stream-arguments (implies --stream), a call whose arguments are a
JSON object (every family but pythonic) or key/value tags (qwen3-coder,
glm-4.5) is printed as soon as its name and the start of its arguments
arrive, and its arguments follow in pieces as they are written. A call
announced this way that turns out broken is withdrawn with a
"call-withdrawn" warning and is not in the final object's tool_calls.

Families: ` + "hermes, qwen3-coder, llama3-json, mistral, pythonic, deepseek-v3, deepseek-v3.1, kimi-k2, glm-4.5, granite, jamba, internlm, xlam, gpt-oss" + `
(parser names of serving stacks such as qwen3_coder or kimi_k2 work too).

Exit status: 0 when the text was read (even if warnings were found), 2 on
a usage error or unreadable input.

Examples:
  echo '<tool_call>{"name":"f","arguments":{}}</tool_call>' | toolgate parse --format hermes
  toolgate parse out.txt --format qwen3-coder --tools tools.json
  curl -N ... | toolgate parse --format deepseek-v3.1 --stream
  toolgate parse out.txt --format hermes --think-open=false --seed 1
`

// parseOutput is the JSON the parse command prints.
type parseOutput struct {
	Content   *string        `json:"content"`
	Reasoning *string        `json:"reasoning"`
	ToolCalls []parseCall    `json:"tool_calls"`
	Warnings  []tool.Warning `json:"warnings"`
}

type parseCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type parseEvent struct {
	Type    string        `json:"type"`
	Index   *int          `json:"index,omitempty"`
	ID      string        `json:"id,omitempty"`
	Name    string        `json:"name,omitempty"`
	Text    *string       `json:"text,omitempty"`
	Warning *tool.Warning `json:"warning,omitempty"`
}

func runParse(e *env, args []string) error {
	fs := newFlags(e, "parse", "[FILE] --format FAMILY [--tools FILE] [--stream] [--stream-arguments] [--think-tag TAG] [--think-open[=false]] [--seed N]", parseHelp)
	format := fs.String("format", "", "text tool-call `family` the model prints (required)")
	toolsFile := fs.String("tools", "", "tool definitions `file` the model was offered")
	stream := fs.Bool("stream", false, "read the input as it arrives and print one JSON event per line")
	streamArgs := fs.Bool("stream-arguments", false, "with --stream, announce JSON calls early and print their arguments as they arrive")
	thinkTag := fs.String("think-tag", "", "reasoning `tag` without brackets (default: think and thinking)")
	thinkOpen := fs.Bool("think-open", false, "the chat template printed the opening think tag, so the output starts inside the reasoning; =false: it never does, so a closing tag with no opener is dropped and the text before it is content (default: such text is reasoning, held until the tag, a call or the end tells)")
	allowUnknown := fs.Bool("allow-unknown", false, "keep calls to tools not in --tools among the calls")
	seed := fs.Uint64("seed", 0, "positive seed `N` for generated call ids, for reproducible output (default: random ids each run)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("%w: more than one input file", ErrUsage)
	}
	if *format == "" {
		return fmt.Errorf("%w: --format is required (one of %s)", ErrUsage, textcallFamilies())
	}
	if *streamArgs {
		*stream = true
	}
	seedSet, thinkOpenSet := false, false
	fs.Visit(func(f *flag.Flag) {
		seedSet = seedSet || f.Name == "seed"
		thinkOpenSet = thinkOpenSet || f.Name == "think-open"
	})
	if seedSet && *seed == 0 {
		return fmt.Errorf("%w: --seed must be positive (leave it out for random ids)", ErrUsage)
	}
	cfg := &textcall.Config{ThinkTag: *thinkTag, ThinkOpen: *thinkOpen, AllowUnknownTools: *allowUnknown, Seed: *seed, StreamArguments: *streamArgs}
	// --think-open=false is the strict reading; without the flag an
	// opener the template printed is inferred from a closing tag.
	cfg.DisableImpliedReasoning = thinkOpenSet && !*thinkOpen
	if *toolsFile != "" {
		if cfg.Tools, err = readTextcallTools(e, *toolsFile); err != nil {
			return err
		}
	}
	p, err := textcall.New(*format, cfg)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	for _, w := range p.Warnings() {
		fmt.Fprintf(e.stderr, "toolgate parse: %s\n", w)
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	if !*stream {
		data, _, err := readInput(e, path)
		if err != nil {
			return err
		}
		return writeParseJSON(e.stdout, parseOutputOf(p.Parse(string(data))), true)
	}
	return runParseStream(e, p, path)
}

// runParseStream feeds the input to a scanner as it is read.
func runParseStream(e *env, p *textcall.Parser, path string) error {
	var r io.Reader = e.stdin
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		defer f.Close()
		r = f
	}
	s := p.NewScanner()
	buf := make([]byte, 32<<10)
	var carry []byte // an incomplete UTF-8 sequence at the end of a read
	total := 0
	for {
		n, rerr := r.Read(buf)
		total += n
		if total > maxInput {
			return fmt.Errorf("%w: input larger than %d MiB", ErrUsage, maxInput>>20)
		}
		chunk := append(carry, buf[:n]...)
		cut := len(chunk)
		if rerr == nil {
			cut = utf8Complete(chunk)
		}
		if err := writeParseEvents(e.stdout, s.Feed(string(chunk[:cut]))); err != nil {
			return err
		}
		carry = append([]byte(nil), chunk[cut:]...)
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return fmt.Errorf("%w: %w", ErrUsage, rerr)
		}
	}
	if err := writeParseEvents(e.stdout, s.Close()); err != nil {
		return err
	}
	return writeParseJSON(e.stdout, parseOutputOf(s.Result()), false)
}

// utf8Complete returns the length of b without a trailing incomplete
// UTF-8 sequence, so a rune is never split between two deltas.
func utf8Complete(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

func writeParseEvents(w io.Writer, events []textcall.Event) error {
	for _, ev := range events {
		pe := parseEvent{Type: ev.Kind.String()}
		switch ev.Kind {
		case textcall.EventContent, textcall.EventReasoning:
			pe.Text = &ev.Text
		case textcall.EventCall:
			pe.Index, pe.ID, pe.Name = &ev.Index, ev.ID, ev.Name
		case textcall.EventArguments:
			pe.Index, pe.Text = &ev.Index, &ev.Text
		case textcall.EventWarning:
			pe.Warning = ev.Warning
		}
		if err := writeParseJSON(w, pe, false); err != nil {
			return err
		}
	}
	return nil
}

func parseOutputOf(r *textcall.Result) parseOutput {
	out := parseOutput{ToolCalls: []parseCall{}, Warnings: r.Warnings}
	if r.Content != "" {
		out.Content = &r.Content
	}
	if r.Reasoning != "" {
		out.Reasoning = &r.Reasoning
	}
	for _, c := range r.Calls {
		out.ToolCalls = append(out.ToolCalls, parseCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	if out.Warnings == nil {
		out.Warnings = []tool.Warning{}
	}
	return out
}

// writeParseJSON writes v without HTML escaping, indented or on one line.
func writeParseJSON(w io.Writer, v any, indent bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
