// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf16"
	"unsafe"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// maxDepth is the deepest nesting [Redactor.JSON] reads as JSON, as
// encoding/json does; a deeper document is masked as text.
const maxDepth = 10000

// checkOptions are the limits documents are checked with: no size limit
// (the caller bounds what it reads), duplicate names allowed (a document is
// masked here, not judged, and every duplicate is masked), and maxDepth.
var checkOptions = strictjson.Options{MaxBytes: -1, MaxDepth: maxDepth, AllowDuplicateNames: true}

// JSON returns v with every secret masked at every depth, keeping member
// order and formatting outside the changed values:
//
//   - a member whose name is a secret name (see [Config.Keys]) has its value,
//     whatever its type, replaced by the string "[REDACTED]" (null and
//     booleans are kept: they carry no secret);
//   - strings, including member names, are masked as by [Redactor.String];
//   - a string whose text is itself a JSON document (JSON sent as a string,
//     at any depth of such embedding) is masked as JSON, then as text;
//   - integers that are card numbers become the string "[REDACTED:card-number]".
//
// Documents are read with package strictjson. The result is always valid
// JSON. Invalid UTF-8 is replaced by U+FFFD. When v is not valid JSON it is
// treated as text: the result is a JSON string holding the redacted text.
// When nothing needs masking, v itself is returned without allocating.
func (r *Redactor) JSON(v json.RawMessage) json.RawMessage {
	if err := strictjson.Check(v, &checkOptions); err != nil {
		if errors.Is(err, strictjson.ErrInvalidUTF8) {
			if fixed := validUTF8(v); strictjson.Check(fixed, &checkOptions) == nil {
				return r.checked(fixed)
			}
		}
		return strictjson.AppendQuote(nil, r.String(strings.ToValidUTF8(string(v), "\uFFFD")))
	}
	return r.checked(v)
}

// checked masks v, which passed the check; a walk that fails all the same
// falls back to masking v as text, never to returning it unmasked.
func (r *Redactor) checked(v []byte) []byte {
	out, err := r.walk(v, false)
	if err != nil {
		return strictjson.AppendQuote(nil, r.String(strings.ToValidUTF8(string(v), "\uFFFD")))
	}
	return out
}

// CheckedJSON is [Redactor.JSON] for v that the caller has already
// checked is valid JSON (with package strictjson): it skips the check.
// Given anything else it does not panic, and falls back to
// [Redactor.JSON] where its walk finds the document malformed.
func (r *Redactor) CheckedJSON(v json.RawMessage) json.RawMessage {
	out, err := r.walk(v, false)
	if err != nil {
		return r.JSON(v)
	}
	return out
}

// ContainsJSON reports whether [Redactor.JSON] would change v, which the
// caller has checked is valid JSON.
func (r *Redactor) ContainsJSON(v json.RawMessage) bool {
	_, err := r.walk(v, true)
	return err != nil
}

// errFound stops a walk that only asks whether anything needs masking.
var errFound = errors.New("redact: found a secret")

// walk masks the checked document src. It returns src itself when nothing
// changed. When probe is set it stops at the first change with errFound.
// Any other error means src was malformed.
func (r *Redactor) walk(src []byte, probe bool) ([]byte, error) {
	w := walker{r: r, src: src, probe: probe}
	i := strictjson.SkipSpace(src, 0)
	end, err := w.value(i)
	if err != nil {
		return src, err
	}
	if end < i || strictjson.SkipSpace(src, end) != len(src) {
		return src, errMalformed
	}
	if w.out == nil {
		return src, nil
	}
	return append(w.out, src[w.last:]...), nil
}

var errMalformed = errors.New("redact: malformed JSON")

// walker copies a document with its secrets masked. It reads src with the
// strictjson walkers, and splices each masked value into out, which stays
// nil (and src is returned as is) until the first change.
type walker struct {
	r     *Redactor
	src   []byte
	out   []byte
	last  int  // src[:last] is accounted for in out
	probe bool // stop at the first change
}

// splice copies src up to start into out and skips src[start:end], whose
// replacement the caller appends to w.out. In a probe it reports errFound.
func (w *walker) splice(start, end int) error {
	if w.probe {
		return errFound
	}
	if w.out == nil {
		w.out = make([]byte, 0, len(w.src)+32)
	}
	w.out = append(w.out, w.src[w.last:start]...)
	w.last = end
	return nil
}

// value masks the value at src[i] and returns the offset past it.
func (w *walker) value(i int) (int, error) {
	src := w.src
	if i >= len(src) {
		return i, errMalformed
	}
	switch c := src[i]; {
	case c == '{':
		return strictjson.WalkObjectRaw(src, i, w.member)
	case c == '[':
		return strictjson.WalkArray(src, i, w.element)
	case c == '"':
		end := strictjson.SkipString(src, i)
		return end, w.str(i, end)
	case c == '-' || isDigit(c):
		end := strictjson.SkipValue(src, i)
		if !w.r.disableCards && cardNumber(src[i:end]) {
			if err := w.splice(i, end); err != nil {
				return end, err
			}
			w.out = append(w.out, `"`+maskCard+`"`...)
		}
		return end, nil
	}
	return strictjson.SkipValue(src, i), nil
}

func (w *walker) element(_, vs int) (int, error) { return w.value(vs) }

