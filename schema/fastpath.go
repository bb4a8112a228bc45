// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// fastNode is a schema in the small subset most tool schemas use (type,
// properties, required, additionalProperties, items, enum/const of
// scalars, numeric bounds, string length and pattern, array length). It
// validates instance bytes directly, without decoding them, and answers
// only "valid" with certainty: anything else (an invalid instance, or a
// value it cannot judge exactly) is handed to the full validator, which
// also writes the error messages. So it may be conservative, never lax;
// FuzzValidateFast checks that against the library.
type fastNode struct {
	always   int8 // 1: true schema, -1: false schema
	types    uint8
	props    map[string]*fastNode
	required []string
	addl     *fastNode // nil: any additional property allowed
	closed   bool      // additionalProperties: false
	items    *fastNode
	enum     []string // raw JSON texts of scalar values
	hasEnum  bool
	min, max float64
	xmin     bool
	xmax     bool
	hasMin   bool
	hasMax   bool
	minLen   int
	maxLen   int
	pattern  *regexp.Regexp
	minItems int
	maxItems int
}

const (
	tNull uint8 = 1 << iota
	tBool
	tObject
	tArray
	tNumber
	tInteger
	tString
	tAny = tNull | tBool | tObject | tArray | tNumber | tInteger | tString
)

var fastTypeBits = map[string]uint8{"null": tNull, "boolean": tBool, "object": tObject, "array": tArray,
	"number": tNumber, "integer": tInteger, "string": tString}

// annotations are keywords that never make an instance invalid.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "example": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$schema": true,
	"$id": true, "$defs": true, "definitions": true, "$anchor": true, "contentMediaType": true,
	"contentEncoding": true, "contentSchema": true,
}

// assertions are the keywords the full validator enforces that the fast
// path does not handle: any of them disables the fast path.
var assertions = map[string]bool{
	"$ref": true, "$dynamicRef": true, "$recursiveRef": true, "$dynamicAnchor": true, "$recursiveAnchor": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true,
	"dependentRequired": true, "dependentSchemas": true, "dependencies": true, "patternProperties": true,
	"propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true, "contains": true,
	"minContains": true, "maxContains": true, "prefixItems": true, "additionalItems": true,
	"uniqueItems": true, "multipleOf": true, "minProperties": true, "maxProperties": true, "format": true,
	"$vocabulary": true,
}

// compileFast returns the fast validator for the decoded schema doc, or nil
// when the schema uses anything outside the subset. draft-04 (boolean
// exclusive bounds) and format assertion are left to the library.
func compileFast(doc any, assertFormat bool) *fastNode {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	if s, _ := m["$schema"].(string); s != "" && !strings.Contains(s, "2020-12") && !strings.Contains(s, "2019-09") && !strings.Contains(s, "draft-07") && !strings.Contains(s, "draft-06") {
		return nil
	}
	// Drafts 2019-09 and 2020-12 treat "format" as an annotation unless
	// asked to assert it; older drafts assert it.
	s, _ := m["$schema"].(string)
	c := fastCompiler{formatAnnotation: !assertFormat && (s == "" || strings.Contains(s, "2020-12") || strings.Contains(s, "2019-09"))}
	return c.compile(doc, 0)
}

type fastCompiler struct {
	formatAnnotation bool
}

func (c fastCompiler) compile(v any, depth int) *fastNode {
	if depth > 64 {
		return nil
	}
	switch v := v.(type) {
	case bool:
		if v {
			return &fastNode{always: 1}
		}
		return &fastNode{always: -1}
	case map[string]any:
		n := &fastNode{types: tAny, maxLen: -1, maxItems: -1}
		for k, x := range v {
			switch {
			case annotations[k], k == "format" && c.formatAnnotation:
			case assertions[k]:
				return nil
			case k == "type":
				n.types = 0
				switch t := x.(type) {
				case string:
					b, ok := fastTypeBits[t]
					if !ok {
						return nil
					}
					n.types = b
				case []any:
					for _, e := range t {
						s, _ := e.(string)
						b, ok := fastTypeBits[s]
						if !ok {
							return nil
						}
						n.types |= b
					}
				default:
					return nil
				}
			case k == "properties":
				props, ok := x.(map[string]any)
				if !ok {
					return nil
				}
				n.props = make(map[string]*fastNode, len(props))
				for name, sub := range props {
					c := c.compile(sub, depth+1)
					if c == nil {
						return nil
					}
					n.props[name] = c
				}
			case k == "required":
				arr, ok := x.([]any)
				if !ok || len(arr) > 64 {
					return nil
				}
				for _, e := range arr {
					s, ok := e.(string)
					if !ok {
						return nil
					}
					n.required = append(n.required, s)
				}
			case k == "additionalProperties":
				if b, ok := x.(bool); ok && !b {
					n.closed = true
					continue
				}
				if n.addl = c.compile(x, depth+1); n.addl == nil {
					return nil
				}
			case k == "items":
				if n.items = c.compile(x, depth+1); n.items == nil {
					return nil
				}
			case k == "enum" || k == "const":
				vals := []any{x}
				if k == "enum" {
					arr, ok := x.([]any)
					if !ok {
						return nil
					}
					vals = arr
				}
				if n.hasEnum { // both enum and const: leave it to the library
					return nil
				}
				n.hasEnum = true
				for _, e := range vals {
					switch e := e.(type) {
					case string:
						n.enum = append(n.enum, string(strictjson.AppendQuote(nil, e)))
					case bool:
						n.enum = append(n.enum, strconv.FormatBool(e))
					case nil:
						n.enum = append(n.enum, "null")
					case json.Number:
						n.enum = append(n.enum, string(e))
					default:
						return nil
					}
				}
			case k == "minimum" || k == "maximum" || k == "exclusiveMinimum" || k == "exclusiveMaximum":
				f, ok := exactFloat(x)
				if !ok {
					return nil
				}
				switch k {
				case "minimum":
					if n.hasMin {
						return nil
					}
					n.min, n.hasMin = f, true
				case "exclusiveMinimum":
					if n.hasMin {
						return nil
					}
					n.min, n.hasMin, n.xmin = f, true, true
				case "maximum":
					if n.hasMax {
						return nil
					}
					n.max, n.hasMax = f, true
				case "exclusiveMaximum":
					if n.hasMax {
						return nil
					}
					n.max, n.hasMax, n.xmax = f, true, true
				}
			case k == "minLength" || k == "maxLength" || k == "minItems" || k == "maxItems":
				num, ok := x.(json.Number)
				if !ok {
					return nil
				}
				i, err := strconv.Atoi(string(num))
				if err != nil || i < 0 {
					return nil
				}
				switch k {
				case "minLength":
					n.minLen = i
				case "maxLength":
					n.maxLen = i
				case "minItems":
					n.minItems = i
				case "maxItems":
					n.maxItems = i
				}
			case k == "pattern":
				s, ok := x.(string)
				if !ok {
					return nil
				}
				re, err := regexp.Compile(s)
				if err != nil {
					return nil
				}
				n.pattern = re
			case strings.HasPrefix(k, "$"):
				return nil // a keyword of some vocabulary we do not know
			default:
				// Unknown keywords ("nullable", "x-…") are annotations to
				// the library too.
			}
		}
		return n
	}
	return nil
}

