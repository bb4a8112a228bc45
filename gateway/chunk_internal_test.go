// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"errors"
	"strings"
	"testing"
)

// TestChunkPointers checks the pointers of wrong-type members, which are
// joined only on error, from the precomputed first choices and beyond.
func TestChunkPointers(t *testing.T) {
	choices := func(i int, c string) string {
		return `{"choices":[` + strings.Repeat(`{"index":0,"delta":{}},`, i) + c + `]}`
	}
	tests := []struct {
		data, ptr string
	}{
		{`{"id":5}`, "/id"},
		{choices(0, `{"index":"x"}`), "/choices/0/index"},
		{choices(1, `{"delta":{"content":5}}`), "/choices/1/delta/content"},
		{choices(3, `{"message":{"refusal":[]}}`), "/choices/3/message/refusal"},
		{choices(4, `{"delta":{"reasoning_content":1}}`), "/choices/4/delta/reasoning_content"},
		{choices(11, `{"message":{"content":true}}`), "/choices/11/message/content"},
		{choices(5, `{"finish_reason":2}`), "/choices/5/finish_reason"},
		{choices(2, `{"delta":{"tool_calls":[{"function":{"name":3}}]}}`), "/choices/2/delta/tool_calls/0/function/name"},
		{choices(6, `{"delta":7}`), "/choices/6/delta"},
	}
	for _, tt := range tests {
		var c chunk
		err := parseChunk([]byte(tt.data), &c)
		var te *typeError
		if !errors.As(err, &te) || te.ptr != tt.ptr {
			t.Errorf("%s: %v, want a wrong type at %s", tt.data, err, tt.ptr)
		}
	}
	var c chunk
	if err := parseChunk([]byte(choices(9, `{"index":9,"delta":{"content":"hi"}}`)), &c); err != nil || len(c.choices) != 10 || c.choices[9].content != "hi" {
		t.Errorf("a good chunk: %v %+v", err, c.choices)
	}
}
