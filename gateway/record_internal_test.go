// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// FuzzCallNotes: the hash of a call's arguments, however they are cut
// into pieces, is that of encoding/json's compact form of them — the
// reference for "without the whitespace between tokens" — for any valid
// JSON.
func FuzzCallNotes(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": 1}`, "{\n\t\"city\" : \"Paris, FR\" }", `{"s":"a \" b \\\\ c  d"}`, `[1, 2 ,3]`, `{"x":"\u00e9 é"}`} {
		f.Add([]byte(s), uint8(3), uint8(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut1, cut2 uint8) {
		if !json.Valid(data) {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, data); err != nil {
			t.Fatal(err)
		}
		i, j := min(int(cut1), len(data)), min(int(cut2), len(data))
		if i > j {
			i, j = j, i
		}
		var c callNotes
		c.open("f")
		c.write(string(data[:i]))
		c.write(string(data[i:j]))
		c.write(string(data[j:]))
		c.close()
		sum := sha256.Sum256(want.Bytes())
		if !bytes.Equal(c.list[0].sum[:], sum[:8]) {
			t.Errorf("hash of %q cut at %d and %d is not that of %q", data, i, j, want.Bytes())
		}
	})
}

// BenchmarkRequestRecord is the cost of a model record's making, once per
// request: priced, with two calls, no content.
func BenchmarkRequestRecord(b *testing.B) {
	h := &Handler{cfg: Config{Now: time.Now, Prices: map[string]Price{"gpt": {Input: 1, Output: 2}}}}
	s := &served{front: APIChat, who: server.Identity{Principal: kernel.Principal{ID: "team-a"}, KeyID: "key_5f0c2a91d4e7b318"},
		model: "gpt", known: true, provider: "openai", status: http.StatusOK, start: time.Now(), reqID: "req_0123456789abcdef",
		usage: Usage{InputTokens: 1200, OutputTokens: 300, ReasoningTokens: 100, CacheReadTokens: 800, CacheWriteTokens: -1}, finish: FinishToolCalls}
	for _, n := range []string{"weather", "clock"} {
		s.calls.open(n)
		s.calls.write(`{"city": "Paris"}`)
		s.calls.close()
	}
	var n int
	for b.Loop() {
		rec := h.requestRecord(s)
		n += len(rec.Result)
	}
	_ = n
}
