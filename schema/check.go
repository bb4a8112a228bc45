// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

// This file is deliberately independent of the lowering code: it decodes
// with encoding/json, walks with its own traversal and states each
// provider's rules in its own tables, so that tests can use Check to
// verify Lower. Do not share helpers with lower*.go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// Problem is one reason a provider would refuse a tool.
type Problem struct {
	// Pointer is the JSON Pointer of the offending value in the schema, or
	// "/name" for the tool name.
	Pointer string `json:"pointer"`
	// Rule is a stable kebab-case identifier of the rule broken.
	Rule string `json:"rule"`
	// Message says what is wrong, for people.
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Pointer == "" {
		return p.Rule + ": " + p.Message
	}
	return p.Pointer + ": " + p.Rule + ": " + p.Message
}

// Check reports every reason target t would refuse a tool called name
// with input schema raw; none means t accepts it as it is. It checks the
// schema against the provider's documented rules, not against lowering;
// [Lower] output is expected to pass it, and the tests rely on that. An
// empty raw means the tool has no input schema (codecs write the empty
// schema the provider wants), so only the name is checked.
func Check(t Target, name string, raw json.RawMessage) []Problem {
	c := &checker{t: t}
	switch t {
	case OpenAI, OpenAIStrict, Anthropic, AnthropicStrict, Gemini, GeminiJSON, MCP:
	default:
		c.add("", "target", fmt.Sprintf("unknown target %q", string(t)))
		return c.probs
	}
	c.checkName(name)
	if len(raw) == 0 {
		// No input schema: codecs write the empty schema the provider wants.
		return c.probs
	}
	if err := strictjson.Check(raw, nil); err != nil {
		c.add("", "malformed", "schema is not strict JSON: "+err.Error())
		return c.probs
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		c.add("", "malformed", "schema does not decode: "+err.Error())
		return c.probs
	}
	root, ok := doc.(map[string]any)
	if !ok {
		c.add("", "not-object", "schema is not a JSON object")
		return c.probs
	}
	c.root(root)
	c.visit(root, "", 1)
	if t == OpenAIStrict {
		if c.props > 5000 {
			c.add("", "limit", fmt.Sprintf("%d properties; OpenAI strict mode allows 5000", c.props))
		}
		if c.depth > 10 {
			c.add("", "limit", fmt.Sprintf("%d levels of nesting; OpenAI strict mode allows 10", c.depth))
		}
	}
	sort.SliceStable(c.probs, func(i, j int) bool { return c.probs[i].Pointer < c.probs[j].Pointer })
	return c.probs
}

type checker struct {
	t     Target
	probs []Problem
	props int
	depth int
}

func (c *checker) add(ptr, rule, msg string) {
	c.probs = append(c.probs, Problem{Pointer: ptr, Rule: rule, Message: msg})
}

var (
	nameOpenAI = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	nameGemini = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)
	nameMCP    = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
)

func (c *checker) checkName(name string) {
	re := nameOpenAI
	switch c.t {
	case Gemini, GeminiJSON:
		re = nameGemini
	case MCP:
		re = nameMCP
	}
	if !re.MatchString(name) {
		c.add("/name", "name", fmt.Sprintf("tool name %q does not match %s", name, re))
	}
}

func (c *checker) root(s map[string]any) {
	want := "object"
	if c.t == Gemini {
		want = "OBJECT"
	}
	if ty, _ := s["type"].(string); ty != want {
		c.add("/type", "root-type", fmt.Sprintf(`root "type" must be %q`, want))
	}
	switch c.t {
	case Anthropic, AnthropicStrict, OpenAIStrict, Gemini:
		for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
			if _, ok := s[kw]; ok {
				c.add("/"+kw, "root-combinator", fmt.Sprintf("%s at the root is refused", kw))
			}
		}
	}
}

