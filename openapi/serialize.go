// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// errBadHeaderValue reports a header or cookie value holding control
// characters, which would split the request.
var errBadHeaderValue = errors.New("value holds control characters")

const upperhex = "0123456789ABCDEF"

// escape percent-encodes s for a URL path segment or query component:
// everything but RFC 3986 unreserved characters. With allowReserved it
// is RFC 6570 reserved expansion as OpenAPI's allowReserved restricts it
// for a query value: the reserved characters that keep their meaning
// inside one value pass raw, and so do existing %XX triples; but "[",
// "]" and "#", which a query cannot hold, and "&", "=" and "+", which
// split or change a form-encoded query, stay percent-encoded (OAS 3.1.1,
// Parameter Object, allowReserved; its "-" among them is read as the "="
// that Appendix E discusses). ";" stays encoded as well: servers that
// follow HTML 4 split a query on it. A value can then never add a
// parameter, cut the query off or change another parameter's meaning.
func escape(s string, allowReserved bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !keep(s, i, allowReserved) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep(s, i, allowReserved) {
			b = append(b, c)
		} else {
			b = append(b, '%', upperhex[c>>4], upperhex[c&15])
		}
	}
	return string(b)
}

// keep reports whether s[i] is written as is.
func keep(s string, i int, allowReserved bool) bool {
	c := s[i]
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '-' || c == '.' || c == '_' || c == '~':
		return true
	case !allowReserved:
		return false
	case c == '%':
		// A percent-encoded triple passes unchanged; a lone "%" is data.
		return i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2])
	}
	return strings.IndexByte(":/?@!$'()*,", c) >= 0
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scalar returns the text of a JSON scalar as a parameter value: strings
// unquoted, numbers and booleans as written. Objects and arrays inside a
// value that a style cannot express are written as JSON.
func scalar(v []byte) string {
	switch strictjson.KindOf(v) {
	case strictjson.String:
		s, _ := strictjson.Unquote(v)
		return s
	case strictjson.Null:
		return ""
	}
	return strings.TrimSpace(string(v))
}

type kv struct{ k, v string }

func objectPairs(v []byte) []kv {
	var out []kv
	_ = members(v, func(k, e []byte) error {
		out = append(out, kv{string(k), scalar(e)})
		return nil
	})
	return out
}

func arrayItems(v []byte) []string {
	var out []string
	_ = elements(v, func(_ int, e []byte) error {
		out = append(out, scalar(e))
		return nil
	})
	return out
}

// serializePath returns the text that replaces {name} in a path template
// for the value v (checked JSON), in style simple, label or matrix, every
// part percent-encoded.
func serializePath(name, style string, explode bool, v []byte) string {
	out := serializePathRaw(name, style, explode, v)
	if out == "." || out == ".." {
		// A dot segment would be resolved away by the server or a proxy,
		// moving the request to another path.
		out = strings.ReplaceAll(out, ".", "%2E")
	}
	return out
}

func serializePathRaw(name, style string, explode bool, v []byte) string {
	if style == "matrix" {
		return serializeMatrix(name, explode, v)
	}
	esc := func(s string) string { return escape(s, false) }
	var prefix, sep string
	if style == "label" {
		prefix, sep = ".", ","
		if explode {
			sep = "."
		}
	} else {
		sep = ","
	}
	kvSep := ","
	if explode {
		kvSep = "="
	}
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		items := arrayItems(v)
		for i := range items {
			items[i] = esc(items[i])
		}
		return prefix + strings.Join(items, sep)
	case strictjson.Object:
		pairs := objectPairs(v)
		parts := make([]string, len(pairs))
		for i, p := range pairs {
			parts[i] = esc(p.k) + kvSep + esc(p.v)
		}
		return prefix + strings.Join(parts, sep)
	}
	return prefix + esc(scalar(v))
}

// serializeMatrix writes a path parameter in matrix style, as RFC 6570
// path-style expansion ({;name}) does: ";name=value", or ";name" alone
// when the value is empty (OAS 3.1.1 Style Examples: ";color").
func serializeMatrix(name string, explode bool, v []byte) string {
	esc := func(s string) string { return escape(s, false) }
	param := func(k, val string) string {
		if val == "" {
			return ";" + esc(k)
		}
		return ";" + esc(k) + "=" + esc(val)
	}
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		items := arrayItems(v)
		if len(items) == 0 {
			return ";" + esc(name)
		}
		if explode {
			var b strings.Builder
			for _, it := range items {
				b.WriteString(param(name, it))
			}
			return b.String()
		}
		for i := range items {
			items[i] = esc(items[i])
		}
		return ";" + esc(name) + "=" + strings.Join(items, ",")
	case strictjson.Object:
		pairs := objectPairs(v)
		if len(pairs) == 0 {
			return ";" + esc(name)
		}
		if explode {
			var b strings.Builder
			for _, p := range pairs {
				b.WriteString(param(p.k, p.v))
			}
			return b.String()
		}
		parts := make([]string, len(pairs))
		for i, p := range pairs {
			parts[i] = esc(p.k) + "," + esc(p.v)
		}
		return ";" + esc(name) + "=" + strings.Join(parts, ",")
	}
	return param(name, scalar(v))
}

