// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// mode is which side of a call a schema describes: readOnly properties
// are dropped from inputs and writeOnly ones from outputs.
type mode int

const (
	modeInput mode = iota
	modeOutput
)

// member is one member of a JSON object being rewritten.
type member struct {
	key string
	val []byte
}

// renderer turns OpenAPI schema objects into self-contained JSON Schema:
// $refs are inlined (providers such as Gemini take no $ref), OpenAPI 3.0
// keywords become their JSON Schema spelling, and recursion is cut at a
// bounded depth with a warning.
type renderer struct {
	r *resolver
	b *builder
	// oas30 is true for OpenAPI 3.0 (and converted Swagger 2.0) documents,
	// whose schemas use nullable, boolean exclusive bounds and example.
	oas30        bool
	maxRecursion int
	maxDepth     int

	stack []string
	// budget is how many more bytes of expanded $refs the current top-level
	// schema may grow by. Mutually recursive schemas (Stripe's) expand
	// exponentially even with every cycle cut; past the budget, further
	// refs become placeholders.
	budget     int
	overBudget bool
	// quiet drops budget warnings: an output over budget is dropped whole.
	quiet bool
	// cuts counts the places recursion or depth was cut; a rendering during
	// which it did not move depends on nothing but its input and is cached.
	cuts  int
	cache map[cacheKey]cached

	// level is the nesting level of the schema being rendered, counted as
	// OpenAI strict mode counts it: properties, items and
	// additionalProperties go one level down; the input object is level 1.
	// At maxLevel (0: no limit) nested structure is left out. maxSeen is
	// the deepest level reached, so that a cached rendering is reused only
	// where it fits.
	level, maxLevel, maxSeen int
}

type cached struct {
	body   []byte
	height int
}

type cacheKey struct {
	ref  string
	mode mode
}

// renderTop renders a schema that starts a tool's input or output, with a
// budget of max bytes of expansion.
func (rr *renderer) renderTop(raw []byte, doc *document, ptr string, m mode, max, level, maxLevel int) []byte {
	rr.budget, rr.overBudget, rr.quiet = max, false, m == modeOutput
	rr.stack = rr.stack[:0]
	rr.level, rr.maxLevel, rr.maxSeen = level, maxLevel, level
	return rr.render(nil, raw, doc, ptr, m, 0)
}

// render appends to dst the JSON Schema for the OpenAPI schema raw found
// in doc at ptr.
func (rr *renderer) render(dst, raw []byte, doc *document, ptr string, m mode, depth int) []byte {
	if strictjson.KindOf(raw) != strictjson.Object {
		return append(dst, raw...)
	}
	if depth > rr.maxDepth {
		rr.cuts++
		rr.b.warnOnce("depth:"+doc.location+"#"+ptr, tw(ptr, "schema-depth-cut", fmt.Sprintf("schema nested deeper than %d levels; cut", rr.maxDepth)))
		return append(dst, `{"description":"(schema cut: nested too deep)"}`...)
	}
	ms := make([]member, 0, 8)
	_ = members(raw, func(k, v []byte) error {
		ms = append(ms, member{string(k), v})
		return nil
	})
	for _, mb := range ms {
		switch mb.key {
		case "$ref":
			return rr.renderRef(dst, mb.val, ms, doc, ptr, m, depth)
		case "$recursiveRef", "$dynamicRef":
			rr.cuts++
			rr.b.warnOnce("dyn:"+doc.location+"#"+ptr, tw(ptr, "schema-dynamic-ref", "$recursiveRef and $dynamicRef are not followed; the schema is left open there"))
			return append(dst, `{"description":"(recursive schema; any value of the referenced shape)"}`...)
		}
	}
	return rr.renderMembers(dst, ms, doc, ptr, m, depth)
}

