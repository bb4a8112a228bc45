// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// checked checks b as one JSON value with strictjson and returns its
// canonical bytes: the same value with the whitespace outside strings
// removed.
func checked(b []byte) ([]byte, error) {
	b = bytes.TrimSpace(b)
	if err := strictjson.Check(b, nil); err != nil {
		return nil, err
	}
	return compact(b), nil
}

// compact returns b, which must have passed strictjson.Check, without
// insignificant whitespace, in one pass. It returns b itself when there
// is none.
func compact(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c == '"' {
			i = skipJSONString(b, i)
			continue
		}
		if !isSpace(c) {
			i++
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[last:i]...)
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		last = i
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// skipJSONString returns the offset after the string whose quote is at i,
// jumping from quote to quote rather than reading every byte.
func skipJSONString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// skipJSONValue returns the offset after the checked JSON value at i.
func skipJSONValue(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipJSONString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipJSONString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return i
}

// members calls fn with the raw name (quotes included) and value of each
// member of the checked object obj; it is strictjson.Members with faster
// string skipping, for the large argument objects models write.
func members(obj []byte, fn func(name, value []byte) error) error {
	i := 0
	for i < len(obj) && isSpace(obj[i]) {
		i++
	}
	if i >= len(obj) || obj[i] != '{' {
		return errBadShape
	}
	i++
	for {
		for i < len(obj) && (isSpace(obj[i]) || obj[i] == ',') {
			i++
		}
		if i >= len(obj) || obj[i] == '}' {
			return nil
		}
		ne := skipJSONString(obj, i)
		name := obj[i:ne]
		i = ne
		for i < len(obj) && (isSpace(obj[i]) || obj[i] == ':') {
			i++
		}
		ve := skipJSONValue(obj, i)
		if err := fn(name, obj[i:ve]); err != nil {
			return err
		}
		i = ve
	}
}

var (
	errNoName   = errors.New("the call has no name")
	errBadArgs  = errors.New("the arguments are not a JSON object")
	errBadShape = errors.New("not a call object")
)

// jsonCalls reads a body holding one call object or an array of them.
// An array that breaks off keeps the complete calls before the break.
func jsonCalls(c *callCtx, body []byte) ([]rawCall, error) {
	t := bytes.TrimSpace(body)
	lead := len(body) - len(bytes.TrimLeft(body, " \t\r\n"))
	if len(t) == 0 {
		return nil, errors.New("the call is empty")
	}
	if err := strictjson.Check(t, nil); err != nil {
		if t[0] == '[' {
			return salvageArray(c, body, lead, err)
		}
		if calls := objectSequence(t); calls != nil {
			return calls, nil
		}
		return nil, err
	}
	v := t
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		rc, err := objectCall(v)
		if err != nil {
			return nil, err
		}
		return []rawCall{rc}, nil
	case strictjson.Array:
		var calls []rawCall
		var bad error
		_ = strictjson.Elements(v, func(i int, el []byte) error {
			rc, err := objectCall(el)
			if err != nil {
				bad = fmt.Errorf("element %d: %w", i, err)
				return err
			}
			calls = append(calls, rc)
			return nil
		})
		if bad != nil {
			if len(calls) == 0 {
				return nil, bad
			}
			// The elements after a bad one are reported, not kept: which
			// byte they start at in the original body is not tracked.
			return calls, bad
		}
		if len(calls) == 0 {
			return nil, errors.New("the call list is empty")
		}
		return calls, nil
	}
	return nil, errNotCall
}

// objectSequence reads several call objects written one after another in
// one block (separated by whitespace, ',' or ';'), as some models do inside
// a single <tool_call>. It returns nil unless every one is a call.
func objectSequence(t []byte) []rawCall {
	var calls []rawCall
	for i := 0; i < len(t); {
		for i < len(t) && (isSpace(t[i]) || t[i] == ',' || t[i] == ';') {
			i++
		}
		if i == len(t) {
			break
		}
		if t[i] != '{' {
			return nil
		}
		var ve valueEnd
		n := ve.scan(t[i:], true)
		if n < 0 {
			return nil
		}
		if strictjson.Check(t[i:i+n], nil) != nil {
			return nil
		}
		rc, err := objectCall(t[i : i+n])
		if err != nil {
			return nil
		}
		calls = append(calls, rc)
		i += n
	}
	if len(calls) < 2 {
		return nil
	}
	return calls
}

