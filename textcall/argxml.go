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
	xmlFunction = "<function="
	xmlFnEnd    = "</function>"
	xmlParam    = "<parameter="
	xmlParamEnd = "</parameter>"
)

// Values of opener.argsXML.
const (
	xmlBody uint8 = 1 + iota // Qwen3-Coder <function=…> elements
	xmlBare                  // the same, after a bare "<function="
	xmlGLM                   // GLM: NAME <arg_key>K</arg_key><arg_value>V</arg_value>…
)

// GLM's tags.
const (
	glmKey      = "<arg_key>"
	glmKeyEnd   = "</arg_key>"
	glmValue    = "<arg_value>"
	glmValueEnd = "</arg_value>"
)

// xml states, after the JSON ones.
const (
	xSeekFn    uint8 = 32 + iota // before <function=
	xName                        // in the function's name
	xSeekParam                   // before <parameter= or </function>
	xKey                         // in a parameter's name
	xValStart                    // at a value's first byte
	xVal                         // in a value
	gName                        // GLM: in the name, before the first <arg_key>
	gKey                         // GLM: in a key
	gSeekVal                     // GLM: before <arg_value>
	gVal                         // GLM: in a value
	gSeekKey                     // GLM: before the next <arg_key>
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
	glm     bool // GLM's tags; values are not trimmed
}

// advanceXML is advance for the XML form.
func (a *argStream) advanceXML(body []byte, end int) {
	if a.x.glm {
		a.advanceGLM(body, end)
		return
	}
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
			at, k := nextTag(body, i, end, xmlParam, xmlFnEnd)
			switch {
			case k == 0:
				i = at + len(xmlParam)
				a.st, x.mark = xKey, i
			case k == 1:
				// Return, so that the end of these arguments is sent
				// before another function begins.
				a.pos = at + len(xmlFnEnd)
				a.fnEnd()
				return
			case at < end:
				a.pos = at
				return
			default:
				i = end
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
			at, k := a.readValue(body, i, end, xmlParamEnd, xmlParam, xmlFnEnd)
			if k < 0 {
				return
			}
			switch k {
			case 0:
				i = at + len(xmlParamEnd)
				a.st = xSeekParam
			case 1:
				i = at + len(xmlParam)
				a.st, x.mark = xKey, i
			default:
				a.pos = at + len(xmlFnEnd)
				a.fnEnd()
				return
			}
		}
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
			if !x.glm {
				v = bytes.TrimSuffix(v, []byte("\n"))
			}
			out, _ := coerce(string(v), x.types)
			a.args = append(a.args, out...)
		}
		return
	}
	stop := at
	if done {
		if !x.glm && stop > x.emitted && body[stop-1] == '\n' {
			stop--
		}
	} else {
		if !x.glm && stop > x.emitted && body[stop-1] == '\n' {
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

// readValue reads a value from body[i:end] up to the first of tags and
// sends what it can of it. It returns the tag's offset and index, or
// k = -1 when the value goes on: then pos is where reading resumes (a
// '<' that may start a tag is held back).
func (a *argStream) readValue(body []byte, i, end int, tags ...string) (at, k int) {
	at, k = nextTag(body, i, end, tags...)
	a.sendValue(body, at, k >= 0)
	if k < 0 {
		a.pos = at
	}
	return at, k
}

// nextTag finds the first '<' in body[i:end] that starts one of tags. It
// returns its offset and the tag's index; or which = -1 and the offset of
// a '<' that may start one still arriving; or end and -1 when there is
// neither.
func nextTag(body []byte, i, end int, tags ...string) (at, which int) {
	for i < end {
		k := bytes.IndexByte(body[i:end], '<')
		if k < 0 {
			break
		}
		i += k
		rest := body[i:end]
		for t, tag := range tags {
			if bytes.HasPrefix(rest, []byte(tag)) {
				return i, t
			}
		}
		for _, tag := range tags {
			if isPrefixOf(rest, tag) {
				return i, -1
			}
		}
		i++
	}
	return end, -1
}

// isPrefixOf reports whether b is a proper prefix of marker.
func isPrefixOf(b []byte, marker string) bool {
	return len(b) < len(marker) && string(b) == marker[:len(b)]
}

// advanceGLM is advanceXML for GLM's tags, which glmCalls reads strictly:
// anything out of place ends the streaming, and the full read decides.
func (a *argStream) advanceGLM(body []byte, end int) {
	x := &a.x
	i := a.pos
	for i < end && a.st >= xSeekFn {
		switch a.st {
		case gName:
			k := bytes.Index(body[i:end], []byte(glmKey))
			if k < 0 {
				if end > maxHead {
					a.st = asDead
				}
				a.pos = max(i, end-len(glmKey)+1)
				return
			}
			name := strings.TrimSpace(string(body[:i+k]))
			if name == "" || strings.ContainsAny(name, "<>{}\n") {
				a.st = asDead
				return
			}
			a.name, a.haveName, a.argsSeen = name, true, true
			a.args = append(a.args[:0], '{')
			i += k + len(glmKey)
			a.st, x.mark = gKey, i
		case gKey:
			k := bytes.Index(body[i:end], []byte(glmKeyEnd))
			if k < 0 {
				if end-x.mark > maxHead {
					a.st = asDead
				}
				a.pos = max(i, end-len(glmKeyEnd)+1)
				return
			}
			x.key = strings.TrimSpace(string(body[x.mark : i+k]))
			i += k + len(glmKeyEnd)
			a.startValue()
			a.st = gSeekVal
		case gSeekVal, gSeekKey:
			if isSpace(body[i]) {
				i++
				break
			}
			tag, next := glmValue, gVal
			if a.st == gSeekKey {
				tag, next = glmKey, gKey
			}
			rest := body[i:end]
			switch {
			case bytes.HasPrefix(rest, []byte(tag)):
				i += len(tag)
				a.st, x.mark, x.emitted = next, i, i
			case isPrefixOf(rest, tag):
				a.pos = i
				return
			default:
				a.st = asDead
			}
		case gVal:
			at, k := a.readValue(body, i, end, glmValueEnd)
			if k < 0 {
				return
			}
			i = at + len(glmValueEnd)
			a.st = gSeekKey
		}
	}
	a.pos = i
}
