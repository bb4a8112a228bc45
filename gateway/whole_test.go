// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"golang.org/x/tools/txtar"
)

// turnSummary is what a client and the counts downstream see of a turn.
type turnSummary struct {
	Model, Text, Reasoning, Signature string
	Redacted                          []string
	Calls                             []string // id name args, the arguments compacted
	Usage                             Usage
	Finish                            Finish
	StopReason                        string
	Err                               *BackendError
}

func summarize(t *testing.T, evs []Event) turnSummary {
	t.Helper()
	c := NewCollector()
	for _, e := range evs {
		if err := c.Add(e); err != nil {
			t.Fatalf("events out of order: %v", err)
		}
	}
	tn := c.Turn()
	s := turnSummary{Model: tn.Model, Text: tn.Text, Reasoning: tn.Reasoning, Signature: tn.Signature, Redacted: tn.Redacted,
		Usage: tn.Usage, Finish: tn.Finish, StopReason: tn.StopReason, Err: tn.Err}
	for _, c := range tn.Calls {
		var buf bytes.Buffer
		args := string(c.Arguments)
		if json.Compact(&buf, c.Arguments) == nil {
			args = buf.String()
		}
		s.Calls = append(s.Calls, c.ID+" "+c.Name+" "+args)
	}
	return s
}

// streamEvents decodes an SSE body of api as the gateway reads a stream.
func streamEvents(t *testing.T, api API, body []byte) []Event {
	t.Helper()
	dec, _ := NewStreamDecoder(api)
	var out []Event
	err := pump(bytes.NewReader(body), dec, 0, func(evs []Event) error {
		out = append(out, evs...)
		return nil
	})
	if err != nil {
		t.Fatalf("the stream does not decode: %v", err)
	}
	return out
}

func corpora(t testing.TB) string {
	dir := os.Getenv("TOOLGATE_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpora")
	}
	dir = filepath.Join(dir, "gateway")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpora: %v", err)
	}
	return dir
}

// recordedStream is the first answer of a recorded stream of the corpora.
func recordedStream(t testing.TB, api API, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(file, ".chunks.txt") {
		return data
	}
	kind := "events"
	if api == APIChat {
		kind = "chat"
	}
	bodies, err := gatewaytest.FrameChunks(kind, data)
	if err != nil || len(bodies) == 0 {
		t.Fatalf("%s: %v", file, err)
	}
	return bodies[0]
}

func apiOfDir(dir string) API {
	switch dir {
	case "anthropic":
		return APIMessages
	case "openai-responses":
		return APIResponses
	}
	return APIChat
}

