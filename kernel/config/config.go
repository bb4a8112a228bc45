// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/tool"
)

// ErrInvalid reports a config that cannot be used; the message names the
// file and line.
var ErrInvalid = errors.New("config: invalid")

// File is a parsed kernel config file.
type File struct {
	Audit struct {
		// DB is the SQLite audit log file. Empty: no audit log.
		DB string `yaml:"db"`
		// KeyEnv names the variable holding the HMAC key of the chain.
		KeyEnv string `yaml:"key_env"`
	} `yaml:"audit"`
	Grants struct {
		// KeyEnv names the variable holding the grant key; if empty,
		// kernel.GrantKeyEnv.
		KeyEnv string `yaml:"key_env"`
		TTL    string `yaml:"ttl"`
	} `yaml:"grants"`
	Principals []kernel.Principal `yaml:"principals"`
	Policy     struct {
		MinJustification int          `yaml:"min_justification"`
		Rules            []ruleConfig `yaml:"rules"`
	} `yaml:"policy"`
	Limits struct {
		Read        int    `yaml:"read"`
		Write       int    `yaml:"write"`
		Destructive int    `yaml:"destructive"`
		Window      string `yaml:"window"`
	} `yaml:"limits"`
	Firewall struct {
		MaxBytes int `yaml:"max_bytes"`
		MaxRows  int `yaml:"max_rows"`
		MaxDepth int `yaml:"max_depth"`
		Patterns []struct {
			Name   string `yaml:"name"`
			Regexp string `yaml:"regexp"`
		} `yaml:"patterns"`
		Keys []string `yaml:"keys"`
	} `yaml:"firewall"`
	// Timeout is the per-call timeout.
	Timeout string         `yaml:"timeout"`
	Sources []SourceConfig `yaml:"sources"`

	// Server and Auth belong to `toolgate serve`; they are accepted so
	// one file serves both commands.
	Server yaml.Node `yaml:"server"`
	Auth   yaml.Node `yaml:"auth"`

	name  string
	lines map[string]int // dotted path -> line
}

type ruleConfig struct {
	Name        string               `yaml:"name"`
	Tools       []string             `yaml:"tools"`
	Roles       []string             `yaml:"roles"`
	Attributes  map[string]string    `yaml:"attributes"`
	Safety      []kernel.Safety      `yaml:"safety"`
	Sensitivity []kernel.Sensitivity `yaml:"sensitivity"`
	When        string               `yaml:"when"`
	Effect      kernel.Effect        `yaml:"effect"`
	Reason      string               `yaml:"reason"`
}

// SourceConfig is one entry of sources. The kernel builds command
// sources; other kinds (openapi, mcp, demo) are kept as YAML for the
// program that serves them.
type SourceConfig struct {
	Name    string         `yaml:"name"`
	Command *CommandConfig `yaml:"command"`
	OpenAPI yaml.Node      `yaml:"openapi"`
	MCP     yaml.Node      `yaml:"mcp"`
	Demo    yaml.Node      `yaml:"demo"`
}

// CommandConfig is a local command as a tool.
type CommandConfig struct {
	Description   string             `yaml:"description"`
	InputSchema   yaml.Node          `yaml:"input_schema"`
	Safety        kernel.Safety      `yaml:"safety"`
	Sensitivity   kernel.Sensitivity `yaml:"sensitivity"`
	AllowedFields []string           `yaml:"allowed_fields"`
	Argv          []string           `yaml:"argv"`
	Dir           string             `yaml:"dir"`
	Env           []string           `yaml:"env"`
	Timeout       string             `yaml:"timeout"`
	// Output is how standard output is read: "text" (the default: JSON
	// objects and arrays as JSON, anything else as text) or "mcp" (an MCP
	// CallToolResult, which can hold images, audio and resources).
	Output string `yaml:"output"`
}

