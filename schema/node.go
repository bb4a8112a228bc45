// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"github.com/toolgate/toolgate/internal/strictjson"
)

// node is an ordered, mutable JSON value used by the lowering passes when a
// schema must change. Scalars keep their raw bytes, so numbers and strings
// come out exactly as they went in; objects keep their member order.
type node struct {
	kind strictjson.Kind
	raw  []byte   // scalars: the raw JSON text
	text string   // strings: the value, when known without unescaping
	keys []string // objects
	vals []*node  // objects: values, parallel to keys; arrays: elements
}

// parseNode builds a tree from data, which must have passed strictjson.Check.
func parseNode(data []byte) *node {
	p := parser{data: data, src: string(data)}
	return p.value(0, len(data), 0)
}

// parser builds nodes from checked bytes. Object names without escapes are
// substrings of one copy of the document, and nodes come from slabs, so a
// parse costs a handful of allocations rather than several per value.
type parser struct {
	data []byte
	src  string // data as a string, for allocation-free names
	slab []node
	// Members are gathered on these stacks, then copied into exact-size
	// slices carved from keySlab and valSlab (capacity capped, so a later
	// append by a pass reallocates instead of overwriting a neighbour).
	keyStack []string
	valStack []*node
	keySlab  []string
	valSlab  []*node
}

func (p *parser) carve(keys []string, vals []*node) ([]string, []*node) {
	if len(vals) == 0 {
		return nil, nil
	}
	var ks []string
	if len(keys) > 0 {
		if cap(p.keySlab)-len(p.keySlab) < len(keys) {
			p.keySlab = make([]string, 0, max(len(keys), len(p.data)/16))
		}
		start := len(p.keySlab)
		p.keySlab = append(p.keySlab, keys...)
		ks = p.keySlab[start:len(p.keySlab):len(p.keySlab)]
	}
	if cap(p.valSlab)-len(p.valSlab) < len(vals) {
		p.valSlab = make([]*node, 0, max(len(vals), len(p.data)/8))
	}
	start := len(p.valSlab)
	p.valSlab = append(p.valSlab, vals...)
	return ks, p.valSlab[start:len(p.valSlab):len(p.valSlab)]
}

func (p *parser) alloc() *node {
	if len(p.slab) == cap(p.slab) {
		// A value takes at least 4 bytes or so; the first slab is sized
		// to the document, later ones are fixed.
		size := 64
		if p.slab == nil {
			size = min(max(len(p.data)/12, 8), 256)
		}
		p.slab = make([]node, 0, size)
	}
	p.slab = p.slab[:len(p.slab)+1]
	return &p.slab[len(p.slab)-1]
}

