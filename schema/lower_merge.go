// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// lookupNode returns the node at the JSON Pointer ptr below n, or nil.
func lookupNode(n *node, ptr string) *node {
	if ptr == "" {
		return n
	}
	if ptr[0] != '/' {
		return nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case n.isObject():
			n = n.get(tok)
		case n.isArray():
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.vals) {
				return nil
			}
			n = n.vals[i]
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}

// localRef returns the pointer of an in-document reference, or ok false
// for a reference to another document.
func localRef(ref string) (ptr string, ok bool) {
	if !strings.HasPrefix(ref, "#") {
		return "", false
	}
	p := unescapeFragment(ref[1:])
	if p != "" && p[0] != '/' {
		return "", false // anchors are not followed here
	}
	return p, true
}

// deref returns a copy of the schema a {"$ref": ...} node points to, with
// the node's other members laid over it; nodes without $ref come back as
// they are.
func (l *lowerer) deref(n *node, ptr string) (*node, error) {
	for hops := 0; n.isObject() && n.has("$ref"); hops++ {
		if hops > 32 {
			return nil, l.fail(ErrInvalidSchema, ptr, "$ref chain too long or cyclic")
		}
		ref, _ := n.get("$ref").str()
		p, ok := localRef(ref)
		if !ok {
			if strings.HasPrefix(ref, "#") {
				return nil, l.fail(ErrUnsupported, ptr+"/$ref", fmt.Sprintf("cannot follow anchor reference %q", ref))
			}
			return nil, l.fail(ErrRemoteRef, ptr+"/$ref", fmt.Sprintf("reference to %q leaves the schema", ref))
		}
		target := lookupNode(l.root, p)
		if !target.isObject() {
			return nil, l.fail(ErrInvalidSchema, ptr+"/$ref", fmt.Sprintf("$ref %q points to nothing usable", ref))
		}
		out := target.clone()
		for i, k := range n.keys {
			if k != "$ref" {
				out.set(k, n.vals[i].clone())
			}
		}
		n = out
	}
	return n, nil
}

// flattenRoot replaces root-level anyOf/oneOf/allOf by one object schema:
// properties merged; required is the union of the branches' for allOf and
// their intersection for anyOf/oneOf (a property is required only if every
// alternative requires it).
func (l *lowerer) flattenRoot(n *node, ptr string, depth int) error {
	for _, kw := range [...]string{"allOf", "anyOf", "oneOf"} {
		c := n.get(kw)
		if c == nil {
			continue
		}
		if !c.isArray() || len(c.vals) == 0 {
			return l.fail(ErrInvalidSchema, ptr+"/"+kw, kw+" is not a non-empty array")
		}
		if depth >= maxFlattenDepth {
			return l.fail(ErrUnsupported, ptr+"/"+kw, "root combinators nested too deeply to flatten")
		}
		branches := make([]*node, len(c.vals))
		for i, b := range c.vals {
			bp := ptr + "/" + kw + "/" + strconv.Itoa(i)
			d, err := l.deref(b, bp)
			if err != nil {
				return err
			}
			if !d.isObject() {
				return l.fail(ErrUnsupported, bp, "branch is not an object schema")
			}
			d = d.clone()
			if err := l.flattenRoot(d, bp, depth+1); err != nil {
				return err
			}
			if t := d.get("type"); t != nil && !hasType(d, "object") {
				return l.fail(ErrUnsupported, bp, "branch does not describe an object, so the root cannot be one object")
			}
			branches[i] = d
		}
		n.del(kw)
		l.mergeBranches(n, ptr, kw, branches)
		l.warn(ptr+"/"+kw, CodeRootFlattened, fmt.Sprintf("root %s of %d schemas flattened into one object schema", kw, len(branches)))
	}
	return nil
}