// Parse reads a config. Unknown keys are errors; every error names the
// file (name) and the line.
func Parse(data []byte, name string) (*File, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	f := &File{name: name, lines: map[string]int{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			// "line 2: field bogus not found" -> "name:2: field bogus not found"
			msgs := make([]string, len(te.Errors))
			for i, m := range te.Errors {
				if rest, ok := strings.CutPrefix(m, "line "); ok {
					if n, msg, ok := strings.Cut(rest, ": "); ok {
						m = name + ":" + n + ": " + msg
					}
				}
				msgs[i] = m
			}
			return nil, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(msgs, "; "))
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(root.Content) == 1 {
		recordLines(root.Content[0], "", f.lines)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

// recordLines maps each dotted path ("sources.2.command.argv") to its
// line.
func recordLines(n *yaml.Node, path string, into map[string]int) {
	if len(into) > 100000 {
		return
	}
	into[path] = n.Line
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			into[p] = n.Content[i].Line
			recordLines(n.Content[i+1], p, into)
			into[p] = n.Content[i].Line
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			recordLines(c, path+"."+strconv.Itoa(i), into)
		}
	}
}

// errAt returns an error naming the line of path (or its nearest parent).
func (f *File) errAt(path, format string, args ...any) error {
	line := 0
	for p := path; ; {
		if l, ok := f.lines[p]; ok {
			line = l
			break
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return fmt.Errorf("%w: %s:%d: %s", ErrInvalid, f.name, line, fmt.Sprintf(format, args...))
}

func (f *File) check() error {
	seen := map[string]bool{}
	for i, p := range f.Principals {
		at := "principals." + strconv.Itoa(i)
		if p.ID == "" {
			return f.errAt(at, "principal has no id")
		}
		if seen[p.ID] {
			return f.errAt(at, "principal %q listed twice", p.ID)
		}
		seen[p.ID] = true
	}
	for i, r := range f.Policy.Rules {
		at := "policy.rules." + strconv.Itoa(i)
		switch r.Effect {
		case kernel.EffectAllow, kernel.EffectDeny, kernel.EffectRequireApproval:
		default:
			return f.errAt(at+".effect", "rule %q: effect %q is not allow, deny or require_approval", r.Name, r.Effect)
		}
		if _, err := kernel.NewPolicy(&kernel.PolicyConfig{Rules: []kernel.Rule{r.rule()}}); err != nil {
			return f.errAt(at, "%v", strings.TrimPrefix(err.Error(), kernel.ErrInvalidPolicy.Error()+": "))
		}
	}
	for _, d := range []struct{ path, v string }{{"limits.window", f.Limits.Window}, {"timeout", f.Timeout}, {"grants.ttl", f.Grants.TTL}} {
		if _, err := duration(d.v); err != nil {
			return f.errAt(d.path, "%v", err)
		}
	}
	names := map[string]bool{}
	for i, s := range f.Sources {
		at := "sources." + strconv.Itoa(i)
		kinds := 0
		for _, set := range []bool{s.Command != nil, s.OpenAPI.Kind != 0, s.MCP.Kind != 0, s.Demo.Kind != 0} {
			if set {
				kinds++
			}
		}
		switch {
		case s.Name == "":
			return f.errAt(at, "source has no name")
		case names[s.Name]:
			return f.errAt(at, "source name %q used twice", s.Name)
		case kinds != 1:
			return f.errAt(at, "source %q needs exactly one of command, openapi, mcp, demo", s.Name)
		}
		names[s.Name] = true
		if c := s.Command; c != nil {
			if len(c.Argv) == 0 {
				return f.errAt(at+".command", "source %q: argv is empty", s.Name)
			}
			if _, err := duration(c.Timeout); err != nil {
				return f.errAt(at+".command.timeout", "%v", err)
			}
			switch c.Output {
			case "", "text", "mcp":
			default:
				return f.errAt(at+".command.output", "source %q: output %q is not text or mcp", s.Name, c.Output)
			}
			if c.InputSchema.Kind != 0 {
				if _, err := NodeJSON(&c.InputSchema); err != nil {
					return f.errAt(at+".command.input_schema", "%v", err)
				}
			}
			switch c.Safety {
			case "", kernel.SafetyRead, kernel.SafetyWrite, kernel.SafetyDestructive:
			default:
				return f.errAt(at+".command.safety", "safety %q is not READ, WRITE or DESTRUCTIVE", c.Safety)
			}
			switch c.Sensitivity {
			case "", kernel.SensitivityNone, kernel.SensitivityPII, kernel.SensitivityPCI, kernel.SensitivitySecrets:
			default:
				return f.errAt(at+".command.sensitivity", "sensitivity %q is not NONE, PII, PCI or SECRETS", c.Sensitivity)
			}
		}
	}
	if _, err := f.redactor(); err != nil {
		return f.errAt("firewall", "%v", err)
	}
	return nil
}

func (r *ruleConfig) rule() kernel.Rule {
	return kernel.Rule{Name: r.Name, Tools: r.Tools, Roles: r.Roles, Attributes: r.Attributes, Safety: r.Safety,
		Sensitivity: r.Sensitivity, When: r.When, Effect: r.Effect, Reason: r.Reason}
}

func (f *File) redactor() (*redact.Redactor, error) {
	rc := &redact.Config{Keys: f.Firewall.Keys}
	for _, p := range f.Firewall.Patterns {
		rc.Patterns = append(rc.Patterns, redact.Pattern{Name: p.Name, Regexp: p.Regexp})
	}
	return redact.New(rc)
}

func duration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 30s or 1m", s)
	}
	return d, nil
}

// Built is what [File.Build] returns.
type Built struct {
	Kernel *kernel.Kernel
	// Audit and Store are nil without audit.db.
	Audit *kernel.AuditLog
	Store *audit.Store
}

// Close flushes the audit log and closes its database.
func (b *Built) Close(ctx context.Context) error {
	var errs []error
	if b.Audit != nil {
		errs = append(errs, b.Audit.Close(ctx))
	}
	if b.Store != nil {
		errs = append(errs, b.Store.Close())
	}
	return errors.Join(errs...)
}

// Options are the parts of a kernel a config file cannot describe.
type Options struct {
	// Getenv reads variables named by the file. If nil, nothing is set.
	Getenv func(string) string
	// Approve decides require_approval outcomes.
	Approve func(ctx context.Context, req *kernel.ApprovalRequest) (bool, error)
	// Extra capabilities to register beside the command sources.
	Extra []kernel.Capability
	// AuditDB overrides audit.db when set.
	AuditDB string
}

// Build makes the kernel the file describes, with its command sources
// registered. Sources of other kinds are left to the caller.
func (f *File) Build(ctx context.Context, opts *Options) (*Built, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	b := &Built{}
	ok := false
	defer func() {
		if !ok {
			b.Close(ctx)
		}
	}()
	pc := &kernel.PolicyConfig{MinJustification: f.Policy.MinJustification}
	for i := range f.Policy.Rules {
		pc.Rules = append(pc.Rules, f.Policy.Rules[i].rule())
	}
	pol, err := kernel.NewPolicy(pc)
	if err != nil {
		return nil, f.errAt("policy", "%v", err)
	}
	win, _ := duration(f.Limits.Window)
	timeout, _ := duration(f.Timeout)
	ttl, _ := duration(f.Grants.TTL)
	keyEnv := f.Grants.KeyEnv
	if keyEnv == "" {
		keyEnv = kernel.GrantKeyEnv
	}
	gc := &kernel.GrantConfig{TTL: ttl}
	if k := getenv(keyEnv); k != "" {
		gc.Key = DecodeKey(k)
	}
	grants, err := kernel.NewGrants(gc)
	if err != nil {
		return nil, f.errAt("grants", "%v (from %s)", err, keyEnv)
	}
	red, _ := f.redactor()
	kc := &kernel.Config{
		Principals: f.Principals,
		Policy:     pol,
		Limits:     kernel.RateLimits{Read: f.Limits.Read, Write: f.Limits.Write, Destructive: f.Limits.Destructive, Window: win},
		Grants:     grants,
		Firewall:   kernel.NewFirewall(&kernel.FirewallConfig{MaxBytes: f.Firewall.MaxBytes, MaxRows: f.Firewall.MaxRows, MaxDepth: f.Firewall.MaxDepth, Redactor: red}),
		Approve:    o.Approve,
		Timeout:    timeout,
	}
	db := f.Audit.DB
	if o.AuditDB != "" {
		db = o.AuditDB
	}
	if db != "" {
		st, err := audit.Open(ctx, db)
		if err != nil {
			return nil, err
		}
		b.Store = st
		var key []byte
		if f.Audit.KeyEnv != "" {
			key = DecodeKey(getenv(f.Audit.KeyEnv))
		}
		al, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st, Key: key})
		if err != nil {
			return nil, err
		}
		b.Audit = al
		kc.Audit = al
	}
	k, err := kernel.New(kc)
	if err != nil {
		return nil, f.errAt("principals", "%v", err)
	}
	b.Kernel = k
	for i := range f.Sources {
		s := &f.Sources[i]
		if s.Command == nil {
			continue
		}
		c, err := s.Command.capability(s.Name)
		if err == nil {
			err = k.Registry().Add(c)
		}
		if err != nil {
			return nil, f.errAt("sources."+strconv.Itoa(i), "source %q: %v", s.Name, err)
		}
	}
	for _, c := range o.Extra {
		if err := k.Registry().Add(c); err != nil {
			return nil, err
		}
	}
	ok = true
	return b, nil
}