// reference reads a recorded whole answer with encoding/json into
// generic values, apart from the gateway's decoders: what a turn must hold.
func reference(t *testing.T, api API, data []byte) turnSummary {
	t.Helper()
	var v map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	m := func(v any) map[string]any { x, _ := v.(map[string]any); return x }
	l := func(v any) []any { x, _ := v.([]any); return x }
	str := func(v any) string { x, _ := v.(string); return x }
	n := func(v any) int64 {
		if x, ok := v.(json.Number); ok {
			i, _ := x.Int64()
			return i
		}
		return -1
	}
	compact := func(s string) string {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(s)) != nil {
			return s
		}
		return buf.String()
	}
	s := turnSummary{Model: str(v["model"]), Usage: unknownUsage()}
	switch api {
	case APIChat:
		ch := m(l(v["choices"])[0])
		msg := m(ch["message"])
		s.Text = str(msg["content"]) + str(msg["refusal"])
		s.Reasoning = str(msg["reasoning_content"])
		if s.Reasoning == "" {
			s.Reasoning = str(msg["reasoning"])
		}
		for _, c := range l(msg["tool_calls"]) {
			fn := m(m(c)["function"])
			s.Calls = append(s.Calls, str(m(c)["id"])+" "+str(fn["name"])+" "+compact(str(fn["arguments"])))
		}
		s.StopReason = str(ch["finish_reason"])
		u := m(v["usage"])
		s.Usage.InputTokens, s.Usage.OutputTokens = n(u["prompt_tokens"]), n(u["completion_tokens"])
		if d := m(u["prompt_tokens_details"]); d != nil {
			s.Usage.CacheReadTokens = n(d["cached_tokens"])
		}
		if d := m(u["completion_tokens_details"]); d != nil {
			s.Usage.ReasoningTokens = n(d["reasoning_tokens"])
		}
	case APIMessages:
		var raw struct {
			Content []struct {
				Input json.RawMessage `json:"input"`
			} `json:"content"`
		}
		json.Unmarshal(data, &raw)
		for i, b := range l(v["content"]) {
			b := m(b)
			switch str(b["type"]) {
			case "text":
				s.Text += str(b["text"])
			case "thinking":
				s.Reasoning += str(b["thinking"])
				s.Signature += str(b["signature"])
			case "tool_use":
				s.Calls = append(s.Calls, str(b["id"])+" "+str(b["name"])+" "+compact(string(raw.Content[i].Input)))
			}
		}
		s.StopReason = str(v["stop_reason"])
		u := m(v["usage"])
		w, r := n(u["cache_creation_input_tokens"]), n(u["cache_read_input_tokens"])
		s.Usage.InputTokens = n(u["input_tokens"]) + max(w, 0) + max(r, 0)
		s.Usage.OutputTokens, s.Usage.CacheWriteTokens, s.Usage.CacheReadTokens = n(u["output_tokens"]), w, r
	case APIResponses:
		for _, it := range l(v["output"]) {
			it := m(it)
			switch str(it["type"]) {
			case "reasoning":
				for j, p := range l(it["summary"]) {
					if j > 0 {
						s.Reasoning += "\n\n"
					}
					s.Reasoning += str(m(p)["text"])
				}
				for _, p := range l(it["content"]) {
					s.Reasoning += str(m(p)["text"])
				}
				s.Signature += str(it["encrypted_content"])
			case "message":
				for _, p := range l(it["content"]) {
					s.Text += str(m(p)["text"])
				}
			case "function_call":
				s.Calls = append(s.Calls, str(it["call_id"])+" "+str(it["name"])+" "+compact(str(it["arguments"])))
			}
		}
		s.StopReason = str(v["status"])
		u := m(v["usage"])
		s.Usage.InputTokens, s.Usage.OutputTokens = n(u["input_tokens"]), n(u["output_tokens"])
		s.Usage.CacheReadTokens = n(m(u["input_tokens_details"])["cached_tokens"])
		s.Usage.ReasoningTokens = n(m(u["output_tokens_details"])["reasoning_tokens"])
	}
	s.Finish = finishOf(s.StopReason)
	if api == APIResponses {
		s.Finish = FinishStop
	}
	if len(s.Calls) > 0 {
		s.Finish = FinishToolCalls
	}
	return s
}

// shape is what a recording of another answer to the same request must
// share with a turn: its model, which parts it has, its calls' names, how
// it ended, which counts of its usage are known.
func shape(s turnSummary) string {
	var names []string
	for _, c := range s.Calls {
		f := strings.Fields(c)
		names = append(names, f[1])
	}
	known := func(n int64) string {
		if n < 0 {
			return "?"
		}
		return "n"
	}
	u := s.Usage
	return strings.Join([]string{s.Model, known(int64(len(s.Text)) - 1), known(int64(len(s.Reasoning)) - 1), known(int64(len(s.Signature)) - 1),
		strings.Join(names, ","), string(s.Finish), s.StopReason,
		known(u.InputTokens) + known(u.OutputTokens) + known(u.ReasoningTokens) + known(u.CacheReadTokens) + known(u.CacheWriteTokens)}, " ")
}

