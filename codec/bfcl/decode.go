// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// ErrInputOnly reports an attempt to write the BFCL dialect, which toolgate
// reads but never writes: it is not JSON Schema, and every provider that
// accepts BFCL-style tools accepts the JSON Schema form too.
var ErrInputOnly = errors.New("bfcl: the BFCL dialect is input only")

func shapeErr(ptr, format string, args ...any) error {
	return wire.ShapeErr(ptr, format, args...)
}

func defErr(ptr, format string, args ...any) error {
	return wire.DefErr(ptr, format, args...)
}

// DecodeTools reads BFCL function documents and maps their parameter
// schemas to standard JSON Schema. It accepts one function (Single is
// set), a JSON array of functions, a BFCL test line ({"id", "question",
// "function": […]}), {"tools": […]}, and JSON Lines holding any of these,
// one a line. In JSON Lines, the n-th non-empty line (from 0) is "/n"
// in warnings and errors; a multi-turn test line that names classes
// instead of functions is skipped with a warning, and so is a function
// whose name an earlier line defined (BFCL files repeat functions across
// test lines, sometimes with different text; the first is kept). Within
// one line or document, a repeated name is an error.
//
// Every change to a schema is reported as a [tool.Warning] whose pointer
// names the place in the input: a dialect type mapped (dict, float, tuple,
// HashMap, long, String…), "any" mapped to string, an empty or unknown type
// removed, an "optional" key removed (and its property dropped from
// "required" when it said optional), tuple-style "items" arrays renamed
// prefixItems. "default" and all other keywords are kept. The original
// parameters are not kept in Extensions: the warnings name every change,
// and keeping a copy would double the memory of a decoded catalog.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.BFCL, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	d := newDecoder()
	if err := strictjson.Check(data, nil); err != nil {
		if errors.Is(err, strictjson.ErrTooLarge) {
			return nil, err // JSON Lines get the same size limit as one document
		}
		lines, ok := jsonLines(data)
		if !ok {
			return nil, err
		}
		return d.lines(data, lines)
	}
	// Mapped schemas are about as long as the input ("dict" becomes
	// "object"); test lines also hold questions that are not copied.
	d.arena = make([]byte, 0, len(data)+64)
	if err := d.document(data, ""); err != nil {
		return nil, err
	}
	return d.finish(), nil
}

// jsonLines reports whether data looks like JSON Lines: its first
// non-empty line is a complete JSON value and more follows.
func jsonLines(data []byte) (starts []int, ok bool) {
	i := 0
	for i < len(data) {
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		if len(bytes.TrimSpace(data[i:end])) > 0 {
			if len(starts) == 0 && strictjson.Check(data[i:end], nil) != nil {
				return nil, false
			}
			starts = append(starts, i)
		}
		i = end + 1
	}
	return starts, len(starts) > 1
}

type seenDef struct {
	name  string
	data  []byte // the document the function is in, from its start
	start int
	line  int
}

// raw returns the function's bytes; only repeats need them.
func (s seenDef) raw() []byte { return s.data[s.start:strictjson.SkipValue(s.data, s.start)] }

const fewDefs = 16

func (d *decoder) lookup(name string) (seenDef, bool) {
	if d.seen != nil {
		s, ok := d.seen[name]
		return s, ok
	}
	for _, s := range d.few {
		if s.name == name {
			return s, true
		}
	}
	return seenDef{}, false
}

func (d *decoder) remember(name string, s seenDef) {
	s.name = name
	if d.seen == nil && len(d.few) < fewDefs {
		d.few = append(d.few, s)
		return
	}
	if d.seen == nil {
		d.seen = make(map[string]seenDef, 2*fewDefs)
		for _, f := range d.few {
			d.seen[f.name] = f
		}
	}
	d.seen[name] = s
}

