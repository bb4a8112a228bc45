// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Test secrets are assembled at run time so the repository holds no string
// a secret scanner would flag.
var (
	openaiKey    = "sk-" + "proj-" + strings.Repeat("a1B2c3D4", 5)
	anthropicKey = "sk-" + "ant-api03-" + strings.Repeat("Zx9_Yw8-", 4)
	githubPAT    = "ghp" + "_" + strings.Repeat("A1b2C3", 6)
	githubFine   = "github" + "_pat_" + strings.Repeat("11ABCDEFG0", 3)
	awsKey       = "AK" + "IA" + "IOSFODNN7EXAMPLE"
	slackToken   = "xo" + "xb-" + "1234567890-abcdefghij"
	googleKey    = "AI" + "za" + "SyD-1234567890abcdefghijklmnopqrstu"
	stripeKey    = "sk" + "_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	jwt          = "eyJ" + "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	pemKey       = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA75\nabc\n-----END RSA PRIVATE KEY-----"
)

func TestString(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "nothing to see here, move along", "nothing to see here, move along"},
		{"short", "sk-", "sk-"},
		{"openai", "key " + openaiKey + " end", "key [REDACTED:openai-key] end"},
		{"anthropic", "x=" + anthropicKey, "x=[REDACTED:anthropic-key]"},
		{"github", "token: " + githubPAT + " end", "token: [REDACTED:github-token] end"},
		{"github-prose", "use " + githubPAT + " now", "use [REDACTED:github-token] now"},
		{"github-fine-grained", githubFine, "[REDACTED:github-token]"},
		{"aws", "id " + awsKey + " ok", "id [REDACTED:aws-access-key] ok"},
		{"aws-too-long", "id " + awsKey + "X ok", "id " + awsKey + "X ok"},
		{"slack", slackToken, "[REDACTED:slack-token]"},
		{"google", "k=" + googleKey + "&q=1", "k=[REDACTED:google-api-key]&q=1"},
		{"stripe", stripeKey, "[REDACTED:stripe-key]"},
		{"jwt", "jwt " + jwt + " tail", "jwt [REDACTED:jwt] tail"},
		{"bearer", "Authorization: Bearer abc.def-123_456789", "Authorization: Bearer [REDACTED:bearer-token]"},
		{"bearer-prose", "the bearer instruments of the band", "the bearer instruments of the band"},
		{"basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:bearer-token]"},
		{"basic-prose", "a basic introduction to things", "a basic introduction to things"},
		{"pem", "key:\n" + pemKey + "\nafter", "key:\n[REDACTED:private-key]\nafter"},
		{"pem-truncated", "-----BEGIN " + "PRIVATE KEY-----\nMIIEv", "[REDACTED:private-key]"},
		{"pem-public", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
		{"url-credentials", "dial postgres://admin:hunter22@db.internal:5432/x", "dial postgres://admin:[REDACTED:url-password]@db.internal:5432/x"},
		{"url-no-password", "see https://user@example.com/x", "see https://user@example.com/x"},
		{"url-port", "see https://example.com:8443/x@y", "see https://example.com:8443/x@y"},
		{"assignment", "DB_PASSWORD=hunter2 next", "DB_PASSWORD=[REDACTED:secret] next"},
		{"assignment-json-text", `{"client_secret": "abcdefgh"}`, `{"client_secret": "[REDACTED:secret]"}`},
		{"assignment-short", "password: x", "password: x"},
		{"card-visa", "card 4111 1111 1111 1111 exp", "card [REDACTED:card-number] exp"},
		{"card-dashes", "4111-1111-1111-1111", "[REDACTED:card-number]"},
		{"card-amex", "amex 378282246310005", "amex [REDACTED:card-number]"},
		{"card-bad-luhn", "4111 1111 1111 1112", "4111 1111 1111 1112"},
		{"timestamp", "at 1700000000000 ms", "at 1700000000000 ms"},
		{"card-in-word", "id x4111111111111111", "id x4111111111111111"},
		{"two-secrets", openaiKey + " and " + awsKey, "[REDACTED:openai-key] and [REDACTED:aws-access-key]"},
		{"task-not-key", "task-management-and-planning-system", "task-management-and-planning-system"},
		{"sk-prose", "sk-learn-is-a-python-library-name", "sk-learn-is-a-python-library-name"},
	}
	r := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.String(tt.in)); diff != "" {
				t.Errorf("String(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	r, err := New(&Config{
		Patterns: []Pattern{
			{Name: "employee-id", Regexp: `EMP-\d{6}`},
			{Name: "pin", Regexp: `pin (?P<secret>\d{4})`},
		},
		Keys:         []string{"X-Internal-Ref"},
		DisableCards: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := r.String("EMP-123456 has pin 1234 and card 4111111111111111")
	want := "[REDACTED:employee-id] has pin [REDACTED:pin] and card 4111111111111111"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	gotJSON := string(r.JSON(json.RawMessage(`{"x_internal_ref":"abc","x":1}`)))
	if diff := cmp.Diff(`{"x_internal_ref":"[REDACTED]","x":1}`, gotJSON); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	bad := []struct {
		name string
		cfg  Config
	}{
		{"no-name", Config{Patterns: []Pattern{{Regexp: "x"}}}},
		{"bad-regexp", Config{Patterns: []Pattern{{Name: "p", Regexp: "("}}}},
		{"matches-empty", Config{Patterns: []Pattern{{Name: "p", Regexp: "a*"}}}},
		{"empty-key", Config{Keys: []string{"--"}}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(&tt.cfg); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("New: got %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"unchanged", `{"b":1, "a":[true,null,"x"]}`, `{"b":1, "a":[true,null,"x"]}`},
		{"key-order-kept", `{"z":"` + openaiKey + `","a":1}`, `{"z":"[REDACTED:openai-key]","a":1}`},
		{"secret-key-string", `{"password":"hunter2"}`, `{"password":"[REDACTED]"}`},
		{"secret-key-object", `{"credentials":{"user":"u","pass":"p"},"n":2}`, `{"credentials":"[REDACTED]","n":2}`},
		{"secret-key-null", `{"api_key":null,"Token":true}`, `{"api_key":null,"Token":true}`},
		{"secret-key-camel", `{"accessToken":"abc","maxTokens":5}`, `{"accessToken":"[REDACTED]","maxTokens":5}`},
		{"escaped-secret", `{"k":"sk-proj-\u0061` + strings.Repeat("b1", 12) + `"}`, `{"k":"[REDACTED:openai-key]"}`},
		{"escaped-key-name", `{"pass\u0077ord":"x"}`, `{"pass\u0077ord":"[REDACTED]"}`},
		{"secret-in-name", `{"` + openaiKey + `":1}`, `{"[REDACTED:openai-key]":1}`},
		{"card-number", `{"n":4111111111111111,"m":1700000000000}`, `{"n":"[REDACTED:card-number]","m":1700000000000}`},
		{"whitespace-kept", "{\n  \"a\": [ \"" + awsKey + "\" ]\n}", "{\n  \"a\": [ \"[REDACTED:aws-access-key]\" ]\n}"},
		{"text-with-quotes", `["say \"` + openaiKey + `\" now"]`, `["say \"[REDACTED:openai-key]\" now"]`},
		{"invalid-json", `not json ` + openaiKey, `"not json [REDACTED:openai-key]"`},
		{"scalar", `"` + jwt + `"`, `"[REDACTED:jwt]"`},
	}
	r := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.JSON(json.RawMessage(tt.in))
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("JSON(%s) (-want +got):\n%s", tt.in, diff)
			}
			if !json.Valid(got) {
				t.Errorf("JSON(%s) = %s, not valid JSON", tt.in, got)
			}
		})
	}
}

