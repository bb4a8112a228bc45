// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// ErrInputOnly reports an attempt to write the BFCL dialect, which toolgate
// reads but never writes: it is not JSON Schema, and every provider that
// accepts BFCL-style tools accepts the JSON Schema form too.
var ErrInputOnly = errors.New("bfcl: the BFCL dialect is input only")

func where(ptr string) string {
	if ptr == "" {
		return "document root"
	}
	return ptr
}

func shapeErr(ptr, format string, args ...any) error {
	return fmt.Errorf("bfcl: %s: %w: %s", where(ptr), codec.ErrUnknownShape, fmt.Sprintf(format, args...))
}

func defErr(ptr, format string, args ...any) error {
	return fmt.Errorf("bfcl: %s: %w: %s", where(ptr), tool.ErrInvalidDefinition, fmt.Sprintf(format, args...))
}

// DecodeTools reads BFCL function documents and maps their parameter
// schemas to standard JSON Schema. It accepts one function (Single is
// set), a JSON array of functions, a BFCL test line ({"id", "question",
// "function": […]}), {"tools": […]}, and JSON Lines holding any of these,
// one a line. In JSON Lines, line n (counting from 0) is addressed as "/n"
// in warnings and errors; a multi-turn test line that names classes
// instead of functions is skipped with a warning, and a function that an
// earlier line defined identically is skipped with a warning.
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
	d := decoder{out: &codec.Tools{}, line: -1}
	if err := strictjson.Check(data, nil); err != nil {
		lines, ok := jsonLines(data)
		if !ok {
			return nil, err
		}
		return d.lines(data, lines)
	}
	d.arena = make([]byte, 0, len(data)+len(data)/4)
	if err := d.document(data, ""); err != nil {
		return nil, err
	}
	return d.out, nil
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
	name string
	raw  []byte
	line int
}

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
	opt  bool   // the current function contains "optional"
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
				return nil, &c
			}
			return nil, err
		}
		d.line = n
		if err := d.document(line, "/"+strconv.Itoa(n)); err != nil {
			return nil, err
		}
	}
	d.out.Single = false
	return d.out, nil
}

// document decodes one JSON value: a function, a test line or a list.
func (d *decoder) document(v []byte, ptr string) error {
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		return d.list(v, ptr)
	case strictjson.Object:
	default:
		return shapeErr(ptr, "want a function, a list of functions or a BFCL test line, have %s", strictjson.KindOf(v))
	}
	var fn, tools, name, classes []byte
	_ = strictjson.Members(v, func(k, val []byte) error {
		switch string(k) {
		case "function":
			fn = val
		case "tools":
			tools = val
		case "name":
			name = val
		case "involved_classes":
			classes = val
		}
		return nil
	})
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
		return shapeErr(ptr+"/function", "want an array of functions, have %s", strictjson.KindOf(fn))
	case tools != nil:
		if strictjson.KindOf(tools) != strictjson.Array {
			return shapeErr(ptr+"/tools", "want an array of functions, have %s", strictjson.KindOf(tools))
		}
		return d.list(tools, ptr+"/tools")
	case classes != nil && ptr != "":
		d.out.Warnings = append(d.out.Warnings, tool.Warning{Pointer: ptr, Code: codeNoFunctions,
			Message: "multi-turn test line names classes (involved_classes) rather than functions; their documents are in multi_turn_func_doc"})
		return nil
	}
	return shapeErr(ptr, "want a function (\"name\"), a test line (\"function\") or {\"tools\": […]}")
}

func (d *decoder) list(v []byte, ptr string) error {
	return strictjson.Elements(v, func(i int, el []byte) error {
		return d.function(el, ptr+"/"+strconv.Itoa(i))
	})
}

