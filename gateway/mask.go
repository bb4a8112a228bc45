// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// masked replaces a provider key, in any of its forms, in what the
// gateway relays from a backend.
const masked = "[redacted]"

// minEmbeddedKey is the shortest key whose base64 forms are also masked
// where they sit inside a longer base64 text (a Basic credential, a
// token): shorter ones leave too few characters to tell them from
// anything else.
const minEmbeddedKey = 8

// masker replaces every configured provider key in strings a backend
// wrote before they reach a client: the key as it is, base64-encoded
// (standard and URL alphabets, padded or not, and where it sits at any
// offset inside a longer base64 text) and percent-encoded (query and
// path escaping, every byte escaped, upper- and lower-case hex). A
// hostile or careless backend echoes the key it was sent, and not always
// verbatim. A nil *masker masks nothing. It is safe for concurrent use.
type masker struct {
	r *strings.Replacer // nil when there are no keys
}

// newMasker returns the masker of keys; empty keys are skipped.
func newMasker(keys ...string) *masker {
	seen := map[string]bool{}
	var forms []string
	for _, k := range keys {
		if k == "" {
			continue
		}
		for _, f := range keyForms(k) {
			if f != "" && !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return &masker{}
	}
	// strings.Replacer takes, at each position, the first pair given
	// that matches there: the longest forms go first, so that a form
	// inside a longer one never leaves the rest of it behind.
	slices.SortFunc(forms, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, masked)
	}
	return &masker{r: strings.NewReplacer(pairs...)}
}

// keyForms lists the forms of key that a backend may echo.
func keyForms(key string) []string {
	forms := []string{key}
	encs := []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding}
	for _, e := range encs {
		forms = append(forms, e.EncodeToString([]byte(key)))
	}
	if len(key) >= minEmbeddedKey {
		// The characters of base64(prefix+key+suffix) that depend on
		// the key's bytes alone, for each of the three offsets the key
		// can have in the encoded text.
		for _, e := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for off := range 3 {
				b := append(make([]byte, off), key...)
				enc := e.EncodeToString(b)
				start := (8*off + 5) / 6
				end := 8 * len(b) / 6
				forms = append(forms, enc[start:end])
			}
		}
	}
	var all strings.Builder
	for i := 0; i < len(key); i++ {
		fmt.Fprintf(&all, "%%%02X", key[i])
	}
	for _, f := range []string{url.QueryEscape(key), url.PathEscape(key), all.String()} {
		forms = append(forms, f, lowerHex(f))
	}
	return forms
}

// lowerHex returns s with the hex digits of its percent escapes in lower
// case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if 'A' <= b[j] && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
			i += 2
		}
	}
	return string(b)
}

// String returns s with every form of every key replaced.
func (m *masker) String(s string) string {
	if m == nil || m.r == nil || s == "" {
		return s
	}
	// A replacement can bring together the ends of a form that an
	// earlier match cut in two; mask until nothing changes.
	for range 4 {
		t := m.r.Replace(s)
		if t == s {
			break
		}
		s = t
	}
	return s
}

// Event returns e with what the backend said in its own words masked:
// every string of an error (on a copy: the event's error may be shared),
// and the raw finish reason, which some encoders relay.
func (m *masker) Event(e Event) Event {
	if m == nil || m.r == nil {
		return e
	}
	if e.Err != nil {
		be := *e.Err
		be.Type = m.String(be.Type)
		be.Message = m.String(be.Message)
		e.Err = &be
	}
	if e.Kind == EventFinish {
		e.Text = m.String(e.Text)
	}
	return e
}

// masker returns the provider's masker: every configured key's, when
// the Handler made it, else its own key's.
func (p *Provider) masker() *masker {
	if p.mask != nil {
		return p.mask
	}
	return newMasker(p.APIKey)
}