type decoder struct {
	out   *codec.Tools
	arena []byte
	// Definitions seen so far, for duplicate checks: a list while short,
	// then a map, so that decoding one function allocates no map.
	few  []seenDef
	seen map[string]seenDef
	line int    // the JSON Lines line being read, or -1
	ptr  []byte // pointer of the schema being converted

	// The pointers of schema warnings are written one after another into
	// ptrText and made strings all at once by finish: one allocation for
	// all of them rather than one each.
	ptrText []byte
	spans   []span

	// Buffers that save small allocations when decoding one function.
	ptrBuf  [96]byte
	fewBuf  [2]seenDef
	spanBuf [8]span
	textBuf [192]byte
}

// span is where in ptrText the pointer of warning i is.
type span struct{ i, start, end int }

// newDecoder returns a decoder whose scratch space lives in itself.
func newDecoder() *decoder {
	d := &decoder{out: &codec.Tools{}, line: -1}
	d.ptr = d.ptrBuf[:0]
	d.few = d.fewBuf[:0]
	d.spans = d.spanBuf[:0]
	d.ptrText = d.textBuf[:0]
	return d
}

// finish gives the schema warnings their pointers and returns the result.
func (d *decoder) finish() *codec.Tools {
	if len(d.spans) > 0 {
		all := string(d.ptrText)
		for _, s := range d.spans {
			d.out.Warnings[s.i].Pointer = all[s.start:s.end]
		}
	}
	return d.out
}

func (d *decoder) lines(data []byte, starts []int) (*codec.Tools, error) {
	d.arena = make([]byte, 0, len(data)+len(data)/4)
	for n, s := range starts {
		end := bytes.IndexByte(data[s:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += s
		}
		line := data[s:end]
		if err := strictjson.Check(line, nil); err != nil {
			var se *strictjson.Error
			if errors.As(err, &se) {
				c := *se
				c.Offset += int64(s)
				c.Pointer = "/" + strconv.Itoa(n) + c.Pointer
				return nil, &codec.Error{Format: codec.BFCL, Pointer: c.Pointer, Offset: c.Offset, Err: &c}
			}
			return nil, err
		}
		d.line = n
		pre := "/" + strconv.Itoa(n)
		if err := d.document(line, pre); err != nil {
			// The pointer names the line, which is not a value of the
			// document: find the offset within the line.
			if ce, ok := err.(*codec.Error); ok && ce.Format == "" {
				ce.Format = codec.BFCL
				if rest, ok := strings.CutPrefix(ce.Pointer, pre); ok && ce.Offset < 0 {
					if off := wire.PointerOffset(line, rest); off >= 0 {
						ce.Offset = off + int64(s)
					}
				}
			}
			return nil, err
		}
	}
	d.out.Single = false
	return d.finish(), nil
}

// document decodes one JSON value: a function, a test line or a list.
func (d *decoder) document(v []byte, ptr string) error {
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		return d.list(v, ptr)
	case strictjson.Object:
	default:
		return shapeErr(ptr, "want a function, a list of functions or a BFCL test line, got %s", strictjson.KindOf(v))
	}
	if firstKeyIsName(v) {
		// A function document, as BFCL writes them: read it in one pass.
		if ptr == "" {
			d.out.Single = true
		}
		return d.function(v, ptr)
	}
	var fn, tools, name, classes []byte
	listed := false // a "function" array already decoded during the walk
	_, err := strictjson.WalkObjectRaw(v, 0, func(k []byte, vs int) (int, error) {
		switch string(k) {
		case `"function"`:
			if v[vs] == '[' && name == nil {
				listed = true
				return strictjson.WalkArray(v, vs, func(i, es int) (int, error) {
					return d.functionAt(v, es, ptr+"/function/"+strconv.Itoa(i))
				})
			}
			fn = v[vs:strictjson.SkipValue(v, vs)]
			return vs + len(fn), nil
		case `"tools"`:
			tools = v[vs:strictjson.SkipValue(v, vs)]
			return vs + len(tools), nil
		case `"name"`:
			name = v[vs:strictjson.SkipValue(v, vs)]
			return vs + len(name), nil
		case `"involved_classes"`:
			classes = v[vs:strictjson.SkipValue(v, vs)]
			return vs + len(classes), nil
		}
		return strictjson.SkipValue(v, vs), nil
	})
	if err != nil {
		return err
	}
	if listed {
		if name != nil {
			return shapeErr(ptr, "both \"name\" and a \"function\" list: neither a function nor a test line")
		}
		return nil
	}
	switch {
	case name != nil:
		if ptr == "" {
			d.out.Single = true
		}
		return d.function(v, ptr)
	case fn != nil:
		switch strictjson.KindOf(fn) {
		case strictjson.Array:
			return d.list(fn, ptr+"/function")
		case strictjson.Object:
			return d.function(fn, ptr+"/function")
		}
		return shapeErr(ptr+"/function", "want an array of functions, got %s", strictjson.KindOf(fn))
	case tools != nil:
		if strictjson.KindOf(tools) != strictjson.Array {
			return shapeErr(ptr+"/tools", "want an array of functions, got %s", strictjson.KindOf(tools))
		}
		return d.list(tools, ptr+"/tools")
	case classes != nil && ptr != "":
		d.out.Warnings = append(d.out.Warnings, tool.Warning{Pointer: ptr, Code: codeNoFunctions,
			Message: "multi-turn test line names classes (involved_classes) rather than functions; their documents are in multi_turn_func_doc"})
		return nil
	}
	return shapeErr(ptr, "want a function (\"name\"), a test line (\"function\") or {\"tools\": […]}")
}

