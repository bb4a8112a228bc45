// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate/codec/detect"
	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

const promptHelp = `
Prints the tools section of the system prompt for a text tool-call family:
the tool signatures and the exact format the family's models call tools in,
with the instruction that carries --tool-choice. Put the text in the system
prompt of a model served without native tool calling, then read its output
with 'toolgate parse --format' of the same family.

--tool-choice is auto (the default), none (prints nothing: no tools are
offered), required (at least one call), or the name of a tool (only that
tool is offered, and it must be called).

Families: ` + "hermes, qwen3-coder, llama3-json, mistral, pythonic, deepseek-v3, deepseek-v3.1, kimi-k2, glm-4.5, granite, jamba, internlm, xlam, gpt-oss" + `.

The tools file may be in any definition format 'toolgate detect' knows
(OpenAI, Anthropic, MCP, Gemini, LangChain, canonical, BFCL, …).

Example:
  toolgate prompt --format hermes --tools tools.json --tool-choice required
`

func runPrompt(e *env, args []string) error {
	fs := newFlags(e, "prompt", "--format FAMILY --tools FILE [--tool-choice auto|none|required|NAME]", promptHelp)
	format := fs.String("format", "", "text tool-call `family` (required)")
	toolsFile := fs.String("tools", "", "tool definitions `file` (required; - for stdin)")
	choiceFlag := fs.String("tool-choice", "auto", "auto, none, required, or a tool `name`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	if *format == "" || *toolsFile == "" {
		return fmt.Errorf("%w: --format and --tools are required", ErrUsage)
	}
	fam, err := textcall.Lookup(*format)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	choice, err := tool.ParseChoice(*choiceFlag)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	defs, err := readTextcallTools(e, *toolsFile)
	if err != nil {
		return err
	}
	text, err := fam.Prompt(defs, choice)
	if errors.Is(err, textcall.ErrUnknownTool) {
		return fmt.Errorf("%w: --tool-choice: %w", ErrUsage, err)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, text)
	return err
}

// readTextcallTools reads a tool definitions file in any format detection
// recognises. An ambiguous file (a bare {"name","parameters"} list reads as
// OpenAI, LangChain, Gemini and BFCL alike) is read in the likeliest
// format: for offering tools to a model they agree.
func readTextcallTools(e *env, path string) ([]tool.Definition, error) {
	data, name, err := readInput(e, path)
	if err != nil {
		return nil, err
	}
	d := detect.Detect(data)
	if d.Err != nil {
		return nil, locate(name, data, d.Err)
	}
	if d.Format == "" {
		return nil, fmt.Errorf("%w: %s: not in any tool definition format toolgate reads", ErrUsage, name)
	}
	tools, err := detect.Decode(d.Format, data)
	if err != nil {
		return nil, locate(name, data, err)
	}
	for _, w := range tools.Warnings {
		fmt.Fprintf(e.stderr, "toolgate: %s: %s\n", name, w)
	}
	return tools.Defs, nil
}

// textcallFamilies is the families for help texts.
func textcallFamilies() string { return strings.Join(textcall.Names(), ", ") }
