// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// The Swagger 2.0 converter reads the whole document into typed structs,
// so one value of the wrong shape anywhere (Slack's array-form "items" in
// one response schema) fails it all. repair2 finds such values part by
// part and leaves out only the smallest part that holds one, with a
// warning naming it, before the converter runs.

// fits reports whether raw decodes into a value of type T.
func fits[T any](raw []byte) bool {
	var v T
	return json.Unmarshal(raw, &v) == nil
}

// repair2 returns js with its malformed parts left out, a warning for
// each, and how many operations went with them. A document whose top
// level itself is malformed is returned as is for the converter to
// report.
func repair2(js []byte) (_ []byte, _ []tool.Warning, droppedOps int) {
	before := countOps(js)
	defer func() { droppedOps = before - countOps(js) }()
	var warns []tool.Warning
	drop := func(ptr, what string) {
		warns = append(warns, tw(ptr, "spec-part-dropped", what+" is malformed for Swagger 2.0; left out"))
	}
	warnItems := func(ptr string) {
		warns = append(warns, tw(ptr, "schema-items-array", "items is an array (the draft-04 tuple form); read as the schema of every item"))
	}
	if !fits[openapi2.T](js) {
		js = repairShapes(js, drop, warnItems)
	}
	// The converter resolves every local $ref and fails on one that names
	// nothing; the part holding it goes instead, and so, in turn, do parts
	// that referred to a part that went.
	for range 64 {
		cuts := map[string]string{}
		var order []string
		doc := &document{data: js, index: map[string]map[string][]byte{}}
		walkRefs(js, "", func(ptr, ref string) {
			if len(ref) == 0 || ref[0] != '#' {
				return
			}
			p, err := url.PathUnescape(ref[1:])
			if err != nil {
				p = ref[1:]
			}
			if doc.lookup(p) != nil {
				return
			}
			if cut := refCut(ptr); cut != "" {
				if _, ok := cuts[cut]; !ok {
					order = append(order, cut)
				}
				cuts[cut] = ref
			}
		})
		if len(cuts) == 0 {
			break
		}
		for _, c := range order {
			warns = append(warns, tw(c, "spec-part-dropped", fmt.Sprintf("left out: it refers to %s, which does not exist", cuts[c])))
			js = deleteAt(js, c)
		}
	}
	return js, warns, 0
}

// countOps counts the operations of a document.
func countOps(js []byte) int {
	n := 0
	_ = members(strictjson.Get(js, "paths"), func(_, item []byte) error {
		_ = members(item, func(k, _ []byte) error {
			if _, ok := methodKeys[string(k)]; ok {
				n++
			}
			return nil
		})
		return nil
	})
	return n
}

// repairShapes leaves out the parts of js that do not decode into the
// converter's types.
func repairShapes(js []byte, drop func(ptr, what string), warnItems func(ptr string)) []byte {
	return rebuild(js, func(k string, v []byte) []byte {
		ptr := "/" + escPtr(k)
		switch k {
		case "definitions":
			v = rebuild(v, func(name string, d []byte) []byte {
				if fits[openapi2.SchemaRef](d) {
					return d
				}
				var fixed []string
				mended := mendItems(d, ptr+"/"+escPtr(name), &fixed)
				if len(fixed) > 0 && fits[openapi2.SchemaRef](mended) {
					for _, f := range fixed {
						warnItems(f)
					}
					return mended
				}
				return d
			})
			return filterMap(v, ptr, fits[openapi2.SchemaRef], "definition", drop)
		case "parameters":
			return filterMap(v, ptr, fits[openapi2.Parameter], "parameter", drop)
		case "responses":
			return filterMap(v, ptr, func(r []byte) bool { return fits[openapi2.Response](r) }, "response", drop)
		case "securityDefinitions":
			return filterMap(v, ptr, fits[openapi2.SecurityScheme], "security definition", drop)
		case "paths":
			return rebuild(v, func(p string, item []byte) []byte {
				return repairPathItem(item, ptr+"/"+escPtr(p), drop, warnItems)
			})
		}
		return v
	})
}

// mendItems returns the schema v with every array-form "items" replaced
// by its first element ({} when empty), appending the pointer of each to
// fixed. Only schema keywords are followed.
func mendItems(v []byte, ptr string, fixed *[]string) []byte {
	if strictjson.KindOf(v) != strictjson.Object {
		return v
	}
	return rebuild(v, func(k string, e []byte) []byte {
		sub := ptr + "/" + escPtr(k)
		switch k {
		case "items":
			if strictjson.KindOf(e) == strictjson.Array {
				*fixed = append(*fixed, sub)
				first := []byte("{}")
				_ = elements(e, func(i int, x []byte) error {
					if i == 0 {
						first = x
					}
					return nil
				})
				return mendItems(first, sub+"/0", fixed)
			}
			return mendItems(e, sub, fixed)
		case "additionalProperties", "not":
			return mendItems(e, sub, fixed)
		case "properties":
			return rebuild(e, func(pk string, pv []byte) []byte {
				return mendItems(pv, sub+"/"+escPtr(pk), fixed)
			})
		case "allOf", "anyOf", "oneOf":
			if strictjson.KindOf(e) != strictjson.Array {
				return e
			}
			out := []byte{'['}
			_ = elements(e, func(i int, x []byte) error {
				if i > 0 {
					out = append(out, ',')
				}
				out = append(out, mendItems(x, sub+"/"+strconv.Itoa(i), fixed)...)
				return nil
			})
			return append(out, ']')
		}
		return e
	})
}