// member masks one object member: its name as text, then its value, whole
// when the name is a secret name.
func (w *walker) member(key []byte, vs int) (int, error) {
	src := w.src
	// key is src[ks:ks+len(key)], quotes included; a sub-slice's capacity
	// runs to the end of src's, which gives its offset.
	ks := cap(src) - cap(key)
	if ks < 0 || ks+len(key) > len(src) || len(key) < 2 {
		return vs, errMalformed
	}
	if err := w.str(ks, ks+len(key)); err != nil {
		return vs, err
	}
	if w.r.disableKeys {
		return w.value(vs)
	}
	switch src[vs] {
	case 'n', 't', 'f': // null and booleans carry no secret
		return w.value(vs)
	}
	body := key[1 : len(key)-1]
	name := unsafeString(body)
	if hasBackslash(body) {
		b, _ := strictjson.AppendUnquote(nil, key)
		name = string(b)
	}
	if !w.r.secretKey(name) {
		return w.value(vs)
	}
	end := strictjson.SkipValue(src, vs)
	if isMask(src[vs:end]) {
		return end, nil // masked already, by name or by a text detector
	}
	if err := w.splice(vs, end); err != nil {
		return end, err
	}
	w.out = append(w.out, `"`+maskKey+`"`...)
	return end, nil
}

// str masks the string src[start:end], quotes included. Unchanged strings
// keep their original escaping.
func (w *walker) str(start, end int) error {
	if end-start < 2 {
		return errMalformed
	}
	body := w.src[start+1 : end-1]
	if len(body) < w.r.minLen {
		return nil
	}
	text := unsafeString(body)
	if hasBackslash(body) {
		b, err := strictjson.AppendUnquote(nil, w.src[start:end])
		if err != nil {
			return errMalformed
		}
		text = unsafeString(b) // b is ours and never written again
	}
	masked, changed, err := w.r.text(text, w.probe)
	if err != nil || !changed {
		return err
	}
	if err := w.splice(start, end); err != nil {
		return err
	}
	w.out = strictjson.AppendQuote(w.out, masked)
	return nil
}

// text masks s, the value of one JSON string or a text: with the text
// detectors, then, when s is itself a JSON document, as JSON, so that a
// document sent as a string inside a string is masked at every level. Each
// level is shorter than the one around it, so the work stays bounded by
// the document's size.
func (r *Redactor) text(s string, probe bool) (string, bool, error) {
	spans := r.find(s, nil)
	if !isEmbeddedJSON(s) || strictjson.Check(viewBytes(s), &checkOptions) != nil {
		if len(spans) == 0 {
			return s, false, nil
		}
		if probe {
			return s, true, errFound
		}
		return apply(s, spans), true, nil
	}
	if len(spans) == 0 {
		return r.embedded(s, probe)
	}
	if probe {
		return s, true, errFound
	}
	// The text masks come first, so that a document reads as its text
	// would; unless they broke it (a Cookie header's value runs to the end
	// of the line, which a document's text may not have). Then it is
	// masked as JSON first, which misses nothing the text masks would have
	// caught inside its strings, and as text after.
	if t := apply(s, spans); strictjson.Check(viewBytes(t), &checkOptions) == nil {
		t, _, _ = r.embedded(t, false)
		return t, true, nil
	}
	t, _, _ := r.embedded(s, false)
	if spans := r.find(t, nil); len(spans) > 0 {
		t = apply(t, spans)
	}
	return t, true, nil
}

// viewBytes views s as bytes, to be read only.
func viewBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// embedded masks s, a checked JSON document, as JSON, and reports whether
// that changed it.
func (r *Redactor) embedded(s string, probe bool) (string, bool, error) {
	doc := viewBytes(s)
	out, err := r.walk(doc, probe)
	if errors.Is(err, errFound) {
		return s, true, err
	}
	if err != nil || len(out) == len(doc) && (len(out) == 0 || &out[0] == &doc[0]) {
		return s, false, nil
	}
	return string(out), true, nil
}

// isMask reports whether the JSON value v is a string holding one mask
// and nothing else: "[REDACTED]" or "[REDACTED:kind]".
func isMask(v []byte) bool {
	const open = `"[REDACTED`
	if len(v) < len(open)+2 || string(v[:len(open)]) != open || string(v[len(v)-2:]) != `]"` {
		return false
	}
	rest := v[len(open) : len(v)-2]
	if len(rest) > 0 && rest[0] != ':' {
		return false
	}
	for _, c := range rest {
		if c == ']' || c == '"' || c == '\\' || c == '[' {
			return false
		}
	}
	return true
}

// isEmbeddedJSON reports whether s may be a JSON object, array or string:
// its first byte after white space opens one.
func isEmbeddedJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[', '"':
			return true
		}
		return false
	}
	return false
}

// cardNumber reports whether the JSON number n is a card number.
func cardNumber(n []byte) bool {
	if len(n) < 13 || len(n) > 19 {
		return false
	}
	for _, c := range n {
		if !isDigit(c) {
			return false
		}
	}
	return knownIssuer(n) && luhn(n)
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// unsafeString views b as a string without copying; the string must not
// outlive b or escape the call.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// validUTF8 returns v with invalid UTF-8 and unpaired surrogate escapes
// ("\ud800") replaced by U+FFFD, both of which encoding/json lets through
// and strictjson refuses. Outside strings a valid document has no
// backslash, so every backslash found starts an escape.
func validUTF8(v []byte) []byte {
	s := strings.ToValidUTF8(string(v), "\uFFFD")
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		if i+6 > len(s) || s[i+1] != 'u' {
			i += 2
			continue
		}
		r1, ok := hex4(s[i+2 : i+6])
		if !ok || !utf16.IsSurrogate(r1) {
			i += 6
			continue
		}
		if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if r2, ok := hex4(s[i+8 : i+12]); ok && r1 < 0xdc00 && r2 >= 0xdc00 && r2 < 0xe000 {
				i += 12
				continue
			}
		}
		b.WriteString(s[last:i])
		b.WriteString(`\ufffd`)
		i += 6
		last = i
	}
	if last == 0 {
		return []byte(s)
	}
	b.WriteString(s[last:])
	return []byte(b.String())
}

func hex4(s string) (rune, bool) {
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