// function decodes one function document at ptr.
func (d *decoder) function(v []byte, ptr string) error {
	if strictjson.KindOf(v) != strictjson.Object {
		return shapeErr(ptr, "want a function object, have %s", strictjson.KindOf(v))
	}
	var def tool.Definition
	var params, resp []byte
	var ignored []string
	hasName, hasFunction := false, false
	err := strictjson.Members(v, func(k, val []byte) error {
		var err error
		switch string(k) {
		case "function":
			hasFunction = true
			ignored = append(ignored, "function")
		case "name":
			hasName = true
			if strictjson.KindOf(val) != strictjson.String {
				return shapeErr(ptr+"/name", "name must be a string")
			}
			def.Name, err = strictjson.Unquote(val)
		case "description":
			if strictjson.KindOf(val) != strictjson.String {
				return shapeErr(ptr+"/description", "description must be a string")
			}
			def.Description, err = strictjson.Unquote(val)
		case "parameters":
			params = val
		case "response":
			resp = val
		default:
			ignored = append(ignored, string(k))
		}
		return err
	})
	if err != nil {
		return err
	}
	if !hasName {
		if hasFunction {
			return d.document(v, ptr) // a list of test lines
		}
		return shapeErr(ptr, "a function needs a \"name\"")
	}
	for _, k := range ignored {
		d.out.Warnings = append(d.out.Warnings, tool.Warning{Pointer: ptr + "/" + strictjson.EscapePointer(k),
			Code: codeIgnored, Message: "member " + strconv.Quote(k) + " of a BFCL function has no place in a tool definition and was not kept"})
	}
	if def.Name == "" {
		return defErr(ptr+"/name", "empty name")
	}
	if prev, ok := d.lookup(def.Name); ok {
		if prev.line == d.line {
			return defErr(ptr+"/name", "duplicate name %q", def.Name)
		}
		if bytes.Equal(prev.raw, v) {
			d.out.Warnings = append(d.out.Warnings, tool.Warning{Pointer: ptr, Code: codeDuplicate,
				Message: "function " + strconv.Quote(def.Name) + " repeats an identical earlier definition and was skipped"})
			return nil
		}
		d.out.Warnings = append(d.out.Warnings, tool.Warning{Pointer: ptr, Code: codeDuplicate,
			Message: "function " + strconv.Quote(def.Name) + " differs from the definition of that name on an earlier line and was skipped; the first one is kept"})
		return nil
	}
	d.remember(def.Name, seenDef{raw: v, line: d.line})
	d.opt = bytes.Contains(v, []byte(`"optional"`))
	if params != nil && string(params) != "null" {
		if def.InputSchema, err = d.convert(params, ptr+"/parameters"); err != nil {
			return err
		}
	}
	if resp != nil && string(resp) != "null" {
		if def.OutputSchema, err = d.convert(resp, ptr+"/response"); err != nil {
			return err
		}
	}
	d.out.Defs = append(d.out.Defs, def)
	return nil
}

// convert rewrites the schema v into the arena and returns the result.
func (d *decoder) convert(v []byte, ptr string) (json.RawMessage, error) {
	if strictjson.KindOf(v) != strictjson.Object {
		return nil, defErr(ptr, "schema is %s, not an object", strictjson.KindOf(v))
	}
	d.ptr = append(d.ptr[:0], ptr...)
	start := len(d.arena)
	if err := d.schema(v); err != nil {
		return nil, err
	}
	end := len(d.arena)
	return json.RawMessage(d.arena[start:end:end]), nil
}

