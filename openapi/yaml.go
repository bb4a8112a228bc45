// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// maxYAMLNodes bounds alias expansion, so that a "billion laughs" document
// fails instead of exhausting memory.
const maxYAMLNodes = 5_000_000

var errYAMLTooLarge = errors.New("yaml: too many nodes after alias expansion")

// yamlToJSON converts a YAML document to JSON, keeping mapping keys in
// document order (schemas stay in the order their author wrote them) and
// rejecting duplicate keys.
func yamlToJSON(data []byte) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, err
	}
	if n.Kind == 0 {
		return nil, errors.New("empty document")
	}
	c := yconv{budget: maxYAMLNodes}
	if err := c.node(&n, 0); err != nil {
		return nil, err
	}
	if err := strictjson.Check(c.out, &strictjson.Options{MaxBytes: -1, MaxDepth: 1024}); err != nil {
		return nil, err
	}
	return c.out, nil
}

type yconv struct {
	out    []byte
	budget int
}

func (c *yconv) node(n *yaml.Node, depth int) error {
	c.budget--
	if c.budget < 0 || len(c.out) > DefaultMaxSpecBytes {
		return errYAMLTooLarge
	}
	if depth > 1000 {
		return errors.New("yaml: nesting too deep")
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
		seen := make(map[string]bool, len(n.Content)/2)
		first := true
		if err := c.mapping(n, depth, seen, &first); err != nil {
			return err
		}
		c.out = append(c.out, '}')
		return nil
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return fmt.Errorf("yaml: line %d: unsupported node", n.Line)
}

// mapping writes the members of n, merge keys ("<<") included; keys set
// explicitly win over merged ones.
func (c *yconv) mapping(n *yaml.Node, depth int, seen map[string]bool, first *bool) error {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("yaml: line %d: mapping key is not a scalar", k.Line)
		}
		if seen[k.Value] {
			return fmt.Errorf("yaml: line %d: duplicate key %q", k.Line, k.Value)
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
				return fmt.Errorf("yaml: line %d: merge of a non-mapping", s.Line)
			}
			// Merged keys never override: skip those already written.
			sub := &yaml.Node{Kind: yaml.MappingNode}
			for i := 0; i+1 < len(s.Content); i += 2 {
				if s.Content[i].Kind == yaml.ScalarNode && !seen[s.Content[i].Value] {
					sub.Content = append(sub.Content, s.Content[i], s.Content[i+1])
				}
			}
			if err := c.mapping(sub, depth+1, seen, first); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *yconv) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		c.out = append(c.out, "null"...)
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return err
		}
		c.out = strconv.AppendBool(c.out, b)
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			c.out = strconv.AppendInt(c.out, i, 10)
		} else if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			c.out = strconv.AppendUint(c.out, u, 10)
		} else {
			c.out = strictjson.AppendQuote(c.out, n.Value)
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			// JSON has no infinities; keep the text.
			c.out = strictjson.AppendQuote(c.out, n.Value)
			return nil
		}
		if isJSONNumber(n.Value) {
			c.out = append(c.out, n.Value...)
		} else {
			c.out = strconv.AppendFloat(c.out, f, 'g', -1, 64)
		}
	default:
		c.out = strictjson.AppendQuote(c.out, n.Value)
	}
	return nil
}

// isJSONNumber reports whether s is already a JSON number, so that it is
// copied with its precision intact.
func isJSONNumber(s string) bool {
	return len(s) > 0 && strictjson.Check([]byte(s), nil) == nil && strictjson.KindOf([]byte(s)) == strictjson.Number && !bytes.ContainsAny([]byte(s), " ")
}