// salvageArray reads the complete elements of an array body that does not
// parse as a whole, such as one cut at the token limit.
func salvageArray(c *callCtx, body []byte, i int, cause error) ([]rawCall, error) {
	var calls []rawCall
	i++ // '['
	for {
		for i < len(body) && (isSpace(body[i]) || body[i] == ',') {
			i++
		}
		if i >= len(body) || body[i] != '{' {
			break
		}
		var ve valueEnd
		n := ve.scan(body[i:], true)
		if n < 0 {
			break
		}
		el, err := checked(body[i : i+n])
		if err != nil {
			break
		}
		rc, err := objectCall(el)
		if err != nil {
			break
		}
		calls = append(calls, rc)
		i += n
	}
	if len(calls) == 0 {
		return nil, cause
	}
	return calls, &cutError{at: i, err: fmt.Errorf("the call list breaks off: %w", cause)}
}

// objectCall reads {"name": N, "arguments"|"parameters": {…}} (any member
// order), the OpenAI {"type":"function","function":{…}} wrapper, and an
// optional "id".
func objectCall(obj []byte) (rawCall, error) {
	if strictjson.KindOf(obj) != strictjson.Object {
		return rawCall{}, errBadShape
	}
	var rc rawCall
	var args []byte
	var haveName, haveArgs bool
	var fn []byte
	err := members(obj, func(rawName, v []byte) error {
		k, err := strictjson.Unquote(rawName)
		if err != nil {
			return err
		}
		switch k {
		case "name", "tool_name":
			if strictjson.KindOf(v) != strictjson.String {
				return errNoName
			}
			s, err := strictjson.Unquote(v)
			if err != nil {
				return err
			}
			rc.name, haveName = s, true
		case "arguments", "parameters", "args", "input":
			if !haveArgs {
				args, haveArgs = v, true
			}
		case "function":
			if strictjson.KindOf(v) == strictjson.Object {
				fn = v
			}
		case "id", "call_id":
			if strictjson.KindOf(v) == strictjson.String {
				rc.id, _ = strictjson.Unquote(v)
			}
		}
		return nil
	})
	if err != nil {
		return rawCall{}, err
	}
	if !haveName && fn != nil {
		inner, err := objectCall(fn)
		if err != nil {
			return rawCall{}, err
		}
		if inner.id == "" {
			inner.id = rc.id
		}
		return inner, nil
	}
	if !haveName {
		return rawCall{}, errNoName
	}
	if rc.name == "" {
		return rawCall{}, errNoName
	}
	rc.args, err = argsObject(args)
	return rc, err
}

// argsObject returns the arguments as a JSON object in memory of its own:
// an object compacted, a JSON string holding an object decoded once, null
// or nothing as {}.
func argsObject(v []byte) ([]byte, error) {
	switch strictjson.KindOf(v) {
	case strictjson.Invalid, strictjson.Null:
		if len(bytes.TrimSpace(v)) == 0 || strictjson.KindOf(v) == strictjson.Null {
			return []byte("{}"), nil
		}
		return nil, errBadArgs
	case strictjson.Object:
		c := compact(v)
		if len(c) == len(v) {
			// compact returned v itself: copy, so that arguments never
			// alias the scanner's buffer.
			c = append([]byte(nil), v...)
		}
		return c, nil
	case strictjson.String:
		s, err := strictjson.Unquote(v)
		if err != nil {
			return nil, err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return []byte("{}"), nil
		}
		inner, err := checked([]byte(s))
		if err != nil {
			return nil, fmt.Errorf("the arguments string is not JSON: %w", err)
		}
		if strictjson.KindOf(inner) != strictjson.Object {
			return nil, errBadArgs
		}
		return inner, nil
	}
	return nil, errBadArgs
}

