// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// apiResponse is a clean document shaped like a typical API response: an
// array of records with strings, numbers, booleans and a nested object.
func apiResponse(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(1000+i) + `,"title":"Fix the flaky test in the scheduler","status":"open","assignee":{"name":"Ada Lovelace","email":"ada@example.com"},"labels":["bug","p2"],"estimate":3.5,"done":false,"url":"https://tracker.example.com/issues/` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString(`],"next":null,"total":` + strconv.Itoa(n) + `}`)
	return json.RawMessage(b.String())
}

// BenchmarkJSONCleanLarge is a clean 50-record API response: the common
// case, which must cost one pass and no allocation.
func BenchmarkJSONCleanLarge(b *testing.B) {
	r := Default()
	doc := apiResponse(50)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.JSON(doc)
	}
}

// BenchmarkCheckedJSONCleanLarge is the kernel's path: a document already
// checked by strictjson.
func BenchmarkCheckedJSONCleanLarge(b *testing.B) {
	r := Default()
	doc := apiResponse(50)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.CheckedJSON(doc)
	}
}

// BenchmarkJSONSecrets is a document with a secret-named member and a
// vendor key, which must be rewritten.
func BenchmarkJSONSecrets(b *testing.B) {
	r := Default()
	doc := json.RawMessage(`{"user":"ada","password":"hunter2hunter2","config":{"api":"` + openaiKey + `","region":"eu-west-1"},"tags":["a","b"],"n":42}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.JSON(doc)
	}
}

// BenchmarkStringSecret is text with one key in it.
func BenchmarkStringSecret(b *testing.B) {
	r := Default()
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 10) + "key " + awsKey + " end"
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.String(s)
	}
}
