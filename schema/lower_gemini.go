// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// geminiKeywords are the fields of Gemini's Schema object (the OpenAPI 3.0
// subset "parameters" takes).
var geminiKeywords = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "maxItems": true, "minItems": true, "properties": true, "required": true,
	"minProperties": true, "maxProperties": true, "minLength": true, "maxLength": true,
	"pattern": true, "example": true, "anyOf": true, "propertyOrdering": true, "default": true,
	"items": true, "minimum": true, "maximum": true,
}

// geminiFormats are the formats Gemini documents, per type.
var geminiFormats = map[string]map[string]bool{
	"string":  {"enum": true, "date-time": true},
	"number":  {"float": true, "double": true},
	"integer": {"int32": true, "int64": true},
}

// geminiTypes maps JSON Schema types to Gemini's Type enum.
var geminiTypes = map[string]string{
	"string": "STRING", "number": "NUMBER", "integer": "INTEGER", "boolean": "BOOLEAN",
	"array": "ARRAY", "object": "OBJECT",
}

// inlineRefs replaces every in-document $ref by a copy of its target and
// removes the definitions. A reference already being expanded
// DefaultRecursionDepth times is cut.
func (l *lowerer) inlineRefs() error {
	if !hasRefNode(l.root, 0) {
		l.dropDefs(l.root, "")
		return nil
	}
	orig := l.root.clone()
	seen := map[string]bool{}
	out, err := l.inline(orig, l.root, "", nil, seen, 0)
	if err != nil {
		return err
	}
	l.root = out
	l.dropDefs(l.root, "")
	return nil
}

func hasRefNode(n *node, depth int) bool {
	if depth > strictjson.DefaultMaxDepth {
		return false
	}
	for i, k := range n.keys {
		if k == "$ref" {
			return true
		}
		if hasRefNode(n.vals[i], depth+1) {
			return true
		}
	}
	if n.isArray() {
		for _, e := range n.vals {
			if hasRefNode(e, depth+1) {
				return true
			}
		}
	}
	return false
}

func (l *lowerer) dropDefs(n *node, ptr string) {
	for _, kw := range [...]string{"$defs", "definitions"} {
		if n.del(kw) != nil {
			l.warn(ptr+"/"+kw, CodeDefsRemoved, fmt.Sprintf("%q removed: Gemini parameters cannot hold definitions; references were inlined", kw))
		}
	}
}

// inline returns n with its references expanded; stack holds the
// reference targets being expanded.
func (l *lowerer) inline(orig, n *node, ptr string, stack []string, seen map[string]bool, depth int) (*node, error) {
	l.nodes++
	if l.nodes > maxInlineNodes {
		return nil, l.fail(ErrUnsupported, ptr, "schema too large once references are inlined")
	}
	if !n.isObject() || depth > strictjson.DefaultMaxDepth {
		return n, nil
	}
	if r := n.get("$ref"); r != nil {
		ref, _ := r.str()
		p, ok := localRef(ref)
		if !ok {
			if strings.HasPrefix(ref, "#") {
				return nil, l.fail(ErrUnsupported, ptr+"/$ref", fmt.Sprintf("cannot inline anchor reference %q", ref))
			}
			return nil, l.fail(ErrRemoteRef, ptr+"/$ref", fmt.Sprintf("reference to %q leaves the schema", ref))
		}
		target := lookupNode(orig, p)
		if !target.isObject() {
			return nil, l.fail(ErrInvalidSchema, ptr+"/$ref", fmt.Sprintf("$ref %q points to nothing usable", ref))
		}
		count := 0
		for _, s := range stack {
			if s == p {
				count++
			}
		}
		if count >= DefaultRecursionDepth {
			stub := newObject()
			if t := target.get("type"); t != nil {
				stub.set("type", t.clone())
			} else {
				stub.set("type", newString("object"))
			}
			d, _ := target.get("description").str()
			if d != "" {
				d += " "
			}
			stub.set("description", newString(d+"(recursive: nesting cut at depth "+strconv.Itoa(DefaultRecursionDepth)+")"))
			l.warn(ptr+"/$ref", CodeRecursionCut, fmt.Sprintf("recursive reference %q expanded %d times, then cut", ref, DefaultRecursionDepth))
			return stub, nil
		}
		if !seen[p] {
			seen[p] = true
			l.warn(ptr+"/$ref", CodeRefInlined, fmt.Sprintf("reference %q inlined: Gemini parameters do not support $ref", ref))
		}
		out := target.clone()
		for i, k := range n.keys {
			if k != "$ref" {
				out.set(k, n.vals[i].clone())
			}
		}
		// The copy's own $defs are dropped later; expand it in its turn.
		return l.inline(orig, out, ptr, append(stack, p), seen, depth+1)
	}
	for _, kw := range schemaKeywords {
		if c := n.get(kw); c.isObject() {
			v, err := l.inline(orig, c, ptr+"/"+kw, stack, seen, depth+1)
			if err != nil {
				return nil, err
			}
			n.set(kw, v)
		}
	}
	for _, kw := range schemaArrayKeywords {
		if c := n.get(kw); c.isArray() {
			for i, e := range c.vals {
				v, err := l.inline(orig, e, ptr+"/"+kw+"/"+strconv.Itoa(i), stack, seen, depth+1)
				if err != nil {
					return nil, err
				}
				c.vals[i] = v
			}
		}
	}
	for _, kw := range schemaMapKeywords {
		if kw == "$defs" || kw == "definitions" {
			continue // removed afterwards; expanding them is wasted work
		}
		if c := n.get(kw); c.isObject() {
			for i, k := range c.keys {
				v, err := l.inline(orig, c.vals[i], ptr+"/"+kw+"/"+strictjson.EscapePointer(k), stack, seen, depth+1)
				if err != nil {
					return nil, err
				}
				c.vals[i] = v
			}
		}
	}
	return n, nil
}

