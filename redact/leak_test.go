// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// embed returns doc as a JSON string, levels times over.
func embed(doc string, levels int) string {
	for range levels {
		doc = string(strictjson.AppendQuote(nil, doc))
	}
	return doc
}

// TestJSONEmbedded pins issue 14: JSON inside a string inside a string
// was masked one level deep only. A document sent as a string is masked
// as JSON at every level.
func TestJSONEmbedded(t *testing.T) {
	r := Default()
	for levels := 1; levels <= 6; levels++ {
		for _, inner := range []string{
			`{"password": "hunter2-canary"}`,
			`{"authorization": "opaque-canary-value"}`,
			`[{"note": "` + openaiKey + `"}]`,
		} {
			doc := `{"payload":` + embed(inner, levels) + `}`
			got := string(r.JSON(json.RawMessage(doc)))
			for _, canary := range []string{"hunter2-canary", "opaque-canary-value", openaiKey} {
				if strings.Contains(got, canary) {
					t.Fatalf("%d levels: %s survived: %s", levels, canary, got)
				}
			}
			if err := strictjson.Check([]byte(got), nil); err != nil {
				t.Fatalf("%d levels: output is not JSON: %v: %s", levels, err, got)
			}
			if again := string(r.JSON(json.RawMessage(got))); again != got {
				t.Fatalf("%d levels: not idempotent:\n%s\n%s", levels, got, again)
			}
		}
	}
	// The issue's own document.
	doc := `{"payload":"{\"inner\": \"{\\\"password\\\": \\\"s3cr3t-canary\\\"}\"}"}`
	want := `{"payload":"{\"inner\": \"{\\\"password\\\": \\\"[REDACTED:secret]\\\"}\"}"}`
	if diff := cmp.Diff(want, string(r.JSON(json.RawMessage(doc)))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestJSONStrictInput(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		// encoding/json accepted these, so they were masked as JSON; they
		// still are, with the bad text replaced.
		{"lone-surrogate", `{"a":"\ud800x","password":"p"}`, `{"a":"\ufffdx","password":"[REDACTED]"}`},
		{"invalid-utf8", "{\"a\":\"\xff\",\"token\":\"t\"}", "{\"a\":\"\uFFFD\",\"token\":\"[REDACTED]\"}"},
		{"duplicate-names", `{"password":"a","password":"b"}`, `{"password":"[REDACTED]","password":"[REDACTED]"}`},
		{"escaped-backslash-u", `{"a":"\\ud800"}`, `{"a":"\\ud800"}`},
		{"already-masked", `{"password":"[REDACTED]"}`, `{"password":"[REDACTED]"}`},
	}
	r := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(r.JSON(json.RawMessage(tt.in)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("JSON(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCookies(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"cookie", "GET / HTTP/1.1\r\nCookie: session=abc123; theme=dark\r\nHost: x", "GET / HTTP/1.1\r\nCookie: [REDACTED:cookie]\r\nHost: x"},
		{"set-cookie", "Set-Cookie: sid=31d4d96e407aad42; Path=/; Secure\n", "Set-Cookie: [REDACTED:cookie]\n"},
		{"lower-case", "cookie: a=b", "cookie: [REDACTED:cookie]"},
		{"quoted", `{"Cookie": "sid=31d4d96e407aad42"}`, `{"Cookie": "[REDACTED:secret]"}`},
		{"fortune_cookie", "fortune_cookie: tasty", "fortune_cookie: tasty"},
		{"prose", "a cookie is a small file", "a cookie is a small file"},
	}
	r := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("String(%q) (-want +got):\n%s", tt.in, diff)
			}
			if again := r.String(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestValues(t *testing.T) {
	const tok = "opaque/svc+token=42"
	r := Default().WithValues(tok, "abc") // "abc" is too short to mask
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"text", "echo " + tok + " done", "echo [REDACTED:credential] done"},
		{"query-escaped", "GET /x?t=opaque%2Fsvc%2Btoken%3D42", "GET /x?t=[REDACTED:credential]"},
		{"short-ignored", "abc abc", "abc abc"},
		{"alone", tok, "[REDACTED:credential]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.String(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got := string(r.JSON(json.RawMessage(`{"out":"` + tok + `","n":1}`)))
	if diff := cmp.Diff(`{"out":"[REDACTED:credential]","n":1}`, got); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	if Default().String(tok) != tok {
		t.Error("WithValues changed the redactor it was called on")
	}
	short := Default().WithValues("pass")
	if got := short.String("pass"); got != "[REDACTED:credential]" {
		t.Errorf("a 4-byte value in a 4-byte text: got %q", got)
	}
	cfg, err := New(&Config{Values: []string{tok}})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.String(tok); got != "[REDACTED:credential]" {
		t.Errorf("Config.Values: got %q", got)
	}
}

// TestStrings pins issue 14: a private key split across two content parts
// came back with its second half verbatim.
func TestStrings(t *testing.T) {
	r := Default()
	begin, body := "-----BEGIN "+"RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA75canary\n-----END RSA PRIVATE KEY-----"
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"pem-split", []string{"key follows\n" + begin, body + "\nthat was it"}, []string{"key follows\n[REDACTED:private-key]", "[REDACTED:private-key]\nthat was it"}},
		{"pem-three", []string{begin, "MIIEpAIBAAKCAQEA75canary\n", "-----END RSA PRIVATE KEY-----"}, []string{"[REDACTED:private-key]", "[REDACTED:private-key]", "[REDACTED:private-key]"}},
		{"token-split", []string{"key " + openaiKey[:12], openaiKey[12:] + " end"}, []string{"key [REDACTED:openai-key]", "[REDACTED:openai-key] end"}},
		{"each-alone", []string{"a", awsKey}, []string{"a", "[REDACTED:aws-access-key]"}},
		{"clean", []string{"hello there", "general kenobi"}, []string{"hello there", "general kenobi"}},
		{"one", []string{"x " + awsKey}, []string{"x [REDACTED:aws-access-key]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Strings(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if again := r.Strings(got); !cmp.Equal(again, got) {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
	clean := []string{"hello there", "general kenobi"}
	if got := r.Strings(clean); &got[0] != &clean[0] {
		t.Error("Strings copied parts that needed no masking")
	}
}