func (d *decoder) warn(code, msg string, suffix string) {
	d.out.Warnings = append(d.out.Warnings, tool.Warning{Pointer: string(d.ptr) + suffix, Code: code, Message: msg})
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

// schema appends the JSON Schema form of the BFCL schema v to the arena.
func (d *decoder) schema(v []byte) error {
	_, err := d.value(v, 0)
	return err
}

func skipWS(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string whose quote is at i.
func skipString(data []byte, i int) int {
	i++
	for i < len(data) {
		switch data[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1
		}
		i++
	}
	return len(data)
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
// to the arena, and returns the offset just past it. data has passed
// strictjson.Check, so the walk reads each byte once and needs no checks
// beyond bounds.
func (d *decoder) value(data []byte, i int) (int, error) {
	i = skipWS(data, i)
	if i >= len(data) {
		return i, defErr(string(d.ptr), "schema missing")
	}
	switch data[i] {
	case '{':
	case 't', 'f':
		end := strictjson.Skip(data, i)
		d.arena = append(d.arena, data[i:end]...)
		return end, nil
	default:
		return i, defErr(string(d.ptr), "schema is %s, not an object", strictjson.KindOf(data[i:]))
	}
	var drop []string
	if d.opt {
		drop = d.dropped(data[i:strictjson.Skip(data, i)])
	}
	d.arena = append(d.arena, '{')
	first := true
	i++
	for {
		i = skipWS(data, i)
		if i >= len(data) {
			return i, shapeErr(string(d.ptr), "truncated object")
		}
		if data[i] == '}' {
			i++
			break
		}
		if data[i] == ',' {
			i = skipWS(data, i+1)
		}
		ks := i
		ke := skipString(data, i)
		key := data[ks:ke]
		i = skipWS(data, ke) + 1 // the colon
		i = skipWS(data, i)
		writeKey := func(raw []byte) {
			if !first {
				d.arena = append(d.arena, ',')
			}
			first = false
			d.arena = append(d.arena, raw...)
			d.arena = append(d.arena, ':')
		}
		var err error
		switch string(key) {
		case `"type"`:
			ve := strictjson.Skip(data, i)
			val := data[i:ve]
			if val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				writeKey(key)
				d.arena = append(d.arena, val...)
			} else {
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
			}
			i = ve
		case `"optional"`:
			ve := strictjson.Skip(data, i)
			val := data[i:ve]
			msg := `"optional" removed; the property is optional because it is not in "required"`
			if val[0] == '[' {
				msg = `"optional" list removed; the properties it names were dropped from "required"`
			} else if truthy(val) {
				msg = `"optional" removed and the property dropped from its object's "required"`
			}
			d.warn(codeOptional, msg, "/optional")
			i = ve
		case `"required"`:
			ve := strictjson.Skip(data, i)
			val := data[i:ve]
			writeKey(key)
			if len(drop) == 0 || val[0] != '[' {
				d.arena = append(d.arena, val...)
			} else {
				d.arena = append(d.arena, '[')
				n := 0
				err = strictjson.Elements(val, func(_ int, el []byte) error {
					s, _ := strictjson.Unquote(el)
					for _, x := range drop {
						if x == s {
							return nil
						}
					}
					if n > 0 {
						d.arena = append(d.arena, ',')
					}
					n++
					d.arena = append(d.arena, el...)
					return nil
				})
				d.arena = append(d.arena, ']')
			}
			i = ve
		case `"properties"`, `"patternProperties"`, `"$defs"`, `"definitions"`:
			if data[i] != '{' {
				goto raw
			}
			writeKey(key)
			i, err = d.schemaMap(data, i, key)
		case `"items"`, `"additionalProperties"`, `"not"`, `"contains"`, `"propertyNames"`, `"additionalItems"`:
			switch {
			case data[i] == '{':
				writeKey(key)
				n0 := d.pushKey(key)
				i, err = d.value(data, i)
				d.ptr = d.ptr[:n0]
			case data[i] == '[' && string(key) == `"items"`:
				d.warn(codeTupleItems, `tuple-style "items" array renamed "prefixItems", its JSON Schema 2020-12 name`, "/items")
				writeKey([]byte(`"prefixItems"`))
				i, err = d.schemaList(data, i, key)
			default:
				goto raw
			}
		case `"anyOf"`, `"oneOf"`, `"allOf"`, `"prefixItems"`:
			if data[i] != '[' {
				goto raw
			}
			writeKey(key)
			i, err = d.schemaList(data, i, key)
		default:
			goto raw
		}
		if err != nil {
			return i, err
		}
		continue
	raw:
		{
			ve := strictjson.Skip(data, i)
			writeKey(key)
			d.arena = append(d.arena, data[i:ve]...)
			i = ve
		}
	}
	d.arena = append(d.arena, '}')
	return i, nil
}

// schemaMap converts the object of schemas at data[i] (properties…).
func (d *decoder) schemaMap(data []byte, i int, key []byte) (int, error) {
	n0 := d.pushKey(key)
	defer func() { d.ptr = d.ptr[:n0] }()
	d.arena = append(d.arena, '{')
	i++
	for n := 0; ; n++ {
		i = skipWS(data, i)
		if i >= len(data) {
			return i, shapeErr(string(d.ptr), "truncated object")
		}
		if data[i] == '}' {
			d.arena = append(d.arena, '}')
			return i + 1, nil
		}
		if data[i] == ',' {
			i = skipWS(data, i+1)
		}
		ke := skipString(data, i)
		if n > 0 {
			d.arena = append(d.arena, ',')
		}
		d.arena = append(d.arena, data[i:ke]...)
		d.arena = append(d.arena, ':')
		n1 := d.pushKey(data[i:ke])
		var err error
		i, err = d.value(data, skipWS(data, ke)+1)
		d.ptr = d.ptr[:n1]
		if err != nil {
			return i, err
		}
	}
}

// schemaList converts the array of schemas at data[i] (anyOf, tuple items…).
func (d *decoder) schemaList(data []byte, i int, key []byte) (int, error) {
	n0 := d.pushKey(key)
	defer func() { d.ptr = d.ptr[:n0] }()
	d.arena = append(d.arena, '[')
	i++
	for n := 0; ; n++ {
		i = skipWS(data, i)
		if i >= len(data) {
			return i, shapeErr(string(d.ptr), "truncated array")
		}
		if data[i] == ']' {
			d.arena = append(d.arena, ']')
			return i + 1, nil
		}
		if data[i] == ',' {
			i = skipWS(data, i+1)
		}
		if n > 0 {
			d.arena = append(d.arena, ',')
		}
		n1 := d.pushIndex(n)
		var err error
		i, err = d.value(data, i)
		d.ptr = d.ptr[:n1]
		if err != nil {
			return i, err
		}
	}
}

// dropped returns the property names the object schema v marks optional,
// either with its own "optional" list or with "optional": true on the
// property. It allocates only when the function mentions "optional".
func (d *decoder) dropped(v []byte) []string {
	if !d.opt {
		return nil
	}
	var names []string
	_ = strictjson.Members(v, func(k, val []byte) error {
		switch string(k) {
		case "optional":
			_ = strictjson.Elements(val, func(_ int, el []byte) error {
				if s, err := strictjson.Unquote(el); err == nil {
					names = append(names, s)
				}
				return nil
			})
		case "properties":
			_ = strictjson.Members(val, func(pk, pv []byte) error {
				if o := strictjson.Get(pv, "optional"); o != nil && truthy(o) {
					names = append(names, string(pk))
				}
				return nil
			})
		}
		return nil
	})
	return names
}
