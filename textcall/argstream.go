// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// argStream reads a call body while it arrives, so that a Scanner with
// [Config.StreamArguments] can announce each call as soon as its name is
// known and send its arguments as they are written. It reads a JSON call
// object ({"name": …, "arguments": {…}} in any member order) or an array
// of them, a name followed by the arguments object (opener.argsHead), or
// Qwen3-Coder tags (argxml.go). Each byte is read once, the name before
// an arguments object a bounded number of times. It reads structure, not
// every token: what it lets through is checked in full when the body
// ends, and a call that then fails is withdrawn.
type argStream struct {
	st    uint8
	pos   int // bytes of the body read so far
	depth int // nesting inside the arguments or a skipped value
	inStr bool
	esc   bool
	mark  int   // where the key or string value being read starts
	role  uint8 // what the value being read is for

	name     string
	haveName bool
	id       string
	argsSeen bool
	args     []byte // the arguments read so far, without whitespace

	announced bool
	index     int    // the call's index in the events
	callID    string // the id it was announced with
	sent      int    // bytes of args sent

	// inArray is set for a body that is an array of call objects; prev
	// holds its elements announced before the current one.
	inArray bool
	prev    []sentCall
	// elems counts the calls begun in this body; blocked is set once one
	// ended without being announced, after which none is: the calls
	// announced must be the first ones of the body, in order.
	elems   int
	blocked bool

	// head, for bodies that are a name and then the arguments object
	// (opener.argsHead), finds them; nil for JSON call objects.
	head func(body []byte) (name, id string, at int)
	// x is the state of the Qwen3-Coder XML form (opener.argsXML).
	x xmlState
}

// live reports whether there may be more to read.
func (a *argStream) live() bool { return a.st < asEnd || a.st >= xSeekFn }

// sentCall is a call announced while its body streamed in.
type sentCall struct {
	index  int    // its index in the events
	callID string // the id it was announced with
	name   string
	args   []byte // the arguments read
	sent   int    // bytes of args sent
}

// What an argsHead function returns in at when it has not found the
// arguments object's '{': more text is needed, or the body is not of the
// form (or the name is too long to wait for).
const (
	headMore = -1
	headNot  = -2
	// headJSON says the body is a JSON call object or array after all,
	// to be read as one.
	headJSON = -3
)

// maxHead bounds the text read for a call's name before its arguments.
const maxHead = 512

// argStream states.
const (
	asOpen     uint8 = iota // before the object's '{'
	asHead                  // before the arguments of a name-then-arguments body
	asKey                   // before a member's key, or the closing '}'
	asKeyIn                 // inside the key
	asColon                 // after the key
	asValue                 // before the value
	asStr                   // inside a string value that is read (name, id)
	asArgs                  // inside the arguments object
	asSkip                  // inside a value that is skipped
	asAfter                 // after a value
	asElem                  // in an array of calls, before an element or the ']'
	asElemNext              // in an array of calls, after an element
	asEnd                   // after the object: nothing more to read
	asDead                  // not a plain call object: the body is read whole at its end
)

// Roles of a member's value.
const (
	roleSkip uint8 = iota
	roleName
	roleID
	roleArgs
)

func roleOf(key []byte) uint8 {
	switch string(key) {
	case "name", "tool_name":
		return roleName
	case "id", "call_id":
		return roleID
	case "arguments", "parameters", "args", "input":
		return roleArgs
	case "function":
		// The OpenAI wrapper: read whole at the end.
		return 255
	}
	return roleSkip
}

