// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// The Qwen3-Coder form, read while it arrives for StreamArguments:
//
//	<function=NAME>
//	<parameter=KEY>
//	VALUE
//	</parameter>
//	</function>
//
// The arguments object is built as qwenCalls builds it: keys in order,
// the first of duplicate keys kept, one newline trimmed from each end of a
// value, and the value coerced by the tool's schema. A value the schema
// lets be a string is sent as it arrives, escaped; any other is sent
// once it ends, coerced.

const (
	xmlFunction  = "<function="
	xmlFnEnd     = "</function>"
	xmlParam     = "<parameter="
	xmlParamEnd  = "</parameter>"
	xmlMaxMarker = len(xmlParamEnd)
)

// Values of opener.argsXML.
const (
	xmlBody uint8 = 1 + iota
	xmlBare
)

// xml states, after the JSON ones.
const (
	xSeekFn    uint8 = 32 + iota // before <function=
	xName                        // in the function's name
	xSeekParam                   // before <parameter= or </function>
	xKey                         // in a parameter's name
	xValStart                    // at a value's first byte
	xVal                         // in a value
)

// xmlState is what argStream keeps for the XML form.
type xmlState struct {
	bare    bool // the body starts after <function= (the bare opener)
	mark    int  // where the name, key or value being read starts
	emitted int  // how much of a string value has been sent
	key     string
	skip    bool    // the value belongs to a duplicate key
	asStr   bool    // the value is sent as a string while it arrives
	types   typeSet // what the schema allows for the value
	keys    map[string]bool
	schemas map[string]map[string]typeSet
}

// advanceXML is advance for the XML form.
func (a *argStream) advanceXML(body []byte, end int) {
	x := &a.x
	i := a.pos
	for i < end && a.st >= xSeekFn {
		switch a.st {
		case xSeekFn:
			k := bytes.Index(body[i:end], []byte(xmlFunction))
			if k < 0 {
				i = max(i, end-len(xmlFunction)+1)
				a.pos = i
				return
			}
			if a.haveName {
				a.element()
			}
			i += k + len(xmlFunction)
			a.st, x.mark = xName, i
		case xName:
			k := a.tagEnd(body, i, end)
			if k < 0 {
				return
			}
			a.name = strings.TrimSpace(string(body[x.mark:k]))
			if a.name == "" {
				a.st = asDead
				return
			}
			a.haveName, a.argsSeen = true, true
			a.args = append(a.args[:0], '{')
			x.keys = nil
			i = k + 1
			a.st = xSeekParam
		case xSeekParam:
			k := bytes.IndexByte(body[i:end], '<')
			if k < 0 {
				i = end
				break
			}
			i += k
			rest := body[i:end]
			switch {
			case bytes.HasPrefix(rest, []byte(xmlParam)):
				i += len(xmlParam)
				a.st, x.mark = xKey, i
			case bytes.HasPrefix(rest, []byte(xmlFnEnd)):
				// Return, so that the end of these arguments is sent
				// before another function begins.
				a.pos = i + len(xmlFnEnd)
				a.fnEnd()
				return
			case isPrefixOf(rest, xmlParam) || isPrefixOf(rest, xmlFnEnd):
				a.pos = i
				return
			default:
				i++
			}
		case xKey:
			k := a.tagEnd(body, i, end)
			if k < 0 {
				return
			}
			x.key = strings.TrimSpace(string(body[x.mark:k]))
			i = k + 1
			a.startValue()
			a.st, x.mark = xValStart, i
		case xValStart:
			// One newline after the tag is not part of the value.
			if body[i] == '\n' {
				i++
			}
			x.mark, x.emitted = i, i
			a.st = xVal
		case xVal:
			k := bytes.IndexByte(body[i:end], '<')
			if k < 0 {
				i = end
				break
			}
			i += k
			rest := body[i:end]
			n := 0
			switch {
			case bytes.HasPrefix(rest, []byte(xmlParamEnd)):
				n = len(xmlParamEnd)
			case bytes.HasPrefix(rest, []byte(xmlParam)):
				n = len(xmlParam)
			case bytes.HasPrefix(rest, []byte(xmlFnEnd)):
				n = len(xmlFnEnd)
			case isPrefixOf(rest, xmlParamEnd) || isPrefixOf(rest, xmlParam) || isPrefixOf(rest, xmlFnEnd):
				a.sendValue(body, i, false)
				a.pos = i
				return
			default:
				i++
				continue
			}
			a.sendValue(body, i, true)
			switch n {
			case len(xmlParamEnd):
				i += n
				a.st = xSeekParam
			case len(xmlParam):
				i += n
				a.st, x.mark = xKey, i
			default:
				a.pos = i + n
				a.fnEnd()
				return
			}
		}
	}
	if a.st == xVal {
		a.sendValue(body, i, false)
	}
	a.pos = i
}