// value parses the value in data[i:end]. Past strictjson's depth limit
// (which checked input never reaches) it stops, leaving an empty node.
func (p *parser) value(i, end, depth int) *node {
	i = skipSpace(p.data, i)
	for end > i && isSpace(p.data[end-1]) {
		end--
	}
	n := p.alloc()
	if i >= end || depth > strictjson.DefaultMaxDepth {
		return n
	}
	n.kind = strictjson.KindOf(p.data[i:end])
	switch n.kind {
	case strictjson.Object:
		kbase, vbase := len(p.keyStack), len(p.valStack)
		i = skipSpace(p.data, i+1)
		for i < end && p.data[i] == '"' {
			ke := strictjson.Skip(p.data, i)
			if ke <= i+1 || ke > end {
				break
			}
			var key string
			if body := p.data[i+1 : ke-1]; !hasByte(body, '\\') {
				key = p.src[i+1 : ke-1]
			} else {
				key, _ = strictjson.Unquote(p.data[i:ke])
			}
			i = skipSpace(p.data, ke)
			if i >= end || p.data[i] != ':' {
				break
			}
			vs := skipSpace(p.data, i+1)
			ve := strictjson.Skip(p.data, vs)
			if ve <= vs || ve > end {
				break
			}
			p.keyStack = append(p.keyStack, key)
			v := p.value(vs, ve, depth+1)
			p.valStack = append(p.valStack, v)
			i = skipSpace(p.data, ve)
			if i < end && p.data[i] == ',' {
				i = skipSpace(p.data, i+1)
			}
		}
		n.keys, n.vals = p.carve(p.keyStack[kbase:], p.valStack[vbase:])
		p.keyStack, p.valStack = p.keyStack[:kbase], p.valStack[:vbase]
	case strictjson.Array:
		base := len(p.valStack)
		i = skipSpace(p.data, i+1)
		for i < end && p.data[i] != ']' {
			ve := strictjson.Skip(p.data, i)
			if ve <= i || ve > end {
				break
			}
			v := p.value(i, ve, depth+1)
			p.valStack = append(p.valStack, v)
			i = skipSpace(p.data, ve)
			if i < end && p.data[i] == ',' {
				i = skipSpace(p.data, i+1)
			}
		}
		_, n.vals = p.carve(nil, p.valStack[base:])
		p.valStack = p.valStack[:base]
		if n.vals == nil {
			n.vals = []*node{}
		}
	default:
		n.raw = p.data[i:end]
		if n.kind == strictjson.String && end-i >= 2 && !hasByte(n.raw, '\\') {
			n.text = p.src[i+1 : end-1]
		}
	}
	return n
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// newString returns a string node.
func newString(s string) *node {
	return &node{kind: strictjson.String, raw: strictjson.AppendQuote(nil, s), text: s}
}

// newRaw returns a scalar node with the given JSON text.
func newRaw(text string) *node {
	return &node{kind: strictjson.KindOf([]byte(text)), raw: []byte(text)}
}

func newObject() *node { return &node{kind: strictjson.Object} }

func newArray(elems ...*node) *node { return &node{kind: strictjson.Array, vals: elems} }

// isObject reports whether n is a JSON object.
func (n *node) isObject() bool { return n != nil && n.kind == strictjson.Object }

func (n *node) isArray() bool { return n != nil && n.kind == strictjson.Array }

// index returns the position of key in the object n, or -1.
func (n *node) index(key string) int {
	if n == nil || n.kind != strictjson.Object {
		return -1
	}
	for i, k := range n.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// get returns the member key of n, or nil.
func (n *node) get(key string) *node {
	if i := n.index(key); i >= 0 {
		return n.vals[i]
	}
	return nil
}

func (n *node) has(key string) bool { return n.index(key) >= 0 }

// set replaces the member key in place, or appends it.
func (n *node) set(key string, v *node) {
	if i := n.index(key); i >= 0 {
		n.vals[i] = v
		return
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

// setFirst sets key, putting it first when it is new.
func (n *node) setFirst(key string, v *node) {
	if i := n.index(key); i >= 0 {
		n.vals[i] = v
		return
	}
	n.keys = append([]string{key}, n.keys...)
	n.vals = append([]*node{v}, n.vals...)
}

// del removes the member key and returns its value, or nil.
func (n *node) del(key string) *node {
	i := n.index(key)
	if i < 0 {
		return nil
	}
	v := n.vals[i]
	n.keys = append(n.keys[:i:i], n.keys[i+1:]...)
	n.vals = append(n.vals[:i:i], n.vals[i+1:]...)
	return v
}

// str returns the value of a string node.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != strictjson.String {
		return "", false
	}
	if n.text != "" || len(n.raw) == 2 {
		return n.text, true
	}
	s, err := strictjson.Unquote(n.raw)
	return s, err == nil
}

// boolean returns the value of a boolean node.
func (n *node) boolean() (value, ok bool) {
	if n == nil || n.kind != strictjson.Bool {
		return false, false
	}
	return string(n.raw) == "true", true
}

// clone returns a deep copy of n.
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := &node{kind: n.kind, raw: n.raw, text: n.text}
	if n.keys != nil {
		c.keys = append([]string(nil), n.keys...)
	}
	if n.vals != nil {
		c.vals = make([]*node, len(n.vals))
		for i, v := range n.vals {
			c.vals[i] = v.clone()
		}
	}
	return c
}

// encode appends the compact JSON encoding of n to dst.
func (n *node) encode(dst []byte) []byte {
	switch n.kind {
	case strictjson.Object:
		dst = append(dst, '{')
		for i, k := range n.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strictjson.AppendQuote(dst, k)
			dst = append(dst, ':')
			dst = n.vals[i].encode(dst)
		}
		return append(dst, '}')
	case strictjson.Array:
		dst = append(dst, '[')
		for i, v := range n.vals {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = v.encode(dst)
		}
		return append(dst, ']')
	}
	return append(dst, n.raw...)
}

// equal reports whether a and b encode to the same JSON, ignoring the
// order of object members.
func equal(a, b *node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case strictjson.Object:
		if len(a.keys) != len(b.keys) {
			return false
		}
		for i, k := range a.keys {
			if !equal(a.vals[i], b.get(k)) {
				return false
			}
		}
		return true
	case strictjson.Array:
		if len(a.vals) != len(b.vals) {
			return false
		}
		for i := range a.vals {
			if !equal(a.vals[i], b.vals[i]) {
				return false
			}
		}
		return true
	case strictjson.String:
		x, _ := a.str()
		y, _ := b.str()
		return x == y
	}
	return string(a.raw) == string(b.raw)
}

// depth returns the nesting depth of n, counting n's own level; it stops
// counting past the strictjson limit.
func (n *node) depth(d int) int {
	if n.kind != strictjson.Object && n.kind != strictjson.Array {
		return d
	}
	d++
	deepest := d
	if d > strictjson.DefaultMaxDepth {
		return d
	}
	for _, v := range n.vals {
		if x := v.depth(d); x > deepest {
			deepest = x
		}
	}
	return deepest
}