// advance reads body[pos:end].
func (a *argStream) advance(body []byte, end int) {
	if a.st >= xSeekFn {
		a.advanceXML(body, end)
		return
	}
	i := a.pos
	for i < end && a.st < asEnd {
		c := body[i]
		switch a.st {
		case asHead:
			// The head is looked at again only when a byte arrives that
			// can settle it (the '>' that ends a separator token, the
			// newline after a name, a fence's '`', the arguments' '{'),
			// so the text before the arguments is read a bounded number
			// of times.
			if !bytes.ContainsAny(body[i:end], ">\n`{") {
				if end > maxHead {
					a.st = asDead
				}
				a.pos = end
				return
			}
			name, id, at := a.head(body[:end])
			switch {
			case at == headJSON:
				a.st, a.head = asOpen, nil
				i = 0
				continue
			case at == headMore && end <= maxHead:
				a.pos = end
				return
			case at < 0:
				a.st = asDead
				continue
			}
			a.name, a.haveName, a.id = name, true, id
			a.argsSeen = true
			a.args = append(a.args[:0], '{')
			a.depth = 1
			a.st = asArgs
			i = at + 1
			continue
		case asOpen:
			switch {
			case isSpace(c):
			case c == '{':
				a.st = asKey
			case c == '[':
				a.st, a.inArray = asElem, true
			default:
				a.st = asDead
			}
		case asElem:
			switch {
			case isSpace(c):
			case c == '{':
				a.element()
				a.st = asKey
			case c == ']':
				a.st = asEnd
			default:
				a.st = asDead
			}
		case asElemNext:
			switch {
			case isSpace(c):
			case c == ',':
				a.st = asElem
			case c == ']':
				a.st = asEnd
			default:
				a.st = asDead
			}
		case asKey:
			switch {
			case isSpace(c) || c == ',':
			case c == '"':
				a.st, a.mark = asKeyIn, i+1
			case c == '}':
				if a.objectEnd() {
					a.pos = i + 1
					return
				}
			default:
				a.st = asDead
			}
		case asKeyIn:
			switch {
			case c == '\\':
				// An escaped key is rare enough to leave to the end.
				a.st = asDead
			case c == '"':
				a.role = roleOf(body[a.mark:i])
				a.st = asColon
			}
		case asColon:
			switch {
			case isSpace(c):
			case c == ':':
				a.st = asValue
			default:
				a.st = asDead
			}
		case asValue:
			if isSpace(c) {
				break
			}
			a.value(c, i)
		case asStr:
			switch {
			case a.esc:
				a.esc = false
			case c == '\\':
				a.esc = true
			case c == '"':
				s, err := strictjson.Unquote(body[a.mark : i+1])
				if err != nil {
					a.st = asDead
					break
				}
				if a.role == roleName {
					a.name, a.haveName = s, true
				} else {
					a.id = s
				}
				a.st = asAfter
			}
		case asArgs:
			if a.inStr {
				a.args = append(a.args, c)
				switch {
				case a.esc:
					a.esc = false
				case c == '\\':
					a.esc = true
				case c == '"':
					a.inStr = false
				}
				break
			}
			if isSpace(c) {
				break
			}
			a.args = append(a.args, c)
			switch c {
			case '"':
				a.inStr = true
			case '{', '[':
				a.depth++
			case '}', ']':
				a.depth--
				if a.depth == 0 {
					a.st = asAfter
					if a.head != nil {
						// What follows (a closing fence) is
						// left to the full read.
						a.st = asEnd
					}
				}
			}
		case asSkip:
			if a.inStr {
				switch {
				case a.esc:
					a.esc = false
				case c == '\\':
					a.esc = true
				case c == '"':
					a.inStr = false
					if a.depth == 0 {
						a.st = asAfter
					}
				}
				break
			}
			switch c {
			case '"':
				a.inStr = true
			case '{', '[':
				a.depth++
			case '}', ']':
				if a.depth == 0 {
					// A scalar ended by the object's own close.
					a.st = asDead
					if c == '}' && a.objectEnd() {
						a.pos = i + 1
						return
					}
					break
				}
				a.depth--
				if a.depth == 0 {
					a.st = asAfter
				}
			case ',':
				if a.depth == 0 {
					a.st = asKey
				}
			}
			if a.depth == 0 && isSpace(c) {
				a.st = asAfter
			}
		case asAfter:
			switch {
			case isSpace(c):
			case c == ',':
				a.st = asKey
			case c == '}':
				if a.objectEnd() {
					a.pos = i + 1
					return
				}
			default:
				a.st = asDead
			}
		}
		i++
	}
	a.pos = i
}

// objectEnd ends a call object. In an array it reports true: advance
// returns there, so that the element's last arguments are sent before
// the next element begins.
func (a *argStream) objectEnd() bool {
	if !a.inArray {
		a.st = asEnd
		return false
	}
	a.st = asElemNext
	return true
}

// element starts the next call object of an array, keeping the one
// before if it was announced.
func (a *argStream) element() {
	if a.announced {
		a.prev = append(a.prev, sentCall{index: a.index, callID: a.callID, name: a.name, args: a.args, sent: a.sent})
	} else if a.elems > 0 {
		a.blocked = true
	}
	a.elems++
	// args is not reused: events hold strings cut from it.
	a.name, a.haveName, a.id = "", false, ""
	a.argsSeen, a.args = false, nil
	a.announced, a.sent = false, 0
	a.depth, a.inStr, a.esc = 0, false, false
}

// value starts reading a member's value, whose first byte c is at i.
func (a *argStream) value(c byte, i int) {
	switch a.role {
	case roleName:
		if c != '"' {
			a.st = asDead
			return
		}
		a.st, a.mark = asStr, i
	case roleID:
		if c == '"' {
			a.st, a.mark = asStr, i
			return
		}
		a.skip(c)
	case roleArgs:
		if a.argsSeen {
			// Only the first arguments member counts.
			a.skip(c)
			return
		}
		a.argsSeen = true
		if c != '{' {
			// A string holding the arguments, or something that is
			// not arguments: read whole at the end.
			a.st = asDead
			return
		}
		a.args = append(a.args[:0], c)
		a.depth = 1
		a.st = asArgs
	case roleSkip:
		a.skip(c)
	default:
		a.st = asDead
	}
}

// skip starts skipping a value whose first byte is c.
func (a *argStream) skip(c byte) {
	a.st, a.depth = asSkip, 0
	switch c {
	case '"':
		a.inStr = true
	case '{', '[':
		a.depth = 1
	case '}', ']', ',', ':':
		a.st = asDead
	}
}

// objectAt returns the offset of the '{' that starts the arguments object
// after the whitespace at body[i:], headMore or headNot.
func objectAt(body []byte, i int) int {
	for i < len(body) && isSpace(body[i]) {
		i++
	}
	switch {
	case i == len(body):
		return headMore
	case body[i] == '{':
		return i
	}
	return headNot
}

// sepHead returns an argsHead for bodies written NAME SEP {arguments},
// with name deriving the call's name and id from the text before SEP.
func sepHead(sep string, name func(head string) (string, string)) func([]byte) (string, string, int) {
	return func(body []byte) (string, string, int) {
		i := bytes.Index(body, []byte(sep))
		if i < 0 {
			return "", "", headMore
		}
		n, id := name(string(body[:i]))
		if n == "" {
			return "", "", headNot
		}
		return n, id, objectAt(body, i+len(sep))
	}
}