// Per-target keyword sets, written out here rather than shared with the
// lowering tables.
var (
	checkOpenAIStrictAllowed = set("type", "properties", "required", "additionalProperties", "items", "enum",
		"const", "anyOf", "$ref", "$defs", "definitions", "description", "title", "pattern", "format",
		"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems")
	checkOpenAIFormats = set("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid")

	checkAnthropicStrictRefused = set("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "maxItems", "minProperties", "maxProperties", "uniqueItems", "contains",
		"minContains", "maxContains", "patternProperties", "propertyNames", "unevaluatedProperties",
		"unevaluatedItems", "dependentRequired", "dependentSchemas", "dependencies", "not", "if", "then",
		"else", "prefixItems", "additionalItems", "oneOf")
	checkAnthropicFormats = set("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid")

	checkGeminiAllowed = set("type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
		"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern",
		"example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum")
	checkGeminiTypes   = set("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT")
	checkGeminiFormats = map[string]map[string]bool{
		"STRING":  set("enum", "date-time"),
		"NUMBER":  set("float", "double"),
		"INTEGER": set("int32", "int64"),
	}
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func esc(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// describesObject reports whether the schema s is about objects.
func describesObject(s map[string]any) bool {
	switch ty := s["type"].(type) {
	case string:
		return ty == "object" || ty == "OBJECT"
	case []any:
		for _, x := range ty {
			if x == "object" {
				return true
			}
		}
		return false
	case nil:
		_, p := s["properties"]
		return p
	}
	return false
}

// visit checks the schema s at ptr; level counts nested object and array
// levels, as OpenAI counts nesting.
func (c *checker) visit(s map[string]any, ptr string, level int) {
	if level > strictjson.DefaultMaxDepth {
		return
	}
	if level > c.depth {
		c.depth = level
	}
	switch c.t {
	case OpenAIStrict:
		c.openAIStrict(s, ptr)
	case AnthropicStrict:
		c.anthropicStrict(s, ptr)
	case Gemini:
		c.gemini(s, ptr)
	}
	if c.t == GeminiJSON || c.t == Gemini {
		if r, ok := s["$ref"].(string); ok && !strings.HasPrefix(r, "#") {
			c.add(ptr+"/$ref", "remote-ref", "references outside the schema are refused")
		}
	}
	if p, ok := s["properties"].(map[string]any); ok {
		c.props += len(p)
	}
	for _, kw := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"} {
		m, _ := s[kw].(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		next := level
		if kw == "properties" || kw == "patternProperties" {
			next = level + 1
		}
		for _, k := range keys {
			if sub, ok := m[k].(map[string]any); ok {
				c.visit(sub, ptr+"/"+kw+"/"+esc(k), next)
			}
		}
	}
	for _, kw := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"} {
		if sub, ok := s[kw].(map[string]any); ok {
			next := level
			if kw == "items" || kw == "additionalProperties" {
				next = level + 1
			}
			c.visit(sub, ptr+"/"+kw, next)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"} {
		arr, _ := s[kw].([]any)
		for i, x := range arr {
			if sub, ok := x.(map[string]any); ok {
				c.visit(sub, ptr+"/"+kw+"/"+strconv.Itoa(i), level)
			}
		}
	}
}

func (c *checker) openAIStrict(s map[string]any, ptr string) {
	for k, v := range s {
		if !checkOpenAIStrictAllowed[k] {
			c.add(ptr+"/"+esc(k), "keyword", fmt.Sprintf("%q is not supported in OpenAI strict mode", k))
			continue
		}
		switch k {
		case "format":
			if f, _ := v.(string); !checkOpenAIFormats[f] {
				c.add(ptr+"/format", "format", "format not supported in OpenAI strict mode")
			}
		case "items":
			if _, ok := v.(map[string]any); !ok {
				if _, ok := v.(bool); !ok {
					c.add(ptr+"/items", "keyword", "items must be one schema")
				}
			}
		}
	}
	c.closedRequired(s, ptr)
	if describesObject(s) {
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			c.add(ptr, "open-object", `objects need "additionalProperties": false`)
		}
		props, _ := s["properties"].(map[string]any)
		req := map[string]bool{}
		if arr, ok := s["required"].([]any); ok {
			for _, x := range arr {
				if n, ok := x.(string); ok {
					req[n] = true
				}
			}
		}
		var missing []string
		for k := range props {
			if !req[k] {
				missing = append(missing, k)
			}
		}
		sort.Strings(missing)
		for _, k := range missing {
			c.add(ptr+"/properties/"+esc(k), "not-required", fmt.Sprintf("property %q must be listed in required", k))
		}
	}
}

func (c *checker) anthropicStrict(s map[string]any, ptr string) {
	for k, v := range s {
		if checkAnthropicStrictRefused[k] {
			c.add(ptr+"/"+esc(k), "keyword", fmt.Sprintf("%q is not supported in Anthropic strict tool use", k))
		}
		switch k {
		case "format":
			if f, _ := v.(string); !checkAnthropicFormats[f] {
				c.add(ptr+"/format", "format", "format not supported in Anthropic strict tool use")
			}
		case "minItems":
			if n, _ := v.(json.Number); n != "0" && n != "1" {
				c.add(ptr+"/minItems", "min-items", "minItems must be 0 or 1")
			}
		case "items":
			if _, ok := v.([]any); ok {
				c.add(ptr+"/items", "keyword", "tuple items are not supported")
			}
		}
	}
	c.closedRequired(s, ptr)
	if describesObject(s) {
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			c.add(ptr, "open-object", `objects need "additionalProperties": false`)
		}
	}
}

