// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mediator

import (
	"context"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/kernel"
)

// FuzzHandle feeds arbitrary model responses in each shape through the
// mediator: it must not panic, and whenever it returns results they
// must decode with the same vendor's codec, one per call, and hold no
// secret.
func FuzzHandle(f *testing.F) {
	seeds := []struct {
		format byte
		body   string
	}{
		{0, `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"weather_get","arguments":"{\"city\":\"x\"}"}}]}}]}`},
		{0, `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"refund","arguments":"{"}}]}}]}`},
		{1, `{"object":"response","output":[{"type":"function_call","call_id":"a","name":"broken","arguments":"{}"}]}`},
		{2, `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"a","name":"weather_get","input":{"city":"Mordor"}}]}`},
		{3, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`},
	}
	for _, s := range seeds {
		f.Add(s.format, s.body)
	}
	formats := []codec.Format{codec.OpenAI, codec.OpenAIResponses, codec.Anthropic, codec.MCP}
	f.Fuzz(func(t *testing.T, sel byte, body string) {
		m, _ := newHandler(t)
		ft := formats[int(sel)%len(formats)]
		out, outs, err := m.Handle(context.Background(), ft, []byte(body), &Batch{Principal: kernel.Principal{ID: "ada"}})
		if err != nil {
			return
		}
		if strings.Contains(string(out), secret) {
			t.Fatalf("secret leaked: %s", out)
		}
		var n int
		switch ft {
		case codec.OpenAI:
			rs, derr := openai.DecodeResults(out)
			err, n = derr, len(rs)
		case codec.OpenAIResponses:
			rs, derr := responses.DecodeResults(out)
			err, n = derr, len(rs)
		case codec.Anthropic:
			if len(outs) == 0 {
				return // no calls, no tool_result message to read
			}
			rs, derr := anthropic.DecodeResults(out)
			err, n = derr, len(rs)
		case codec.MCP:
			_, err = mcp.DecodeResult(out)
			n = 1
		}
		if err != nil || n != len(outs) {
			t.Fatalf("%s results %s: %v, %d results for %d calls", ft, out, err, n, len(outs))
		}
	})
}