// tagEnd returns the offset of the '>' that ends the function name or
// parameter key begun at x.mark, or -1 when it has not arrived yet (having
// given up on the body if the name is longer than any worth waiting for).
func (a *argStream) tagEnd(body []byte, i, end int) int {
	k := bytes.IndexByte(body[i:end], '>')
	if k >= 0 {
		return i + k
	}
	if end-a.x.mark > maxHead {
		a.st = asDead
	}
	a.pos = end
	return -1
}

// fnEnd closes the arguments of a function.
func (a *argStream) fnEnd() {
	a.args = append(a.args, '}')
	a.st = xSeekFn
	if a.x.bare {
		a.st = asEnd
	}
}

// startValue writes a parameter's key and decides how its value is sent.
func (a *argStream) startValue() {
	x := &a.x
	if x.keys == nil {
		x.keys = make(map[string]bool)
	}
	x.skip = x.keys[x.key]
	if x.skip {
		return
	}
	x.keys[x.key] = true
	if len(a.args) > 1 {
		a.args = append(a.args, ',')
	}
	a.args = strictjson.AppendQuote(a.args, x.key)
	a.args = append(a.args, ':')
	x.types = 0
	if props := x.schemas[a.name]; props != nil {
		x.types = props[x.key]
	}
	x.asStr = x.types == 0 || x.types&tsString != 0
	if x.asStr {
		a.args = append(a.args, '"')
	}
}

// sendValue moves the value read so far, body[x.emitted:at], into args.
// With done set the value ends at at; otherwise a newline at its end
// (which may be the one trimmed) and an unfinished UTF-8 sequence are
// kept back, and a value that is not a string waits for its end.
func (a *argStream) sendValue(body []byte, at int, done bool) {
	x := &a.x
	if x.skip {
		return
	}
	if !x.asStr {
		if done {
			v := body[x.mark:at]
			v = bytes.TrimSuffix(v, []byte("\n"))
			out, _ := coerce(string(v), x.types)
			a.args = append(a.args, out...)
		}
		return
	}
	stop := at
	if done {
		if stop > x.emitted && body[stop-1] == '\n' {
			stop--
		}
	} else {
		if stop > x.emitted && body[stop-1] == '\n' {
			stop--
		}
		for k := stop - 1; k >= x.emitted && k >= stop-utf8.UTFMax; k-- {
			if utf8.RuneStart(body[k]) {
				if !utf8.FullRune(body[k:stop]) {
					stop = k
				}
				break
			}
		}
	}
	if stop > x.emitted {
		n := len(a.args)
		a.args = strictjson.AppendQuote(a.args, string(body[x.emitted:stop]))
		// Drop the quotes AppendQuote adds around the piece.
		copy(a.args[n:], a.args[n+1:len(a.args)-1])
		a.args = a.args[:len(a.args)-2]
		x.emitted = stop
	}
	if done {
		a.args = append(a.args, '"')
	}
}

// isPrefixOf reports whether b is a proper prefix of marker.
func isPrefixOf(b []byte, marker string) bool {
	return len(b) < len(marker) && string(b) == marker[:len(b)]
}
