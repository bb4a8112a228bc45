// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// A streamed call is a functionCall Gemini sends in pieces (Vertex's
// streamFunctionCallArguments): a part with the name and willContinue,
// parts of partialArgs — each a JSON path ("$.location", "$.items[0].id")
// and a value, a string value continued by the next piece of the same
// path while its willContinue holds — and a part without willContinue (an
// empty functionCall) that ends it. The decoder assembles the arguments
// and gives the call whole when it ends.
type streamedCall struct {
	id, name, sig string
	root          *jnode
	bytes         int    // the values' size so far, bounded by maxStreamedArgs
	open          *jnode // the string value being continued
	bad           string // why a piece could not be applied; "" when all were
}

// maxStreamedArgs bounds the arguments one streamed call may grow to.
const maxStreamedArgs = 4 << 20

// maxPathDepth bounds the nesting a piece's path may name.
const maxPathDepth = 64

// jnode is a JSON value under construction: an object (keys in order), an
// array, a string being built, or another value as raw JSON.
type jnode struct {
	keys []string
	obj  map[string]*jnode
	arr  []*jnode
	str  *strings.Builder
	raw  json.RawMessage
}

// pathStep is one step of a JSON path: a member name, or an index when
// index >= 0.
type pathStep struct {
	name  string
	index int
}

var errPath = errors.New("not a JSON path this decoder reads")

// parsePath reads "$", ".name", "['name']" and "[N]" steps.
func parsePath(p string) ([]pathStep, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, errPath
	}
	var steps []pathStep
	for i := 1; i < len(p); {
		if len(steps) >= maxPathDepth {
			return nil, errPath
		}
		switch p[i] {
		case '.':
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			if j == i+1 {
				return nil, errPath
			}
			steps = append(steps, pathStep{name: p[i+1 : j], index: -1})
			i = j
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, errPath
			}
			in := p[i+1 : i+end]
			if n, err := strconv.Atoi(in); err == nil && n >= 0 && n < 1<<16 {
				steps = append(steps, pathStep{index: n})
			} else if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
				steps = append(steps, pathStep{name: in[1 : len(in)-1], index: -1})
			} else {
				return nil, errPath
			}
			i += end + 1
		default:
			return nil, errPath
		}
	}
	return steps, nil
}

// at returns the node at steps under n, making what is missing.
func (n *jnode) at(steps []pathStep) (*jnode, error) {
	for _, s := range steps {
		if s.index >= 0 {
			if n.obj != nil || n.str != nil || n.raw != nil {
				return nil, errPath
			}
			for len(n.arr) <= s.index {
				n.arr = append(n.arr, &jnode{raw: json.RawMessage("null")})
			}
			n = n.arr[s.index]
			if n.raw != nil && string(n.raw) == "null" {
				n.raw = nil
			}
			continue
		}
		if n.arr != nil || n.str != nil || n.raw != nil {
			return nil, errPath
		}
		if n.obj == nil {
			n.obj = map[string]*jnode{}
		}
		c, ok := n.obj[s.name]
		if !ok {
			c = &jnode{}
			n.obj[s.name], n.keys = c, append(n.keys, s.name)
		}
		n = c
	}
	return n, nil
}

// apply adds the pieces of one partialArgs array.
func (c *streamedCall) apply(raw []byte) {
	var pieces []struct {
		JSONPath     string          `json:"jsonPath"`
		StringValue  *string         `json:"stringValue"`
		NumberValue  json.RawMessage `json:"numberValue"`
		BoolValue    *bool           `json:"boolValue"`
		NullValue    json.RawMessage `json:"nullValue"`
		WillContinue bool            `json:"willContinue"`
	}
	if err := json.Unmarshal(raw, &pieces); err != nil {
		c.fail("partialArgs is not a list of pieces")
		return
	}
	if c.root == nil {
		c.root = &jnode{}
	}
	for _, p := range pieces {
		steps, err := parsePath(p.JSONPath)
		if err != nil || len(steps) == 0 {
			c.fail("a piece's jsonPath is not one this gateway reads")
			continue
		}
		n, err := c.root.at(steps)
		if err != nil {
			c.fail("two pieces disagree on the shape of the arguments")
			continue
		}
		switch {
		case p.StringValue != nil:
			c.bytes += len(*p.StringValue)
			if c.bytes > maxStreamedArgs {
				c.fail("the arguments grew past 4 MiB")
				return
			}
			if n != c.open || n.str == nil {
				if n.obj != nil || n.arr != nil || n.raw != nil || n.str != nil {
					c.fail("two pieces disagree on the shape of the arguments")
					continue
				}
				n.str = &strings.Builder{}
			}
			n.str.WriteString(*p.StringValue)
			c.open = nil
			if p.WillContinue {
				c.open = n
			}
			continue
		case len(p.NumberValue) > 0 && json.Valid(p.NumberValue):
			n.raw = append(json.RawMessage(nil), p.NumberValue...)
		case p.BoolValue != nil:
			n.raw = json.RawMessage(strconv.FormatBool(*p.BoolValue))
		case len(p.NullValue) > 0:
			n.raw = json.RawMessage("null")
		default:
			c.fail("a piece has no value")
			continue
		}
		c.open = nil
	}
}

func (c *streamedCall) fail(why string) {
	if c.bad == "" {
		c.bad = why
	}
}

// json writes the arguments: an object ("{}" when no piece came).
func (c *streamedCall) json() []byte {
	if c.root == nil || (c.root.obj == nil && c.root.arr == nil) {
		return []byte("{}")
	}
	return c.root.appendJSON(nil)
}

func (n *jnode) appendJSON(b []byte) []byte {
	switch {
	case n.obj != nil:
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonStr(b, k)
			b = append(b, ':')
			b = n.obj[k].appendJSON(b)
		}
		return append(b, '}')
	case n.arr != nil:
		b = append(b, '[')
		for i, e := range n.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendJSON(b)
		}
		return append(b, ']')
	case n.str != nil:
		return jsonStr(b, n.str.String())
	case n.raw != nil:
		return append(b, n.raw...)
	}
	return append(b, "null"...)
}