// TestWholeRecorded decodes every recorded whole answer of the corpora
// and checks it against a reading of its own (usage with its cached and
// reasoning tokens, text, reasoning, signatures, calls, finish). Where the
// corpora recorded the same request streamed, the two recordings are two
// answers of the model: they must have the same shape (model, parts,
// calls' names, finish, which usage counts are known).
func TestWholeRecorded(t *testing.T) {
	dir := corpora(t)
	tests := []struct {
		name string
		// stream is the recording of the same request streamed, if any
		// has the same shape (some were recorded from another model).
		stream string
	}{
		{name: "openai-compatible/vercel-alibaba-reasoning", stream: "openai-compatible/vercel-alibaba-reasoning.chunks.txt"},
		{name: "openai-compatible/vercel-alibaba-tool-call", stream: "openai-compatible/vercel-alibaba-tool-call.chunks.txt"},
		{name: "openai-compatible/vercel-deepseek-reasoning", stream: "openai-compatible/vercel-deepseek-reasoning.chunks.txt"},
		{name: "openai-compatible/vercel-deepseek-tool-call", stream: "openai-compatible/vercel-deepseek-tool-call.chunks.txt"},
		{name: "openai-compatible/vercel-groq-tool-call", stream: "openai-compatible/vercel-groq-tool-call.chunks.txt"},
		{name: "openai-compatible/vercel-xai-tool-call", stream: "openai-compatible/vercel-xai-tool-call.chunks.txt"},
		{name: "openai-compatible/vercel-groq-reasoning"},
		{name: "openai-responses/vercel-lmstudio-basic.1"},     // the stream is of another model
		{name: "openai-responses/vercel-lmstudio-tool-call.1"}, // the stream is of another model
		{name: "openai-responses/vercel-openai-custom-tool.1", stream: "openai-responses/vercel-openai-custom-tool.1.chunks.txt"},
		{name: "openai-responses/vercel-openai-phase.1", stream: "openai-responses/vercel-openai-phase.1.chunks.txt"},
		{name: "openai-responses/vercel-openai-reasoning-encrypted-content.1"}, // the stream is of another model
		{name: "anthropic/vercel-anthropic-claude-opus-5-reasoning-high.1"},
		{name: "anthropic/vercel-anthropic-clear-thinking.1", stream: "anthropic/vercel-anthropic-clear-thinking.1.chunks.txt"},
		{name: "anthropic/vercel-anthropic-json-tool.1", stream: "anthropic/vercel-anthropic-json-tool.1.chunks.txt"},
		{name: "anthropic/vercel-anthropic-text", stream: "anthropic/vercel-anthropic-text.chunks.txt"},
		{name: "anthropic/vercel-anthropic-tool-no-args"}, // the stream is of another model
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, "/", "_"), func(t *testing.T) {
			api := apiOfDir(filepath.Dir(tt.name))
			data, err := os.ReadFile(filepath.Join(dir, tt.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			evs, err := decodeWhole(api, data)
			if err != nil {
				t.Fatalf("decodeWhole: %v", err)
			}
			got := summarize(t, evs)
			if diff := cmp.Diff(reference(t, api, data), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.stream != "" {
				streamed := summarize(t, streamEvents(t, api, recordedStream(t, api, filepath.Join(dir, tt.stream))))
				if diff := cmp.Diff(shape(streamed), shape(got)); diff != "" {
					t.Errorf("the whole answer's shape differs from the stream's (-stream +whole):\n%s", diff)
				}
			}
		})
	}
}

// collapsible lists the streams of the corpora and of this package's
// testdata: API, name and SSE body.
type recordedBody struct {
	api  API
	name string
	body []byte
}

func collapsible(t *testing.T) []recordedBody {
	t.Helper()
	dir := corpora(t)
	var out []recordedBody
	for _, sub := range []string{"anthropic", "openai-chat", "openai-compatible", "openai-responses"} {
		files, _ := filepath.Glob(filepath.Join(dir, sub, "*"))
		for _, f := range files {
			if strings.HasSuffix(f, ".json") {
				continue
			}
			api := apiOfDir(sub)
			out = append(out, recordedBody{api, sub + "_" + filepath.Base(f), recordedStream(t, api, f)})
		}
	}
	for _, file := range []string{"testdata/gemini_recorded.txtar", "testdata/gemini_streams.txtar"} {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			out = append(out, recordedBody{APIGemini, "gemini_" + f.Name, f.Data})
		}
	}
	return out
}

