// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// ErrInvalidConfig reports a [Config] that [New] cannot use, such as an
// extra pattern that does not compile.
var ErrInvalidConfig = errors.New("redact: invalid config")

// Config configures a [Redactor]. The zero value (or nil) is the default:
// every built-in detector and the built-in list of secret key names.
type Config struct {
	// Patterns are extra regular expressions (RE2 syntax) whose matches are
	// masked as "[REDACTED:name]". Each runs on every string, so keep them
	// anchored on something distinctive.
	Patterns []Pattern

	// Keys are extra JSON object member names whose values are masked
	// whatever they hold. Names are compared after lower-casing and
	// removing '-', '_', '.' and spaces, and match when the normalised
	// member name ends with the normalised key ("db_password" matches
	// "password").
	Keys []string

	// DisableKeys turns off masking by member name (built-in and Keys),
	// leaving only the value detectors.
	DisableKeys bool

	// DisableCards turns off the card-number detector.
	DisableCards bool

	// Values are literal secrets, such as the credentials a tool source
	// is configured with, masked as "[REDACTED:credential]" wherever they
	// appear, and so are their URL-query-escaped forms. Values shorter
	// than [MinValueLen] bytes are ignored: masking them would destroy
	// ordinary text. Each value costs one vectorised search of every
	// string masked, so keep the list to credentials actually held.
	Values []string
}

// MinValueLen is the shortest literal secret [Config.Values] and
// [Redactor.WithValues] mask.
const MinValueLen = 4

// Pattern is an extra secret pattern for [Config.Patterns].
type Pattern struct {
	// Name appears in the mask, "[REDACTED:Name]". It must be non-empty.
	Name string
	// Regexp is an RE2 expression; the whole match is masked, or, when the
	// expression has a capture group named "secret", only that group.
	Regexp string
}

// Redactor finds and masks secrets. It is immutable after [New] and safe
// for concurrent use.
type Redactor struct {
	patterns     []compiled
	values       []string      // literal secrets and their escaped forms, longest first
	minLen       int           // strings shorter than this hold nothing to mask
	keys         []string      // normalised suffixes, built-in then configured
	byLast       [256][]string // keys by their last byte, a cheap first filter
	disableKeys  bool
	disableCards bool
}

type compiled struct {
	name  string
	mask  string
	re    *regexp.Regexp
	group int // index of the "secret" group, or 0 for the whole match
}

// builtinKeys are normalised member-name suffixes whose values are secrets.
var builtinKeys = [...]string{
	"password", "passwd", "passphrase", "secret", "token", "apikey",
	"authorization", "privatekey", "cookie", "credential", "credentials",
	"sessionid", "accesskey", "secretkey", "clientsecret", "signature",
}