// firstKeyIsName reports whether the object v starts with a "name" member.
func firstKeyIsName(v []byte) bool {
	i := strictjson.SkipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return false
	}
	i = strictjson.SkipSpace(v, i+1)
	return bytes.HasPrefix(v[i:], []byte(`"name"`))
}

func (d *decoder) list(v []byte, ptr string) error {
	_, err := strictjson.WalkArray(v, 0, func(i, vs int) (int, error) {
		return d.functionAt(v, vs, ptr+"/"+strconv.Itoa(i))
	})
	return err
}

// function decodes one function document v at ptr.
func (d *decoder) function(v []byte, ptr string) error {
	_, err := d.functionAt(v, strictjson.SkipSpace(v, 0), ptr)
	return err
}

// functionAt decodes the function document at data[i] and returns the
// offset after it. Its schemas are converted as they are met, so each
// byte is read once; a schema met before the name waits for it.
func (d *decoder) functionAt(data []byte, i int, ptr string) (int, error) {
	if i >= len(data) || data[i] != '{' {
		return i, shapeErr(ptr, "want a function object, got %s", strictjson.KindOf(data[i:]))
	}
	var (
		def              tool.Definition
		params, resp     = -1, -1 // schemas met before the name
		ignored          []string
		hasName, hasFunc bool
		skip             bool // a repeat of an earlier function
		nameErr          error
		warnsBefore      = len(d.out.Warnings)
		spansBefore      = len(d.spans)
	)
	schema := func(vs int, dst *json.RawMessage, key string) (int, error) {
		if skip {
			return strictjson.SkipValue(data, vs), nil
		}
		raw, end, err := d.convert(data, vs, ptr+key)
		*dst = raw
		return end, err
	}
	end, err := strictjson.WalkObjectRaw(data, i, func(k []byte, vs int) (int, error) {
		switch string(k) {
		case `"name"`:
			hasName = true
			ve := strictjson.SkipValue(data, vs)
			if data[vs] != '"' {
				return ve, shapeErr(ptr+"/name", "name must be a string")
			}
			var err error
			if def.Name, err = strictjson.Unquote(data[vs:ve]); err != nil {
				return ve, err
			}
			skip, nameErr = d.checkName(def.Name, data, i, ptr)
			return ve, nameErr
		case `"description"`:
			ve := strictjson.SkipValue(data, vs)
			if data[vs] != '"' {
				return ve, shapeErr(ptr+"/description", "description must be a string")
			}
			var err error
			def.Description, err = strictjson.Unquote(data[vs:ve])
			return ve, err
		case `"parameters"`:
			if !hasName || data[vs] == 'n' {
				params = vs
				return strictjson.SkipValue(data, vs), nil
			}
			return schema(vs, &def.InputSchema, "/parameters")
		case `"response"`:
			if !hasName || data[vs] == 'n' {
				resp = vs
				return strictjson.SkipValue(data, vs), nil
			}
			return schema(vs, &def.OutputSchema, "/response")
		case `"function"`:
			hasFunc = true
		}
		key, _ := strictjson.Unquote(k)
		ignored = append(ignored, key)
		return strictjson.SkipValue(data, vs), nil
	})
	if err != nil {
		return end, err
	}
	if !hasName {
		if hasFunc {
			return end, d.document(data[i:end], ptr) // a list of test lines
		}
		return end, shapeErr(ptr, "a function needs a \"name\"")
	}
	if skip {
		d.out.Warnings = d.out.Warnings[:warnsBefore]
		d.spans = d.spans[:spansBefore]
		d.out.Warnings = append(d.out.Warnings, d.repeatWarning(def.Name, data[i:end], ptr))
		return end, nil
	}
	for _, k := range ignored {
		d.out.Warnings = append(d.out.Warnings, tool.Warning{Pointer: ptr + "/" + strictjson.EscapePointer(k),
			Code: codeIgnored, Message: "member " + strconv.Quote(k) + " of a BFCL function has no place in a tool definition and was not kept"})
	}
	if params >= 0 && data[params] != 'n' {
		if _, err := schema(params, &def.InputSchema, "/parameters"); err != nil {
			return end, err
		}
	}
	if resp >= 0 && data[resp] != 'n' {
		if _, err := schema(resp, &def.OutputSchema, "/response"); err != nil {
			return end, err
		}
	}
	d.remember(def.Name, seenDef{start: i, data: data, line: d.line})
	d.out.Defs = append(d.out.Defs, def)
	return end, nil
}

