// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// The conditions callers branch on.
var (
	// ErrInvalidSchema reports a schema that cannot be used: not a JSON
	// object, malformed, invalid against its draft's metaschema, or with a
	// $ref that cannot be resolved or that loops on itself.
	ErrInvalidSchema = errors.New("schema: invalid schema")
	// ErrRemoteRef reports a $ref to a document outside the schema when no
	// [ResolveOptions.Loader] is configured.
	ErrRemoteRef = errors.New("schema: remote $ref refused")
	// ErrInvalid reports an instance that does not match its schema; the
	// error is a [*ValidationError].
	ErrInvalid = errors.New("schema: invalid arguments")
)

// baseURI names the schema being resolved, so that relative references
// have something to resolve against. The host cannot exist (RFC 6761), so a
// reference that escapes the document is always a request to the loader.
const baseURI = "https://schema.toolgate.invalid/root.json"

// SchemaError is a problem found in a schema.
type SchemaError struct {
	// Err is ErrInvalidSchema or ErrRemoteRef.
	Err error
	// Pointer is the JSON Pointer, within the schema, of the problem.
	Pointer string
	// Detail says more, for people.
	Detail string
	// Cause is the underlying error, if any.
	Cause error
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	b.WriteString(" at ")
	if e.Pointer == "" {
		b.WriteString("schema root")
	} else {
		b.WriteString(e.Pointer)
	}
	return b.String()
}

// Unwrap returns both the sentinel and the cause, so errors.Is matches
// either.
func (e *SchemaError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

// ResolveOptions configures [Resolve]. A nil *ResolveOptions uses the
// defaults.
type ResolveOptions struct {
	// Loader returns the document named by an absolute URI that a $ref
	// points to outside the schema. If nil, such references are refused
	// with ErrRemoteRef: fetching them would let a schema author make the
	// process open network connections or read files.
	Loader func(uri string) (json.RawMessage, error)
	// AssertFormat makes "format" an assertion in every draft (by default
	// only draft-07 and earlier assert it, as the drafts say).
	AssertFormat bool
	// MaxCacheEntries bounds a [Cache] built with these options: when it
	// holds this many schemas it starts over, so that a stream of distinct
	// schemas cannot grow memory without end. If zero,
	// [DefaultMaxCacheEntries]; a negative value turns the bound off.
	// [Resolve] ignores it.
	MaxCacheEntries int
}

// Resolved is a compiled schema, ready to validate instances. It is
// immutable and safe for concurrent use.
type Resolved struct {
	raw    json.RawMessage
	doc    any
	sch    *jsonschema.Schema
	intern map[string]string
	fast   *fastNode // nil when the schema is outside the fast subset
}

// Raw returns the schema bytes the Resolved was built from. The caller
// must not modify them.
func (r *Resolved) Raw() json.RawMessage { return r.raw }

// Resolve checks and compiles the JSON Schema raw. The draft is chosen by
// "$schema" (draft-04, -06, -07, 2019-09 and 2020-12 are known); without
// it, 2020-12. References inside the document ("#/$defs/x",
// "#/definitions/x", anchors) resolve; any other reference is handed to
// [ResolveOptions.Loader] or refused. Every error is a [*SchemaError]
// naming a JSON Pointer within raw.
func Resolve(raw json.RawMessage, opts *ResolveOptions) (*Resolved, error) {
	var o ResolveOptions
	if opts != nil {
		o = *opts
	}
	if err := strictjson.Check(raw, nil); err != nil {
		ptr, detail := strictDetail(err)
		return nil, &SchemaError{Err: ErrInvalidSchema, Pointer: ptr, Detail: detail, Cause: err}
	}
	if k := strictjson.KindOf(raw); k != strictjson.Object {
		return nil, &SchemaError{Err: ErrInvalidSchema, Detail: "schema is a JSON " + k.String() + ", not an object"}
	}
	own := append(json.RawMessage(nil), raw...)
	intern := make(map[string]string)
	doc := decodeChecked(own, nil)
	collectNames(doc, intern, 0)
	if err := checkRefCycles(doc); err != nil {
		return nil, err
	}

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if o.AssertFormat {
		c.AssertFormat()
	}
	c.UseLoader(loader{fn: o.Loader})
	if err := c.AddResource(baseURI, doc); err != nil {
		return nil, &SchemaError{Err: ErrInvalidSchema, Detail: "cannot add schema", Cause: err}
	}
	sch, err := c.Compile(baseURI)
	if err != nil {
		return nil, compileError(err)
	}
	return &Resolved{raw: own, doc: doc, sch: sch, intern: intern, fast: compileFast(doc, o.AssertFormat)}, nil
}

// collectNames records every object name in the schema (property names
// among them) so that decoding an instance can reuse the strings.
func collectNames(v any, into map[string]string, depth int) {
	if depth > 64 || len(into) > 4096 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			into[k] = k
			collectNames(x, into, depth+1)
		}
	case []any:
		for _, x := range v {
			collectNames(x, into, depth+1)
		}
	}
}

