// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/internal/corpustest"
)

// exchange is one recorded request and its response body.
type exchange struct {
	name     string
	request  []byte
	response []byte
}

// recorded reads the go-vcr cassettes and the nock recording of real
// /v1/messages traffic in the corpus.
func recorded(t *testing.T) []exchange {
	dir := corpustest.Dir(t, "anthropic")
	var out []exchange
	cassettes, err := filepath.Glob(filepath.Join(dir, "go-sdk-cassettes", "*.yaml"))
	if err != nil || len(cassettes) == 0 {
		t.Fatalf("no cassettes in %s: %v", dir, err)
	}
	for _, file := range cassettes {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Interactions []struct {
				Request  struct{ Body string }
				Response struct{ Body string }
			}
		}
		if err := yaml.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for i, in := range c.Interactions {
			out = append(out, exchange{
				name:     filepath.Base(file) + "#" + string(rune('0'+i)),
				request:  []byte(in.Request.Body),
				response: []byte(in.Response.Body),
			})
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "ts-sdk-ToolRunner-nock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var nock []struct {
		Body     json.RawMessage
		Response json.RawMessage
	}
	if err := json.Unmarshal(data, &nock); err != nil {
		t.Fatal(err)
	}
	for i, n := range nock {
		out = append(out, exchange{name: "nock#" + string(rune('0'+i)), request: n.Body, response: n.Response})
	}
	return out
}

// generic decodes a trusted test document with encoding/json, to count
// independently of the codec what it should find.
func generic(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("corpus body is not JSON: %v", err)
	}
	return v
}

// blocks returns the content blocks of the given type in messages.
func blocks(msgs []any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, b := range content {
			if b := b.(map[string]any); b["type"] == typ {
				out = append(out, b)
			}
		}
	}
	return out
}

func TestCorpus(t *testing.T) {
	var tools, results, calls, streamed int
	for _, ex := range recorded(t) {
		t.Run(ex.name, func(t *testing.T) {
			req := generic(t, ex.request)

			// Every request's tools decode and re-encode to an equal value.
			decoded, err := DecodeTools(ex.request)
			if err != nil {
				t.Fatalf("DecodeTools: %v", err)
			}
			reqTools, _ := req["tools"].([]any)
			if want := len(reqTools); len(decoded.Defs) != want || len(decoded.Warnings) != 0 {
				t.Fatalf("decoded %d tools (warnings %v), want %d", len(decoded.Defs), decoded.Warnings, want)
			}
			tools += len(decoded.Defs)
			out, ws, err := EncodeTools(decoded)
			if err != nil || len(ws) != 0 {
				t.Fatalf("EncodeTools: %v %v", err, ws)
			}
			back, err := DecodeTools(out)
			if err != nil {
				t.Fatalf("DecodeTools(EncodeTools(x)): %v", err)
			}
			if diff := cmp.Diff(decoded.Defs, back.Defs); diff != "" {
				t.Errorf("tools round trip (-first +second):\n%s", diff)
			}

			// Every tool_result block in the request decodes.
			rs, err := DecodeResults(ex.request)
			if err != nil {
				t.Fatalf("DecodeResults: %v", err)
			}
			want := blocks(req["messages"].([]any), "tool_result")
			if len(rs) != len(want) {
				t.Fatalf("decoded %d results, want %d", len(rs), len(want))
			}
			for i, b := range want {
				if rs[i].CallID != b["tool_use_id"] || rs[i].IsError != (b["is_error"] == true) || len(rs[i].Content) == 0 {
					t.Errorf("result %d = %+v, want the block %v", i, rs[i], b)
				}
			}
			results += len(rs)

			// Every response's tool_use blocks decode into calls.
			if bytes.HasPrefix(ex.response, []byte("event:")) {
				streamed++ // a server-sent event stream, not a message body
				return
			}
			resp := generic(t, ex.response)
			r, err := DecodeResponse(ex.response)
			if err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			uses := blocks([]any{resp}, "tool_use")
			if len(r.Calls) != len(uses) {
				t.Fatalf("decoded %d calls, want %d", len(r.Calls), len(uses))
			}
			for i, u := range uses {
				args, _ := json.Marshal(u["input"])
				var got any
				_ = json.Unmarshal(r.Calls[i].Arguments, &got)
				gotArgs, _ := json.Marshal(got)
				if r.Calls[i].ID != u["id"] || r.Calls[i].Name != u["name"] || string(gotArgs) != string(args) {
					t.Errorf("call %d = %s %s %s, want %v", i, r.Calls[i].ID, r.Calls[i].Name, r.Calls[i].Arguments, u)
				}
			}
			if wantStop := resp["stop_reason"]; wantStop == "tool_use" && len(uses) == 0 {
				t.Errorf("stop_reason tool_use without a tool_use block")
			}
			if len(uses) > 0 && r.Stop != "tool_calls" {
				t.Errorf("Stop = %q with %d calls", r.Stop, len(uses))
			}
			calls += len(r.Calls)
			enc, err := EncodeResponse(r)
			if err != nil {
				t.Fatalf("EncodeResponse: %v", err)
			}
			again, err := DecodeResponse(enc)
			if err != nil {
				t.Fatalf("DecodeResponse(EncodeResponse(x)): %v", err)
			}
			if diff := cmp.Diff(r, again); diff != "" && !strings.Contains(diff, "Extensions") {
				t.Errorf("response round trip (-first +second):\n%s", diff)
			}
		})
	}
	t.Logf("corpus: %d tools, %d tool results, %d calls; %d streamed responses not read", tools, results, calls, streamed)
	if tools < 20 || results < 8 || calls < 8 {
		t.Errorf("the corpus exercised too little: %d tools, %d results, %d calls", tools, results, calls)
	}
}
