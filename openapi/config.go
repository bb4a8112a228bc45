// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"path"
	"slices"
	"strings"
)

// Defaults of [Config], used where a field is zero.
const (
	// DefaultMaxDescription is the longest tool description, in runes.
	DefaultMaxDescription = 1024
	// DefaultMaxRecursion is how many times a recursive schema is
	// expanded inside itself.
	DefaultMaxRecursion = 1
	// DefaultMaxNesting is OpenAI strict mode's nesting limit.
	DefaultMaxNesting = 10
	// DefaultMaxOutputSchemaBytes is the largest output schema kept.
	DefaultMaxOutputSchemaBytes = 64 << 10
)

// Config says how a spec becomes tools. The zero value (or nil) is the
// default: every non-deprecated operation, no generic tool, no external
// $refs, no remote specs.
type Config struct {
	// Include keeps only the operations it matches; an empty Filter matches
	// every operation.
	Include Filter
	// Exclude drops the operations it matches, after Include.
	Exclude Filter
	// IncludeDeprecated keeps deprecated operations, which are skipped by
	// default.
	IncludeDeprecated bool
	// IncludeGeneric adds one generic HTTP tool that can call any path of
	// the spec's servers. Off by default: it widens what a model can do.
	IncludeGeneric bool

	// MaxDescription is the longest tool description, in runes. If zero,
	// [DefaultMaxDescription]; negative, no limit.
	MaxDescription int
	// MaxRecursion is how many times a recursive schema is expanded inside
	// itself before it is cut (with a warning). If zero,
	// [DefaultMaxRecursion]; negative, no expansion at all (the limit
	// cannot be off: a recursive schema has no end).
	MaxRecursion int
	// MaxNesting is the deepest nesting of an input schema, counted as
	// OpenAI strict mode counts it (the input object is level 1; each
	// properties, items or additionalProperties step is one more). Deeper
	// structure is left undescribed, with a warning. If zero,
	// [DefaultMaxNesting]; negative, no limit.
	MaxNesting int
	// MaxOutputSchemaBytes is the largest output schema kept; a larger one
	// is dropped with a warning. If zero, [DefaultMaxOutputSchemaBytes];
	// negative, no limit.
	MaxOutputSchemaBytes int
	// MaxSpecBytes is the largest document read. If zero,
	// [DefaultMaxSpecBytes]; negative, no limit.
	MaxSpecBytes int

	// Validate checks the spec with kin-openapi (example values excepted)
	// and reports what it finds as warnings. It costs about as much as the
	// rest of loading several times over on large specs.
	Validate bool

	// AllowRefDirs lists the local directories external $refs may read
	// files from. Empty means none: a spec cannot make toolgate read files.
	AllowRefDirs []string
	// AllowRemote lists URL prefixes ("https://specs.example.com/") that a
	// spec and its external $refs may be fetched from; "*" allows any.
	// Empty means none.
	AllowRemote []string
	// AllowPrivate lets remote specs and $refs be fetched from private,
	// loopback and link-local addresses.
	AllowPrivate bool
}

// Filter selects operations. Within a field any entry may match; every
// non-empty field must match.
type Filter struct {
	// Tags are operation tags, compared exactly.
	Tags []string
	// Paths are globs over path templates: "*" matches within one segment
	// and "**" across segments ("/repos/**", "/pets/*").
	Paths []string
	// Methods are HTTP methods, in any case.
	Methods []string
	// OperationIDs are operation ids, compared exactly.
	OperationIDs []string
}

func (f *Filter) empty() bool {
	return len(f.Tags) == 0 && len(f.Paths) == 0 && len(f.Methods) == 0 && len(f.OperationIDs) == 0
}

// matches reports whether every non-empty field of f matches op.
func (f *Filter) matches(op *Operation) bool {
	if len(f.Tags) > 0 && !slices.ContainsFunc(op.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }) {
		return false
	}
	if len(f.Paths) > 0 && !slices.ContainsFunc(f.Paths, func(p string) bool { return globMatch(p, op.Path) }) {
		return false
	}
	if len(f.Methods) > 0 && !slices.ContainsFunc(f.Methods, func(m string) bool { return strings.EqualFold(m, op.Method) }) {
		return false
	}
	if len(f.OperationIDs) > 0 && !slices.Contains(f.OperationIDs, op.ID) {
		return false
	}
	return true
}

// matchesAny reports whether any non-empty field of f matches op.
func (f *Filter) matchesAny(op *Operation) bool {
	if f.empty() {
		return false
	}
	for _, g := range []Filter{{Tags: f.Tags}, {Paths: f.Paths}, {Methods: f.Methods}, {OperationIDs: f.OperationIDs}} {
		if !g.empty() && g.matches(op) {
			return true
		}
	}
	return false
}

// globMatch matches a path template against a glob where "*" stays within
// a segment and "**" spans any number of them.
func globMatch(pattern, name string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	ns := strings.Split(strings.Trim(name, "/"), "/")
	return globSegs(ps, ns)
}

func globSegs(ps, ns []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			for i := 0; i <= len(ns); i++ {
				if globSegs(ps[1:], ns[i:]) {
					return true
				}
			}
			return false
		}
		if len(ns) == 0 {
			return false
		}
		if ok, err := path.Match(ps[0], ns[0]); err != nil || !ok {
			return false
		}
		ps, ns = ps[1:], ns[1:]
	}
	return len(ns) == 0
}

func (c *Config) maxNesting() int {
	if c.MaxNesting < 0 {
		return 0 // the renderer's "no limit"
	}
	return c.MaxNesting
}

func (cfg *Config) withDefaults() *Config {
	c := &Config{}
	if cfg != nil {
		*c = *cfg
		c.AllowRefDirs = slices.Clone(cfg.AllowRefDirs)
		c.AllowRemote = slices.Clone(cfg.AllowRemote)
	}
	if c.MaxDescription == 0 {
		c.MaxDescription = DefaultMaxDescription
	}
	switch {
	case c.MaxRecursion == 0:
		c.MaxRecursion = DefaultMaxRecursion
	case c.MaxRecursion < 0:
		c.MaxRecursion = 0
	}
	if c.MaxOutputSchemaBytes == 0 {
		c.MaxOutputSchemaBytes = DefaultMaxOutputSchemaBytes
	}
	if c.MaxNesting == 0 {
		c.MaxNesting = DefaultMaxNesting
	}
	if c.MaxSpecBytes == 0 {
		c.MaxSpecBytes = DefaultMaxSpecBytes
	}
	return c
}