// mergeBranches merges branches into n. For allOf every keyword is merged;
// for anyOf/oneOf only properties and the required names common to all.
func (l *lowerer) mergeBranches(n *node, ptr, kw string, branches []*node) {
	all := kw == "allOf"
	var common []string
	for i, b := range branches {
		if props := b.get("properties"); props.isObject() {
			l.mergeProps(n, ptr, props, all)
		}
		req := stringList(b.get("required"))
		if all {
			n.set("required", unionList(n.get("required"), req))
		} else if i == 0 {
			common = req
		} else {
			common = slices.DeleteFunc(common, func(s string) bool { return !slices.Contains(req, s) })
		}
		var dropped []string
		for j, k := range b.keys {
			switch k {
			case "properties", "required", "$defs", "definitions":
				continue
			case "type":
				if n.get("type") == nil && hasType(b, "object") {
					n.setFirst("type", newString("object"))
				}
				continue
			}
			v := b.vals[j]
			cur := n.get(k)
			switch {
			case cur != nil && equal(cur, v):
			case cur == nil && (all || agree(branches, k, v)):
				n.set(k, v.clone())
			default:
				dropped = append(dropped, k)
			}
		}
		if len(dropped) > 0 {
			l.warn(ptr+"/"+kw+"/"+strconv.Itoa(i), CodeBranchKeywordDrop,
				fmt.Sprintf("keywords %s of this branch conflict with the merged schema and were dropped", strings.Join(dropped, ", ")))
		}
	}
	if !all && len(common) > 0 {
		n.set("required", unionList(n.get("required"), common))
	}
	if r := n.get("required"); r.isArray() && len(r.vals) == 0 {
		n.del("required")
	}
}

// agree reports whether every branch has k equal to v (or lacks k only
// when k is descriptive).
func agree(branches []*node, k string, v *node) bool {
	for _, b := range branches {
		if !equal(b.get(k), v) {
			return false
		}
	}
	return true
}

// mergeProps adds the properties of props to n's. A property both define
// differently becomes {"allOf": [a, b]} (all) or {"anyOf": [a, b]}.
func (l *lowerer) mergeProps(n *node, ptr string, props *node, all bool) {
	dst := n.get("properties")
	if !dst.isObject() {
		dst = newObject()
		n.set("properties", dst)
	}
	comb := "anyOf"
	if all {
		comb = "allOf"
	}
	for i, k := range props.keys {
		v := props.vals[i]
		cur := dst.get(k)
		switch {
		case cur == nil:
			dst.set(k, v.clone())
		case equal(cur, v):
		default:
			if c := cur.get(comb); c.isArray() && len(cur.keys) == 1 {
				for _, e := range c.vals {
					if equal(e, v) {
						goto next
					}
				}
				c.vals = append(c.vals, v.clone())
			} else {
				m := newObject()
				m.set(comb, newArray(cur, v.clone()))
				dst.set(k, m)
			}
			l.warn(ptr+"/properties/"+strictjson.EscapePointer(k), CodePropertyConflict,
				fmt.Sprintf("branches define property %q differently; combined with %s", k, comb))
		}
	next:
	}
}

// stringList returns the strings of an array node.
func stringList(n *node) []string {
	if !n.isArray() {
		return nil
	}
	out := make([]string, 0, len(n.vals))
	for _, e := range n.vals {
		if s, ok := e.str(); ok {
			out = append(out, s)
		}
	}
	return out
}

// unionList returns the array node cur with the names in add appended
// when missing.
func unionList(cur *node, add []string) *node {
	out := newArray()
	var have []string
	if cur.isArray() {
		for _, e := range cur.vals {
			out.vals = append(out.vals, e)
			if s, ok := e.str(); ok {
				have = append(have, s)
			}
		}
	}
	for _, s := range add {
		if !slices.Contains(have, s) {
			have = append(have, s)
			out.vals = append(out.vals, newString(s))
		}
	}
	return out
}

// mergeAllOf folds a non-root allOf into its parent, for targets that
// refuse allOf.
func (l *lowerer) mergeAllOf(n *node, ptr string) *node {
	c := n.get("allOf")
	if !c.isArray() {
		return n
	}
	branches := make([]*node, 0, len(c.vals))
	for i, b := range c.vals {
		d, err := l.deref(b, ptr+"/allOf/"+strconv.Itoa(i))
		if err != nil {
			l.setErr(err)
			return n
		}
		if !d.isObject() {
			l.setErr(l.fail(ErrUnsupported, ptr+"/allOf/"+strconv.Itoa(i), "allOf branch is not a schema object, so it cannot be merged"))
			return n
		}
		branches = append(branches, d.clone())
	}
	n.del("allOf")
	l.mergeBranches(n, ptr, "allOf", branches)
	l.warn(ptr+"/allOf", CodeAllOfMerged, fmt.Sprintf("allOf of %d schemas merged into the enclosing schema", len(branches)))
	return n
}
