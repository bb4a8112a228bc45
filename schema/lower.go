// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

var (
	// ErrUnknownTarget reports a Target that is not one of [Targets].
	ErrUnknownTarget = errors.New("schema: unknown target")
	// ErrUnsupported reports a schema that cannot be lowered to a target
	// without changing what it means beyond repair, such as a root that is
	// not an object.
	ErrUnsupported = errors.New("schema: cannot lower")
)

// Limits used by the lowering passes.
const (
	// DefaultRecursionDepth is how many times a recursive $ref is expanded
	// when a target (Gemini "parameters") cannot express references.
	DefaultRecursionDepth = 3
	// maxFlattenDepth bounds nested root anyOf/oneOf/allOf expansion.
	maxFlattenDepth = 3
	// maxInlineNodes bounds the size of a schema after $ref inlining, so a
	// small schema with many references to large definitions cannot blow up.
	maxInlineNodes = 100000
	// OpenAI's published limits for strict mode.
	openAIMaxProperties = 5000
	openAIMaxDepth      = 10
)

// The warning codes Lower emits. They are stable: callers may match them.
const (
	CodeRootTypeAdded       = "root-type-added"
	CodeRootTypeNarrowed    = "root-type-narrowed"
	CodeRootFlattened       = "root-combinator-flattened"
	CodePropertyConflict    = "property-conflict"
	CodeBranchKeywordDrop   = "branch-keyword-dropped"
	CodeObjectClosed        = "object-closed"
	CodeMadeNullable        = "optional-made-nullable"
	CodeOneOfToAnyOf        = "one-of-to-any-of"
	CodeAllOfMerged         = "all-of-merged"
	CodeKeywordMoved        = "keyword-moved"
	CodeKeywordRemoved      = "keyword-removed"
	CodeTypeAdded           = "type-added"
	CodeLimitExceeded       = "limit-exceeded"
	CodeRefInlined          = "ref-inlined"
	CodeRecursionCut        = "recursion-cut"
	CodeDefsRemoved         = "defs-removed"
	CodeNullableRewritten   = "nullable-rewritten"
	CodeTypeArraySplit      = "type-array-split"
	CodeConstToEnum         = "const-to-enum"
	CodeEnumStringified     = "enum-stringified"
	CodeEnumToItems         = "enum-moved-to-items"
	CodeRequiredPruned      = "required-pruned"
	CodeTypesUppercased     = "types-uppercased"
	CodeExamplesToExample   = "examples-to-example"
	CodeTupleItemsRewritten = "tuple-items-rewritten"
	CodeOutputNotObject     = "output-not-object"
)

// Lower rewrites the JSON Schema raw so that the target provider accepts
// it, and reports every change as a [tool.Warning] whose Pointer names the
// place in raw it concerns. It is a pure function: the same input gives
// the same bytes. A schema the target accepts as it is comes back as raw
// itself, byte for byte; a changed schema comes back compact, with every
// object's members in their original order (new members are appended,
// except a root "type", which comes first).
//
// The rules per target are in the package documentation. The error is a
// [*SchemaError] matching ErrInvalidSchema (not a JSON object, malformed,
// a $ref that points nowhere), ErrRemoteRef, or ErrUnsupported (a root that
// cannot be made an object); or ErrUnknownTarget.
func Lower(t Target, raw json.RawMessage) (json.RawMessage, []tool.Warning, error) {
	if !t.valid() {
		return nil, nil, fmt.Errorf("%w: %q", ErrUnknownTarget, string(t))
	}
	if err := strictjson.Check(raw, nil); err != nil {
		ptr, detail := strictDetail(err)
		return nil, nil, &SchemaError{Err: ErrInvalidSchema, Pointer: ptr, Detail: detail, Cause: err}
	}
	return LowerChecked(t, raw)
}

// LowerChecked is [Lower] for bytes that already passed strictjson.Check
// with its default limits, as every schema a codec decoded has: it skips
// the second check, which costs more than lowering a schema the target
// accepts. On bytes that did not pass the check it never panics, but its
// result is unspecified.
func LowerChecked(t Target, raw json.RawMessage) (json.RawMessage, []tool.Warning, error) {
	if !t.valid() {
		return nil, nil, fmt.Errorf("%w: %q", ErrUnknownTarget, string(t))
	}
	if k := strictjson.KindOf(raw); k != strictjson.Object {
		return nil, nil, &SchemaError{Err: ErrInvalidSchema, Detail: "schema is a JSON " + k.String() + ", not an object"}
	}
	if quickAccept(t, raw) {
		return raw, nil, nil
	}
	l := &lowerer{t: t, root: parseNode(raw)}
	if err := l.run(); err != nil {
		return nil, nil, err
	}
	if len(l.warns) == 0 {
		return raw, nil, nil
	}
	if l.root.depth(0) > strictjson.DefaultMaxDepth {
		// Wrapping (anyOf for nullability, type lists) adds levels; what
		// strictjson would refuse must not come out.
		return nil, nil, l.fail(ErrUnsupported, "", "schema nested too deeply once lowered")
	}
	out := l.root.encode(make([]byte, 0, len(raw)+len(raw)/4))
	return out, l.warns, nil
}

