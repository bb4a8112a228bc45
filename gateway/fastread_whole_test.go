// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

var messagesAnswerSeeds = []string{
	`{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hello."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"service_tier":"standard"}}`,
	`{"type":"message","content":[{"type":"thinking","thinking":"hm","signature":"EqQB"},{"type":"redacted_thinking","data":"abc"},{"type":"text","text":"a","citations":null},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city": "Paris"}}],"stop_reason":"tool_use"}`,
	`{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":null}]}`,
	`{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":"s"}]}`,
	`{"type":"message","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}]}`,
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
	`{"type":"message","content":null,"usage":null,"stop_reason":null,"error":null}`,
	`{"type":"message","content":[null]}`, `{"type":"message","content":{}}`, `{"type":"message","content":[]}`,
	`{"Type":"message"}`, `{"type":"message","content":[{"TEXT":"x"}]}`, `{"type":"message","usage":{"Input_tokens":1}}`,
	`{"type":"message","usage":{"input_tokens":1.5}}`, `{"type":"message","usage":{"input_tokens":"1"}}`, `{"type":"message","usage":[]}`,
	`{"type":"message","usage":{"output_tokens":9223372036854775808}}`, `{"type":"message","stop_reason":3}`,
	`{"\u212aind":1,"type":"message"}`, `{"type":"message","content":[{"type":"text","text":"\ud800"}]}`,
	`[]`, `null`, `"s"`, `{}`, `{"id":7}`,
}

var responsesAnswerSeeds = []string{
	`{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi.","annotations":[],"logprobs":[]}]}],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":4,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":14}}`,
	`{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"a"},{"type":"summary_text","text":"b"}],"encrypted_content":"gAAA"},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}]}`,
	`{"object":"response","status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"No."}]},{"type":"reasoning","content":[{"type":"reasoning_text","text":"r"}],"summary":[]}]}`,
	`{"object":"response","status":"failed","error":{"code":"server_error","message":"boom"}}`,
	`{"error":{"type":"invalid_request_error","message":"bad"}}`,
	`{"object":"response","output":null,"usage":null,"incomplete_details":null,"error":null}`,
	`{"object":"response","usage":{"input_tokens_details":null,"output_tokens_details":{}}}`,
	`{"object":"response","output":[null]}`, `{"object":"response","output":{}}`, `{"object":"response","output":[{"summary":[null]}]}`,
	`{"object":"response","output":[{"content":{}}]}`, `{"Object":"response"}`, `{"object":"response","output":[{"Type":"message"}]}`,
	`{"object":"response","usage":{"input_tokens":1.0}}`, `{"object":"response","usage":{"input_tokens_details":{"cached_tokens":"1"}}}`,
	`{"object":"response","incomplete_details":{"REASON":"x"}}`, `{"object":"response","incomplete_details":[]}`, `{"status":5}`,
	`{"object":"response","output":[{"content":[{"text":"\ud800"}]}]}`, `{"\u212aind":1}`,
	`[]`, `null`, `"s"`, `{}`,
}

func decodeMessagesAnswerNames(data []byte, m *messagesAnswer, _ *nameCache) error {
	return decodeMessagesAnswer(data, m)
}

func fastMessagesAnswerNames(data []byte, m *messagesAnswer, _ *nameCache) error {
	return fastMessagesAnswer(data, m)
}

func TestDecodeMessagesAnswer(t *testing.T) {
	fast := 0
	for _, s := range messagesAnswerSeeds {
		if checkFastEvent(t, []byte(s), nil, decodeMessagesAnswerNames, fastMessagesAnswerNames) {
			fast++
		}
	}
	if fast < 3 {
		t.Errorf("the walker took %d of the seeds", fast)
	}
}

func decodeResponsesAnswerNames(data []byte, r *responsesAnswer, _ *nameCache) error {
	return decodeResponsesAnswer(data, r)
}

func fastResponsesAnswerNames(data []byte, r *responsesAnswer, _ *nameCache) error {
	return fastResponsesAnswer(data, r)
}