func (rr *renderer) renderRef(dst, refRaw []byte, ms []member, doc *document, ptr string, m mode, depth int) []byte {
	ref, _ := strictjson.Unquote(refRaw)
	t, err := rr.r.resolve(ref, doc, ptr)
	if err != nil {
		rr.cuts++
		rr.b.warnOnce("ref:"+doc.location+"#"+ptr, tw(ptr, "unresolved-ref", err.Error()))
		return append(dst, `{"description":"(unresolved reference)"}`...)
	}
	var siblings []member
	if !rr.oas30 {
		for _, mb := range ms {
			if mb.key != "$ref" && !dropKey(mb.key) {
				siblings = append(siblings, mb)
			}
		}
	}
	if rr.budget <= 0 {
		rr.cuts++
		rr.overBudget = true
		if rr.quiet {
			return cutPlaceholder(dst, t.raw, refName(ref))
		}
		rr.b.warnOnce("budget:"+doc.location+"#"+ptr, tw(ptr, "schema-size-cut", fmt.Sprintf("expanding %s would make the schema too large; left open", refName(ref))))
		return cutPlaceholder(dst, t.raw, refName(ref))
	}
	n := 0
	for _, k := range rr.stack {
		if k == t.key {
			n++
		}
	}
	if n > rr.maxRecursion {
		rr.cuts++
		rr.b.warnOnce("cycle:"+t.key, tw(ptr, "schema-cycle-cut", fmt.Sprintf("recursive schema %s cut after %d expansions", refName(ref), rr.maxRecursion+1)))
		return cutPlaceholder(dst, t.raw, refName(ref))
	}
	ck := cacheKey{t.key, m}
	var body []byte
	if c, ok := rr.cache[ck]; ok && (rr.maxLevel == 0 || rr.level+c.height <= rr.maxLevel) {
		body = c.body
		rr.budget -= len(body)
		rr.maxSeen = max(rr.maxSeen, rr.level+c.height)
	} else {
		rr.budget -= len(t.raw)
		before, seen := rr.cuts, rr.maxSeen
		rr.maxSeen = rr.level
		rr.stack = append(rr.stack, t.key)
		body = rr.render(nil, t.raw, t.doc, t.ptr, m, depth+1)
		rr.stack = rr.stack[:len(rr.stack)-1]
		if rr.cuts == before {
			rr.cache[ck] = cached{body, rr.maxSeen - rr.level}
		}
		rr.maxSeen = max(seen, rr.maxSeen)
	}
	if len(siblings) == 0 || strictjson.KindOf(body) != strictjson.Object {
		return append(dst, body...)
	}
	// OpenAPI 3.1: keywords beside $ref apply too; the nearer ones win.
	over := map[string]bool{}
	for _, s := range siblings {
		over[s.key] = true
	}
	var merged []member
	_ = members(body, func(k, v []byte) error {
		if !over[string(k)] {
			merged = append(merged, member{string(k), v})
		}
		return nil
	})
	dst = append(dst, '{')
	first := true
	for _, mb := range merged {
		dst = appendKey(dst, &first, mb.key)
		dst = append(dst, mb.val...)
	}
	inner := rr.renderMembers(nil, siblings, doc, ptr, m, depth)
	_ = members(inner, func(k, v []byte) error {
		dst = appendKey(dst, &first, string(k))
		dst = append(dst, v...)
		return nil
	})
	return append(dst, '}')
}

