// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

// The grant every mutation test starts from: principal, capability and
// arguments it was issued for.
const (
	fuzzPrincipal  = "ada"
	fuzzCapability = "orders.get"
	fuzzArgs       = `{"id":1}`
)

// fixedGrant returns a verifier and the one token it issued, the same on
// every run (fixed key, id and an expiry in 2100), so that a fuzz corpus
// entry means the same thing tomorrow.
func fixedGrant(t testing.TB) (*Grants, string) {
	t.Helper()
	gs, err := NewGrants(&GrantConfig{Key: testKey, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	gs.idPrefix = [4]byte{1, 2, 3, 4}
	gs.idCounter.Store(41)
	h := sha256.Sum256([]byte(fuzzArgs))
	payload, mac := gs.issueRaw(nil, fuzzPrincipal, fuzzCapability, &h, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	tok := string(encodeToken(nil, payload, mac[:]))
	if _, err := gs.Verify(context.Background(), tok, fuzzPrincipal, fuzzCapability, []byte(fuzzArgs)); err != nil {
		t.Fatalf("the original token does not verify: %v", err)
	}
	return gs, tok
}

// mutationChars are the characters the mutations write: the whole
// base64url alphabet, the separator, padding, the standard alphabet's
// two and what a base64 decoder would skip.
const mutationChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/\r\n \t\x00"

// mutations returns every token one edit away from tok (each character
// deleted, replaced by each of mutationChars, each inserted everywhere),
// and the structural ones: segments appended, prepended and repeated.
func mutations(tok string) []string {
	payload, mac, _ := strings.Cut(tok, ".")
	out := []string{
		tok + ".", tok + ".x", tok + "." + mac, tok + "." + payload, tok + "." + tok,
		"." + tok, tok + "=", payload + "=." + mac, payload + "." + mac + "=",
		payload + "..." + mac, payload + "." + mac + "\n", payload + "\n." + mac,
		tok + tok, payload + payload + "." + mac, payload + "." + mac + mac,
		payload + "AA." + mac, payload + "." + mac + "AA", payload, mac, "",
	}
	for i := 0; i <= len(tok); i++ {
		if i < len(tok) {
			out = append(out, tok[:i]+tok[i+1:])
		}
		for _, c := range mutationChars {
			if i < len(tok) && byte(c) != tok[i] {
				out = append(out, tok[:i]+string(c)+tok[i+1:])
			}
			out = append(out, tok[:i]+string(c)+tok[i:])
		}
	}
	return out
}

// TestGrantStrictParsing: of every token one edit away from a valid one,
// and of the tokens with a segment added, none verifies; an extra
// segment is malformed, not merely a bad signature.
func TestGrantStrictParsing(t *testing.T) {
	gs, tok := fixedGrant(t)
	ctx := context.Background()
	ms := mutations(tok)
	for _, m := range ms {
		if m == tok {
			continue
		}
		if g, err := gs.Verify(ctx, m, fuzzPrincipal, fuzzCapability, []byte(fuzzArgs)); err == nil {
			t.Errorf("a mutated token verifies: %q (grant %s)", m, g.ID)
		} else if !errors.Is(err, ErrGrant) {
			t.Errorf("%q: error %v does not match ErrGrant", m, err)
		}
	}
	for _, extra := range []string{tok + ".", tok + ".x", tok + "." + tok[strings.IndexByte(tok, '.')+1:]} {
		if _, err := gs.Verify(ctx, extra, fuzzPrincipal, fuzzCapability, []byte(fuzzArgs)); !errors.Is(err, ErrMalformedGrant) {
			t.Errorf("%q: Verify = %v, want ErrMalformedGrant", extra, err)
		}
		if err := gs.Revoke(ctx, extra); !errors.Is(err, ErrMalformedGrant) {
			t.Errorf("%q: Revoke = %v, want ErrMalformedGrant", extra, err)
		}
	}
	t.Logf("%d mutations of a %d-byte token, none verifies", len(ms), len(tok))
}

// TestGrantNonCanonicalBase64: the last character of a segment may carry
// bits that the bytes do not use; a token with them set spells the same
// bytes differently, which a lenient decoder accepts, and must not
// verify.
func TestGrantNonCanonicalBase64(t *testing.T) {
	gs, tok := fixedGrant(t)
	payload, mac, _ := strings.Cut(tok, ".")
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	tried := 0
	for _, seg := range []struct {
		name, text string
		join       func(seg string) string
	}{
		{"payload", payload, func(s string) string { return s + "." + mac }},
		{"mac", mac, func(s string) string { return payload + "." + s }},
	} {
		unused := map[int]uint{2: 4, 3: 2}[len(seg.text)%4]
		last := strings.IndexByte(alphabet, seg.text[len(seg.text)-1])
		want, _ := base64.RawURLEncoding.DecodeString(seg.text)
		for i := range len(alphabet) {
			if i == last || i>>unused != last>>unused {
				continue
			}
			alt := seg.text[:len(seg.text)-1] + alphabet[i:i+1]
			if got, err := base64.RawURLEncoding.DecodeString(alt); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %q is not another spelling of the same bytes", seg.name, alt)
			}
			tried++
			if _, err := gs.Verify(context.Background(), seg.join(alt), fuzzPrincipal, fuzzCapability, []byte(fuzzArgs)); err == nil {
				t.Errorf("%s: the non-canonical %q verifies", seg.name, seg.join(alt))
			}
		}
	}
	if tried == 0 {
		t.Fatal("no non-canonical spelling was tried")
	}
}

// FuzzGrantToken: no token but the one issued verifies for its call, and
// nothing panics, whatever the mutation.
func FuzzGrantToken(f *testing.F) {
	gs, tok := fixedGrant(f)
	f.Add(tok)
	for i, m := range mutations(tok) {
		if i%97 == 0 {
			f.Add(m)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		ctx := context.Background()
		_, err := gs.Verify(ctx, s, fuzzPrincipal, fuzzCapability, []byte(fuzzArgs))
		if err == nil && s != tok {
			t.Fatalf("a token other than the issued one verifies: %q", s)
		}
		if err != nil && !errors.Is(err, ErrGrant) {
			t.Fatalf("%q: error %v does not match ErrGrant", s, err)
		}
		if s == tok && err != nil {
			t.Fatalf("the issued token no longer verifies: %v", err)
		}
		_ = gs.Revoke(ctx, s+"x") // parses without panicking; never revokes tok
	})
}