// closedRequired reports the names "required" lists that a closed object
// ("additionalProperties": false) does not declare: no call can satisfy
// them, so a strict provider's constrained decoding cannot produce one.
func (c *checker) closedRequired(s map[string]any, ptr string) {
	if ap, ok := s["additionalProperties"].(bool); !ok || ap {
		return
	}
	if _, ok := s["patternProperties"]; ok {
		return
	}
	props, _ := s["properties"].(map[string]any)
	arr, _ := s["required"].([]any)
	for i, x := range arr {
		if n, ok := x.(string); ok {
			if _, ok := props[n]; ok {
				continue
			}
		}
		c.add(ptr+"/required/"+strconv.Itoa(i), "undeclared-required", "a required name the closed object does not declare: no call can satisfy it")
	}
}

func (c *checker) gemini(s map[string]any, ptr string) {
	for k := range s {
		if !checkGeminiAllowed[k] {
			c.add(ptr+"/"+esc(k), "keyword", fmt.Sprintf("%q is not a field of Gemini's Schema", k))
		}
	}
	ty, hasType := s["type"]
	tyName, isString := ty.(string)
	if hasType {
		if !isString {
			c.add(ptr+"/type", "type-list", "Gemini takes one type per schema")
		} else if !checkGeminiTypes[tyName] {
			c.add(ptr+"/type", "type-case", fmt.Sprintf("type %q is not one of Gemini's upper-case types", tyName))
		}
	}
	if f, ok := s["format"].(string); ok && !checkGeminiFormats[tyName][f] {
		c.add(ptr+"/format", "format", fmt.Sprintf("format %q is not supported for this type", f))
	}
	if e, ok := s["enum"].([]any); ok {
		for i, v := range e {
			if _, ok := v.(string); !ok {
				c.add(ptr+"/enum/"+strconv.Itoa(i), "enum-type", "Gemini enums are strings only")
			}
		}
		if tyName != "STRING" {
			c.add(ptr+"/enum", "enum-type", `an enum needs "type": "STRING"`)
		}
	}
	if n, ok := s["nullable"]; ok {
		if _, ok := n.(bool); !ok {
			c.add(ptr+"/nullable", "nullable", "nullable must be a boolean")
		}
	}
	if _, ok := s["items"].([]any); ok {
		c.add(ptr+"/items", "keyword", "tuple items are not supported")
	}
	if req, ok := s["required"].([]any); ok {
		props, _ := s["properties"].(map[string]any)
		for i, r := range req {
			name, _ := r.(string)
			if _, ok := props[name]; !ok {
				c.add(ptr+"/required/"+strconv.Itoa(i), "required-unknown", "required names a property that is not defined")
			}
		}
	}
}