// cutPlaceholder stands in for a recursive schema: it keeps the type, so
// that strict providers still see one, and says what was cut.
func cutPlaceholder(dst, target []byte, name string) []byte {
	dst = append(dst, '{')
	if ty := strictjson.Get(target, "type"); ty != nil && strictjson.KindOf(ty) == strictjson.String {
		dst = append(dst, `"type":`...)
		dst = append(dst, ty...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"description":`...)
	dst = strictjson.AppendQuote(dst, "(recursive "+name+"; nested further levels are not described)")
	return append(dst, '}')
}

func refName(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}

// dropKey reports keywords that have no meaning for a model or for
// validation of arguments, and OpenAPI-only ones with no JSON Schema form.
func dropKey(k string) bool {
	switch k {
	case "discriminator", "xml", "externalDocs", "$schema", "$id", "$anchor", "$dynamicAnchor",
		"$recursiveAnchor", "$defs", "definitions", "$comment", "readOnly", "writeOnly", "nullable":
		return true
	}
	return strings.HasPrefix(k, "x-")
}

func appendKey(dst []byte, first *bool, k string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = strictjson.AppendQuote(dst, k)
	return append(dst, ':')
}

func (rr *renderer) renderMembers(dst []byte, ms []member, doc *document, ptr string, m mode, depth int) []byte {
	if rr.oas30 && nullableComposite(ms) {
		// OpenAPI 3.0 "nullable" beside allOf/anyOf/oneOf and no type:
		// JSON Schema says it with a null alternative.
		inner := make([]member, 0, len(ms))
		for _, mb := range ms {
			if mb.key != "nullable" {
				inner = append(inner, mb)
			}
		}
		dst = append(dst, `{"anyOf":[`...)
		dst = rr.renderMembers(dst, inner, doc, ptr, m, depth)
		return append(dst, `,{"type":"null"}]}`...)
	}
	nullable := false
	hasExamples := false
	var exMin, exMax []byte
	for _, mb := range ms {
		switch mb.key {
		case "nullable":
			nullable = rr.oas30 && string(mb.val) == "true"
		case "examples":
			hasExamples = true
		case "exclusiveMinimum":
			exMin = mb.val
		case "exclusiveMaximum":
			exMax = mb.val
		}
	}
	// skipProps are properties dropped for this side of the call; the
	// required list must not name them.
	var skipProps map[string]bool
	for _, mb := range ms {
		if mb.key == "properties" {
			_ = members(mb.val, func(pk, pv []byte) error {
				skip := rr.sideOnly(pv, doc, m)
				if !skip && !isSchema(pv) {
					// A property's schema is an object or a boolean. Anything
					// else is a malformed entry: most often a "$ref" written
					// among the property names (DigitalOcean), which would
					// otherwise become a required property named "$ref".
					skip = true
					pptr := ptr + "/properties/" + escPtr(string(pk))
					msg := fmt.Sprintf("property %q is not a schema; dropped", string(pk))
					if string(pk) == "$ref" {
						msg = "a $ref among the property names is not a property (a reference belongs inside a property's schema); dropped"
					}
					rr.b.warnOnce("prop:"+doc.location+"#"+pptr, tw(pptr, "schema-invalid-property", msg))
				}
				if skip {
					if skipProps == nil {
						skipProps = map[string]bool{}
					}
					skipProps[string(pk)] = true
				}
				return nil
			})
		}
	}
	rr.maxSeen = max(rr.maxSeen, rr.level)
	collapse := rr.maxLevel > 0 && rr.level >= rr.maxLevel
	collapsed, hasDesc := false, false
	for _, mb := range ms {
		if mb.key == "description" {
			hasDesc = true
		}
	}
	dst = append(dst, '{')
	first := true
	for _, mb := range ms {
		k, v := mb.key, mb.val
		if dropKey(k) {
			continue
		}
		sub := ptr + "/" + escPtr(k)
		if collapse && nests(k, v) {
			collapsed = true
			continue
		}
		if k == "items" && strictjson.KindOf(v) == strictjson.Array {
			// The draft-04 tuple form, which OpenAPI and JSON Schema 2020-12
			// do not allow (Slack writes it). One element means that schema
			// for every item; several are positions, prefixItems today.
			var elems [][]byte
			_ = elements(v, func(_ int, e []byte) error {
				elems = append(elems, e)
				return nil
			})
			rr.b.warnOnce("items:"+doc.location+"#"+sub, tw(sub, "schema-items-array", "items is an array (the draft-04 tuple form); read as a schema for every item or as prefixItems"))
			rr.level++
			switch {
			case len(elems) == 1:
				dst = appendKey(dst, &first, "items")
				dst = rr.render(dst, elems[0], doc, sub+"/0", m, depth+1)
			case len(elems) > 1 && !hasKey(ms, "prefixItems"):
				dst = appendKey(dst, &first, "prefixItems")
				dst = rr.renderArray(dst, v, doc, sub, m, depth)
			}
			rr.level--
			continue
		}
		switch k {
		case "type":
			dst = appendKey(dst, &first, k)
			if nullable && strictjson.KindOf(v) == strictjson.String && string(v) != `"null"` {
				dst = append(dst, '[')
				dst = append(dst, v...)
				dst = append(dst, `,"null"]`...)
			} else {
				dst = append(dst, v...)
			}
		case "enum":
			dst = appendKey(dst, &first, k)
			if nullable && strictjson.KindOf(v) == strictjson.Array && !hasNull(v) {
				inner := strings.TrimSpace(string(v))
				inner = strings.TrimSpace(inner[1 : len(inner)-1])
				if inner == "" {
					dst = append(dst, "[null]"...)
				} else {
					dst = append(dst, '[')
					dst = append(dst, inner...)
					dst = append(dst, ",null]"...)
				}
			} else {
				dst = append(dst, v...)
			}
		case "example":
			if hasExamples {
				continue
			}
			dst = appendKey(dst, &first, "examples")
			dst = append(dst, '[')
			dst = append(dst, v...)
			dst = append(dst, ']')
		case "exclusiveMinimum", "exclusiveMaximum":
			if strictjson.KindOf(v) == strictjson.Number {
				dst = appendKey(dst, &first, k)
				dst = append(dst, v...)
			}
			// A boolean (OpenAPI 3.0) moves onto minimum or maximum below.
		case "minimum", "maximum":
			ex := exMin
			if k == "maximum" {
				ex = exMax
			}
			if string(ex) == "true" {
				dst = appendKey(dst, &first, "exclusive"+strings.ToUpper(k[:1])+k[1:])
			} else {
				dst = appendKey(dst, &first, k)
			}
			dst = append(dst, v...)
		case "format":
			f, _ := strictjson.Unquote(v)
			if m == modeInput && (f == "binary" || f == "byte") {
				// Arguments are JSON text: file contents travel as base64.
				dst = appendKey(dst, &first, "contentEncoding")
				dst = append(dst, `"base64"`...)
				continue
			}
			dst = appendKey(dst, &first, k)
			dst = append(dst, v...)
		case "properties":
			if strictjson.KindOf(v) != strictjson.Object {
				continue
			}
			dst = appendKey(dst, &first, k)
			dst = append(dst, '{')
			pf := true
			_ = members(v, func(pk, pv []byte) error {
				name := string(pk)
				if skipProps[name] {
					return nil
				}
				dst = appendKey(dst, &pf, name)
				rr.level++
				dst = rr.render(dst, pv, doc, sub+"/"+escPtr(name), m, depth+1)
				rr.level--
				return nil
			})
			dst = append(dst, '}')
		case "required":
			if strictjson.KindOf(v) != strictjson.Array {
				continue
			}
			dst = appendKey(dst, &first, k)
			dst = append(dst, '[')
			rf := true
			seen := map[string]bool{}
			_ = elements(v, func(_ int, e []byte) error {
				s, err := strictjson.Unquote(e)
				if err != nil || skipProps[s] || seen[s] {
					return nil
				}
				seen[s] = true
				if !rf {
					dst = append(dst, ',')
				}
				rf = false
				dst = append(dst, e...)
				return nil
			})
			dst = append(dst, ']')
		case "additionalProperties", "items", "not", "contains", "propertyNames", "if", "then", "else",
			"unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema":
			dst = appendKey(dst, &first, k)
			down := k == "items" || k == "additionalProperties"
			if down {
				rr.level++
			}
			if strictjson.KindOf(v) == strictjson.Array {
				dst = rr.renderArray(dst, v, doc, sub, m, depth)
			} else {
				dst = rr.render(dst, v, doc, sub, m, depth+1)
			}
			if down {
				rr.level--
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			dst = appendKey(dst, &first, k)
			dst = rr.renderArray(dst, v, doc, sub, m, depth)
		case "patternProperties", "dependentSchemas":
			dst = appendKey(dst, &first, k)
			if strictjson.KindOf(v) != strictjson.Object {
				dst = append(dst, v...)
				continue
			}
			dst = append(dst, '{')
			pf := true
			if k == "patternProperties" {
				rr.level++
			}
			_ = members(v, func(pk, pv []byte) error {
				dst = appendKey(dst, &pf, string(pk))
				dst = rr.render(dst, pv, doc, sub+"/"+escPtr(string(pk)), m, depth+1)
				return nil
			})
			if k == "patternProperties" {
				rr.level--
			}
			dst = append(dst, '}')
		default:
			dst = appendKey(dst, &first, k)
			dst = append(dst, v...)
		}
	}
	if collapsed {
		rr.cuts++
		rr.b.warnOnce("nest:"+doc.location+"#"+ptr, tw(ptr, "schema-nesting-cut", fmt.Sprintf("structure nested deeper than %d levels is not described", rr.maxLevel)))
		if !hasDesc {
			dst = appendKey(dst, &first, "description")
			dst = append(dst, `"(structure not described: nested too deeply)"`...)
		}
	}
	return append(dst, '}')
}

// nullableComposite reports a schema with "nullable": true, no type, and
// a composition keyword.
func nullableComposite(ms []member) bool {
	nullable, typed, composite := false, false, false
	for _, mb := range ms {
		switch mb.key {
		case "nullable":
			nullable = string(mb.val) == "true"
		case "type", "enum", "const":
			typed = true
		case "allOf", "anyOf", "oneOf":
			composite = true
		}
	}
	return nullable && !typed && composite
}

// nests reports whether keyword k with value v describes a deeper level.
func nests(k string, v []byte) bool {
	switch k {
	case "properties", "patternProperties", "required", "dependentSchemas", "prefixItems":
		return true
	case "items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contains", "propertyNames":
		kind := strictjson.KindOf(v)
		return kind == strictjson.Object || kind == strictjson.Array
	}
	return false
}

func (rr *renderer) renderArray(dst, v []byte, doc *document, ptr string, m mode, depth int) []byte {
	if strictjson.KindOf(v) != strictjson.Array {
		return append(dst, v...)
	}
	dst = append(dst, '[')
	_ = elements(v, func(i int, e []byte) error {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = rr.render(dst, e, doc, ptr+"/"+strconv.Itoa(i), m, depth+1)
		return nil
	})
	return append(dst, ']')
}

// sideOnly reports whether the property schema raw belongs to the other
// side of the call only: readOnly for inputs, writeOnly for outputs.
func (rr *renderer) sideOnly(raw []byte, doc *document, m mode) bool {
	key := "readOnly"
	if m == modeOutput {
		key = "writeOnly"
	}
	for range 16 {
		if strictjson.KindOf(raw) != strictjson.Object {
			return false
		}
		var ref []byte
		only := false
		_ = members(raw, func(k, v []byte) error {
			switch string(k) {
			case key:
				only = string(v) == "true"
			case "$ref":
				ref = v
			}
			return nil
		})
		if only {
			return true
		}
		if ref == nil {
			return false
		}
		s, _ := strictjson.Unquote(ref)
		t, err := rr.r.resolve(s, doc, "")
		if err != nil {
			return false
		}
		raw, doc = t.raw, t.doc
	}
	return false
}

func hasKey(ms []member, k string) bool {
	for _, mb := range ms {
		if mb.key == k {
			return true
		}
	}
	return false
}

// isSchema reports whether v can be a JSON Schema: an object or a
// boolean.
func isSchema(v []byte) bool {
	k := strictjson.KindOf(v)
	return k == strictjson.Object || k == strictjson.Bool
}

func hasNull(arr []byte) bool {
	found := false
	_ = elements(arr, func(_ int, e []byte) error {
		if strictjson.KindOf(e) == strictjson.Null {
			found = true
		}
		return nil
	})
	return found
}