func (t Target) valid() bool {
	switch t {
	case OpenAI, OpenAIStrict, Anthropic, AnthropicStrict, Gemini, GeminiJSON, MCP:
		return true
	}
	return false
}

// quickAccept reports, from a scan of the bytes, that t needs no change to
// raw. It only answers for targets whose rules concern the root alone;
// the others always build the tree (and still return raw unchanged when no
// pass changed anything).
func quickAccept(t Target, raw []byte) bool {
	switch t {
	case OpenAI, MCP, Anthropic, GeminiJSON:
	default:
		return false
	}
	var typeObject, combinator bool
	if t != Anthropic || !mayHaveCombinator(raw) {
		// Only the root "type" matters: stop there rather than skip the
		// rest of the root's members ("properties" is most of a schema).
		typeObject = rootTypeObject(raw)
	} else {
		typeObject, combinator = rootScan(raw)
	}
	if !typeObject {
		return false
	}
	switch t {
	case Anthropic:
		return !combinator
	case GeminiJSON:
		return !hasRef(raw)
	}
	return true
}

// rootScan reads every member of the root: whether "type" is "object",
// and whether there is an anyOf, oneOf or allOf.
func rootScan(raw []byte) (typeObject, combinator bool) {
	_ = strictjson.Members(raw, func(k, v []byte) error {
		switch string(k) {
		case "type":
			typeObject = string(v) == `"object"`
		case "anyOf", "oneOf", "allOf":
			combinator = true
		}
		return nil
	})
	return typeObject, combinator
}

// rootTypeObject reports whether the root's "type" is "object", reading
// the members only up to "type" (checked bytes have one).
func rootTypeObject(raw []byte) bool {
	typeObject := false
	_, _ = strictjson.WalkObject(raw, 0, func(k []byte, vs int) (int, error) {
		if string(k) != "type" {
			return -1, nil
		}
		ve := strictjson.SkipValue(raw, vs)
		typeObject = string(raw[vs:ve]) == `"object"`
		return ve, errStopScan
	})
	return typeObject
}

var errStopScan = errors.New("stop")

// mayHaveCombinator reports whether raw may hold a member named anyOf,
// oneOf or allOf anywhere. It is false only when no such name is written:
// not literally, and not with a \u escape (the only escape that spells a
// letter), so two quick searches spare a walk of the whole schema.
func mayHaveCombinator(raw []byte) bool {
	if bytes.Contains(raw, []byte(`\u`)) {
		return true
	}
	// 'O' is rare in schemas, unlike the '"' that starts the names.
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`Of"`))
		if j < 0 {
			return false
		}
		if k := i + j; k >= 4 {
			switch string(raw[k-4 : k]) {
			case `"any`, `"one`, `"all`:
				return true
			}
		}
		i += j + 3
	}
}

