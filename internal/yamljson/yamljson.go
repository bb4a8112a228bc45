// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package yamljson

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// Limits applied when the matching [Options] field is zero.
const (
	// DefaultMaxNodes bounds the nodes visited, aliases expanded.
	DefaultMaxNodes = 5_000_000
	// DefaultMaxBytes bounds the JSON produced.
	DefaultMaxBytes = 64 << 20
	// DefaultMaxDepth bounds nesting.
	DefaultMaxDepth = 1000
)

// Errors a conversion can end in; [*Error] carries one with its line.
var (
	// ErrSyntax reports text that is not YAML; the parser's message,
	// with its line, follows.
	ErrSyntax = errors.New("not YAML")
	// ErrDuplicateKey reports a mapping that names a key twice.
	ErrDuplicateKey = errors.New("yaml: duplicate key")
	// ErrTooLarge reports a document over MaxNodes or MaxBytes, aliases
	// expanded.
	ErrTooLarge = errors.New("yaml: too many nodes after alias expansion")
	// ErrTooDeep reports nesting beyond MaxDepth.
	ErrTooDeep = errors.New("yaml: nesting too deep")
	// ErrUnsupported reports YAML that has no JSON form: a mapping key that
	// is not a scalar, a merge of something that is not a mapping, an
	// empty document.
	ErrUnsupported = errors.New("yaml: no JSON form")
)

// Error is a conversion error at a place in the document.
type Error struct {
	// Line and Column are 1-based; zero when unknown.
	Line, Column int
	// Err is one of the sentinels above, possibly wrapped with detail.
	Err error
}

// Error returns "line L:C: " followed by the cause.
func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("line %d:%d: %v", e.Line, e.Column, e.Err)
}

// Unwrap returns the cause, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// Options bound a conversion. The zero value applies the defaults.
type Options struct {
	// MaxNodes bounds the nodes visited, aliases expanded. If zero,
	// [DefaultMaxNodes]; negative means no limit.
	MaxNodes int
	// MaxBytes bounds the JSON produced. If zero, [DefaultMaxBytes];
	// negative means no limit.
	MaxBytes int
	// MaxDepth bounds nesting. If zero, [DefaultMaxDepth]; negative
	// means no limit (the YAML parser's own limit still applies).
	MaxDepth int
}

// Convert converts one YAML document to JSON. The result has been
// checked by strictjson.
func Convert(data []byte, o *Options) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, &Error{Err: fmt.Errorf("%w: %w", ErrSyntax, err)}
	}
	if n.Kind == 0 {
		return nil, &Error{Err: fmt.Errorf("%w: empty document", ErrUnsupported)}
	}
	return FromNode(&n, o)
}

// FromNode converts a node of a parsed YAML document to JSON.
func FromNode(n *yaml.Node, o *Options) ([]byte, error) {
	c := conv{maxNodes: DefaultMaxNodes, maxBytes: DefaultMaxBytes, maxDepth: DefaultMaxDepth}
	if o != nil {
		c.maxNodes = limit(o.MaxNodes, DefaultMaxNodes)
		c.maxBytes = limit(o.MaxBytes, DefaultMaxBytes)
		c.maxDepth = limit(o.MaxDepth, DefaultMaxDepth)
	}
	if err := c.node(n, 0); err != nil {
		return nil, err
	}
	if err := strictjson.Check(c.out, &strictjson.Options{MaxBytes: -1, MaxDepth: -1}); err != nil {
		return nil, err
	}
	return c.out, nil
}

func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return math.MaxInt
	}
	return v
}

type conv struct {
	out                          []byte
	nodes                        int
	maxNodes, maxBytes, maxDepth int
}

func errAt(n *yaml.Node, err error) error {
	return &Error{Line: n.Line, Column: n.Column, Err: err}
}

func (c *conv) node(n *yaml.Node, depth int) error {
	c.nodes++
	if c.nodes > c.maxNodes || len(c.out) > c.maxBytes {
		return errAt(n, ErrTooLarge)
	}
	if depth > c.maxDepth {
		return errAt(n, ErrTooDeep)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.out = append(c.out, "null"...)
			return nil
		}
		return c.node(n.Content[0], depth+1)
	case yaml.AliasNode:
		return c.node(n.Alias, depth+1)
	case yaml.SequenceNode:
		c.out = append(c.out, '[')
		for i, e := range n.Content {
			if i > 0 {
				c.out = append(c.out, ',')
			}
			if err := c.node(e, depth+1); err != nil {
				return err
			}
		}
		c.out = append(c.out, ']')
		return nil
	case yaml.MappingNode:
		c.out = append(c.out, '{')
		first := true
		if err := c.mapping(n, depth, make(map[string]bool, len(n.Content)/2), &first); err != nil {
			return err
		}
		c.out = append(c.out, '}')
		return nil
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return errAt(n, fmt.Errorf("%w: unknown node kind", ErrUnsupported))
}