// serializeQuery returns the query pairs ("k=v", encoded) for parameter p
// with value v: style form (exploded or not), spaceDelimited,
// pipeDelimited or deepObject; a parameter with a content type is sent as
// that media type's text (JSON).
func serializeQuery(p *Param, v []byte) []string {
	esc := func(s string) string { return escape(s, p.AllowReserved) }
	name := escape(p.Name, false)
	if p.ContentType != "" {
		return []string{name + "=" + esc(strings.TrimSpace(string(v)))}
	}
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		items := arrayItems(v)
		if p.Explode && p.Style != "deepObject" {
			out := make([]string, len(items))
			for i, it := range items {
				out[i] = name + "=" + esc(it)
			}
			return out
		}
		sep := ","
		switch p.Style {
		case "spaceDelimited":
			sep = "%20"
		case "pipeDelimited":
			sep = "%7C"
		}
		for i := range items {
			items[i] = esc(items[i])
		}
		return []string{name + "=" + strings.Join(items, sep)}
	case strictjson.Object:
		if p.Style == "deepObject" {
			var out []string
			deepObject(&out, name, v, esc)
			return out
		}
		pairs := objectPairs(v)
		if p.Explode {
			out := make([]string, len(pairs))
			for i, kv := range pairs {
				out[i] = escape(kv.k, false) + "=" + esc(kv.v)
			}
			return out
		}
		sep := ","
		switch p.Style {
		case "spaceDelimited":
			sep = "%20"
		case "pipeDelimited":
			sep = "%7C"
		}
		parts := make([]string, 0, 2*len(pairs))
		for _, kv := range pairs {
			parts = append(parts, esc(kv.k), esc(kv.v))
		}
		return []string{name + "=" + strings.Join(parts, sep)}
	}
	return []string{name + "=" + esc(scalar(v))}
}

// deepObject writes name[key]=value for each member of v, descending into
// nested objects (name[a][b]) and arrays (name[a][0]).
func deepObject(out *[]string, name string, v []byte, esc func(string) string) {
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		_ = members(v, func(k, e []byte) error {
			deepObject(out, name+"%5B"+escape(string(k), false)+"%5D", e, esc)
			return nil
		})
	case strictjson.Array:
		_ = elements(v, func(i int, e []byte) error {
			deepObject(out, name+"%5B"+strconv.Itoa(i)+"%5D", e, esc)
			return nil
		})
	case strictjson.Null:
	default:
		*out = append(*out, name+"="+esc(scalar(v)))
	}
}

// serializeHeader returns a header value in style simple.
func serializeHeader(p *Param, v []byte) (string, error) {
	var s string
	switch {
	case p.ContentType != "":
		s = strings.TrimSpace(string(v))
	case strictjson.KindOf(v) == strictjson.Array:
		s = strings.Join(arrayItems(v), ",")
	case strictjson.KindOf(v) == strictjson.Object:
		pairs := objectPairs(v)
		parts := make([]string, 0, 2*len(pairs))
		for _, kv := range pairs {
			if p.Explode {
				parts = append(parts, kv.k+"="+kv.v)
			} else {
				parts = append(parts, kv.k, kv.v)
			}
		}
		s = strings.Join(parts, ",")
	default:
		s = scalar(v)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return "", fmt.Errorf("header %s: %w", p.Name, errBadHeaderValue)
		}
	}
	return s, nil
}

// serializeCookie returns the "name=value" pairs of a cookie parameter in
// style form; values are percent-encoded, so they never break the header.
func serializeCookie(p *Param, v []byte) []string {
	name := escape(p.Name, false)
	esc := func(s string) string { return escape(s, false) }
	switch {
	case p.ContentType != "":
		return []string{name + "=" + esc(strings.TrimSpace(string(v)))}
	case strictjson.KindOf(v) == strictjson.Array:
		items := arrayItems(v)
		if p.Explode {
			out := make([]string, len(items))
			for i, it := range items {
				out[i] = name + "=" + esc(it)
			}
			return out
		}
		for i := range items {
			items[i] = esc(items[i])
		}
		return []string{name + "=" + strings.Join(items, ",")}
	case strictjson.KindOf(v) == strictjson.Object:
		pairs := objectPairs(v)
		if p.Explode {
			out := make([]string, len(pairs))
			for i, kv := range pairs {
				out[i] = esc(kv.k) + "=" + esc(kv.v)
			}
			return out
		}
		parts := make([]string, 0, 2*len(pairs))
		for _, kv := range pairs {
			parts = append(parts, esc(kv.k), esc(kv.v))
		}
		return []string{name + "=" + strings.Join(parts, ",")}
	}
	return []string{name + "=" + esc(scalar(v))}
}

// expandPath replaces every occurrence of each {name} in template with
// its serialized value.
func expandPath(template string, values map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(template, '{')
		if i < 0 {
			b.WriteString(template)
			return b.String()
		}
		j := strings.IndexByte(template[i:], '}')
		if j < 0 {
			b.WriteString(template)
			return b.String()
		}
		b.WriteString(template[:i])
		name := template[i+1 : i+j]
		if v, ok := values[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(template[i : i+j+1])
		}
		template = template[i+j+1:]
	}
}