// hasRef reports whether the bytes hold the name "$ref" anywhere; a cheap
// over-approximation of "the schema has a reference".
func hasRef(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"$ref"`))
}

// lowerer holds the state of one Lower call.
type lowerer struct {
	t     Target
	root  *node
	warns []tool.Warning
	nodes int   // inlining budget used
	err   error // the first error of a pass that cannot return one
}

func (l *lowerer) setErr(err error) {
	if l.err == nil {
		l.err = err
	}
}

func (l *lowerer) warn(ptr, code, msg string) {
	l.warns = append(l.warns, tool.Warning{Pointer: ptr, Code: code, Message: msg})
}

func (l *lowerer) fail(err error, ptr, detail string) error {
	return &SchemaError{Err: err, Pointer: ptr, Detail: string(l.t) + ": " + detail}
}

func (l *lowerer) run() error {
	switch l.t {
	case AnthropicStrict, Anthropic, OpenAIStrict, Gemini:
		if err := l.flattenRoot(l.root, "", 0); err != nil {
			return err
		}
	}
	if l.t == Gemini {
		if err := l.inlineRefs(); err != nil {
			return err
		}
	}
	if err := l.rootType(); err != nil {
		return err
	}
	switch l.t {
	case GeminiJSON:
		return l.refuseRemoteRefs(l.root, "")
	case OpenAIStrict:
		l.walk(l.root, "", 0, l.openAIStrict)
		l.openAILimits()
	case AnthropicStrict:
		l.walk(l.root, "", 0, l.anthropicStrict)
	case Gemini:
		l.walk(l.root, "", 0, l.gemini)
		l.upperTypes()
	}
	return l.err
}

// rootType makes the root "type" "object".
func (l *lowerer) rootType() error {
	t := l.root.get("type")
	if t == nil {
		l.root.setFirst("type", newString("object"))
		l.warn("", CodeRootTypeAdded, `root "type": "object" added; tool arguments are always an object`)
		return nil
	}
	if s, ok := t.str(); ok {
		if s == "object" || (l.t == Gemini && s == "OBJECT") {
			return nil
		}
		return l.fail(ErrUnsupported, "/type", fmt.Sprintf("root type is %q; tool arguments must be an object", s))
	}
	if t.isArray() {
		for _, e := range t.vals {
			if s, _ := e.str(); s == "object" {
				l.root.set("type", newString("object"))
				l.warn("/type", CodeRootTypeNarrowed, `root "type" narrowed to "object"; tool arguments are always an object`)
				return nil
			}
		}
	}
	return l.fail(ErrUnsupported, "/type", "root type does not allow an object")
}

// refuseRemoteRefs fails on a $ref that leaves the document.
func (l *lowerer) refuseRemoteRefs(n *node, ptr string) error {
	if n.isObject() {
		for i, k := range n.keys {
			if k == "$ref" {
				if s, ok := n.vals[i].str(); ok && !strings.HasPrefix(s, "#") {
					return l.fail(ErrRemoteRef, ptr+"/$ref", fmt.Sprintf("reference to %q leaves the schema", s))
				}
			}
			if err := l.refuseRemoteRefs(n.vals[i], ptr+"/"+strictjson.EscapePointer(k)); err != nil {
				return err
			}
		}
	} else if n.isArray() {
		for i, e := range n.vals {
			if err := l.refuseRemoteRefs(e, ptr+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Subschema positions: keywords whose value is a schema, an array of
// schemas, or an object of schemas.
var (
	schemaKeywords = []string{"additionalProperties", "items", "not", "if", "then", "else", "contains",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema"}
	schemaArrayKeywords = []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"}
	schemaMapKeywords   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// walk calls fn on every subschema, parents before children; fn returns
// the (possibly replaced) node. Children are visited after fn returns, so
// fn may restructure them first.
func (l *lowerer) walk(n *node, ptr string, depth int, fn func(n *node, ptr string, depth int) *node) *node {
	if !n.isObject() || depth > strictjson.DefaultMaxDepth {
		return n
	}
	n = fn(n, ptr, depth)
	if !n.isObject() {
		return n
	}
	for _, kw := range schemaKeywords {
		if c := n.get(kw); c.isObject() {
			n.set(kw, l.walk(c, ptr+"/"+kw, depth+1, fn))
		}
	}
	for _, kw := range schemaArrayKeywords {
		if c := n.get(kw); c.isArray() {
			for i, e := range c.vals {
				c.vals[i] = l.walk(e, ptr+"/"+kw+"/"+strconv.Itoa(i), depth+1, fn)
			}
		}
	}
	for _, kw := range schemaMapKeywords {
		if c := n.get(kw); c.isObject() {
			for i, k := range c.keys {
				c.vals[i] = l.walk(c.vals[i], ptr+"/"+kw+"/"+strictjson.EscapePointer(k), depth+1, fn)
			}
		}
	}
	if l.t == OpenAIStrict {
		l.requireAll(n, ptr)
	}
	return n
}

// describeMoved appends the moved keywords to n's description, in one
// parenthesis.
func describeMoved(n *node, moved []string) {
	if len(moved) == 0 {
		return
	}
	note := "(" + strings.Join(moved, "; ") + ")"
	if d, ok := n.get("description").str(); ok && d != "" {
		n.set("description", newString(d+" "+note))
		return
	}
	n.set("description", newString(note))
}

// movedText renders one keyword for a description: strings bare, other
// values as compact JSON.
func movedText(k string, v *node) string {
	if s, ok := v.str(); ok {
		return k + ": " + s
	}
	return k + ": " + string(v.encode(nil))
}

// typeNames returns the types a schema node names in "type".
func typeNames(n *node) []string {
	t := n.get("type")
	if s, ok := t.str(); ok {
		return []string{s}
	}
	var out []string
	if t.isArray() {
		for _, e := range t.vals {
			if s, ok := e.str(); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func hasType(n *node, want string) bool {
	t := n.get("type")
	if s, ok := t.str(); ok {
		return strings.EqualFold(s, want)
	}
	if t.isArray() {
		for _, e := range t.vals {
			if s, ok := e.str(); ok && strings.EqualFold(s, want) {
				return true
			}
		}
	}
	return false
}

// isObjectSchema reports whether n describes objects.
func isObjectSchema(n *node) bool {
	if hasType(n, "object") {
		return true
	}
	return n.get("type") == nil && (n.has("properties") || n.has("required"))
}