// wholeAPI names api for gatewaytest.Collapse.
func wholeAPI(api API) string {
	switch api {
	case APIMessages:
		return "messages"
	case APIResponses:
		return "responses"
	case APIGemini:
		return "gemini"
	}
	return "chat"
}

// TestWholeCollapsed is a differential test of the whole answers: every
// recorded stream, made whole by gatewaytest's own implementation (as
// the API answers the same request unstreamed), must decode to the turn
// the stream decodes to. A made-up Gemini call id differs between two
// reads; its signature must not.
func TestWholeCollapsed(t *testing.T) {
	// Recordings whose last event does not say what their deltas said:
	// the field is left out of the comparison.
	unlike := map[string]string{
		// vercel/ai cut the text deltas short; response.completed has
		// the whole text.
		"openai-responses_vercel-openai-phase.1.chunks.txt": "Text",
		// OpenAI encrypts the reasoning again for response.completed.
		"openai-responses_vercel-openai-reasoning-encrypted-content.1.chunks.txt": "Signature",
	}
	for _, rb := range collapsible(t) {
		t.Run(rb.name, func(t *testing.T) {
			dec, _ := NewStreamDecoder(rb.api)
			if err := pump(bytes.NewReader(rb.body), dec, 0, func([]Event) error { return nil }); err != nil {
				t.Skipf("the stream itself is refused: %v", err)
			}
			want := summarize(t, streamEvents(t, rb.api, rb.body))
			whole, err := gatewaytest.Collapse(wholeAPI(rb.api), rb.body)
			if err != nil {
				if bytes.Contains(rb.body, []byte(`"partialArgs"`)) {
					t.Skip("a call streamed in pieces has no whole form to check against")
				}
				t.Fatalf("Collapse: %v", err)
			}
			evs, err := decodeWhole(rb.api, whole)
			if err != nil {
				t.Fatalf("decodeWhole: %v\n%s", err, whole)
			}
			got := summarize(t, evs)
			if rb.api == APIGemini {
				for _, s := range []*turnSummary{&want, &got} {
					for i, c := range s.Calls {
						id, rest, _ := strings.Cut(c, " ")
						if base, sig := splitCallID(id); strings.HasPrefix(base, geminiGenPrefix) {
							s.Calls[i] = "made-up+" + sig + " " + rest
						}
					}
				}
			}
			switch unlike[rb.name] {
			case "Text":
				want.Text, got.Text = "", ""
			case "Signature":
				want.Signature, got.Signature = "", ""
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-stream +whole):\n%s\n%s", diff, whole)
			}
		})
	}
}

