// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentTurn is the request of a coding agent n messages into a task, in
// api's shape: a user asks, the assistant reads a file with a tool, the
// tool answers, the assistant says what it found, and again; as Claude
// Code and Codex send them, user text comes in content blocks.
func agentTurn(api API, n int) []byte {
	var b strings.Builder
	if api == APIResponses {
		return responsesTurn(n)
	}
	if api == APIMessages {
		b.WriteString(`{"model":"m","max_tokens":1024,"stream":true,"system":[{"type":"text","text":"You are a coding agent. Use the tools."}],"messages":[`)
	} else {
		b.WriteString(`{"model":"m","stream":true,"messages":[{"role":"system","content":"You are a coding agent. Use the tools."},`)
	}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case i%4 == 0 && api == APIMessages:
			fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":"Please look at file %d and fix the bug in it, then run the tests."}]}`, i)
		case i%4 == 0:
			fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":"Please look at file %d and fix the bug in it, then run the tests."}]}`, i)
		case i%4 == 1 && api == APIMessages:
			fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"text","text":"I will read it."},{"type":"tool_use","id":"toolu_%d","name":"read_file","input":{"path":"src/file%d.go"}}]}`, i, i)
		case i%4 == 1:
			fmt.Fprintf(&b, `{"role":"assistant","content":"I will read it.","tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/file%d.go\"}"}}]}`, i, i)
		case i%4 == 2 && api == APIMessages:
			fmt.Fprintf(&b, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"package main\n\nfunc main() {\n\tprintln(%d)\n}\n"}]}`, i-1, i)
		case i%4 == 2:
			fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"call_%d","content":"package main\n\nfunc main() {\n\tprintln(%d)\n}\n"}`, i-1, i)
		case api == APIMessages:
			fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"text","text":"The file prints %d; the bug is elsewhere."}]}`, i)
		default:
			fmt.Fprintf(&b, `{"role":"assistant","content":"The file prints %d; the bug is elsewhere."}`, i)
		}
	}
	if api == APIMessages {
		b.WriteString(`],"tools":[{"name":"read_file","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`)
	} else {
		b.WriteString(`],"tools":[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],"max_tokens":1024}`)
	}
	return []byte(b.String())
}

// responsesTurn is agentTurn for the Responses API, as Codex sends it:
// input items, with its reasoning items (a summary and the encrypted
// state) before each call.
func responsesTurn(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"m","stream":true,"instructions":"You are a coding agent. Use the tools.","input":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"type":"message","role":"user","content":[{"type":"input_text","text":"Please look at file %d and fix the bug in it, then run the tests."}]}`, i)
		case 1:
			fmt.Fprintf(&b, `{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":"Read the file first."}],"encrypted_content":"gAAAAABo%d"},{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"read_file","arguments":"{\"path\":\"src/file%d.go\"}"}`, i, i, i, i, i)
		case 2:
			fmt.Fprintf(&b, `{"type":"function_call_output","call_id":"call_%d","output":"package main\n\nfunc main() {\n\tprintln(%d)\n}\n"}`, i-1, i)
		default:
			fmt.Fprintf(&b, `{"type":"message","role":"assistant","id":"msg_%d","content":[{"type":"output_text","text":"The file prints %d; the bug is elsewhere.","annotations":[]}]}`, i, i)
		}
	}
	b.WriteString(`],"tools":[{"type":"function","name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}],"max_output_tokens":1024}`)
	return []byte(b.String())
}

// BenchmarkDecodeRequest reads an agent's request 200 messages into its
// task (25-33 KB), per front door: its cost grows with the
// conversation, which an agent sends whole on every turn.
func BenchmarkDecodeRequest(b *testing.B) {
	for _, api := range []API{APIChat, APIMessages, APIResponses} {
		body := agentTurn(api, 200)
		b.Run(fmt.Sprintf("api=%s/messages=200", api), func(b *testing.B) {
			benchDecode(b, api, body, func(r *Request) bool { return len(r.Messages) >= 150 })
		})
	}
}

// toolsTurn is a request of one message that declares n tools, as an
// agent declares its tools on every turn: the first n distinct functions
// of the BFCL v4 live_multiple corpus (user-contributed function
// definitions, dots in names made underscores and BFCL's "dict" type
// made "object"), in api's shape.
func toolsTurn(b *testing.B, api API, n int) []byte {
	f, err := os.Open(filepath.Join(corpora(b), "..", "bfcl", "BFCL_v4_live_multiple.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var tools []map[string]any
	seen := map[string]bool{}
	for sc.Scan() && len(tools) < n {
		var row struct{ Function []map[string]any }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			b.Fatal(err)
		}
		for _, fn := range row.Function {
			name, _ := fn["name"].(string)
			name = strings.ReplaceAll(name, ".", "_")
			if name == "" || seen[name] || len(tools) == n {
				continue
			}
			seen[name] = true
			params, _ := json.Marshal(fn["parameters"])
			params = []byte(strings.ReplaceAll(string(params), `"dict"`, `"object"`))
			switch api {
			case APIMessages:
				tools = append(tools, map[string]any{"name": name, "description": fn["description"], "input_schema": json.RawMessage(params)})
			case APIChat:
				tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": name, "description": fn["description"], "parameters": json.RawMessage(params)}})
			default:
				tools = append(tools, map[string]any{"type": "function", "name": name, "description": fn["description"], "parameters": json.RawMessage(params)})
			}
		}
	}
	if len(tools) < n {
		b.Fatalf("%d tools in the corpus, want %d", len(tools), n)
	}
	tb, _ := json.Marshal(tools)
	switch api {
	case APIMessages:
		return []byte(`{"model":"m","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}],"tools":` + string(tb) + `}`)
	case APIChat:
		return []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":` + string(tb) + `}`)
	}
	return []byte(`{"model":"m","stream":true,"input":"hi","tools":` + string(tb) + `}`)
}

// BenchmarkDecodeTools reads a request that declares 25 tools (about 20
// KB), per front door; Messages and Responses read each tool's head
// (server, namespaced and custom tools) before the codec reads them.
func BenchmarkDecodeTools(b *testing.B) {
	for _, api := range []API{APIChat, APIMessages, APIResponses} {
		body := toolsTurn(b, api, 25)
		b.Run(fmt.Sprintf("api=%s/tools=25", api), func(b *testing.B) {
			benchDecode(b, api, body, func(r *Request) bool { return len(r.Tools) == 25 })
		})
	}
}

// benchDecode decodes body, a request of api, in a loop, and fails when
// ok says the request read is not the one written.
func benchDecode(b *testing.B, api API, body []byte, ok func(*Request) bool) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := DecodeRequest(api, body, -1)
		if err != nil {
			b.Fatal(err)
		}
		if !ok(r) {
			b.Fatalf("read %d messages and %d tools", len(r.Messages), len(r.Tools))
		}
	}
}
