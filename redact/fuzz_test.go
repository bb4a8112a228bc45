// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// FuzzJSON checks that JSON never panics, always returns valid JSON, and
// that a canary key planted anywhere in the input's strings never survives.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `"x"`, `1`, `null`,
		`{"a":"b","password":"p","n":[1,2,{"token":{"x":1}}]}`,
		`{"k":"Bearer abcdefghijk123"}`,
		`["postgres://u:p@h/db", 4111111111111111]`,
		`{"\u0070assword":"x"}`,
		`not json`,
		`{"a":"\ud83d\ude00 \u00e9"}`,
		`{"a":"\ud800","password":"p"}`,
		"{\"a\":\"\xff\",\"token\":\"t\"}",
		`{"payload":"{\"inner\": \"{\\\"password\\\": \\\"x\\\"}\"}"}`,
		`["[{\"Cookie\":\"Cookie: a=b\"}]", "{}", "[]"]`,
		`{"a":1,"a":{"secret":2}}`,
	} {
		f.Add(s)
	}
	r := Default()
	f.Fuzz(func(t *testing.T, in string) {
		out := r.JSON(json.RawMessage(in))
		if !json.Valid(out) {
			t.Fatalf("JSON(%q) = %q: not valid JSON", in, out)
		}
		checked := r.CheckedJSON(json.RawMessage(in)) // must not panic on anything
		if strictjson.Check([]byte(in), &checkOptions) == nil && string(checked) != string(out) {
			t.Fatalf("CheckedJSON(%q) = %q, JSON = %q", in, checked, out)
		}
		// Plant a canary inside every string value of valid input.
		if json.Valid([]byte(in)) {
			if p := planted(in); json.Valid([]byte(p)) {
				if got := string(r.JSON(json.RawMessage(p))); strings.Contains(got, openaiKey) {
					t.Fatalf("canary survived in %q: %q", p, got)
				}
			}
		}
		// Redaction is idempotent.
		if again := r.JSON(out); string(again) != string(out) {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
		// The output is strict JSON, whatever came in.
		if err := strictjson.Check(out, &checkOptions); err != nil {
			t.Fatalf("JSON(%q) = %q: %v", in, out, err)
		}
		// A document sent as a string is masked as the document is.
		if json.Valid([]byte(in)) {
			embedded := strictjson.AppendQuote(nil, string(r.JSON(json.RawMessage(planted(in)))))
			if got := string(r.JSON(json.RawMessage(strictjson.AppendQuote(nil, planted(in))))); strings.Contains(got, openaiKey) {
				t.Fatalf("canary survived in an embedded document: %q (once masked: %q)", got, embedded)
			}
		}
	})
}

// planted is in with the canary key at the start of every string.
func planted(in string) string {
	return strings.ReplaceAll(in, `"`, `"`+openaiKey+` `)
}

// FuzzString checks String never panics, keeps a planted canary out and is
// idempotent.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "hello", "a " + awsKey, jwt, pemKey, "DB_PASSWORD=x", "4111 1111 1111 1111", "https://a:b@c",
		`{"a":"Cookie: sid=1","password":"p"}`, `["line\nAKIA` + awsKey[4:] + `"]`, `"{\"token\":\"abcdefgh\"}"`, "Set-Cookie: a=b\r\n{}"} {
		f.Add(s)
	}
	r := Default()
	f.Fuzz(func(t *testing.T, in string) {
		out := r.String(in)
		if strictjson.Check([]byte(in), &checkOptions) == nil && strings.Contains(in, "password") && strings.Contains(out, `"password":"p"`) {
			t.Fatalf("a JSON text lost its member masking: %q -> %q", in, out)
		}
		if r.String(out) != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, r.String(out))
		}
		planted := in + " " + openaiKey + " " + in
		if strings.Contains(r.String(planted), openaiKey) {
			t.Fatalf("canary survived in %q", planted)
		}
	})
}