// checkName reports an empty name or one already defined on this line as
// an error, and whether the function repeats one from an earlier line
// (which is then skipped with a warning).
func (d *decoder) checkName(name string, data []byte, i int, ptr string) (skip bool, err error) {
	if name == "" {
		return false, defErr(ptr+"/name", "empty name")
	}
	prev, ok := d.lookup(name)
	if !ok {
		return false, nil
	}
	if prev.line == d.line {
		return false, defErr(ptr+"/name", "duplicate name")
	}
	return true, nil
}

// repeatWarning is the warning for a function skipped because a function
// of its name was defined on an earlier line.
func (d *decoder) repeatWarning(name string, raw []byte, ptr string) tool.Warning {
	prev, _ := d.lookup(name)
	if bytes.Equal(prev.raw(), raw) {
		return tool.Warning{Pointer: ptr, Code: codeDuplicate,
			Message: "function " + strconv.Quote(name) + " repeats an identical earlier definition and was skipped"}
	}
	return tool.Warning{Pointer: ptr, Code: codeDuplicate,
		Message: "function " + strconv.Quote(name) + " differs from the definition of that name on an earlier line and was skipped; the first one is kept"}
}

// convert rewrites the schema at data[i] into the arena and returns the
// result and the offset after the schema.
func (d *decoder) convert(data []byte, i int, ptr string) (json.RawMessage, int, error) {
	if data[i] != '{' {
		return nil, i, defErr(ptr, "schema is %s, not an object", strictjson.KindOf(data[i:]))
	}
	d.ptr = append(d.ptr[:0], ptr...)
	start := len(d.arena)
	end, _, err := d.value(data, i)
	if err != nil {
		return nil, end, err
	}
	n := len(d.arena)
	return json.RawMessage(d.arena[start:n:n]), end, nil
}

func (d *decoder) warn(code, msg string, suffix string) {
	start := len(d.ptrText)
	d.ptrText = append(append(d.ptrText, d.ptr...), suffix...)
	d.spans = append(d.spans, span{i: len(d.out.Warnings), start: start, end: len(d.ptrText)})
	if d.out.Warnings == nil {
		d.out.Warnings = make([]tool.Warning, 0, 8) // a function has a few
	}
	d.out.Warnings = append(d.out.Warnings, tool.Warning{Code: code, Message: msg})
}