// AuditKey returns the audit chain key the file names, for verification.
func (f *File) AuditKey(getenv func(string) string) []byte {
	if f.Audit.KeyEnv == "" || getenv == nil {
		return nil
	}
	return DecodeKey(getenv(f.Audit.KeyEnv))
}

// DecodeKey reads a key from an environment variable's value: standard
// base64 when it decodes to at least 32 bytes, else the text itself.
func DecodeKey(s string) []byte {
	if s == "" {
		return nil
	}
	if d, err := base64.StdEncoding.DecodeString(s); err == nil && len(d) >= 32 {
		return d
	}
	return []byte(s)
}

func (c *CommandConfig) capability(name string) (kernel.Capability, error) {
	var schema json.RawMessage
	if c.InputSchema.Kind != 0 {
		var err error
		if schema, err = NodeJSON(&c.InputSchema); err != nil {
			return kernel.Capability{}, err
		}
	}
	timeout, _ := duration(c.Timeout)
	cmd := &kernel.Command{Argv: c.Argv, Dir: c.Dir, Env: c.Env, Timeout: timeout}
	if c.Output == "mcp" {
		cmd.Decode = decodeMCPResult
	}
	return kernel.Capability{
		Definition:    tool.Definition{Name: name, Description: c.Description, InputSchema: schema},
		Safety:        c.Safety,
		Sensitivity:   c.Sensitivity,
		AllowedFields: c.AllowedFields,
		Executor:      cmd,
	}, nil
}

