// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// Output says how a command's standard output becomes its result.
type Output string

// Output formats.
const (
	// OutputText reads JSON objects and arrays as JSON, anything else as
	// text. The default.
	OutputText Output = "text"
	// OutputMCP reads an MCP CallToolResult, which can hold images, audio
	// and resources.
	OutputMCP Output = "mcp"
)

// CommandConfig describes a local command run as one tool.
type CommandConfig struct {
	// Name is the tool's name. Required.
	Name        string
	Description string
	// InputSchema is the tool's JSON Schema; nil means an object with any
	// properties.
	InputSchema   json.RawMessage
	Safety        kernel.Safety
	Sensitivity   kernel.Sensitivity
	AllowedFields []string
	// Argv is the program and its argument templates ("{dir}" takes the
	// argument dir), run without a shell. Required.
	Argv []string
	// Dir is the working directory. If empty, the current one.
	Dir string
	// Env is the environment. If nil, only PATH and HOME are passed.
	Env []string
	// Timeout bounds one run. If zero, the kernel's per-call timeout alone
	// applies.
	Timeout time.Duration
	// Output is how standard output is read. If empty, [OutputText].
	Output Output
}

// Command is a source of one tool run by a [kernel.Command].
type Command struct {
	// fixed at creation
	c kernel.Capability
}

// NewCommand returns the source of one command.
func NewCommand(cfg *CommandConfig) (*Command, error) {
	if cfg == nil || cfg.Name == "" {
		return nil, fmt.Errorf("%w: command: no name", ErrInvalidConfig)
	}
	if len(cfg.Argv) == 0 {
		return nil, fmt.Errorf("%w: command %q: argv is empty", ErrInvalidConfig, cfg.Name)
	}
	cmd := &kernel.Command{Argv: append([]string(nil), cfg.Argv...), Dir: cfg.Dir, Env: cfg.Env, Timeout: cfg.Timeout}
	switch cfg.Output {
	case "", OutputText:
	case OutputMCP:
		cmd.Decode = decodeMCPResult
	default:
		return nil, fmt.Errorf("%w: command %q: output %q is not text or mcp", ErrInvalidConfig, cfg.Name, cfg.Output)
	}
	return &Command{c: kernel.Capability{
		Definition:    tool.Definition{Name: cfg.Name, Description: cfg.Description, InputSchema: cfg.InputSchema},
		Safety:        cfg.Safety,
		Sensitivity:   cfg.Sensitivity,
		AllowedFields: cfg.AllowedFields,
		Executor:      cmd,
	}}, nil
}

// Capabilities implements [Source]: one capability.
func (c *Command) Capabilities() []kernel.Capability { return []kernel.Capability{c.c} }

// Close implements [Source]; each run's process ends with its call.
func (c *Command) Close() error { return nil }

// decodeMCPResult reads a command's output as an MCP CallToolResult.
func decodeMCPResult(out []byte) (tool.Result, error) {
	r, err := mcp.DecodeResult(out)
	if err != nil {
		return tool.Result{}, err
	}
	return *r, nil
}