// TestWholeRefused: an answer that is not what its API answers is a
// *wholeError naming the place and the problem, never a panic and never
// the answer's content; a failure the backend reports in the body is an
// error event.
func TestWholeRefused(t *testing.T) {
	tests := []struct {
		name   string
		api    API
		body   string
		err    error
		detail string
	}{
		{name: "chat-not-json", api: APIChat, body: `<html>502</html>`, err: ErrMalformed, detail: "not JSON"},
		{name: "chat-duplicate-name", api: APIChat, body: `{"id":"a","id":"b","choices":[]}`, err: ErrMalformed, detail: "at /id"},
		{name: "chat-wrong-type", api: APIChat, body: `{"choices":[{"index":0,"message":{"content":5},"finish_reason":"stop"}]}`, err: ErrMalformed, detail: "wrong type at /choices/0/message/content"},
		{name: "chat-no-finish", api: APIChat, body: `{"choices":[{"index":0,"message":{"content":"hi"}}]}`, err: ErrIncomplete, detail: "no finish_reason"},
		{name: "chat-array", api: APIChat, body: `[]`, err: ErrMalformed, detail: "not a JSON object"},
		{name: "chat-invalid-utf8", api: APIChat, body: "{\"id\":\"\xff\"}", err: ErrMalformed, detail: "at /id"},
		{name: "messages-wrong-type", api: APIMessages, body: `{"type":"message","content":"hi"}`, err: ErrMalformed, detail: "wrong type at content"},
		{name: "messages-input-not-object", api: APIMessages, body: `{"type":"message","content":[{"type":"tool_use","id":"t","name":"n","input":"x"}],"stop_reason":"tool_use"}`, err: ErrMalformed, detail: "wrong type at /content/0/input"},
		{name: "messages-other-type", api: APIMessages, body: `{"type":"completion"}`, err: ErrMalformed, detail: "not a message"},
		{name: "messages-duplicate-name", api: APIMessages, body: `{"type":"message","usage":{"output_tokens":1,"output_tokens":2}}`, err: ErrMalformed, detail: "at /usage/output_tokens"},
		{name: "responses-in-progress", api: APIResponses, body: `{"object":"response","status":"in_progress","output":[]}`, err: ErrIncomplete, detail: `status "in_progress"`},
		{name: "responses-wrong-type", api: APIResponses, body: `{"object":"response","status":"completed","output":[{"type":"function_call","arguments":{}}]}`, err: ErrMalformed, detail: "wrong type at output.arguments"},
		{name: "gemini-no-finish", api: APIGemini, body: `{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}`, err: ErrIncomplete, detail: "no finishReason"},
		{name: "gemini-wrong-type", api: APIGemini, body: `{"candidates":[{"content":{"parts":[{"text":1}]},"finishReason":"STOP"}]}`, err: ErrMalformed, detail: "wrong type at /candidates/0/content/parts/0/text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeWhole(tt.api, []byte(tt.body))
			we, ok := errors.AsType[*wholeError](err)
			if !ok || !errors.Is(err, tt.err) || we.Detail != tt.detail {
				t.Fatalf("got %v, want %v with detail %q", err, tt.err, tt.detail)
			}
			if msg := answerFailure(err).(*backendError).msg; strings.Contains(msg, "502") || strings.Contains(msg, "hi") {
				t.Errorf("the client's message quotes the answer: %q", msg)
			}
		})
	}
	errorBodies := []struct {
		api  API
		body string
	}{
		{APIChat, `{"error":{"message":"overloaded","type":"server_error"}}`},
		{APIMessages, `{"type":"error","error":{"type":"overloaded_error","message":"overloaded"}}`},
		{APIResponses, `{"id":"r","object":"response","status":"failed","error":{"code":"server_error","message":"overloaded"},"output":[]}`},
		{APIGemini, `{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`},
	}
	for _, eb := range errorBodies {
		evs, err := decodeWhole(eb.api, []byte(eb.body))
		if err != nil {
			t.Fatalf("%s: %v", eb.api, err)
		}
		if s := summarize(t, evs); s.Err == nil || s.Err.Message != "overloaded" {
			t.Errorf("%s: error %+v, want the backend's", eb.api, s.Err)
		}
	}
}

// TestWholeBound: an answer past the bound is refused without being
// read whole (unread when its length says so); within it, read whole.
func TestWholeBound(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 100)
	for _, size := range []int64{-1, 100, 1000} {
		if _, err := readWhole(bytes.NewReader(body), size, 99); !errors.Is(err, errWholeTooLarge) {
			t.Errorf("size %d: %v, want too large", size, err)
		}
		if size > 100 {
			continue // an announced length past the bound is refused unread
		}
		got, err := readWhole(bytes.NewReader(body), size, 100)
		if err != nil || len(got) != 100 {
			t.Errorf("size %d: %d bytes, %v", size, len(got), err)
		}
	}
	if got, err := readWhole(bytes.NewReader(body), -1, -1); err != nil || len(got) != 100 {
		t.Errorf("no bound: %d bytes, %v", len(got), err)
	}
	if maxWholeBytes(0) != 16<<20 || maxWholeBytes(1000) != 4000 || maxWholeBytes(-1) >= 0 {
		t.Errorf("bounds %d %d %d", maxWholeBytes(0), maxWholeBytes(1000), maxWholeBytes(-1))
	}
	msg := answerFailure(&wholeError{Err: errWholeTooLarge, Detail: "larger than 4000 bytes"}).(*backendError).msg
	if msg != "the model backend's answer was larger than 4000 bytes" {
		t.Errorf("message %q", msg)
	}
}