// gemini lowers one subschema for Gemini "parameters".
func (l *lowerer) gemini(n *node, ptr string, _ int) *node {
	n = l.mergeAllOf(n, ptr)
	l.oneOfToAnyOf(n, ptr)
	if ptr != "" {
		for _, kw := range [...]string{"$defs", "definitions"} {
			if n.del(kw) != nil {
				l.warn(ptr+"/"+kw, CodeDefsRemoved, fmt.Sprintf("%q removed: Gemini parameters cannot hold definitions", kw))
			}
		}
	}
	for _, kw := range [...]string{"anyOf", "enum", "required"} {
		if v := n.get(kw); v != nil && !v.isArray() {
			n.del(kw)
			l.warn(ptr+"/"+kw, CodeKeywordRemoved, fmt.Sprintf("%q removed: its value is not an array", kw))
		}
	}
	l.geminiNullable(n, ptr)
	l.geminiTypeArray(n, ptr)
	if c := n.get("const"); c != nil && !n.has("enum") {
		i := n.index("const")
		n.keys[i] = "enum"
		n.vals[i] = newArray(c)
		l.warn(ptr+"/const", CodeConstToEnum, `"const" rewritten as a one-value "enum"`)
	}
	l.geminiEnum(n, ptr)
	if ex := n.get("examples"); ex != nil && !n.has("example") {
		i := n.index("examples")
		n.keys[i] = "example"
		if ex.isArray() && len(ex.vals) > 0 {
			n.vals[i] = ex.vals[0]
		}
		l.warn(ptr+"/examples", CodeExamplesToExample, `"examples" rewritten as "example" (the first one)`)
	}
	if it := n.get("items"); it.isArray() {
		n.set("items", tupleToItems(it))
		l.warn(ptr+"/items", CodeTupleItemsRewritten, `tuple "items" rewritten as one item schema: Gemini has no tuples`)
	}
	if pi := n.get("prefixItems"); pi.isArray() && !n.has("items") {
		i := n.index("prefixItems")
		n.keys[i] = "items"
		n.vals[i] = tupleToItems(pi)
		l.warn(ptr+"/prefixItems", CodeTupleItemsRewritten, `"prefixItems" rewritten as one item schema: Gemini has no tuples`)
	}
	var moved []string
	ts, _ := n.get("type").str()
	for i := 0; i < len(n.keys); i++ {
		k, v := n.keys[i], n.vals[i]
		keep := geminiKeywords[k]
		if k == "format" {
			s, _ := v.str()
			keep = geminiFormats[strings.ToLower(ts)][s]
		}
		if keep {
			continue
		}
		n.del(k)
		i--
		_, isBool := v.boolean()
		if metaKeywords[k] || (k == "additionalProperties" && isBool) {
			l.warn(ptr+"/"+strictjson.EscapePointer(k), CodeKeywordRemoved, fmt.Sprintf("%q removed: Gemini parameters do not support it", k))
			continue
		}
		moved = append(moved, movedText(k, v))
		l.warn(ptr+"/"+strictjson.EscapePointer(k), CodeKeywordMoved, fmt.Sprintf("%q moved into the description: Gemini parameters do not support it", k))
	}
	describeMoved(n, moved)
	l.geminiRequired(n, ptr)
	if n.get("type") == nil && !n.has("anyOf") {
		switch {
		case n.has("enum"):
			n.set("type", newString("string"))
			l.warn(ptr, CodeTypeAdded, `"type": "string" added to an enum`)
		case n.has("properties"):
			n.set("type", newString("object"))
			l.warn(ptr, CodeTypeAdded, `"type": "object" added to a schema with properties`)
		case n.has("items"):
			n.set("type", newString("array"))
			l.warn(ptr, CodeTypeAdded, `"type": "array" added to a schema with items`)
		}
	}
	return n
}

