// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// OpenAI strict mode: the keywords kept. The list is the subset OpenAI
// documents for Structured Outputs; anything else is moved into the
// description (or, for document metadata, removed), which keeps the
// information for the model while the constrained decoder ignores it.
var openAIKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "$ref": true,
	"$defs": true, "definitions": true, "description": true, "title": true,
	"pattern": true, "format": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"minItems": true, "maxItems": true,
}

// openAIFormats are the string formats OpenAI strict mode documents.
var openAIFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// metaKeywords describe the document, not values; strict targets drop them.
var metaKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$anchor": true,
	"$dynamicAnchor": true, "$vocabulary": true,
}

// openAIStrict lowers one subschema for OpenAI strict mode, before its
// children are visited; requireAll runs after them.
func (l *lowerer) openAIStrict(n *node, ptr string, _ int) *node {
	n = l.mergeAllOf(n, ptr)
	l.oneOfToAnyOf(n, ptr)
	if b, ok := n.get("nullable").boolean(); ok {
		// OpenAPI's "nullable" is not JSON Schema; say it the JSON Schema way.
		n.del("nullable")
		if b {
			n = makeNullable(n)
		}
		l.warn(ptr+"/nullable", CodeNullableRewritten, `OpenAPI "nullable" rewritten as a JSON Schema null type`)
	}
	var moved []string
	for i := 0; i < len(n.keys); i++ {
		k, v := n.keys[i], n.vals[i]
		keep := openAIKeywords[k]
		switch k {
		case "format":
			s, _ := v.str()
			keep = openAIFormats[s]
		case "items":
			keep = v.isObject() || v.kind == strictjson.Bool
		case "additionalProperties":
			continue // handled below
		}
		if keep {
			continue
		}
		n.del(k)
		i--
		if metaKeywords[k] {
			l.warn(ptr+"/"+strictjson.EscapePointer(k), CodeKeywordRemoved, fmt.Sprintf("%q removed: OpenAI strict mode does not accept it", k))
			continue
		}
		moved = append(moved, movedText(k, v))
		l.warn(ptr+"/"+strictjson.EscapePointer(k), CodeKeywordMoved, fmt.Sprintf("%q moved into the description: OpenAI strict mode does not support it", k))
	}
	describeMoved(n, moved)
	if isObjectSchema(n) || n.has("additionalProperties") {
		if n.get("type") == nil {
			n.set("type", newString("object"))
			l.warn(ptr, CodeTypeAdded, `"type": "object" added to a schema with properties`)
		}
		l.closeObject(n, ptr, "OpenAI strict mode")
	}
	l.closedRequired(n, ptr)
	return n
}