// loader adapts ResolveOptions.Loader to the compiler, refusing every URI
// when it is nil.
type loader struct {
	fn func(uri string) (json.RawMessage, error)
}

func (l loader) Load(uri string) (any, error) {
	if l.fn == nil {
		return nil, ErrRemoteRef
	}
	data, err := l.fn(uri)
	if err != nil {
		return nil, err
	}
	if err := strictjson.Check(data, nil); err != nil {
		return nil, err
	}
	return decodeChecked(data, nil), nil
}

// compileError turns an error of the compiler into a *SchemaError with a
// pointer into our document.
func compileError(err error) error {
	se := &SchemaError{Err: ErrInvalidSchema, Cause: err}
	var lu *jsonschema.LoadURLError
	if errors.As(err, &lu) {
		if errors.Is(lu.Err, ErrRemoteRef) {
			se.Err = ErrRemoteRef
			se.Detail = fmt.Sprintf("reference to %q needs a loader", lu.URL)
			se.Cause = nil
		} else {
			se.Detail = fmt.Sprintf("cannot load %q", lu.URL)
		}
		return se
	}
	var sv *jsonschema.SchemaValidationError
	if errors.As(err, &sv) {
		se.Pointer = fragment(sv.URL)
		var ve *jsonschema.ValidationError
		if errors.As(sv.Err, &ve) {
			leaf := firstLeaf(ve)
			se.Pointer = joinPointer(se.Pointer, leaf.InstanceLocation)
			se.Detail = "invalid against the metaschema: " + metaMessage(leaf)
		} else {
			se.Detail = "invalid against the metaschema"
		}
		return se
	}
	// Other compiler errors name a URL whose fragment is where.
	if rest, ok := strings.CutPrefix(compileURL(err), baseURI+"#"); ok {
		se.Pointer = unescapeFragment(rest)
	}
	se.Detail = shortCompileDetail(err)
	return se
}

// compileURL returns the schema URL a compiler error names, from the
// error's own field, or "".
func compileURL(err error) string {
	if e, ok := errors.AsType[*jsonschema.InvalidRegexError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.JSONPointerNotFoundError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.AnchorNotFoundError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.InvalidJsonPointerError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.DuplicateIDError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.DuplicateAnchorError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.UnsupportedDraftError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.UnsupportedVocabularyError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.ParseIDError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.ParseAnchorError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.ParseURLError](err); ok {
		return e.URL
	}
	if e, ok := errors.AsType[*jsonschema.LoadURLError](err); ok {
		return e.URL
	}
	return ""
}

func shortCompileDetail(err error) string {
	var (
		re  *jsonschema.InvalidRegexError
		nf  *jsonschema.JSONPointerNotFoundError
		an  *jsonschema.AnchorNotFoundError
		ud  *jsonschema.UnsupportedDraftError
		ip  *jsonschema.InvalidJsonPointerError
		dup *jsonschema.DuplicateIDError
	)
	switch {
	case errors.As(err, &re):
		return fmt.Sprintf("invalid regular expression %q", re.Regex)
	case errors.As(err, &nf):
		return "$ref points to nothing"
	case errors.As(err, &an):
		return fmt.Sprintf("$ref to unknown anchor %q", an.Reference)
	case errors.As(err, &ud):
		return fmt.Sprintf("unsupported $schema %q", ud.URL)
	case errors.As(err, &ip):
		return "invalid JSON Pointer in $ref"
	case errors.As(err, &dup):
		return fmt.Sprintf("duplicate $id %q", dup.ID)
	}
	return err.Error()
}

// metaMessage describes a metaschema failure. The "instance" here is the
// schema, which is not secret, but the message stays short.
func metaMessage(ve *jsonschema.ValidationError) string {
	ae := describe(ve)
	if ae == nil {
		return "does not match"
	}
	return ae.Expected
}

func firstLeaf(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve
}

func fragment(u string) string {
	i := strings.IndexByte(u, '#')
	if i < 0 {
		return ""
	}
	return unescapeFragment(u[i+1:])
}

func unescapeFragment(f string) string {
	if s, err := url.PathUnescape(f); err == nil {
		return s
	}
	return f
}

func joinPointer(base string, toks []string) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(strictjson.EscapePointer(t))
	}
	return b.String()
}

