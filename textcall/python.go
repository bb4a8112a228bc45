// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// pyParser reads the Python literals models print in pythonic calls:
// strings, numbers, True/False/None (and true/false/null), lists, tuples
// and dicts, written out as JSON.
type pyParser struct {
	b     []byte
	i     int
	depth int
	// big lists the numbers read that are out of range (see
	// outOfRange); each was written as a string of its text.
	big []string
}

var errPython = errors.New("not a Python literal")

func (p *pyParser) errf(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errPython, p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) ws() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *pyParser) ident() string {
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > start && c >= '0' && c <= '9' || c >= utf8.RuneSelf {
			p.i++
			continue
		}
		break
	}
	return string(p.b[start:p.i])
}

// value appends the JSON form of the literal at p.i to dst.
func (p *pyParser) value(dst []byte) ([]byte, error) {
	p.ws()
	if p.i >= len(p.b) {
		return dst, p.errf("value expected")
	}
	if p.depth++; p.depth > 200 {
		return dst, p.errf("nested too deep")
	}
	defer func() { p.depth-- }()
	c := p.b[p.i]
	switch {
	case c == '\'' || c == '"':
		s, err := p.str()
		if err != nil {
			return dst, err
		}
		return strictjson.AppendQuote(dst, s), nil
	case c == '[' || c == '(':
		closer := byte(']')
		if c == '(' {
			closer = ')'
		}
		p.i++
		dst = append(dst, '[')
		for n := 0; ; n++ {
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == closer {
				p.i++
				return append(dst, ']'), nil
			}
			if n > 0 {
				if p.i >= len(p.b) || p.b[p.i] != ',' {
					return dst, p.errf("',' expected")
				}
				p.i++
				p.ws()
				if p.i < len(p.b) && p.b[p.i] == closer {
					p.i++
					return append(dst, ']'), nil
				}
				dst = append(dst, ',')
			}
			var err error
			if dst, err = p.value(dst); err != nil {
				return dst, err
			}
		}
	case c == '{':
		p.i++
		dst = append(dst, '{')
		seen := map[string]bool{}
		for n := 0; ; n++ {
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return append(dst, '}'), nil
			}
			if n > 0 {
				if p.i >= len(p.b) || p.b[p.i] != ',' {
					return dst, p.errf("',' expected")
				}
				p.i++
				p.ws()
				if p.i < len(p.b) && p.b[p.i] == '}' {
					p.i++
					return append(dst, '}'), nil
				}
				dst = append(dst, ',')
			}
			p.ws()
			var key string
			if p.i < len(p.b) && (p.b[p.i] == '\'' || p.b[p.i] == '"') {
				s, err := p.str()
				if err != nil {
					return dst, err
				}
				key = s
			} else {
				// A number or literal key becomes its text.
				start := p.i
				for p.i < len(p.b) && p.b[p.i] != ':' && !isSpace(p.b[p.i]) {
					p.i++
				}
				key = string(p.b[start:p.i])
				if key == "" {
					return dst, p.errf("key expected")
				}
			}
			if seen[key] {
				return dst, p.errf("duplicate key %q", key)
			}
			seen[key] = true
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return dst, p.errf("':' expected")
			}
			p.i++
			dst = strictjson.AppendQuote(dst, key)
			dst = append(dst, ':')
			var err error
			if dst, err = p.value(dst); err != nil {
				return dst, err
			}
		}
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		start := p.i
		p.i++
		for p.i < len(p.b) {
			c := p.b[p.i]
			if c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '_' || (c == '-' || c == '+') && (p.b[p.i-1] == 'e' || p.b[p.i-1] == 'E') {
				p.i++
				continue
			}
			break
		}
		t := string(p.b[start:p.i])
		if outOfRange(t) {
			p.big = append(p.big, t)
			return strictjson.AppendQuote(dst, t), nil
		}
		if b, err := checked([]byte(t)); err == nil && strictjson.KindOf(b) == strictjson.Number {
			return append(dst, b...), nil
		}
		if n, err := strconv.ParseInt(t, 0, 64); err == nil {
			return strconv.AppendInt(dst, n, 10), nil
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return dst, p.errf("bad number %q", t)
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
	default:
		switch id := p.ident(); id {
		case "True", "true":
			return append(dst, "true"...), nil
		case "False", "false":
			return append(dst, "false"...), nil
		case "None", "null":
			return append(dst, "null"...), nil
		default:
			return dst, p.errf("unexpected %q", id)
		}
	}
}

