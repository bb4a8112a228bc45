// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
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

The tools file is a JSON array of OpenAI-style tools
({"type":"function","function":{...}}), of canonical, Anthropic or MCP
definitions, or an object holding such an array under "tools".

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
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	choice, err := tool.ParseChoice(*choiceFlag)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	defs, err := readTextcallTools(e, *toolsFile)
	if err != nil {
		return err
	}
	text, err := fam.Prompt(defs, choice)
	if errors.Is(err, textcall.ErrUnknownTool) {
		return fmt.Errorf("%w: --tool-choice: %v", ErrUsage, err)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, text)
	return err
}

// readTextcallTools reads a tool definitions file.
//
// TODO(textcall): use codec/detect's Decode once it lands, so every format
// the convert command reads works here too. Until then this reads the JSON
// shapes most tool files use: OpenAI tools, canonical/Anthropic
// definitions and MCP tools, in an array or under "tools".
func readTextcallTools(e *env, path string) ([]tool.Definition, error) {
	data, name, err := readInput(e, path)
	if err != nil {
		return nil, err
	}
	if err := strictjson.Check(data, nil); err != nil {
		return nil, locate(name, data, err)
	}
	list := data
	if strictjson.KindOf(data) == strictjson.Object {
		if t := strictjson.Get(data, "tools"); strictjson.KindOf(t) == strictjson.Array {
			list = t
		} else {
			list = append(append([]byte{'['}, data...), ']')
		}
	}
	if strictjson.KindOf(list) != strictjson.Array {
		return nil, fmt.Errorf("%w: %s: not a list of tool definitions", ErrUsage, name)
	}
	var defs []tool.Definition
	err = strictjson.Elements(list, func(i int, el []byte) error {
		if strictjson.KindOf(el) != strictjson.Object {
			return fmt.Errorf("tool %d is not an object", i)
		}
		obj := el
		if fn := strictjson.Get(el, "function"); strictjson.KindOf(fn) == strictjson.Object {
			obj = fn
		}
		var d tool.Definition
		if v := strictjson.Get(obj, "name"); strictjson.KindOf(v) == strictjson.String {
			d.Name, _ = strictjson.Unquote(v)
		}
		if v := strictjson.Get(obj, "description"); strictjson.KindOf(v) == strictjson.String {
			d.Description, _ = strictjson.Unquote(v)
		}
		for _, k := range []string{"parameters", "input_schema", "inputSchema"} {
			if v := strictjson.Get(obj, k); strictjson.KindOf(v) == strictjson.Object {
				d.InputSchema = json.RawMessage(v)
				break
			}
		}
		if err := d.Validate(); err != nil {
			return fmt.Errorf("tool %d: %v", i, err)
		}
		defs = append(defs, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, name, err)
	}
	return defs, nil
}

// textcallFamilies is the families for help texts.
func textcallFamilies() string { return strings.Join(textcall.Names(), ", ") }
