// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ArgError is one way an instance fails its schema.
type ArgError struct {
	// Pointer is the JSON Pointer of the failing value in the instance.
	Pointer string
	// Keyword is the schema keyword that failed ("type", "required", …).
	Keyword string
	// Expected says what the schema wants, e.g. "expected integer, got
	// string". It never repeats a value from the instance, which may be a
	// secret; it may quote the schema.
	Expected string
}

func (e *ArgError) Error() string {
	if e.Pointer == "" {
		return "at the root: " + e.Expected
	}
	return "at " + e.Pointer + ": " + e.Expected
}

// ValidationError lists every way an instance fails its schema. It
// matches ErrInvalid with errors.Is.
type ValidationError struct {
	Errors []*ArgError
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalid.Error())
	for i, a := range e.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(a.Error())
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// maxArgErrors bounds the list a ValidationError carries, so that a huge
// bad instance does not produce a huge message.
const maxArgErrors = 20

// Validate checks instance, which must already have passed
// strictjson.Check, against the schema. It returns nil or a
// [*ValidationError]; its messages say what was expected and never echo
// the instance's values.
func (r *Resolved) Validate(instance json.RawMessage) error {
	if r.fast != nil && r.fast.valid(instance, 0) {
		return nil
	}
	v := decodeChecked(instance, r.intern)
	err := r.sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Errors: []*ArgError{{Keyword: "", Expected: "cannot be validated"}}}
	}
	out := &ValidationError{}
	collect(ve, out)
	if len(out.Errors) == 0 {
		out.Errors = append(out.Errors, &ArgError{Pointer: pointerOf(ve.InstanceLocation), Expected: "does not match the schema"})
	}
	// The validator visits an object's properties in map order, so the
	// errors are sorted (and only then cut to maxArgErrors): the same
	// instance gives the same list, in instance order, every time.
	slices.SortStableFunc(out.Errors, func(a, b *ArgError) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Keyword, b.Keyword), strings.Compare(a.Expected, b.Expected))
	})
	if len(out.Errors) > maxArgErrors {
		out.Errors = out.Errors[:maxArgErrors]
	}
	return out
}

// maxCollected bounds the errors collected before they are sorted.
const maxCollected = 50 * maxArgErrors

// collect flattens the error tree into out, describing leaves.
func collect(ve *jsonschema.ValidationError, out *ValidationError) {
	if len(out.Errors) >= maxCollected {
		return
	}
	switch ve.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range ve.Causes {
			collect(c, out)
		}
		return
	case *kind.Required:
		k := ve.ErrorKind.(*kind.Required)
		for _, m := range k.Missing {
			if len(out.Errors) >= maxCollected {
				return
			}
			out.Errors = append(out.Errors, &ArgError{Pointer: pointerOf(ve.InstanceLocation), Keyword: "required",
				Expected: "missing required property " + strconv.Quote(m)})
		}
		return
	case *kind.AdditionalProperties:
		k := ve.ErrorKind.(*kind.AdditionalProperties)
		base := pointerOf(ve.InstanceLocation)
		for _, p := range k.Properties {
			if len(out.Errors) >= maxCollected {
				return
			}
			out.Errors = append(out.Errors, &ArgError{Pointer: joinPointer(base, []string{p}), Keyword: "additionalProperties",
				Expected: "property not allowed by the schema"})
		}
		return
	}
	if a := describe(ve); a != nil {
		out.Errors = append(out.Errors, a)
	}
}

func pointerOf(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return joinPointer("", loc)
}