// str reads a Python string literal, single- or triple-quoted, with an
// optional r/u prefix already skipped by the caller.
func (p *pyParser) str() (string, error) {
	q := p.b[p.i]
	triple := p.i+2 < len(p.b) && p.b[p.i+1] == q && p.b[p.i+2] == q
	if triple {
		p.i += 3
	} else {
		p.i++
	}
	var out []byte
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == q {
			if !triple {
				p.i++
				return string(out), nil
			}
			if p.i+2 < len(p.b) && p.b[p.i+1] == q && p.b[p.i+2] == q {
				p.i += 3
				return string(out), nil
			}
		}
		if c == '\n' && !triple {
			return "", p.errf("newline in string")
		}
		if c != '\\' {
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			break
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case '0':
			out = append(out, 0)
		case '\\', '\'', '"':
			out = append(out, e)
		case '\n':
		case 'x', 'u', 'U':
			n := 2
			switch e {
			case 'u':
				n = 4
			case 'U':
				n = 8
			}
			if p.i+n > len(p.b) {
				return "", p.errf("short escape")
			}
			r, err := strconv.ParseUint(string(p.b[p.i:p.i+n]), 16, 32)
			if err != nil {
				return "", p.errf("bad escape")
			}
			p.i += n
			out = utf8.AppendRune(out, rune(r))
		default:
			out = append(out, '\\', e)
		}
	}
	return "", p.errf("unterminated string")
}

// outOfRange reports whether the number literal t is beyond what a
// float64 holds (1e999, or an integer of hundreds of digits). JSON's
// grammar allows such a number, but no decoder that reads numbers as
// float64 can hold it (Python reads 1e999 as inf), so it is never written
// out as a JSON number: the value becomes the string the model wrote,
// with an out-of-range-number warning. A number too small to hold (1e-999)
// reads as 0 everywhere and stays a number.
func outOfRange(t string) bool {
	_, err := strconv.ParseFloat(t, 64)
	return errors.Is(err, strconv.ErrRange)
}

// errOutOfRange is returned by pythonValue for a literal holding an
// out-of-range number, which the caller keeps as text.
var errOutOfRange = errors.New("a number is out of range")

// pythonValue converts one Python literal to checked JSON.
func pythonValue(b []byte) ([]byte, error) {
	p := &pyParser{b: b}
	v, err := p.value(nil)
	if err != nil {
		return nil, err
	}
	if len(p.big) > 0 {
		return nil, fmt.Errorf("%w: %s", errOutOfRange, p.big[0])
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, p.errf("text after the value")
	}
	return checked(v)
}

// pythonCalls reads "[f(a=1), g()]" (the brackets optional) into calls.
// When the output was cut inside the list, the complete calls before the
// cut are kept.
func pythonCalls(c *callCtx, body []byte) ([]rawCall, error) {
	calls, at, err := pythonList(body)
	if err != nil && c.cut && len(calls) > 0 {
		return calls, &cutError{at: at, err: err}
	}
	if err != nil {
		return nil, err
	}
	return calls, nil
}

// pythonList reads the calls of a list; on error it returns the calls read
// and the offset where the failing one starts.
func pythonList(body []byte) (calls []rawCall, at int, err error) {
	p := &pyParser{b: body}
	p.ws()
	bracket := p.i < len(p.b) && p.b[p.i] == '['
	if bracket {
		p.i++
	}
	for {
		p.ws()
		if p.i >= len(p.b) {
			if bracket {
				return calls, len(p.b), p.errf("']' expected")
			}
			break
		}
		if bracket && p.b[p.i] == ']' {
			p.i++
			p.ws()
			if p.i != len(p.b) {
				return calls, at, p.errf("text after the list")
			}
			break
		}
		if len(calls) > 0 {
			if p.b[p.i] != ',' && p.b[p.i] != '\n' && p.b[p.i-1] != '\n' {
				return calls, at, p.errf("',' expected")
			}
			if p.b[p.i] == ',' {
				p.i++
			}
			p.ws()
			if bracket && p.i < len(p.b) && p.b[p.i] == ']' {
				continue
			}
		}
		at = p.i
		name := p.ident()
		for p.i < len(p.b) && p.b[p.i] == '.' {
			p.i++
			name += "." + p.ident()
		}
		if name == "" {
			return calls, at, errNotCall
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '(' {
			return calls, at, errNotCall
		}
		p.i++
		var a argsBuilder
		var warns []tool.Warning
		for n := 0; ; n++ {
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ')' {
				p.i++
				break
			}
			if n > 0 {
				if p.i >= len(p.b) || p.b[p.i] != ',' {
					return calls, at, p.errf("',' expected in the arguments of %s", name)
				}
				p.i++
				p.ws()
				if p.i < len(p.b) && p.b[p.i] == ')' {
					p.i++
					break
				}
			}
			key := p.ident()
			p.ws()
			if key == "" || p.i >= len(p.b) || p.b[p.i] != '=' {
				return calls, at, p.errf("keyword argument expected in the call of %s", name)
			}
			p.i++
			nbig := len(p.big)
			v, err := p.value(nil)
			if err != nil {
				return calls, at, err
			}
			if !a.add(key, v) {
				return calls, at, p.errf("argument %q given twice", key)
			}
			for _, t := range p.big[nbig:] {
				warns = append(warns, tool.Warning{
					Pointer: "/arguments/" + strictjson.EscapePointer(key),
					Code:    "out-of-range-number",
					Message: fmt.Sprintf("argument %q: the number %.40q is beyond what a float64 holds; it is kept as the string the model wrote", key, t),
				})
			}
		}
		args, err := checked(a.bytes())
		if err != nil {
			return calls, at, err
		}
		calls = append(calls, rawCall{name: name, args: args, warns: warns})
	}
	if len(calls) == 0 {
		return nil, 0, errNotCall
	}
	return calls, 0, nil
}
