// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// decoder turns bytes that passed strictjson.Check into the generic values
// the validator works on: map[string]any, []any, string, json.Number, bool
// and nil. It is much cheaper than encoding/json because the input is
// known to be well formed, and it reuses the schema's own property-name
// strings for object keys so that the common keys cost no allocation.
type decoder struct {
	data   []byte
	i      int
	intern map[string]string
}

// decodeChecked decodes data, which must have passed strictjson.Check.
// On malformed input it returns what it could read and never panics.
func decodeChecked(data []byte, intern map[string]string) any {
	d := decoder{data: data, intern: intern}
	return d.value()
}

func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value() any {
	d.ws()
	if d.i >= len(d.data) {
		return nil
	}
	switch c := d.data[d.i]; c {
	case '{':
		d.i++
		m := make(map[string]any)
		for {
			d.ws()
			if d.i >= len(d.data) {
				return m
			}
			if d.data[d.i] == '}' {
				d.i++
				return m
			}
			if d.data[d.i] == ',' {
				d.i++
				continue
			}
			if d.data[d.i] != '"' {
				d.i = len(d.data)
				return m
			}
			k := d.key()
			d.ws()
			if d.i < len(d.data) && d.data[d.i] == ':' {
				d.i++
			}
			m[k] = d.value()
		}
	case '[':
		d.i++
		a := make([]any, 0, 4)
		for {
			d.ws()
			if d.i >= len(d.data) {
				return a
			}
			if d.data[d.i] == ']' {
				d.i++
				return a
			}
			if d.data[d.i] == ',' {
				d.i++
				continue
			}
			start := d.i
			a = append(a, d.value())
			if d.i == start { // no progress on malformed input
				d.i = len(d.data)
			}
		}
	case '"':
		end := strictjson.Skip(d.data, d.i)
		s, _ := strictjson.Unquote(d.data[d.i:end])
		d.i = end
		return s
	case 't':
		d.i += 4
		return true
	case 'f':
		d.i += 5
		return false
	case 'n':
		d.i += 4
		return nil
	default:
		end := strictjson.Skip(d.data, d.i)
		if end <= d.i {
			d.i = len(d.data)
			return nil
		}
		n := json.Number(d.data[d.i:end])
		d.i = end
		return n
	}
}

// key reads an object name, returning an interned string when the name is
// one the schema knows.
func (d *decoder) key() string {
	end := strictjson.Skip(d.data, d.i)
	raw := d.data[d.i:end]
	d.i = end
	if len(raw) >= 2 {
		body := raw[1 : len(raw)-1]
		if s, ok := d.intern[string(body)]; ok {
			return s
		}
		if !hasByte(body, '\\') {
			return string(body)
		}
	}
	s, _ := strictjson.Unquote(raw)
	return s
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}
