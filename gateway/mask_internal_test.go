// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestMaskerEmbedded: a key inside a longer base64 text (a Basic
// credential, a token holding it at any offset) is masked too, in both
// alphabets, and what is left of the text decodes to nothing of the key.
func TestMaskerEmbedded(t *testing.T) {
	const key = "sk-embedded/KEY+0123456789"
	m := newMasker(key, "")
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		for _, prefix := range []string{"", "u", "us", "user:", "Authorization: Bearer "} {
			for _, suffix := range []string{"", "x", "xy", "xyz"} {
				text := enc.EncodeToString([]byte(prefix + key + suffix))
				got := m.String("credential " + text + " end")
				if !strings.Contains(got, masked) {
					t.Errorf("%q+key+%q: not masked: %s", prefix, suffix, got)
				}
				// Whatever base64 is left decodes without the key.
				for _, word := range strings.Fields(strings.ReplaceAll(got, masked, " ")) {
					b, _ := enc.DecodeString(word)
					if strings.Contains(string(b), key[2:len(key)-2]) {
						t.Errorf("%q+key+%q: %q still decodes to the key", prefix, suffix, word)
					}
				}
			}
		}
	}
}

func TestMaskerForms(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"raw", "bad key k/y+z=&%1 here", "bad key [redacted] here"},
		{"query", "k%2Fy%2Bz%3D%26%251", "[redacted]"},
		{"path-lower", "k%2fy+z=&%251", "[redacted]"},
		{"every-byte", "%6B%2F%79%2B%7A%3D%26%25%31", "[redacted]"},
		{"every-byte-lower", "%6b%2f%79%2b%7a%3d%26%25%31", "[redacted]"},
		{"base64", base64.StdEncoding.EncodeToString([]byte("k/y+z=&%1")), "[redacted]"},
		{"base64url-raw", base64.RawURLEncoding.EncodeToString([]byte("k/y+z=&%1")), "[redacted]"},
		{"other-key", "second-secret-key", "[redacted]"},
		{"none", "nothing secret", "nothing secret"},
	}
	m := newMasker("k/y+z=&%1", "second-secret-key")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	var nilMask *masker
	if got := nilMask.String("k/y+z=&%1"); got != "k/y+z=&%1" {
		t.Errorf("nil masker changed its input: %q", got)
	}
	e := Event{Kind: EventError, Err: &BackendError{Type: "k/y+z=&%1", Message: "second-secret-key"}}
	orig := e.Err
	got := m.Event(e)
	if got.Err.Type != masked || got.Err.Message != masked {
		t.Errorf("Event: %+v", got.Err)
	}
	if orig.Type != "k/y+z=&%1" {
		t.Errorf("Event changed the caller's error in place")
	}
}