// closedRequired drops from "required" the names that "properties" does
// not declare in a closed object ("additionalProperties": false): no
// value could be sent for them, so every call would be refused. Dropping
// them, rather than declaring them, keeps calls possible without
// inventing a type for a name the schema never described (usually a
// typo or a property defined elsewhere); the warning names each one.
func (l *lowerer) closedRequired(n *node, ptr string) {
	if ap, ok := n.get("additionalProperties").boolean(); !ok || ap || n.has("patternProperties") {
		return
	}
	r := n.get("required")
	if !r.isArray() {
		return
	}
	props := n.get("properties")
	kept := r.vals[:0:0]
	for _, e := range r.vals {
		if s, ok := e.str(); ok && props.isObject() && props.get(s) != nil {
			kept = append(kept, e)
			continue
		}
		l.warn(ptr+"/required", CodeRequiredPruned, fmt.Sprintf("required name %s removed: the object is closed and does not declare it, so no call could satisfy it", string(e.encode(nil))))
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

// closeObject sets additionalProperties to false.
func (l *lowerer) closeObject(n *node, ptr, why string) {
	ap := n.get("additionalProperties")
	if b, ok := ap.boolean(); ok && !b {
		return
	}
	n.set("additionalProperties", newRaw("false"))
	msg := `"additionalProperties": false added: ` + why + " requires closed objects"
	if ap != nil {
		msg = `"additionalProperties" was ` + string(ap.encode(nil)) + `, now false: ` + why + " requires closed objects"
		if len(msg) > 200 {
			msg = `"additionalProperties" schema replaced by false: ` + why + " requires closed objects"
		}
	}
	l.warn(ptr+"/additionalProperties", CodeObjectClosed, msg)
}

func (l *lowerer) oneOfToAnyOf(n *node, ptr string) {
	i := n.index("oneOf")
	if i < 0 {
		return
	}
	if n.has("anyOf") {
		l.setErr(l.fail(ErrUnsupported, ptr+"/oneOf", "both anyOf and oneOf: the target supports only anyOf and one schema cannot hold two"))
		return
	}
	n.keys[i] = "anyOf"
	l.warn(ptr+"/oneOf", CodeOneOfToAnyOf, `"oneOf" rewritten as "anyOf": the target does not support oneOf (a value matching several branches is now accepted)`)
}

// requireAll lists every property in required, making the optional ones
// nullable so that the model can still leave them out by sending null.
func (l *lowerer) requireAll(n *node, ptr string) {
	props := n.get("properties")
	if !props.isObject() {
		return
	}
	req := stringList(n.get("required"))
	var missing []string
	for i, k := range props.keys {
		if slices.Contains(req, k) {
			continue
		}
		missing = append(missing, k)
		props.vals[i] = makeNullable(props.vals[i])
		l.warn(ptr+"/properties/"+strictjson.EscapePointer(k), CodeMadeNullable,
			fmt.Sprintf("optional property %q made required and nullable: OpenAI strict mode requires every property; null stands for absent", k))
	}
	if len(missing) > 0 {
		n.set("required", unionList(n.get("required"), missing))
	}
}

// makeNullable returns s changed to also accept null. A schema with a plain
// "type" gets "null" added to its type list; a schema whose meaning does
// not come from "type" alone ($ref, enum, const, or no type) is wrapped as
// {"anyOf": [s, {"type": "null"}]}, and an existing anyOf gains a null
// branch.
func makeNullable(s *node) *node {
	if !s.isObject() {
		return s
	}
	if allowsNull(s) {
		return s
	}
	nullSchema := newObject()
	nullSchema.set("type", newString("null"))
	t := s.get("type")
	switch {
	case s.has("anyOf") && t == nil && !s.has("$ref") && !s.has("enum") && !s.has("const"):
		a := s.get("anyOf")
		if a.isArray() {
			a.vals = append(a.vals, nullSchema)
			return s
		}
	case t != nil && !s.has("$ref") && !s.has("enum") && !s.has("const") && !s.has("anyOf"):
		if ts, ok := t.str(); ok {
			s.set("type", newArray(newString(ts), newString("null")))
			return s
		}
		if t.isArray() {
			t.vals = append(t.vals, newString("null"))
			return s
		}
	}
	w := newObject()
	w.set("anyOf", newArray(s, nullSchema))
	return w
}

// allowsNull reports whether s already accepts null in an obvious way.
func allowsNull(s *node) bool {
	if hasType(s, "null") {
		return true
	}
	if c := s.get("const"); c != nil && c.kind == strictjson.Null {
		return true
	}
	if e := s.get("enum"); e.isArray() {
		for _, v := range e.vals {
			if v.kind == strictjson.Null {
				return true
			}
		}
	}
	if a := s.get("anyOf"); a.isArray() {
		for _, b := range a.vals {
			if b.isObject() && hasType(b, "null") {
				return true
			}
		}
	}
	return false
}

// openAILimits warns when the schema passes OpenAI's published limits;
// lowering cannot fix that without dropping parts of the schema.
func (l *lowerer) openAILimits() {
	props, depth := 0, 0
	var visit func(n *node, d int)
	visit = func(n *node, d int) {
		if !n.isObject() || d > strictjson.DefaultMaxDepth {
			return
		}
		if d > depth {
			depth = d
		}
		if p := n.get("properties"); p.isObject() {
			props += len(p.keys)
			for _, v := range p.vals {
				visit(v, d+1)
			}
		}
		for _, kw := range [...]string{"items", "additionalProperties"} {
			visit(n.get(kw), d+1)
		}
		for _, kw := range [...]string{"anyOf", "$defs", "definitions"} {
			if c := n.get(kw); c != nil {
				for _, v := range c.vals {
					visit(v, d)
				}
			}
		}
	}
	visit(l.root, 1)
	if props > openAIMaxProperties {
		l.warn("", CodeLimitExceeded, "schema has "+strconv.Itoa(props)+" properties; OpenAI strict mode allows "+strconv.Itoa(openAIMaxProperties))
	}
	if depth > openAIMaxDepth {
		l.warn("", CodeLimitExceeded, "schema nests "+strconv.Itoa(depth)+" levels; OpenAI strict mode allows "+strconv.Itoa(openAIMaxDepth))
	}
}

// Anthropic strict tool use: keywords moved into the description.
var anthropicMoved = map[string]bool{
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "maxItems": true, "minProperties": true, "maxProperties": true,
	"uniqueItems": true, "contains": true, "minContains": true, "maxContains": true,
	"patternProperties": true, "propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true,
	"dependentRequired": true, "dependentSchemas": true, "dependencies": true,
	"not": true, "if": true, "then": true, "else": true, "prefixItems": true, "additionalItems": true,
}

// anthropicFormats are the string formats strict tool use accepts.
var anthropicFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "uri": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// anthropicStrict lowers one subschema for Anthropic strict tool use.
func (l *lowerer) anthropicStrict(n *node, ptr string, _ int) *node {
	l.oneOfToAnyOf(n, ptr)
	var moved []string
	for i := 0; i < len(n.keys); i++ {
		k, v := n.keys[i], n.vals[i]
		move := anthropicMoved[k]
		switch k {
		case "format":
			s, _ := v.str()
			move = !anthropicFormats[s]
		case "minItems":
			move = string(v.raw) != "0" && string(v.raw) != "1"
		case "items":
			move = v.isArray()
		}
		if !move {
			continue
		}
		n.del(k)
		i--
		moved = append(moved, movedText(k, v))
		l.warn(ptr+"/"+strictjson.EscapePointer(k), CodeKeywordMoved, fmt.Sprintf("%q moved into the description: Anthropic strict tool use does not support it", k))
	}
	describeMoved(n, moved)
	if isObjectSchema(n) || n.has("additionalProperties") {
		l.closeObject(n, ptr, "Anthropic strict tool use")
	}
	l.closedRequired(n, ptr)
	return n
}