func tupleToItems(arr *node) *node {
	var distinct []*node
	for _, e := range arr.vals {
		dup := false
		for _, d := range distinct {
			if equal(d, e) {
				dup = true
				break
			}
		}
		if !dup {
			distinct = append(distinct, e)
		}
	}
	switch len(distinct) {
	case 0:
		return newObject()
	case 1:
		return distinct[0]
	}
	w := newObject()
	w.set("anyOf", newArray(distinct...))
	return w
}

func isNullSchema(b *node) bool {
	t := typeNames(b)
	return b.isObject() && len(t) == 1 && t[0] == "null"
}

// geminiNullable turns anyOf null branches into "nullable": true, lifting
// a single remaining branch into n.
func (l *lowerer) geminiNullable(n *node, ptr string) {
	a := n.get("anyOf")
	if !a.isArray() {
		return
	}
	var rest []*node
	nulls := 0
	for _, b := range a.vals {
		if isNullSchema(b) && len(b.keys) <= 2 {
			nulls++
			continue
		}
		rest = append(rest, b)
	}
	if nulls == 0 {
		return
	}
	n.set("nullable", newRaw("true"))
	if len(rest) == 1 && rest[0].isObject() && !rest[0].has("$ref") {
		n.del("anyOf")
		for i, k := range rest[0].keys {
			if !n.has(k) {
				n.set(k, rest[0].vals[i])
			}
		}
		l.warn(ptr+"/anyOf", CodeNullableRewritten, `"anyOf" with a null branch rewritten as the other branch with "nullable": true`)
		return
	}
	if len(rest) == 0 {
		n.del("anyOf")
	} else {
		a.vals = rest
	}
	l.warn(ptr+"/anyOf", CodeNullableRewritten, `null branch of "anyOf" rewritten as "nullable": true`)
}

// geminiTypeArray turns a type list into one type plus "nullable", or an
// anyOf of the types.
func (l *lowerer) geminiTypeArray(n *node, ptr string) {
	t := n.get("type")
	if s, ok := t.str(); t != nil && !t.isArray() && (!ok || (s != "null" && geminiTypes[s] == "" && !isGeminiType(s))) {
		n.del("type")
		l.warn(ptr+"/type", CodeKeywordRemoved, `"type" removed: its value is not a JSON Schema type`)
		return
	}
	if !t.isArray() {
		if s, _ := t.str(); s == "null" {
			n.del("type")
			n.set("nullable", newRaw("true"))
			l.warn(ptr+"/type", CodeNullableRewritten, `"type": "null" rewritten as "nullable": true`)
		}
		return
	}
	var types []string
	null := false
	for _, e := range t.vals {
		s, _ := e.str()
		if s == "null" {
			null = true
		} else if geminiTypes[s] != "" || isGeminiType(s) {
			types = append(types, s)
		}
	}
	if null {
		n.set("nullable", newRaw("true"))
	}
	switch {
	case len(types) == 0:
		n.del("type")
	case len(types) == 1:
		n.set("type", newString(types[0]))
	case n.has("anyOf"):
		n.set("type", newString(types[0]))
		l.warn(ptr+"/type", CodeTypeArraySplit, fmt.Sprintf("type list narrowed to %q: Gemini takes one type and this schema already has anyOf", types[0]))
		return
	default:
		n.del("type")
		var branches []*node
		for _, s := range types {
			b := newObject()
			b.set("type", newString(s))
			branches = append(branches, b)
		}
		n.set("anyOf", newArray(branches...))
		l.warn(ptr+"/type", CodeTypeArraySplit, `type list rewritten as "anyOf" of one type each: Gemini takes one type per schema`)
		return
	}
	l.warn(ptr+"/type", CodeNullableRewritten, `type list with "null" rewritten as one type with "nullable": true`)
}