// typeSet is the set of JSON types a schema allows; zero means any.
type typeSet uint8

const (
	tsString typeSet = 1 << iota
	tsInteger
	tsNumber
	tsBoolean
	tsObject
	tsArray
	tsNull
)

// typeNamed returns the set bit of a JSON Schema type name, or 0.
func typeNamed(n string) typeSet {
	switch n {
	case "string":
		return tsString
	case "integer":
		return tsInteger
	case "number":
		return tsNumber
	case "boolean":
		return tsBoolean
	case "object":
		return tsObject
	case "array":
		return tsArray
	case "null":
		return tsNull
	}
	return 0
}

// propertyTypes reads the types each top-level property of an input schema
// allows, following local $ref, anyOf, oneOf, allOf, nullable, enum and
// const.
func propertyTypes(schema []byte) (map[string]typeSet, error) {
	if err := strictjson.Check(schema, nil); err != nil {
		return nil, err
	}
	root := schema
	obj := resolveRef(root, schema, 0)
	props := strictjson.Get(obj, "properties")
	out := make(map[string]typeSet)
	if strictjson.KindOf(props) != strictjson.Object {
		return out, nil
	}
	err := strictjson.Members(props, func(k, v []byte) error {
		out[string(k)] = typesOf(root, v, 0)
		return nil
	})
	return out, err
}

// resolveRef follows a local $ref ("#/…") in s, up to a small depth.
func resolveRef(root, s []byte, depth int) []byte {
	for ; depth < 16; depth++ {
		ref := strictjson.Get(s, "$ref")
		if strictjson.KindOf(ref) != strictjson.String {
			return s
		}
		r, err := strictjson.Unquote(ref)
		if err != nil || !strings.HasPrefix(r, "#") {
			return s
		}
		t := root
		for _, tok := range strings.Split(strings.TrimPrefix(r, "#"), "/")[1:] {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch strictjson.KindOf(t) {
			case strictjson.Object:
				t = strictjson.Get(t, tok)
			case strictjson.Array:
				n, err := strconv.Atoi(tok)
				var el []byte
				if err == nil {
					_ = strictjson.Elements(t, func(i int, v []byte) error {
						if i == n {
							el = v
						}
						return nil
					})
				}
				t = el
			default:
				t = nil
			}
		}
		if t == nil {
			return s
		}
		s = t
	}
	return s
}

func typesOf(root, s []byte, depth int) typeSet {
	if depth > 16 || strictjson.KindOf(s) != strictjson.Object {
		return 0
	}
	s = resolveRef(root, s, 0)
	var ts typeSet
	any := false
	_ = strictjson.Members(s, func(k, v []byte) error {
		switch string(k) {
		case "type":
			switch strictjson.KindOf(v) {
			case strictjson.String:
				n, _ := strictjson.Unquote(v)
				if t := typeNamed(n); t != 0 {
					ts |= t
				} else {
					any = true
				}
			case strictjson.Array:
				_ = strictjson.Elements(v, func(_ int, e []byte) error {
					n, _ := strictjson.Unquote(e)
					ts |= typeNamed(n)
					return nil
				})
			}
		case "nullable":
			if string(v) == "true" {
				ts |= tsNull
			}
		case "anyOf", "oneOf", "allOf":
			_ = strictjson.Elements(v, func(_ int, e []byte) error {
				t := typesOf(root, e, depth+1)
				if t == 0 {
					any = true
				}
				ts |= t
				return nil
			})
		case "enum":
			_ = strictjson.Elements(v, func(_ int, e []byte) error {
				ts |= kindType(e)
				return nil
			})
		case "const":
			ts |= kindType(v)
		}
		return nil
	})
	if any {
		return 0
	}
	return ts
}

// typeSetNames writes ts as JSON Schema type names joined by " | ".
func typeSetNames(ts typeSet) string {
	var names []string
	for _, n := range [...]string{"string", "integer", "number", "boolean", "object", "array", "null"} {
		if ts&typeNamed(n) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, " | ")
}