// mapping writes the members of n, merge keys ("<<") included; keys set
// explicitly win over merged ones.
func (c *conv) mapping(n *yaml.Node, depth int, seen map[string]bool, first *bool) error {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return errAt(k, fmt.Errorf("%w: mapping key is not a scalar", ErrUnsupported))
		}
		if seen[k.Value] {
			return errAt(k, fmt.Errorf("%w %q", ErrDuplicateKey, k.Value))
		}
		seen[k.Value] = true
		if !*first {
			c.out = append(c.out, ',')
		}
		*first = false
		c.out = strictjson.AppendQuote(c.out, k.Value)
		c.out = append(c.out, ':')
		if err := c.node(v, depth+1); err != nil {
			return err
		}
	}
	for _, m := range merges {
		if m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			if s.Kind == yaml.AliasNode {
				s = s.Alias
			}
			if s.Kind != yaml.MappingNode {
				return errAt(s, fmt.Errorf("%w: merge of a non-mapping", ErrUnsupported))
			}
			// Merged keys never override: skip those already written.
			sub := &yaml.Node{Kind: yaml.MappingNode}
			for i := 0; i+1 < len(s.Content); i += 2 {
				if s.Content[i].Kind == yaml.ScalarNode && !seen[s.Content[i].Value] {
					sub.Content = append(sub.Content, s.Content[i], s.Content[i+1])
				}
			}
			c.nodes += len(sub.Content)
			if c.nodes > c.maxNodes {
				return errAt(s, ErrTooLarge)
			}
			if err := c.mapping(sub, depth+1, seen, first); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *conv) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		c.out = append(c.out, "null"...)
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return errAt(n, fmt.Errorf("%w: %q is not a boolean", ErrUnsupported, n.Value))
		}
		c.out = strconv.AppendBool(c.out, b)
	case "!!int":
		if out, ok := appendInt(c.out, n.Value); ok {
			c.out = out
		} else {
			c.out = strictjson.AppendQuote(c.out, n.Value)
		}
	case "!!float":
		if isJSONNumber(n.Value) {
			// Copied as written, so no precision is lost.
			c.out = append(c.out, n.Value...)
			return nil
		}
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			// JSON has no infinities; keep the text.
			c.out = strictjson.AppendQuote(c.out, n.Value)
			return nil
		}
		c.out = strconv.AppendFloat(c.out, f, 'g', -1, 64)
	default:
		c.out = strictjson.AppendQuote(c.out, n.Value)
	}
	return nil
}

// appendInt appends the YAML integer s as an exact JSON integer: decimal
// digits as they are (leading zeros dropped, as YAML 1.2 reads them),
// 0x, 0o and 0b forms converted. Underscores, which yaml.v3 accepts as
// digit separators, are dropped.
func appendInt(b []byte, s string) ([]byte, bool) {
	s = strings.ReplaceAll(s, "_", "")
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	base := 10
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base, s = 16, s[2:]
		case 'o', 'O':
			base, s = 8, s[2:]
		case 'b', 'B':
			base, s = 2, s[2:]
		}
	}
	if s == "" {
		return b, false
	}
	if base == 10 {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return b, false
			}
		}
		s = strings.TrimLeft(s, "0")
		if s == "" {
			return append(b, '0'), true
		}
		if neg {
			b = append(b, '-')
		}
		return append(b, s...), true
	}
	v, ok := new(big.Int).SetString(s, base)
	if !ok {
		return b, false
	}
	if neg {
		v.Neg(v)
	}
	return v.Append(b, 10), true
}

// isJSONNumber reports whether s is already a JSON number, so that it is
// copied with its precision intact.
func isJSONNumber(s string) bool {
	return len(s) > 0 && !strings.ContainsAny(s, " \t\r\n") && strictjson.KindOf([]byte(s)) == strictjson.Number && strictjson.Check([]byte(s), nil) == nil
}
