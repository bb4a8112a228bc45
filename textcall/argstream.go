// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// argStream reads the body of a JSON call object, {"name": …,
// "arguments": {…}} in any member order, while it arrives, so that a
// Scanner with [Config.StreamArguments] can announce the call as soon as
// its name is known and send its arguments as they are written. Each byte
// is read once. It reads structure, not every token: whatever it lets
// through is checked in full when the body ends, and a call that then
// fails is withdrawn.
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
	argsDone bool

	announced bool
	index     int    // the call's index in the events
	callID    string // the id it was announced with
	sent      int    // bytes of args sent
}

// argStream states.
const (
	asOpen  uint8 = iota // before the object's '{'
	asKey                // before a member's key, or the closing '}'
	asKeyIn              // inside the key
	asColon              // after the key
	asValue              // before the value
	asStr                // inside a string value that is read (name, id)
	asArgs               // inside the arguments object
	asSkip               // inside a value that is skipped
	asAfter              // after a value
	asEnd                // after the object: nothing more to read
	asDead               // not a plain call object: the body is read whole at its end
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
	i := a.pos
	for i < end && a.st < asEnd {
		c := body[i]
		switch a.st {
		case asOpen:
			switch {
			case isSpace(c):
			case c == '{':
				a.st = asKey
			default:
				a.st = asDead
			}
		case asKey:
			switch {
			case isSpace(c) || c == ',':
			case c == '"':
				a.st, a.mark = asKeyIn, i+1
			case c == '}':
				a.st = asEnd
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
					a.argsDone = true
					a.st = asAfter
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
					if c == '}' {
						a.st = asEnd
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
				a.st = asEnd
			default:
				a.st = asDead
			}
		}
		i++
	}
	a.pos = i
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

// streamArgs reads the body of the call in progress up to end and sends
// what it can: the call's start once its name is known and its arguments
// have begun, then each new piece of the arguments.
func (e *engine) streamArgs(end int) {
	a := e.as
	if a == nil || end <= e.bstart+a.pos {
		return
	}
	body := e.buf[e.bstart:]
	a.advance(body, end-e.bstart)
	s := e.s
	if !a.announced {
		if !a.haveName || !a.argsSeen || a.st == asDead || len(a.args) == 0 {
			return
		}
		if s.p.offered != nil && !s.p.offered[a.name] && !s.p.cfg.AllowUnknownTools {
			// A rejected call is never announced.
			a.st = asDead
			return
		}
		a.announced = true
		a.index = s.streamIndex
		s.streamIndex++
		n := s.calls
		s.calls++
		a.callID = s.callID(n, a.id)
		s.ev = append(s.ev, Event{Kind: EventCall, Index: a.index, ID: a.callID, Name: a.name})
	}
	if len(a.args) > a.sent {
		// args is only appended to while the call is read, so the
		// event's text can be cut from it without a copy.
		s.ev = append(s.ev, Event{Kind: EventArguments, Index: a.index, Text: unsafe.String(&a.args[a.sent], len(a.args)-a.sent)})
		a.sent = len(a.args)
	}
}

// settle ends the streaming of the call in progress once its body has been
// read whole into calls. It returns the calls still to report: when the
// first is the announced call, with the arguments that were sent as a
// prefix, the rest of its arguments are sent and it is reported here;
// otherwise the announced call is withdrawn, with a warning saying why.
func (e *engine) settle(calls []rawCall, at int64, why error) []rawCall {
	a := e.as
	e.as = nil
	if a == nil || !a.announced {
		return calls
	}
	s := e.s
	switch {
	case len(calls) == 0:
		if why == nil {
			why = fmt.Errorf("it holds no call")
		}
	case calls[0].name != a.name:
		why = fmt.Errorf("it names %q", calls[0].name)
	case !bytes.HasPrefix(calls[0].args, a.args[:a.sent]):
		why = fmt.Errorf("its arguments are not the ones sent")
	default:
		s.reportCall(calls[0], a.callID, at, a)
		return calls[1:]
	}
	s.warn("", "call-withdrawn", fmt.Sprintf("call %d (%q), announced while its arguments streamed in, turned out not to be a valid call: %v; it is not among the calls", a.index, a.name, why))
	return calls
}

// abandon withdraws the call in progress when its body is given up on
// without being read (too large, or no call after all).
func (e *engine) abandon(why string) {
	if e.as != nil {
		e.settle(nil, 0, fmt.Errorf("%s", why))
	}
}
