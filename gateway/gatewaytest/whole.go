// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gatewaytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// This file answers a request that asks for no stream with one JSON body,
// as the real APIs do, made from the SSE reply a test pushed: an
// implementation of its own, independent of the gateway's decoders, so
// that the gateway's reading of whole answers is checked against
// something else than itself.

// wantsWhole reports whether the request asks for a whole answer: Gemini's
// generateContent, or a body whose "stream" is not true.
func wantsWhole(path string, body []byte) bool {
	switch {
	case strings.HasSuffix(path, ":generateContent"):
		return true
	case strings.HasSuffix(path, ":streamGenerateContent"):
		return false
	case !strings.HasSuffix(path, "/chat/completions") && !strings.HasSuffix(path, "/messages") && !strings.HasSuffix(path, "/responses"):
		return false
	}
	var head struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &head) == nil && !head.Stream
}

// apiOf names the API of a request path for [Collapse].
func apiOf(path string) string {
	switch {
	case strings.HasSuffix(path, "/messages"):
		return "messages"
	case strings.HasSuffix(path, "/responses"):
		return "responses"
	case strings.Contains(path, ":generateContent"), strings.Contains(path, ":streamGenerateContent"):
		return "gemini"
	}
	return "chat"
}

// Collapse turns the SSE body of one streamed answer of api ("chat",
// "messages", "responses" or "gemini") into the JSON body the same API
// answers a request that does not stream with: a chat.completion, a
// message, a response, a GenerateContentResponse. An error the stream
// reports becomes the API's error body. It returns an error for a stream
// it cannot make whole (cut short, unreadable, or in a shape it does not
// know), which the Backend then answers as it is.
func Collapse(api string, sse []byte) ([]byte, error) {
	events, err := splitSSE(sse)
	if err != nil {
		return nil, err
	}
	switch api {
	case "chat":
		return collapseChat(events)
	case "messages":
		return collapseMessages(events)
	case "responses":
		return collapseResponses(events)
	case "gemini":
		return collapseGemini(events)
	}
	return nil, fmt.Errorf("gatewaytest: unknown api %q", api)
}

type sseEvent struct {
	name string
	data []byte
}

// splitSSE reads an SSE body: events end at a blank line; their data
// lines are joined with newlines. The events' data share body's memory
// when they are one line: a large body is not copied.
func splitSSE(body []byte) ([]sseEvent, error) {
	if bytes.Contains(body, []byte("\r\n")) {
		body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	}
	var out []sseEvent
	for _, block := range bytes.Split(body, []byte("\n\n")) {
		var ev sseEvent
		var data [][]byte
		for _, line := range bytes.Split(block, []byte("\n")) {
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				ev.name = string(value)
			case "data":
				data = append(data, value)
			}
		}
		switch len(data) {
		case 0:
			continue
		case 1:
			ev.data = data[0]
		default:
			ev.data = bytes.Join(data, []byte("\n"))
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		return nil, errors.New("gatewaytest: no events")
	}
	return out, nil
}

// object reads one event's data as a JSON object, numbers kept exact.
func object(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, errors.New("gatewaytest: an event is not a JSON object")
	}
	return m, nil
}

func strOf(v any) string {
	s, _ := v.(string)
	return s
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func intOf(v any, def int) int {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
	}
	return def
}

// chatChoice is one choice being put together.
type chatChoice struct {
	role                                          string
	content, reasoningContent, reasoning, refusal *strings.Builder
	calls                                         map[int]*chatCall
	finish                                        any
}

type chatCall struct {
	id, typ, name string
	args          strings.Builder
}

func appendTo(b **strings.Builder, v any) {
	s, ok := v.(string)
	if !ok {
		return
	}
	if *b == nil {
		*b = &strings.Builder{}
	}
	(*b).WriteString(s)
}