// checkRefCycles finds a $ref that leads back to itself without consuming
// any of the instance (through $ref, allOf, anyOf, oneOf, not, if, then,
// else): such a schema can never finish validating.
func checkRefCycles(doc any) error {
	var starts []string
	var walk func(v any, ptr string, depth int)
	walk = func(v any, ptr string, depth int) {
		if depth > 300 {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok && strings.HasPrefix(r, "#") {
				starts = append(starts, ptr)
			}
			for k, x := range v {
				walk(x, ptr+"/"+strictjson.EscapePointer(k), depth+1)
			}
		case []any:
			for i, x := range v {
				walk(x, ptr+"/"+strconv.Itoa(i), depth+1)
			}
		}
	}
	walk(doc, "", 0)
	if len(starts) == 0 {
		return nil
	}
	const (
		onStack = 1
		done    = 2
	)
	state := make(map[string]int)
	var visit func(ptr string, depth int) error
	visit = func(ptr string, depth int) error {
		switch state[ptr] {
		case onStack:
			return &SchemaError{Err: ErrInvalidSchema, Pointer: ptr, Detail: "$ref cycle that never reaches a value"}
		case done:
			return nil
		}
		if depth > 1000 {
			return &SchemaError{Err: ErrInvalidSchema, Pointer: ptr, Detail: "$ref chain too long"}
		}
		state[ptr] = onStack
		node, _ := lookupPointer(doc, ptr).(map[string]any)
		for _, next := range inPlace(node, ptr) {
			if err := visit(next, depth+1); err != nil {
				return err
			}
		}
		state[ptr] = done
		return nil
	}
	for _, s := range starts {
		if err := visit(s, 0); err != nil {
			return err
		}
	}
	return nil
}

// inPlace lists the pointers of the subschemas that apply to the same
// instance location as the schema at ptr.
func inPlace(node map[string]any, ptr string) []string {
	if node == nil {
		return nil
	}
	var out []string
	if r, ok := node["$ref"].(string); ok && strings.HasPrefix(r, "#") {
		if p := unescapeFragment(r[1:]); p == "" || p[0] == '/' {
			out = append(out, p)
		}
	}
	for _, kw := range [...]string{"allOf", "anyOf", "oneOf"} {
		if arr, ok := node[kw].([]any); ok {
			for i := range arr {
				out = append(out, ptr+"/"+kw+"/"+strconv.Itoa(i))
			}
		}
	}
	for _, kw := range [...]string{"not", "if", "then", "else"} {
		if _, ok := node[kw].(map[string]any); ok {
			out = append(out, ptr+"/"+kw)
		}
	}
	return out
}

// lookupPointer returns the value at the JSON Pointer ptr in doc, or nil.
func lookupPointer(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	if ptr[0] != '/' {
		return nil
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// Cache compiles each distinct schema once. It is keyed by the schema's
// exact bytes (two schemas that differ only in whitespace compile twice,
// which is harmless). The zero value is ready to use with default options;
// it is safe for concurrent use.
type Cache struct {
	opts ResolveOptions // fixed at creation

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	once sync.Once
	res  *Resolved
	err  error
}

// DefaultMaxCacheEntries is the bound of a [Cache] whose
// [ResolveOptions.MaxCacheEntries] is zero.
const DefaultMaxCacheEntries = 4096

// NewCache returns a cache that resolves with opts. A nil opts uses the
// defaults.
func NewCache(opts *ResolveOptions) *Cache {
	c := &Cache{}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MaxCacheEntries == 0 {
		c.opts.MaxCacheEntries = DefaultMaxCacheEntries
	}
	return c
}

// Resolve returns the compiled schema for raw, compiling it on first use.
// Errors are cached too.
func (c *Cache) Resolve(raw json.RawMessage) (*Resolved, error) {
	c.mu.Lock()
	e, ok := c.entries[string(raw)]
	if !ok {
		if max := c.opts.MaxCacheEntries; c.entries == nil || max == 0 && len(c.entries) >= DefaultMaxCacheEntries || max > 0 && len(c.entries) >= max {
			c.entries = make(map[string]*cacheEntry)
		}
		e = &cacheEntry{}
		c.entries[string(raw)] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.res, e.err = Resolve(raw, &c.opts) })
	return e.res, e.err
}

// strictWhat names a strictjson condition in a few words.
func strictWhat(sentinel error) string {
	switch {
	case errors.Is(sentinel, strictjson.ErrSyntax):
		return "syntax error"
	case errors.Is(sentinel, strictjson.ErrDuplicateName):
		return "duplicate name"
	case errors.Is(sentinel, strictjson.ErrInvalidUTF8):
		return "invalid UTF-8"
	case errors.Is(sentinel, strictjson.ErrTooDeep):
		return "nesting too deep"
	case errors.Is(sentinel, strictjson.ErrTooLarge):
		return "document too large"
	}
	return "malformed"
}

// strictDetail describes a strictjson error briefly: what is wrong (not
// strict JSON, too deep, duplicate name…) and where.
func strictDetail(err error) (ptr, detail string) {
	var se *strictjson.Error
	if !errors.As(err, &se) {
		return "", "not strict JSON"
	}
	detail = "not strict JSON: " + strictWhat(se.Err)
	if se.Detail != "" {
		detail += " (" + se.Detail + ")"
	}
	return se.Pointer, detail
}