// New returns a Redactor for cfg; nil means the defaults.
func New(cfg *Config) (*Redactor, error) {
	r := newDefault()
	if cfg == nil {
		return r, nil
	}
	r.disableKeys = cfg.DisableKeys
	r.disableCards = cfg.DisableCards
	for i, p := range cfg.Patterns {
		if p.Name == "" {
			return nil, fmt.Errorf("%w: pattern %d has no name", ErrInvalidConfig, i)
		}
		re, err := regexp.Compile(p.Regexp)
		if err != nil {
			return nil, fmt.Errorf("%w: pattern %q: %w", ErrInvalidConfig, p.Name, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("%w: pattern %q matches the empty string", ErrInvalidConfig, p.Name)
		}
		c := compiled{name: p.Name, mask: "[REDACTED:" + p.Name + "]", re: re}
		if g := re.SubexpIndex("secret"); g > 0 {
			c.group = g
		}
		r.patterns = append(r.patterns, c)
	}
	for _, k := range cfg.Keys {
		n := normalizeKey(k)
		if n == "" {
			return nil, fmt.Errorf("%w: empty key name %q", ErrInvalidConfig, k)
		}
		r.keys = append(r.keys, n)
		r.byLast[n[len(n)-1]] = append(r.byLast[n[len(n)-1]], n)
	}
	r.addValues(cfg.Values)
	return r, nil
}

// newDefault returns the default Redactor, which cannot fail to build.
func newDefault() *Redactor {
	r := &Redactor{minLen: minTextLen}
	r.keys = append(r.keys, builtinKeys[:]...)
	for _, k := range r.keys {
		r.byLast[k[len(k)-1]] = append(r.byLast[k[len(k)-1]], k)
	}
	return r
}

// minTextLen is the shortest text the built-in detectors can find a
// secret in.
const minTextLen = 8

// Default returns a Redactor with the default configuration. Each call
// returns a new value; there is no shared global.
func Default() *Redactor { return newDefault() }

// WithValues returns a Redactor that masks everything r masks and, as
// [Config.Values] does, each of values. r is not changed. A kernel uses it
// to add the credentials each tool source is configured with.
func (r *Redactor) WithValues(values ...string) *Redactor {
	n := *r
	n.values = slices.Clone(r.values)
	n.addValues(values)
	return &n
}

func (r *Redactor) addValues(values []string) {
	for _, v := range values {
		if len(v) < MinValueLen {
			continue
		}
		r.values = append(r.values, v)
		if e := url.QueryEscape(v); e != v {
			r.values = append(r.values, e)
		}
	}
	// Longest first, so that a secret holding another is masked whole;
	// then without repeats.
	slices.SortFunc(r.values, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	r.values = slices.Compact(r.values)
	for _, v := range r.values {
		r.minLen = min(r.minLen, len(v))
	}
}

// span is one secret found in a string: s[start:end] is replaced by mask.
type span struct {
	start, end int
	mask       string
}

// String returns s with every secret masked as "[REDACTED:kind]". A text
// that is a JSON document (a command's output, an error quoting a
// response) is then also masked as [Redactor.JSON] masks it, keeping its
// layout. When s holds no secret it is returned as is, without
// allocating.
func (r *Redactor) String(s string) string {
	out, _, _ := r.text(s, false)
	return out
}

// Strings returns parts with every secret masked, reading them as one
// text as well as one by one: a secret that starts in one part and ends in
// another (a private key whose BEGIN line closes the first part of a
// result) is masked in each part it touches. When nothing needs masking,
// parts itself is returned.
func (r *Redactor) Strings(parts []string) []string {
	if len(parts) < 2 {
		if len(parts) == 1 {
			if s := r.String(parts[0]); s != parts[0] {
				return []string{s}
			}
		}
		return parts
	}
	// A part that is a JSON document is masked on its own, as JSON: text
	// detectors read across its syntax (a Cookie header's value runs to
	// the end of the line, which a document's text may not have) and
	// could spill into the next part. The other parts are read as they
	// are, joined, so that a key split across them is found.
	base := parts
	var doc []bool
	for i, p := range parts {
		if isEmbeddedJSON(p) && strictjson.Check([]byte(p), &checkOptions) == nil {
			if doc == nil {
				base, doc = slices.Clone(parts), make([]bool, len(parts))
			}
			base[i], doc[i] = r.String(p), true
		}
	}
	joined := r.find(strings.Join(base, ""), nil)
	var out []string
	off := 0
	var local []span
	for i, p := range parts {
		q := base[i]
		if doc == nil || !doc[i] {
			local = r.find(p, local[:0])
			n := len(local)
			for _, sp := range joined {
				a, b := max(sp.start, off)-off, min(sp.end, off+len(p))-off
				if a < b {
					local = append(local, span{a, b, sp.mask})
				}
			}
			if len(local) > n && len(local) > 1 {
				local = merge(local[:0], local)
			}
			if len(local) > 0 {
				q = apply(p, local)
			}
		}
		off += len(base[i])
		if q == p {
			continue
		}
		if out == nil {
			out = slices.Clone(parts)
		}
		out[i] = q
	}
	if out == nil {
		return parts
	}
	return out
}

// Contains reports whether s holds anything [Redactor.String] would mask.
func (r *Redactor) Contains(s string) bool {
	_, found, _ := r.text(s, true)
	return found
}

// SecretKey reports whether a JSON member named name has its value masked
// whatever it holds.
func (r *Redactor) SecretKey(name string) bool {
	if r.disableKeys || name == "" {
		return false
	}
	return r.secretKey(name)
}

func (r *Redactor) secretKey(name string) bool {
	i := len(name) - 1
	for i >= 0 && isSeparator(name[i]) {
		i--
	}
	if i < 0 {
		return false
	}
	for _, k := range r.byLast[name[i]|0x20] {
		if hasNormSuffix(name[:i+1], k) {
			return true
		}
	}
	return false
}

// hasNormSuffix reports whether the normalised form of name (see
// [Config.Keys]) ends with k, without building the normalised form.
func hasNormSuffix(name, k string) bool {
	i := len(name) - 1
	for j := len(k) - 1; j >= 0; j-- {
		for i >= 0 && isSeparator(name[i]) {
			i--
		}
		if i < 0 {
			return false
		}
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[j] {
			return false
		}
		i--
	}
	return true
}

func isSeparator(c byte) bool { return c == '-' || c == '_' || c == '.' || c == ' ' }

func normalizeKey(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isSeparator(c):
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// find appends to spans every secret in s, sorted and without overlaps.
func (r *Redactor) find(s string, spans []span) []span {
	if len(s) < r.minLen {
		return spans
	}
	n0 := len(spans)
	for _, v := range r.values {
		for from := 0; ; {
			i := strings.Index(s[from:], v)
			if i < 0 {
				break
			}
			from += i + len(v)
			spans = append(spans, span{from - len(v), from, maskValue})
		}
	}
	if len(s) < minTextLen {
		if len(spans)-n0 > 1 {
			spans = merge(spans[:n0], spans[n0:])
		}
		return spans
	}
	spans = findPEM(s, spans)
	spans = findJWT(s, spans)
	spans = findVendorKeys(s, spans)
	spans = findBearer(s, spans)
	spans = findURLCredentials(s, spans)
	spans = findAssignments(s, spans)
	if !r.disableCards {
		spans = findCards(s, spans)
	}
	for i := range r.patterns {
		p := &r.patterns[i]
		for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
			a, b := m[0], m[1]
			if p.group > 0 {
				a, b = m[2*p.group], m[2*p.group+1]
			}
			if a >= 0 && b > a {
				spans = append(spans, span{a, b, p.mask})
			}
		}
	}
	if len(spans)-n0 > 1 {
		spans = merge(spans[:n0], spans[n0:])
	}
	return spans
}

// merge sorts found by start and joins overlapping spans, keeping the mask
// of the earliest, longest one.
func merge(dst, found []span) []span {
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].start != found[j].start {
			return found[i].start < found[j].start
		}
		return found[i].end > found[j].end
	})
	out := found[:0]
	for _, sp := range found {
		if n := len(out); n > 0 && sp.start < out[n-1].end {
			if sp.end > out[n-1].end {
				out[n-1].end = sp.end
			}
			continue
		}
		out = append(out, sp)
	}
	return append(dst, out...)
}

func apply(s string, spans []span) string {
	var b strings.Builder
	n := len(s)
	for _, sp := range spans {
		n += len(sp.mask) - (sp.end - sp.start)
	}
	b.Grow(max(n, 0))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(sp.mask)
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}