// TestJSONDeep puts a canary secret at every depth from 1 to 50, in objects
// and arrays, and checks none survives.
func TestJSONDeep(t *testing.T) {
	r := Default()
	for depth := 1; depth <= 50; depth++ {
		for _, wrap := range []string{"object", "array", "secret-key"} {
			inner := `"` + openaiKey + `"`
			for d := 0; d < depth; d++ {
				switch wrap {
				case "object":
					inner = `{"level":` + inner + `,"pad":"x"}`
				case "array":
					inner = `[1,` + inner + `]`
				case "secret-key":
					if d == 0 {
						inner = `{"password":"hunter2-canary"}`
					} else {
						inner = `{"a":[` + inner + `]}`
					}
				}
			}
			got := string(r.JSON(json.RawMessage(inner)))
			if strings.Contains(got, openaiKey) || strings.Contains(got, "hunter2-canary") {
				t.Fatalf("%s depth %d: secret survived: %s", wrap, depth, got)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("%s depth %d: invalid JSON: %s", wrap, depth, got)
			}
		}
	}
}

func TestNoAllocWhenClean(t *testing.T) {
	r := Default()
	text := "The weather in Paris is 21 degrees; see https://example.com/forecast?id=42 for details."
	doc := json.RawMessage(`{"city":"Paris","temp_c":21,"user_id":"u-1","tags":["a","b"],"ok":true}`)
	if n := testing.AllocsPerRun(100, func() { _ = r.String(text) }); n != 0 {
		t.Errorf("String allocated %v times on clean text", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = r.JSON(doc) }); n != 0 {
		t.Errorf("JSON allocated %v times on a clean document", n)
	}
}

func BenchmarkStringClean(b *testing.B) {
	r := Default()
	s := strings.Repeat("The quick brown fox jumps over the lazy dog 12345. ", 20)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.String(s)
	}
}

func BenchmarkJSONClean(b *testing.B) {
	r := Default()
	doc := json.RawMessage(`{"city":"Paris","temp_c":21,"user_id":"u-1","tags":["a","b"],"ok":true,"note":"sunny with light wind"}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.JSON(doc)
	}
}