// decodeMCPResult reads a command's output as an MCP CallToolResult.
func decodeMCPResult(out []byte) (tool.Result, error) {
	r, err := mcp.DecodeResult(out)
	if err != nil {
		return tool.Result{}, err
	}
	return *r, nil
}

// NodeJSON converts a YAML node to JSON, keeping mapping keys in order.
func NodeJSON(n *yaml.Node) (json.RawMessage, error) {
	b, err := nodeJSON(nil, n, 0)
	if err != nil {
		return nil, err
	}
	if err := strictjson.Check(b, nil); err != nil {
		return nil, err
	}
	return b, nil
}

func nodeJSON(b []byte, n *yaml.Node, depth int) ([]byte, error) {
	if depth > 64 {
		return nil, fmt.Errorf("line %d: nested too deeply", n.Line)
	}
	var err error
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, errors.New("empty document")
		}
		return nodeJSON(b, n.Content[0], depth)
	case yaml.AliasNode:
		return nil, fmt.Errorf("line %d: aliases are not supported here", n.Line)
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = strictjson.AppendQuote(b, n.Content[i].Value)
			b = append(b, ':')
			if b, err = nodeJSON(b, n.Content[i+1], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = nodeJSON(b, c, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return append(b, "null"...), nil
		case "!!bool":
			v, err := strconv.ParseBool(n.Value)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return strconv.AppendBool(b, v), nil
		case "!!int", "!!float":
			f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return strconv.AppendFloat(b, f, 'g', -1, 64), nil
		}
		return strictjson.AppendQuote(b, n.Value), nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML", n.Line)
}