func kindType(v []byte) typeSet {
	switch strictjson.KindOf(v) {
	case strictjson.String:
		return tsString
	case strictjson.Number:
		if bytes.ContainsAny(v, ".eE") {
			return tsNumber
		}
		return tsInteger
	case strictjson.Bool:
		return tsBoolean
	case strictjson.Null:
		return tsNull
	case strictjson.Object:
		return tsObject
	case strictjson.Array:
		return tsArray
	}
	return 0
}

// coerce turns the string value of a parameter into the JSON value its
// schema asks for. ok is false when the schema asks for a type the string
// is not; the value is then the JSON string.
func coerce(s string, ts typeSet) (v []byte, ok bool) {
	str := func() []byte { return strictjson.AppendQuote(nil, s) }
	if ts == 0 || ts&tsString != 0 {
		return str(), true
	}
	t := strings.TrimSpace(s)
	if ts&tsNull != 0 && (t == "null" || t == "None") {
		return []byte("null"), true
	}
	isNum := false
	if t != "" && !outOfRange(t) {
		// An out-of-range number (see outOfRange) is no number: it stays
		// a string, with an uncoerced-argument warning.
		if b, err := checked([]byte(t)); err == nil && strictjson.KindOf(b) == strictjson.Number {
			isNum = true
		}
	}
	if ts&tsInteger != 0 {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return strconv.AppendInt(nil, n, 10), true
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && isNum && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.AppendInt(nil, int64(f), 10), true
		}
		if isNum && !strings.ContainsAny(t, ".eE") {
			return []byte(t), true
		}
	}
	if ts&tsNumber != 0 {
		if isNum {
			return []byte(t), true
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && !strings.ContainsAny(t, "xXpP_") {
			return strconv.AppendFloat(nil, f, 'g', -1, 64), true
		}
	}
	if ts&tsBoolean != 0 {
		switch strings.ToLower(t) {
		case "true":
			return []byte("true"), true
		case "false":
			return []byte("false"), true
		}
	}
	if ts&(tsObject|tsArray) != 0 {
		b, err := checked([]byte(t))
		if err != nil {
			// Models print Python literals too: {'a': True}.
			b, err = pythonValue([]byte(t))
		}
		if err == nil {
			k := strictjson.KindOf(b)
			if k == strictjson.Object && ts&tsObject != 0 || k == strictjson.Array && ts&tsArray != 0 {
				return b, true
			}
		}
	}
	return str(), false
}

// argsBuilder builds a JSON object from name/value pairs in order,
// keeping the first of duplicate names.
type argsBuilder struct {
	buf  []byte
	seen map[string]bool
}

// add appends name: value (raw JSON) and reports whether name was new.
func (a *argsBuilder) add(name string, value []byte) bool {
	if a.seen == nil {
		a.seen = make(map[string]bool)
	}
	if a.seen[name] {
		return false
	}
	a.seen[name] = true
	if len(a.buf) == 0 {
		a.buf = append(a.buf, '{')
	} else {
		a.buf = append(a.buf, ',')
	}
	a.buf = strictjson.AppendQuote(a.buf, name)
	a.buf = append(a.buf, ':')
	a.buf = append(a.buf, value...)
	return true
}

func (a *argsBuilder) bytes() []byte {
	if len(a.buf) == 0 {
		return []byte("{}")
	}
	return append(a.buf, '}')
}

// stringArg adds a parameter whose value the model printed as text,
// coercing it by the tool's schema and warning when it will not coerce.
func (c *callCtx) stringArg(a *argsBuilder, toolName, param, value string) {
	var ts typeSet
	if props := c.s.p.schemas[toolName]; props != nil {
		ts = props[param]
	}
	v, ok := coerce(value, ts)
	if !ok {
		c.argWarn("/arguments/"+strictjson.EscapePointer(param), "uncoerced-argument",
			fmt.Sprintf("tool %q: the value of %q does not match its schema type; it is kept as a string", toolName, param))
	}
	if !a.add(param, v) {
		c.argWarn("/arguments/"+strictjson.EscapePointer(param), "duplicate-argument",
			fmt.Sprintf("tool %q: %q was given twice; the first value is kept", toolName, param))
	}
}