// TestWholePooled: an answer of no stated length is read through a
// pooled buffer, and what readWhole returns is the caller's alone: the
// next answer read does not change it, whether it fits the pooled
// buffer, fills it exactly or grows past it.
func TestWholePooled(t *testing.T) {
	for _, n := range []int{0, 1, 400, wholeBufferBytes - 1, wholeBufferBytes, wholeBufferBytes + 1, 3 * wholeBufferBytes} {
		first := bytes.Repeat([]byte("a"), n)
		got, err := readWhole(bytes.NewReader(first), -1, -1)
		if err != nil || !bytes.Equal(got, first) {
			t.Fatalf("%d bytes: read %d, %v", n, len(got), err)
		}
		for range 3 {
			if _, err := readWhole(bytes.NewReader(bytes.Repeat([]byte("b"), wholeBufferBytes)), -1, -1); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, first) {
			t.Errorf("%d bytes: changed by the next reads", n)
		}
	}
}

// FuzzDecodeWhole: whatever the answer, decodeWhole returns events in the
// stream's order (the collector takes them) or a *wholeError, never
// panics; an answer made whole from a stream decodes as the stream.
func FuzzDecodeWhole(f *testing.F) {
	for i := range 4 {
		f.Add(uint8(i), []byte(`{}`))
	}
	f.Add(uint8(0), []byte(`{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","reasoning_content":"r","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":2}}}`))
	f.Add(uint8(1), []byte(`{"type":"message","id":"m","model":"c","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"redacted_thinking","data":"d"},{"type":"text","text":"x"},{"type":"tool_use","id":"t","name":"n","input":{"a":1}},{"type":"server_tool_use"}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}`))
	f.Add(uint8(2), []byte(`{"id":"r","object":"response","model":"m","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"reasoning","id":"rs","summary":[{"text":"a"},{"text":"b"}],"encrypted_content":"e"},{"type":"message","content":[{"type":"output_text","text":"x"},{"type":"refusal","refusal":"no"}]},{"type":"function_call","call_id":"c","name":"f","arguments":""}],"usage":{"input_tokens":1,"output_tokens":2}}`))
	f.Add(uint8(3), []byte(`{"candidates":[{"content":{"parts":[{"text":"t","thought":true},{"text":"x"},{"functionCall":{"name":"f","args":{}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":2,"thoughtsTokenCount":3,"cachedContentTokenCount":1},"responseId":"g"}`))
	apis := []API{APIChat, APIMessages, APIResponses, APIGemini}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		api := apis[int(which)%len(apis)]
		evs, err := decodeWhole(api, data)
		if err != nil {
			if _, ok := errors.AsType[*wholeError](err); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		c := NewCollector()
		for _, e := range evs {
			if err := c.Add(e); err != nil {
				t.Fatalf("events out of order: %v", err)
			}
		}
		if tn := c.Turn(); tn.Err == nil && tn.Finish == "" {
			t.Fatalf("a turn without an end: %+v", evs)
		}
	})
}

func TestEventStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream": true, "text/event-stream; charset=utf-8": true, "Text/Event-Stream": true, " text/event-stream ": true,
		"application/json": false, "": false, "text/event-streams": false, "text/event": false,
	} {
		if got := eventStream(&http.Response{Header: http.Header{"Content-Type": {ct}}}); got != want {
			t.Errorf("%q: %v, want %v", ct, got, want)
		}
	}
}
