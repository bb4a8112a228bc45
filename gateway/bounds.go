// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"math"
)

// maxBound is the largest token bound a client may ask for: far beyond
// any model's output, and small enough for every backend's integer.
const maxBound = math.MaxInt32

// tokenBound reads a token bound (max_tokens, max_output_tokens,
// budget_tokens, …) at ptr: a positive integer written as one, as the
// vendors' APIs require. Zero, a negative number, a fraction (1.5, and
// 1.0 or 1e3 too: not written as an integer), a string or any other type
// is refused with a 400 naming ptr, as OpenAI and Anthropic refuse it,
// rather than dropped: a bound silently dropped lets the answer run to
// the backend's own limit. null is the member left out (0).
func tokenBound(raw json.RawMessage, ptr string) (int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	s := string(raw)
	digits := s
	if s[0] == '-' {
		digits = s[1:]
	}
	if digits == "" {
		return 0, badRequest(ptr, "must be a positive integer")
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, badRequest(ptr, "must be a positive integer")
		}
	}
	if s[0] == '-' || s == "0" || s[0] == '0' {
		// JSON has no leading zeros; only 0 itself starts with one.
		return 0, badRequest(ptr, "must be a positive integer (at least 1)")
	}
	n, err := parseInt(raw, 64)
	if err != nil || n > maxBound {
		return 0, badRequest(ptr, "is too large (at most %d)", maxBound)
	}
	return int(n), nil
}

// takeBound removes key from m and reads it with [tokenBound] into dst;
// a member left out leaves dst alone.
func takeBound(m *memberSet, key string, dst *int) error {
	raw, ok := m.get(key)
	if !ok {
		return nil
	}
	m.del(key)
	n, err := tokenBound(raw, "/"+key)
	if err != nil {
		return err
	}
	if n > 0 {
		*dst = n
	}
	return nil
}