func TestDecodeResponsesAnswer(t *testing.T) {
	fast := 0
	for _, s := range responsesAnswerSeeds {
		if checkFastEvent(t, []byte(s), nil, decodeResponsesAnswerNames, fastResponsesAnswerNames) {
			fast++
		}
	}
	if fast < 3 {
		t.Errorf("the walker took %d of the seeds", fast)
	}
}

// TestDecodeMessagesAnswerRecorded reads every recorded whole Messages
// answer, and every recorded Messages stream made whole, both ways; the
// walker must take those with blocks of the usual kinds.
func TestDecodeMessagesAnswerRecorded(t *testing.T) {
	wholeRecorded(t, APIMessages, "anthropic", "messages", func(t *testing.T, body []byte) bool {
		return checkFastEvent(t, body, nil, decodeMessagesAnswerNames, fastMessagesAnswerNames)
	})
}

// TestDecodeResponsesAnswerRecorded is TestDecodeMessagesAnswerRecorded
// for Responses.
func TestDecodeResponsesAnswerRecorded(t *testing.T) {
	wholeRecorded(t, APIResponses, "openai-responses", "responses", func(t *testing.T, body []byte) bool {
		return checkFastEvent(t, body, nil, decodeResponsesAnswerNames, fastResponsesAnswerNames)
	})
}

// wholeRecorded runs check on every recorded whole answer of api (the
// corpora's dir) and every recorded stream of it made whole; the walker
// must take at least half.
func wholeRecorded(t *testing.T, api API, dir, collapse string, check func(*testing.T, []byte) bool) {
	root := corpora(t)
	bodies := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(root, dir, "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies[filepath.Base(f)] = data
	}
	for _, rb := range collapsible(t) {
		if rb.api != api {
			continue
		}
		if whole, err := gatewaytest.Collapse(collapse, rb.body); err == nil {
			bodies["collapsed_"+rb.name] = whole
		}
	}
	fast := 0
	for name, body := range bodies {
		if check(t, body) {
			fast++
		} else {
			t.Logf("%s: left to encoding/json", name)
		}
	}
	t.Logf("the walker took %d of %d recorded answers", fast, len(bodies))
	if fast < len(bodies)/2 {
		t.Errorf("the walker took %d of %d recorded answers", fast, len(bodies))
	}
}

// FuzzDecodeMessagesAnswer: for any body, the walker and encoding/json
// read the same answer, or fail with the same error.
func FuzzDecodeMessagesAnswer(f *testing.F) {
	for _, s := range messagesAnswerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastEvent(t, data, nil, decodeMessagesAnswerNames, fastMessagesAnswerNames)
	})
}

// FuzzDecodeResponsesAnswer is FuzzDecodeMessagesAnswer for Responses.
func FuzzDecodeResponsesAnswer(f *testing.F) {
	for _, s := range responsesAnswerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastEvent(t, data, nil, decodeResponsesAnswerNames, fastResponsesAnswerNames)
	})
}

// BenchmarkDecodeWhole is one short whole answer of each API decoded into
// events, as a client that does not stream has it read.
func BenchmarkDecodeWhole(b *testing.B) {
	const text = "harness 0 harness 1 harness 2 harness 3 "
	for _, tc := range []struct {
		api  API
		body string
	}{
		{APIChat, `{"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"` + text + `","role":"assistant"}}],"created":1700000000,"id":"chatcmpl-harness","model":"gen","object":"chat.completion","usage":{"completion_tokens":4,"prompt_tokens":10,"total_tokens":14}}`},
		{APIMessages, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"` + text + `"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`},
		{APIResponses, `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"` + text + `","annotations":[]}]}],"usage":{"input_tokens":10,"output_tokens":4,"total_tokens":14}}`},
	} {
		b.Run(string(tc.api), func(b *testing.B) {
			data := []byte(tc.body)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeWhole(tc.api, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