// geminiEnum converts a non-string enum to strings; Gemini enums are
// strings only. Callers must convert the model's answers back.
func (l *lowerer) geminiEnum(n *node, ptr string) {
	e := n.get("enum")
	if !e.isArray() {
		return
	}
	if ts := typeNames(n); len(ts) == 1 && strings.EqualFold(ts[0], "array") {
		// An enum on an array means its items, as hand-written catalogs
		// (BFCL among them) intend: an array value can never equal one.
		items := n.get("items")
		if !items.isObject() {
			items = newObject()
			n.set("items", items)
		}
		n.del("enum")
		if !items.has("enum") {
			items.set("enum", e)
			if items.get("type") == nil {
				items.set("type", newString("string"))
			}
			l.warn(ptr+"/enum", CodeEnumToItems, `"enum" of an array schema moved to its items: Gemini enums are on strings`)
			l.geminiEnum(items, ptr+"/items")
			return
		}
		l.warn(ptr+"/enum", CodeKeywordRemoved, `"enum" of an array schema removed: no array can equal one of its values and the items have their own enum`)
		return
	}
	changed := false
	var vals []*node
	for _, v := range e.vals {
		switch v.kind {
		case strictjson.String:
			vals = append(vals, v)
		case strictjson.Null:
			n.set("nullable", newRaw("true"))
			changed = true
		default:
			vals = append(vals, newString(string(v.encode(nil))))
			changed = true
		}
	}
	ts := typeNames(n)
	stringType := len(ts) == 1 && strings.EqualFold(ts[0], "string")
	if !changed && (stringType || len(ts) == 0) {
		return // a missing type is added by the caller
	}
	e.vals = vals
	if !stringType {
		n.set("type", newString("string"))
	}
	if changed {
		l.warn(ptr+"/enum", CodeEnumStringified, `enum values converted to strings and "type" set to "string": Gemini enums are strings only; convert answers back`)
	} else {
		l.warn(ptr+"/type", CodeEnumStringified, fmt.Sprintf(`"type" %s of an enum of strings set to "string": Gemini enums are strings only`, strings.Join(ts, ", ")))
	}
}

// upperTypes writes every type in Gemini's upper-case form, with one
// warning for the whole schema.
func (l *lowerer) upperTypes() {
	count := 0
	var visit func(n *node, depth int)
	visit = func(n *node, depth int) {
		if depth > strictjson.DefaultMaxDepth {
			return
		}
		if n.isObject() {
			if s, ok := n.get("type").str(); ok {
				if u, ok := geminiTypes[s]; ok {
					n.set("type", newString(u))
					count++
				}
			}
			for _, kw := range schemaKeywords {
				visit(n.get(kw), depth+1)
			}
			for _, kw := range schemaArrayKeywords {
				if c := n.get(kw); c.isArray() {
					for _, e := range c.vals {
						visit(e, depth+1)
					}
				}
			}
			if p := n.get("properties"); p.isObject() {
				for _, v := range p.vals {
					visit(v, depth+1)
				}
			}
		}
	}
	visit(l.root, 0)
	if count > 0 {
		l.warn("", CodeTypesUppercased, strconv.Itoa(count)+` "type" values written in upper case (STRING, OBJECT, …) as Gemini parameters expect`)
	}
}

// isGeminiType reports whether s is already one of Gemini's type names.
func isGeminiType(s string) bool {
	for _, u := range geminiTypes {
		if s == u {
			return true
		}
	}
	return false
}

// geminiRequired drops names from "required" that "properties" does not
// define: Gemini refuses them, and no value could satisfy them anyway
// once additional properties cannot be described.
func (l *lowerer) geminiRequired(n *node, ptr string) {
	r := n.get("required")
	if !r.isArray() {
		return
	}
	props := n.get("properties")
	kept := r.vals[:0:0]
	for _, e := range r.vals {
		s, ok := e.str()
		if ok && props.get(s) != nil {
			kept = append(kept, e)
			continue
		}
		l.warn(ptr+"/required", CodeRequiredPruned, fmt.Sprintf("required name %s removed: Gemini requires only defined properties", string(e.encode(nil))))
	}
	if len(kept) == len(r.vals) {
		return
	}
	if len(kept) == 0 {
		n.del("required")
		return
	}
	r.vals = kept
}
