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

	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/internal/yamljson"
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
		js, err := yamljson.Convert(data, nil)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := json.Unmarshal(js, &c); err != nil {
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

			// Every response's tool_use blocks decode into calls. A
			// streamed response is first assembled into its message.
			body := ex.response
			if bytes.HasPrefix(body, []byte("event:")) {
				streamed++
				body = assemble(t, body)
			}
			resp := generic(t, body)
			r, err := DecodeResponse(body)
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
			enc, _, err := EncodeResponse(r)
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
	t.Logf("corpus: %d tools, %d tool results, %d calls; %d responses assembled from streams", tools, results, calls, streamed)
	if tools < 20 || results < 8 || calls < 8 {
		t.Errorf("the corpus exercised too little: %d tools, %d results, %d calls", tools, results, calls)
	}
}

// assemble rebuilds the message a server-sent event stream delivers, as
// a client SDK does: blocks from content_block_start, text, thinking,
// signature and input_json deltas appended, stop_reason from
// message_delta. Tool input is spliced in as the raw concatenated
// partial_json, so a stream cut mid-object gives a malformed message.
func assemble(t *testing.T, stream []byte) []byte {
	t.Helper()
	var msg map[string]any
	var blocks []map[string]any
	var partial []string
	for line := range strings.Lines(string(stream)) {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		switch ev["type"] {
		case "message_start":
			msg = ev["message"].(map[string]any)
		case "content_block_start":
			blocks = append(blocks, ev["content_block"].(map[string]any))
			partial = append(partial, "")
		case "content_block_delta":
			i := int(ev["index"].(float64))
			d := ev["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				blocks[i]["text"] = blocks[i]["text"].(string) + d["text"].(string)
			case "thinking_delta":
				blocks[i]["thinking"] = blocks[i]["thinking"].(string) + d["thinking"].(string)
			case "signature_delta":
				blocks[i]["signature"] = d["signature"]
			case "input_json_delta":
				partial[i] += d["partial_json"].(string)
			}
		case "message_delta":
			for k, v := range ev["delta"].(map[string]any) {
				msg[k] = v
			}
		}
	}
	var content strings.Builder
	content.WriteByte('[')
	for i, b := range blocks {
		if i > 0 {
			content.WriteByte(',')
		}
		if b["type"] == "tool_use" && partial[i] != "" {
			delete(b, "input")
			raw, _ := json.Marshal(b)
			content.Write(raw[:len(raw)-1])
			content.WriteString(`,"input":` + partial[i] + "}")
			continue
		}
		raw, _ := json.Marshal(b)
		content.Write(raw)
	}
	content.WriteByte(']')
	msg["content"] = json.RawMessage(content.String())
	out, err := json.Marshal(msg)
	if err != nil {
		// A stream cut inside a tool's input: splice it in raw so that
		// the decoder sees what the stream delivered.
		msg["content"] = json.RawMessage("[]")
		out, _ = json.Marshal(msg)
		return bytes.Replace(out, []byte(`"content":[]`), []byte(`"content":`+content.String()), 1)
	}
	return out
}

// TestCorpusStreams reads the recorded SSE streams: each assembled
// message decodes, with a call per tool_use block and the stop reason the
// stream ended with; a stream cut inside a tool's input is an error, not a
// call with half its arguments.
func TestCorpusStreams(t *testing.T) {
	dir := corpustest.Dir(t, "anthropic")
	files, err := filepath.Glob(filepath.Join(dir, "sse", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no streams in %s: %v", dir, err)
	}
	calls := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			body := assemble(t, data)
			r, err := DecodeResponse(body)
			if strings.Contains(file, "incomplete_partial_json") {
				if err == nil {
					t.Fatalf("a stream cut inside a tool's input decoded: %+v", r)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeResponse: %v\n%s", err, body)
			}
			msg := generic(t, body)
			if uses := blocks([]any{msg}, "tool_use"); len(r.Calls) != len(uses) {
				t.Errorf("decoded %d calls, want %d", len(r.Calls), len(uses))
			}
			if msg["stop_reason"] == "refusal" && r.Stop != "refusal" {
				t.Errorf("Stop = %q, want refusal", r.Stop)
			}
			calls += len(r.Calls)
		})
	}
	if calls == 0 {
		t.Error("no stream held a call")
	}
}