// exactFloat returns a schema number as a float64 when the conversion is
// exact enough to compare with instance numbers of 15 significant digits.
func exactFloat(x any) (float64, bool) {
	num, ok := x.(json.Number)
	if !ok || significantDigits(string(num)) > 15 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(num), 64)
	return f, err == nil && !math.IsInf(f, 0)
}

func significantDigits(s string) int {
	n, leading := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			break
		}
		if c < '0' || c > '9' {
			continue
		}
		if c == '0' && leading {
			continue
		}
		leading = false
		n++
	}
	return n
}

// valid reports whether v (checked JSON) certainly matches the schema.
func (n *fastNode) valid(v []byte, depth int) bool {
	if n.always != 0 {
		return n.always > 0
	}
	if depth > 128 {
		return false
	}
	if n.hasEnum {
		if !n.enumHas(v) {
			return false
		}
	}
	switch strictjson.KindOf(v) {
	case strictjson.Null:
		return n.types&tNull != 0
	case strictjson.Bool:
		return n.types&tBool != 0
	case strictjson.Number:
		return n.number(v)
	case strictjson.String:
		return n.str(v)
	case strictjson.Array:
		return n.array(v, depth)
	case strictjson.Object:
		return n.object(v, depth)
	}
	return false
}

func (n *fastNode) enumHas(v []byte) bool {
	for _, e := range n.enum {
		if string(v) == e {
			return true
		}
	}
	return false // different spellings of one value go to the library
}

func (n *fastNode) number(v []byte) bool {
	s := string(v) // does not allocate: used only for parsing below
	integral := !strings.ContainsAny(s, ".eE")
	switch {
	case n.types&tNumber != 0:
	case n.types&tInteger != 0 && integral:
	default:
		return false
	}
	if !n.hasMin && !n.hasMax {
		return true
	}
	if significantDigits(s) > 15 {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	if n.hasMin && (f < n.min || n.xmin && f == n.min) {
		return false
	}
	if n.hasMax && (f > n.max || n.xmax && f == n.max) {
		return false
	}
	return true
}

func (n *fastNode) str(v []byte) bool {
	if n.types&tString == 0 {
		return false
	}
	if n.minLen == 0 && n.maxLen < 0 && n.pattern == nil {
		return true
	}
	if len(v) < 2 {
		return false
	}
	body := v[1 : len(v)-1]
	if hasByte(body, '\\') {
		return false // escapes: let the library count and match
	}
	l := utf8.RuneCount(body)
	if l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
		return false
	}
	return n.pattern == nil || n.pattern.Match(body)
}

func (n *fastNode) array(v []byte, depth int) bool {
	if n.types&tArray == 0 {
		return false
	}
	count := 0
	ok := true
	_ = strictjson.Elements(v, func(_ int, e []byte) error {
		count++
		if n.items != nil && !n.items.valid(e, depth+1) {
			ok = false
			return errFastStop
		}
		return nil
	})
	return ok && count >= n.minItems && (n.maxItems < 0 || count <= n.maxItems)
}

func (n *fastNode) object(v []byte, depth int) bool {
	if n.types&tObject == 0 {
		return false
	}
	var seen uint64
	ok := true
	_ = strictjson.Members(v, func(k, e []byte) error {
		if sub, found := n.props[string(k)]; found {
			if !sub.valid(e, depth+1) {
				ok = false
				return errFastStop
			}
			for i, r := range n.required {
				if r == string(k) {
					seen |= 1 << i
				}
			}
			return nil
		}
		for i, r := range n.required {
			if r == string(k) {
				seen |= 1 << i
			}
		}
		switch {
		case n.closed:
			ok = false
			return errFastStop
		case n.addl != nil && !n.addl.valid(e, depth+1):
			ok = false
			return errFastStop
		}
		return nil
	})
	return ok && seen == (uint64(1)<<len(n.required))-1
}

type fastStop struct{}

func (fastStop) Error() string { return "stop" }

var errFastStop error = fastStop{}