// collapseChat joins chat.completion.chunk deltas into a chat.completion.
func collapseChat(events []sseEvent) ([]byte, error) {
	out := map[string]any{"object": "chat.completion"}
	choices := map[int]*chatChoice{}
	done := false
	for _, ev := range events {
		if string(ev.data) == "[DONE]" {
			done = true
			break
		}
		c, err := object(ev.data)
		if err != nil {
			return nil, err
		}
		if e, ok := c["error"]; ok && e != nil {
			return json.Marshal(map[string]any{"error": e})
		}
		for _, k := range []string{"id", "model", "created", "system_fingerprint"} {
			if _, ok := out[k]; !ok && c[k] != nil {
				out[k] = c[k]
			}
		}
		if u := c["usage"]; u != nil {
			out["usage"] = u
		}
		for i, cv := range listOf(c["choices"]) {
			ch := mapOf(cv)
			idx := intOf(ch["index"], i)
			st := choices[idx]
			if st == nil {
				st = &chatChoice{role: "assistant", calls: map[int]*chatCall{}}
				choices[idx] = st
			}
			if f := ch["finish_reason"]; f != nil {
				st.finish = f
			}
			delta := mapOf(ch["delta"])
			if r := strOf(delta["role"]); r != "" {
				st.role = r
			}
			appendTo(&st.content, delta["content"])
			appendTo(&st.reasoningContent, delta["reasoning_content"])
			appendTo(&st.reasoning, delta["reasoning"])
			appendTo(&st.refusal, delta["refusal"])
			for j, tv := range listOf(delta["tool_calls"]) {
				tc := mapOf(tv)
				ti := intOf(tc["index"], j)
				call := st.calls[ti]
				if call == nil {
					call = &chatCall{typ: "function"}
					st.calls[ti] = call
				}
				if id := strOf(tc["id"]); id != "" {
					call.id = id
				}
				fn := mapOf(tc["function"])
				if n := strOf(fn["name"]); n != "" {
					call.name = n
				}
				switch a := fn["arguments"].(type) {
				case string:
					call.args.WriteString(a)
				case map[string]any:
					b, _ := json.Marshal(a)
					call.args.Write(b)
				}
			}
		}
	}
	if !done && !anyFinish(choices) {
		return nil, errors.New("gatewaytest: the chat stream has no finish_reason")
	}
	var list []any
	for _, idx := range sortedKeys(choices) {
		st := choices[idx]
		msg := map[string]any{"role": st.role, "content": nil}
		if st.content != nil {
			msg["content"] = st.content.String()
		}
		if st.reasoningContent != nil {
			msg["reasoning_content"] = st.reasoningContent.String()
		}
		if st.reasoning != nil {
			msg["reasoning"] = st.reasoning.String()
		}
		if st.refusal != nil {
			msg["refusal"] = st.refusal.String()
		}
		if len(st.calls) > 0 {
			if st.content != nil && st.content.Len() == 0 {
				msg["content"] = nil
			}
			var calls []any
			for _, ti := range sortedKeys(st.calls) {
				c := st.calls[ti]
				calls = append(calls, map[string]any{"id": c.id, "type": c.typ, "function": map[string]any{"name": c.name, "arguments": c.args.String()}})
			}
			msg["tool_calls"] = calls
		}
		list = append(list, map[string]any{"index": idx, "message": msg, "finish_reason": st.finish, "logprobs": nil})
	}
	if list == nil {
		list = []any{}
	}
	out["choices"] = list
	return json.Marshal(out)
}