// push appends "/" + tok (escaped) to the pointer and returns the length to
// restore.
func (d *decoder) push(tok []byte) int {
	n := len(d.ptr)
	d.ptr = append(d.ptr, '/')
	for _, c := range tok {
		switch c {
		case '~':
			d.ptr = append(d.ptr, '~', '0')
		case '/':
			d.ptr = append(d.ptr, '~', '1')
		default:
			d.ptr = append(d.ptr, c)
		}
	}
	return n
}

func (d *decoder) pushIndex(i int) int {
	n := len(d.ptr)
	d.ptr = append(d.ptr, '/')
	d.ptr = strconv.AppendInt(d.ptr, int64(i), 10)
	return n
}

// pushKey appends the pointer token of the raw (quoted) key.
func (d *decoder) pushKey(raw []byte) int {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		s, _ := strictjson.Unquote(raw)
		return d.push([]byte(s))
	}
	return d.push(body)
}

// value converts the schema that starts at or after data[i], appending it
// to the arena, and returns the offset just past it and whether the schema
// said "optional" with a true value. data has passed strictjson.Check, so
// the walk reads each byte about once and needs no checks beyond bounds.
//
// "required" is written as it is when it is met; an object whose
// properties turn out to be optional has it rewritten in place once the
// object ends, which is rare, so the common path never looks ahead.
func (d *decoder) value(data []byte, i int) (end int, optional bool, err error) {
	i = strictjson.SkipSpace(data, i)
	if i >= len(data) {
		return i, false, defErr(string(d.ptr), "schema missing")
	}
	switch data[i] {
	case '{':
	case 't', 'f':
		end := strictjson.SkipValue(data, i)
		d.arena = append(d.arena, data[i:end]...)
		return end, false, nil
	default:
		return i, false, defErr(string(d.ptr), "schema is %s, not an object", strictjson.KindOf(data[i:]))
	}
	var (
		reqStart       = -1 // where required's value is in the arena
		reqEnd         int
		reqRaw         []byte
		first          = true
		propsOptional  []string // properties that said "optional": true
		ownOptionalRaw []byte   // the object's own "optional" list
	)
	writeKey := func(raw []byte) {
		if !first {
			d.arena = append(d.arena, ',')
		}
		first = false
		d.arena = append(d.arena, raw...)
		d.arena = append(d.arena, ':')
	}
	d.arena = append(d.arena, '{')
	end, err = strictjson.WalkObjectRaw(data, i, func(key []byte, vs int) (int, error) {
		switch string(key) {
		case `"type"`:
			ve := strictjson.SkipValue(data, vs)
			val := data[vs:ve]
			if val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				writeKey(key)
				d.arena = append(d.arena, val...)
				return ve, nil
			}
			to, code, msg := mapType(val[1 : len(val)-1])
			if code != "" {
				d.warn(code, msg, "/type")
			}
			if to != "" {
				writeKey(key)
				d.arena = append(d.arena, '"')
				d.arena = append(d.arena, to...)
				d.arena = append(d.arena, '"')
			}
			return ve, nil
		case `"optional"`:
			ve := strictjson.SkipValue(data, vs)
			val := data[vs:ve]
			msg := `"optional" removed; the property is optional because it is not in "required"`
			switch {
			case val[0] == '[':
				msg = `"optional" list removed; the properties it names were dropped from "required"`
				ownOptionalRaw = val
			case truthy(val):
				msg = `"optional" removed and the property dropped from its object's "required"`
				optional = true
			}
			d.warn(codeOptional, msg, "/optional")
			return ve, nil
		case `"required"`:
			ve := strictjson.SkipValue(data, vs)
			writeKey(key)
			reqStart = len(d.arena)
			d.arena = append(d.arena, data[vs:ve]...)
			reqEnd, reqRaw = len(d.arena), data[vs:ve]
			return ve, nil
		case `"properties"`, `"patternProperties"`, `"$defs"`, `"definitions"`:
			if data[vs] != '{' {
				break
			}
			writeKey(key)
			names, ve, err := d.schemaMap(data, vs, key, string(key) == `"properties"`)
			propsOptional = append(propsOptional, names...)
			return ve, err
		case `"items"`, `"additionalProperties"`, `"not"`, `"contains"`, `"propertyNames"`, `"additionalItems"`:
			switch {
			case data[vs] == '{':
				writeKey(key)
				n0 := d.pushKey(key)
				ve, _, err := d.value(data, vs)
				d.ptr = d.ptr[:n0]
				return ve, err
			case data[vs] == '[' && string(key) == `"items"`:
				d.warn(codeTupleItems, `tuple-style "items" array renamed "prefixItems", its JSON Schema 2020-12 name`, "/items")
				writeKey([]byte(`"prefixItems"`))
				return d.schemaList(data, vs, key)
			}
		case `"anyOf"`, `"oneOf"`, `"allOf"`, `"prefixItems"`:
			if data[vs] != '[' {
				break
			}
			writeKey(key)
			return d.schemaList(data, vs, key)
		}
		ve := strictjson.SkipValue(data, vs)
		writeKey(key)
		d.arena = append(d.arena, data[vs:ve]...)
		return ve, nil
	})
	if err != nil {
		return end, optional, err
	}
	d.arena = append(d.arena, '}')
	if ownOptionalRaw == nil && len(propsOptional) == 0 || reqStart < 0 {
		return end, optional, nil
	}
	// The rare path: rewrite "required" without the optional names.
	drop := propsOptional
	if ownOptionalRaw != nil {
		_ = strictjson.Elements(ownOptionalRaw, func(_ int, el []byte) error {
			if s, err := strictjson.Unquote(el); err == nil {
				drop = append(drop, s)
			}
			return nil
		})
	}
	filtered := []byte{'['}
	n := 0
	if reqRaw[0] == '[' {
		_ = strictjson.Elements(reqRaw, func(_ int, el []byte) error {
			s, _ := strictjson.Unquote(el)
			for _, x := range drop {
				if x == s {
					return nil
				}
			}
			if n > 0 {
				filtered = append(filtered, ',')
			}
			n++
			filtered = append(filtered, el...)
			return nil
		})
	} else {
		filtered = reqRaw // not an array: left as it is
	}
	if reqRaw[0] == '[' {
		filtered = append(filtered, ']')
	}
	tail := append([]byte(nil), d.arena[reqEnd:]...)
	d.arena = append(append(d.arena[:reqStart], filtered...), tail...)
	return end, optional, nil
}