// describe turns one error into an ArgError whose message holds no
// instance value.
func describe(ve *jsonschema.ValidationError) *ArgError {
	a := &ArgError{Pointer: pointerOf(ve.InstanceLocation)}
	if p := ve.ErrorKind.KeywordPath(); len(p) > 0 {
		a.Keyword = p[0]
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.Type:
		a.Expected = "expected " + strings.Join(k.Want, " or ") + ", got " + k.Got
	case *kind.Required:
		a.Expected = "missing required properties " + quoteList(k.Missing)
	case *kind.Enum:
		a.Expected = fmt.Sprintf("must be one of %d allowed values", len(k.Want))
		if vals, ok := primitiveList(k.Want); ok {
			a.Expected += ": " + vals
		}
	case *kind.Const:
		a.Expected = "must equal the schema's constant"
		if vals, ok := primitiveList([]any{k.Want}); ok {
			a.Expected += " " + vals
		}
	case *kind.Format:
		a.Expected = "expected a string in format " + strconv.Quote(k.Want)
	case *kind.MinLength:
		a.Expected = fmt.Sprintf("expected at least %d characters", k.Want)
	case *kind.MaxLength:
		a.Expected = fmt.Sprintf("expected at most %d characters", k.Want)
	case *kind.Pattern:
		a.Expected = "must match the pattern " + strconv.Quote(k.Want)
	case *kind.Minimum:
		a.Expected = "must be >= " + ratString(k.Want)
	case *kind.Maximum:
		a.Expected = "must be <= " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		a.Expected = "must be > " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		a.Expected = "must be < " + ratString(k.Want)
	case *kind.MultipleOf:
		a.Expected = "must be a multiple of " + ratString(k.Want)
	case *kind.MinItems:
		a.Expected = fmt.Sprintf("expected at least %d items", k.Want)
	case *kind.MaxItems:
		a.Expected = fmt.Sprintf("expected at most %d items", k.Want)
	case *kind.MinProperties:
		a.Expected = fmt.Sprintf("expected at least %d properties", k.Want)
	case *kind.MaxProperties:
		a.Expected = fmt.Sprintf("expected at most %d properties", k.Want)
	case *kind.UniqueItems:
		a.Expected = fmt.Sprintf("items must be unique (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		a.Expected = "too many items"
	case *kind.AdditionalProperties:
		a.Expected = "properties not allowed by the schema: " + quoteList(k.Properties)
	case *kind.PropertyNames:
		a.Expected = "property name " + strconv.Quote(k.Property) + " not allowed by the schema"
	case *kind.DependentRequired:
		a.Expected = "property " + strconv.Quote(k.Prop) + " requires " + quoteList(k.Missing)
	case *kind.Dependency:
		a.Expected = "property " + strconv.Quote(k.Prop) + " requires " + quoteList(k.Missing)
	case *kind.Contains:
		a.Expected = "no item matches the schema in \"contains\""
	case *kind.MinContains:
		a.Expected = fmt.Sprintf("expected at least %d items matching \"contains\"", k.Want)
	case *kind.MaxContains:
		a.Expected = fmt.Sprintf("expected at most %d items matching \"contains\"", k.Want)
	case *kind.Not:
		a.Expected = "must not match the schema in \"not\""
	case *kind.FalseSchema:
		a.Expected = "no value is allowed here"
	case *kind.AnyOf:
		a.Expected = alternatives(ve, "anyOf")
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			a.Expected = fmt.Sprintf("must match exactly one alternative, matches %d", len(k.Subschemas))
		} else {
			a.Expected = alternatives(ve, "oneOf")
		}
	case *kind.RefCycle:
		a.Expected = "the schema's $ref loops without reaching a value"
	case *kind.ContentEncoding:
		a.Expected = "expected content encoded as " + strconv.Quote(k.Want)
	case *kind.ContentMediaType:
		a.Expected = "expected content of media type " + strconv.Quote(k.Want)
	case *kind.ContentSchema:
		a.Expected = "content does not match \"contentSchema\""
	case *kind.InvalidJsonValue:
		a.Expected = "not a JSON value"
	default:
		a.Expected = "does not match the schema"
	}
	return a
}

// alternatives describes a failed anyOf/oneOf. When every alternative
// failed on its type at the same place, the expected types are listed.
func alternatives(ve *jsonschema.ValidationError, kw string) string {
	var want []string
	got := ""
	for _, c := range ve.Causes {
		leaf := c
		for len(leaf.Causes) == 1 {
			if _, ok := leaf.ErrorKind.(*kind.Type); ok {
				break
			}
			leaf = leaf.Causes[0]
		}
		t, ok := leaf.ErrorKind.(*kind.Type)
		if !ok || pointerOf(leaf.InstanceLocation) != pointerOf(ve.InstanceLocation) {
			want = nil
			break
		}
		want = append(want, t.Want...)
		got = t.Got
	}
	if len(want) > 0 {
		return "expected " + strings.Join(dedupe(want), " or ") + ", got " + got
	}
	return fmt.Sprintf("must match at least one of the %d alternatives in %q", len(ve.Causes), kw)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		dup := false
		for _, y := range s[:i] {
			if x == y {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, x)
		}
	}
	return out
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// primitiveList renders schema values (never instance values) when they
// are all short primitives.
func primitiveList(vals []any) (string, bool) {
	if len(vals) > 10 {
		return "", false
	}
	parts := make([]string, 0, len(vals))
	total := 0
	for _, v := range vals {
		var s string
		switch v := v.(type) {
		case nil:
			s = "null"
		case bool:
			s = strconv.FormatBool(v)
		case string:
			s = strconv.Quote(v)
		case json.Number:
			s = string(v)
		case float64:
			s = strconv.FormatFloat(v, 'g', -1, 64)
		default:
			return "", false
		}
		total += len(s)
		if total > 200 {
			return "", false
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", "), true
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