// walkRefs calls fn for every "$ref" string in v, with the pointer of the
// object holding it.
func walkRefs(v []byte, ptr string, fn func(ptr, ref string)) {
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		_ = members(v, func(k, e []byte) error {
			if string(k) == "$ref" && strictjson.KindOf(e) == strictjson.String {
				s, _ := strictjson.Unquote(e)
				fn(ptr, s)
				return nil
			}
			walkRefs(e, ptr+"/"+escPtr(string(k)), fn)
			return nil
		})
	case strictjson.Array:
		_ = elements(v, func(i int, e []byte) error {
			walkRefs(e, ptr+"/"+strconv.Itoa(i), fn)
			return nil
		})
	}
}

// refCut returns the smallest part of a Swagger 2.0 document that can be
// left out for a broken $ref at ptr: a definition, shared parameter or
// response; a response's schema; an operation; a path item (for its
// shared parameters). "" means none: the document is broken at its top.
func refCut(ptr string) string {
	toks := splitPtr(ptr)
	join := func(n int) string {
		out := ""
		for _, t := range toks[:n] {
			out += "/" + escPtr(t)
		}
		return out
	}
	switch {
	case len(toks) >= 2 && (toks[0] == "definitions" || toks[0] == "parameters" || toks[0] == "responses"):
		return join(2)
	case len(toks) >= 3 && toks[0] == "paths":
		if _, ok := methodKeys[toks[2]]; !ok {
			return join(2)
		}
		if len(toks) >= 6 && toks[3] == "responses" && toks[5] == "schema" {
			return join(6)
		}
		return join(3)
	}
	return ""
}

func splitPtr(ptr string) []string {
	if ptr == "" {
		return nil
	}
	var toks []string
	for _, t := range strings.Split(ptr[1:], "/") {
		toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return toks
}

// deleteAt returns js without the member at ptr (a pointer through
// objects only).
func deleteAt(js []byte, ptr string) []byte {
	toks := splitPtr(ptr)
	var del func(v []byte, toks []string) []byte
	del = func(v []byte, toks []string) []byte {
		return rebuild(v, func(k string, e []byte) []byte {
			if k != toks[0] {
				return e
			}
			if len(toks) == 1 {
				return nil
			}
			return del(e, toks[1:])
		})
	}
	if len(toks) == 0 {
		return js
	}
	return del(js, toks)
}

// repairPathItem repairs one path item: a malformed response loses its
// schema (then the response), a malformed operation is left out, and a
// path item still malformed after that is left out whole.
func repairPathItem(item []byte, ptr string, drop func(ptr, what string), warnItems func(ptr string)) []byte {
	if fits[openapi2.PathItem](item) {
		return item
	}
	if strictjson.KindOf(item) != strictjson.Object {
		drop(ptr, "path item")
		return nil
	}
	item = rebuild(item, func(m string, op []byte) []byte {
		optr := ptr + "/" + escPtr(m)
		if _, ok := methodKeys[m]; !ok || fits[openapi2.Operation](op) {
			return op
		}
		op = rebuild(op, func(k string, v []byte) []byte {
			if k != "responses" {
				return v
			}
			return rebuild(v, func(code string, r []byte) []byte {
				rptr := optr + "/responses/" + escPtr(code)
				if fits[openapi2.Response](r) {
					return r
				}
				if strictjson.KindOf(r) == strictjson.Object {
					// Array-form items is the usual fault: read it as the
					// schema of every item and keep the rest of the schema.
					var fixed []string
					mended := rebuild(r, func(k string, v []byte) []byte {
						if k == "schema" {
							return mendItems(v, rptr+"/schema", &fixed)
						}
						return v
					})
					if len(fixed) > 0 && fits[openapi2.Response](mended) {
						for _, f := range fixed {
							warnItems(f)
						}
						return mended
					}
					noSchema := rebuild(r, func(k string, v []byte) []byte {
						if k == "schema" {
							return nil
						}
						return v
					})
					if fits[openapi2.Response](noSchema) {
						drop(rptr+"/schema", "response schema")
						return noSchema
					}
				}
				drop(rptr, "response")
				return nil
			})
		})
		if fits[openapi2.Operation](op) {
			return op
		}
		drop(optr, "operation")
		return nil
	})
	if fits[openapi2.PathItem](item) {
		return item
	}
	drop(ptr, "path item")
	return nil
}

// filterMap returns the object m without the members ok rejects.
func filterMap(m []byte, ptr string, ok func([]byte) bool, what string, drop func(ptr, what string)) []byte {
	if strictjson.KindOf(m) != strictjson.Object {
		return m
	}
	return rebuild(m, func(k string, v []byte) []byte {
		if ok(v) {
			return v
		}
		drop(ptr+"/"+escPtr(k), what+" "+strconv.Quote(k))
		return nil
	})
}

// rebuild returns the object obj with each member's value replaced by
// what fn returns for it; a nil value leaves the member out. A value that
// is not an object is returned unchanged.
func rebuild(obj []byte, fn func(k string, v []byte) []byte) []byte {
	if strictjson.KindOf(obj) != strictjson.Object {
		return obj
	}
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	first := true
	_ = members(obj, func(k, v []byte) error {
		nv := fn(string(k), v)
		if nv == nil {
			return nil
		}
		out = appendKey(out, &first, string(k))
		out = append(out, nv...)
		return nil
	})
	return append(out, '}')
}