// schemaMap converts the object of schemas at data[i] (properties…),
// returning the offset after it and, for properties, the names of those
// that said optional.
func (d *decoder) schemaMap(data []byte, i int, key []byte, props bool) ([]string, int, error) {
	n0 := d.pushKey(key)
	defer func() { d.ptr = d.ptr[:n0] }()
	d.arena = append(d.arena, '{')
	var optional []string
	n := 0
	end, err := strictjson.WalkObjectRaw(data, i, func(k []byte, vs int) (int, error) {
		if n > 0 {
			d.arena = append(d.arena, ',')
		}
		n++
		d.arena = append(d.arena, k...)
		d.arena = append(d.arena, ':')
		n1 := d.pushKey(k)
		ve, opt, err := d.value(data, vs)
		d.ptr = d.ptr[:n1]
		if opt && props {
			name, _ := strictjson.Unquote(k)
			optional = append(optional, name)
		}
		return ve, err
	})
	d.arena = append(d.arena, '}')
	return optional, end, err
}

// schemaList converts the array of schemas at data[i] (anyOf, tuple
// items…) and returns the offset after it.
func (d *decoder) schemaList(data []byte, i int, key []byte) (int, error) {
	n0 := d.pushKey(key)
	defer func() { d.ptr = d.ptr[:n0] }()
	d.arena = append(d.arena, '[')
	end, err := strictjson.WalkArray(data, i, func(n, vs int) (int, error) {
		if n > 0 {
			d.arena = append(d.arena, ',')
		}
		n1 := d.pushIndex(n)
		ve, _, err := d.value(data, vs)
		d.ptr = d.ptr[:n1]
		return ve, err
	})
	d.arena = append(d.arena, ']')
	return end, err
}