func anyFinish(choices map[int]*chatChoice) bool {
	for _, c := range choices {
		if c.finish != nil {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// collapseMessages joins a Messages stream into the message it built.
func collapseMessages(events []sseEvent) ([]byte, error) {
	var msg map[string]any
	var blocks []map[string]any
	var partial []*strings.Builder
	at := map[int]int{} // a block's index in the stream -> its place in blocks
	for _, ev := range events {
		e, err := object(ev.data)
		if err != nil {
			return nil, err
		}
		switch strOf(e["type"]) {
		case "error":
			return json.Marshal(map[string]any{"type": "error", "error": e["error"]})
		case "message_start":
			if msg == nil {
				msg = mapOf(e["message"])
				if msg == nil {
					return nil, errors.New("gatewaytest: message_start without a message")
				}
				// What every message says, if a hand-written stream did not.
				for k, v := range map[string]any{"type": "message", "role": "assistant", "stop_reason": nil, "stop_sequence": nil} {
					if _, ok := msg[k]; !ok {
						msg[k] = v
					}
				}
			}
		case "content_block_start":
			b := mapOf(e["content_block"])
			if b == nil {
				return nil, errors.New("gatewaytest: content_block_start without a block")
			}
			at[intOf(e["index"], -1)] = len(blocks)
			blocks = append(blocks, b)
			partial = append(partial, &strings.Builder{})
		case "content_block_delta":
			i, ok := at[intOf(e["index"], -1)]
			if !ok {
				return nil, errors.New("gatewaytest: a delta for no block")
			}
			b, d := blocks[i], mapOf(e["delta"])
			switch strOf(d["type"]) {
			case "text_delta":
				b["text"] = strOf(b["text"]) + strOf(d["text"])
			case "thinking_delta":
				b["thinking"] = strOf(b["thinking"]) + strOf(d["thinking"])
			case "signature_delta":
				b["signature"] = strOf(b["signature"]) + strOf(d["signature"])
			case "input_json_delta":
				partial[i].WriteString(strOf(d["partial_json"]))
			}
		case "content_block_stop":
			i, ok := at[intOf(e["index"], -1)]
			if !ok {
				return nil, errors.New("gatewaytest: a stop for no block")
			}
			if p := partial[i].String(); p != "" {
				var in bytes.Buffer
				if err := json.Compact(&in, []byte(p)); err != nil {
					return nil, errors.New("gatewaytest: a tool_use input is not JSON")
				}
				blocks[i]["input"] = json.RawMessage(in.Bytes()) // in the model's order
			}
		case "message_delta":
			if msg == nil {
				return nil, errors.New("gatewaytest: message_delta before message_start")
			}
			for k, v := range mapOf(e["delta"]) {
				msg[k] = v
			}
			if u := mapOf(e["usage"]); u != nil {
				mu := mapOf(msg["usage"])
				if mu == nil {
					mu = map[string]any{}
				}
				for k, v := range u {
					if v != nil {
						mu[k] = v
					}
				}
				msg["usage"] = mu
			}
		case "message_stop":
			if msg == nil {
				return nil, errors.New("gatewaytest: message_stop before message_start")
			}
			content := make([]any, len(blocks))
			for i, b := range blocks {
				content[i] = b
			}
			msg["content"] = content
			return json.Marshal(msg)
		}
	}
	return nil, errors.New("gatewaytest: the messages stream has no message_stop")
}

// collapseResponses is the response of the stream's last event:
// Responses streams end with the whole response. Where that response
// lists no output (a hand-written stream), the output is built from the
// stream's items: each added, its deltas applied, replaced when done.
func collapseResponses(events []sseEvent) ([]byte, error) {
	var items []map[string]any
	byID := map[string]int{}
	item := func(id any) map[string]any {
		if i, ok := byID[strOf(id)]; ok {
			return items[i]
		}
		return nil
	}
	for _, ev := range events {
		e, err := object(ev.data)
		if err != nil {
			return nil, err
		}
		switch strOf(e["type"]) {
		case "response.output_item.added", "response.output_item.done":
			it := mapOf(e["item"])
			if it == nil {
				return nil, errors.New("gatewaytest: an output item event without an item")
			}
			cp := map[string]any{}
			for k, v := range it {
				cp[k] = v
			}
			if i, ok := byID[strOf(it["id"])]; ok {
				items[i] = cp
			} else {
				byID[strOf(it["id"])] = len(items)
				items = append(items, cp)
			}
		case "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta":
			it := item(e["item_id"])
			if it == nil {
				return nil, errors.New("gatewaytest: a delta for no item")
			}
			typ, key := "output_text", "text"
			switch strOf(e["type"]) {
			case "response.refusal.delta":
				typ, key = "refusal", "refusal"
			case "response.reasoning_text.delta":
				typ = "reasoning_text"
			}
			parts := listOf(it["content"])
			var part map[string]any
			if n := len(parts); n > 0 && strOf(mapOf(parts[n-1])["type"]) == typ {
				part = mapOf(parts[n-1])
			} else {
				part = map[string]any{"type": typ}
				it["content"] = append(parts, part)
			}
			part[key] = strOf(part[key]) + strOf(e["delta"])
		case "response.reasoning_summary_text.delta":
			it := item(e["item_id"])
			if it == nil {
				return nil, errors.New("gatewaytest: a delta for no item")
			}
			parts := listOf(it["summary"])
			n := intOf(e["summary_index"], 0)
			for len(parts) <= n {
				parts = append(parts, map[string]any{"type": "summary_text", "text": ""})
			}
			part := mapOf(parts[n])
			part["text"] = strOf(part["text"]) + strOf(e["delta"])
			it["summary"] = parts
		case "response.function_call_arguments.delta":
			it := item(e["item_id"])
			if it == nil {
				return nil, errors.New("gatewaytest: a delta for no item")
			}
			it["arguments"] = strOf(it["arguments"]) + strOf(e["delta"])
		case "response.completed", "response.incomplete", "response.failed":
			r := mapOf(e["response"])
			if r == nil {
				return nil, errors.New("gatewaytest: the last event has no response")
			}
			if len(listOf(r["output"])) == 0 && len(items) > 0 {
				out := make([]any, len(items))
				for i, it := range items {
					out[i] = it
				}
				r["output"] = out
			}
			if r["object"] == nil {
				r["object"] = "response"
			}
			return json.Marshal(r)
		}
	}
	return nil, errors.New("gatewaytest: the responses stream has no response.completed")
}

// collapseGemini joins GenerateContentResponse chunks: the first
// candidate's parts in order (adjacent text of the same kind as one part),
// the last finishReason, usageMetadata and promptFeedback.
func collapseGemini(events []sseEvent) ([]byte, error) {
	out := map[string]any{}
	var parts []map[string]any
	var cand map[string]any
	for _, ev := range events {
		c, err := object(ev.data)
		if err != nil {
			return nil, err
		}
		if e := c["error"]; e != nil {
			return json.Marshal(map[string]any{"error": e})
		}
		for _, k := range []string{"modelVersion", "responseId", "usageMetadata", "promptFeedback", "createTime"} {
			if c[k] != nil {
				out[k] = c[k]
			}
		}
		cands := listOf(c["candidates"])
		if len(cands) == 0 {
			continue
		}
		ch := mapOf(cands[0])
		if cand == nil {
			cand = map[string]any{"index": 0}
		}
		for k, v := range ch {
			if k != "content" && v != nil {
				cand[k] = v
			}
		}
		for _, pv := range listOf(mapOf(ch["content"])["parts"]) {
			p := mapOf(pv)
			if p == nil {
				return nil, errors.New("gatewaytest: a part is not an object")
			}
			if p["partialArgs"] != nil || p["willContinue"] != nil {
				return nil, errors.New("gatewaytest: a call streamed in pieces")
			}
			if n := len(parts); n > 0 && mergeable(parts[n-1], p) {
				parts[n-1]["text"] = strOf(parts[n-1]["text"]) + strOf(p["text"])
				continue
			}
			cp := map[string]any{}
			for k, v := range p {
				cp[k] = v
			}
			parts = append(parts, cp)
		}
	}
	if cand != nil {
		list := make([]any, len(parts))
		for i, p := range parts {
			list[i] = p
		}
		cand["content"] = map[string]any{"role": "model", "parts": list}
		out["candidates"] = []any{cand}
	}
	if len(out) == 0 {
		return nil, errors.New("gatewaytest: the gemini stream is empty")
	}
	return json.Marshal(out)
}

// mergeable reports whether text part b continues text part a: both
// plain text of the same kind (thought or not), neither with anything
// else (a signature, a call).
func mergeable(a, b map[string]any) bool {
	plain := func(m map[string]any) (thought, ok bool) {
		if _, ok := m["text"].(string); !ok {
			return false, false
		}
		for k := range m {
			if k != "text" && k != "thought" {
				return false, false
			}
		}
		t, _ := m["thought"].(bool)
		return t, true
	}
	ta, okA := plain(a)
	tb, okB := plain(b)
	return okA && okB && ta == tb
}
