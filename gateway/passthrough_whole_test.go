// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// The same-API fast path for a whole Chat answer (passthrough_whole.go)
// must make the turn the decoder and the collector make of the same body,
// and the gateway must answer and record the same with it as without.

// wholeSameBodies are chat.completion bodies of every shape the fast path
// takes or leaves, each with whether it takes it.
var wholeSameBodies = []struct {
	name string
	fast bool
	body string
}{
	{"text", true, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"backend-m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`},
	{"members in another order, extra members", true, `{"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"annotations":[],"content":"harness 0 ","refusal":null,"role":"assistant","tool_calls":[]}}],"created":1700000000,"id":"chatcmpl-harness","model":"gen","object":"chat.completion","service_tier":"default","system_fingerprint":"fp_1","usage":{"completion_tokens":4,"prompt_tokens":10,"total_tokens":14}}`},
	{"reasoning_content", true, `{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"42","reasoning_content":"Think."},"finish_reason":"stop"}]}`},
	{"reasoning", true, `{"id":"x","model":"m","choices":[{"index":0,"message":{"content":"42","reasoning":"Think."},"finish_reason":"length"}]}`},
	{"both reasoning members", true, `{"id":"x","model":"m","choices":[{"index":0,"message":{"content":"42","reasoning":"B","reasoning_content":"A"},"finish_reason":"stop"}]}`},
	{"empty reasoning_content", true, `{"id":"x","model":"m","choices":[{"index":0,"message":{"content":"42","reasoning":"B","reasoning_content":""},"finish_reason":"stop"}]}`},
	{"null content", true, `{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"content_filter"}]}`},
	{"null message", true, `{"id":"x","model":"m","choices":[{"index":0,"message":null,"finish_reason":"stop"}]}`},
	{"no message", true, `{"id":"x","choices":[{"finish_reason":"stop"}]}`},
	{"null id and model", true, `{"id":null,"model":null,"choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}]}`},
	{"escapes", true, `{"id":"a\u00e9\/b","model":"m\"q","choices":[{"index":0,"message":{"content":"line\nnext \ud83d\ude00 \u2028 tab\t"},"finish_reason":"stop"}]}`},
	{"white space", true, " \n{ \"id\" : \"x\" , \"choices\" : [ { \"index\" : 0 , \"message\" : { \"content\" : \"a\" , \"tool_calls\" : [ ] } , \"finish_reason\" : \"stop\" } ] , \"usage\" : null } \n"},
	{"usage details", true, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":50,"prompt_tokens_details":{"cached_tokens":80,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":30}}}`},
	{"usage partly null", true, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":null,"completion_tokens":5,"prompt_tokens_details":null}}`},
	{"usage unusual", false, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1e2,"completion_tokens":5}}`},
	{"finish reasons of other APIs", true, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"end_turn"}]}`},
	{"unknown finish reason", true, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"sk-test-0123456789abcdefghijklmnop"}]}`},
	{"null error", true, `{"id":"x","error":null,"choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}]}`},
	{"empty refusal", true, `{"id":"x","choices":[{"index":0,"message":{"content":"a","refusal":""},"finish_reason":"stop"}]}`},
	{"null delta beside the message", true, `{"id":"x","choices":[{"index":0,"delta":null,"message":{"content":"a"},"finish_reason":"stop"}]}`},
	{"think tags in the text", false, `{"id":"x","choices":[{"index":0,"message":{"content":"<think>r</think>The answer."},"finish_reason":"stop"}]}`},

	{"a call", true, `{"id":"x","choices":[{"index":0,"message":{"content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`},
	{"text and two calls, indexes", true, `{"id":"x","choices":[{"index":0,"message":{"content":"Checking.","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"index":1,"id":"call_2","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":"stop"}]}`},
	{"arguments as an object", true, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":{"a": [1, 2]}}}]},"finish_reason":"tool_calls"}]}`},
	{"a call with nothing", true, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":[{},{"function":null},{"id":null,"function":{"name":null,"arguments":null}}]},"finish_reason":"length"}]}`},
	{"a call named for the backend", true, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"get__weather","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`},
	{"calls numbered from 1", false, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":[{"index":1,"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`},
	{"a call in two elements", false, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\""}},{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}`},
	{"arguments as an array", false, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":[1]}}]},"finish_reason":"tool_calls"}]}`},
	{"a call that is not an object", false, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":["f"]},"finish_reason":"tool_calls"}]}`},
	{"calls of the wrong type", false, `{"id":"x","choices":[{"index":0,"message":{"tool_calls":{}},"finish_reason":"tool_calls"}]}`},
	{"a refusal", false, `{"id":"x","choices":[{"index":0,"message":{"content":null,"refusal":"I can't."},"finish_reason":"stop"}]}`},
	{"two choices", false, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"},{"index":1,"message":{"content":"b"},"finish_reason":"stop"}]}`},
	{"choice 1 only", false, `{"id":"x","choices":[{"index":1,"message":{"content":"b"},"finish_reason":"stop"}]}`},
	{"index written otherwise", false, `{"id":"x","choices":[{"index":-0,"message":{"content":"b"},"finish_reason":"stop"}]}`},
	{"no choices", false, `{"id":"x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}`},
	{"null choices", false, `{"id":"x","choices":null}`},
	{"no finish reason", false, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":null}]}`},
	{"empty finish reason", false, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":""}]}`},
	{"a delta", false, `{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`},
	{"an error body", false, `{"error":{"message":"overloaded","type":"server_error","code":null}}`},
	{"content of parts", false, `{"id":"x","choices":[{"index":0,"message":{"content":[{"type":"text","text":"a"}]},"finish_reason":"stop"}]}`},
	{"a number for the model", false, `{"id":"x","model":7,"choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}]}`},
	{"usage of the wrong type", false, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":"1"}}`},
	{"a duplicate member", false, `{"id":"x","choices":[{"index":0,"message":{"content":"a","content":"b"},"finish_reason":"stop"}]}`},
	{"invalid UTF-8", false, "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"content\":\"\xff\"},\"finish_reason\":\"stop\"}]}"},
	{"not an object", false, `[{"id":"x"}]`},
	{"not JSON", false, `<html>502 Bad Gateway</html>`},
	{"the end of a stream", false, `[DONE]`},
	{"cut short", false, `{"id":"x","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"}`},
}

// collectWhole is the turn wholeChat and a Collector make of data.
func collectWhole(data []byte) (*Turn, error) {
	evs, err := wholeChat(data)
	if err != nil {
		return nil, err
	}
	col := NewCollector()
	for _, e := range evs {
		if err := col.Add(e); err != nil {
			return nil, err
		}
	}
	return col.Turn(), nil
}

// sameTurn checks scanWholeChat against collectWhole for data; it
// returns whether the fast path took it.
func sameTurn(t testing.TB, data []byte) bool {
	t.Helper()
	fast := &Turn{Usage: unknownUsage()}
	if !scanWholeChat(data, fast) {
		return false
	}
	slow, err := collectWhole(data)
	if err != nil {
		t.Fatalf("the fast path took an answer the decoder refuses (%v): %q", err, data)
	}
	if slow.Err != nil || len(slow.Warnings) > 0 {
		t.Fatalf("the fast path took an answer with an error or a warning: %q", data)
	}
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Fatalf("turns differ (-decoder +fast):\n%s\nbody %q", diff, data)
	}
	return true
}

func TestScanWholeChat(t *testing.T) {
	for _, tc := range wholeSameBodies {
		t.Run(tc.name, func(t *testing.T) {
			// The think tags are the filter's to refuse, not the scan's.
			want := tc.fast || tc.name == "think tags in the text"
			if got := sameTurn(t, []byte(tc.body)); got != want {
				t.Errorf("fast path taken: %v, want %v", got, want)
			}
		})
	}
	for _, text := range plainTexts {
		for _, body := range wholeAnswers(APIChat, text) {
			if !sameTurn(t, body) {
				t.Errorf("fast path not taken for %q", body)
			}
		}
	}
}

// chatWholeBodies are the recorded whole Chat answers of the corpora and
// every recorded Chat stream made whole.
func chatWholeBodies(t *testing.T) map[string][]byte {
	dir := corpora(t)
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(dir, "openai-compatible", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out["recorded_"+filepath.Base(f)] = data
	}
	for _, rb := range collapsible(t) {
		if rb.api != APIChat {
			continue
		}
		whole, err := gatewaytest.Collapse("chat", rb.body)
		if err != nil {
			continue // the stream itself is refused (TestWholeCollapsed)
		}
		out["collapsed_"+rb.name] = whole
	}
	return out
}

// TestScanWholeChatRecorded runs the recorded answers through both
// readings; the fast path must take the usual ones.
func TestScanWholeChatRecorded(t *testing.T) {
	bodies := chatWholeBodies(t)
	taken := 0
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			if sameTurn(t, body) {
				taken++
			}
		})
	}
	t.Logf("fast path taken for %d of %d recorded answers", taken, len(bodies))
	if taken == 0 {
		t.Error("the fast path took no recorded answer")
	}
}

// wholeSameConfigs are the Chat providers and clients of the handler's
// differential: reasoning read from a field (passThrough) or think tags
// (the text filter), audit with and without content, a small event bound
// (an answer past the whole bound), OpenAI's own provider, a tool offered
// under its own name and under one lowering renames.
var wholeSameConfigs = []plainConfig{
	{ptThinkConfig: ptThinkConfig{ptConfig: ptConfig{name: "field-audit-capture", reasoning: ReasoningContent, audit: true, capture: true}}},
	{ptThinkConfig: ptThinkConfig{ptConfig: ptConfig{name: "field-both-small-events-tools", reasoning: ReasoningBoth, audit: true, tools: true, maxEvent: 128}}},
	{ptThinkConfig: ptThinkConfig{ptConfig: ptConfig{name: "openai-plain", reasoning: ReasoningPlain, openai: true}}},
	{ptThinkConfig: ptThinkConfig{ptConfig: ptConfig{name: "field-audit-dotted-tool", reasoning: ReasoningContent, audit: true, tools: true}}, dotted: true},
	plainConfigs[0],
	plainConfigs[1],
	plainConfigs[2],
}

// TestWholeSameDifferential answers every body with the fast path on and
// off and wants the same answer, warnings, observation and records.
func TestWholeSameDifferential(t *testing.T) {
	run := func(t *testing.T, bodies map[string][]byte) {
		for _, c := range wholeSameConfigs {
			for name, body := range bodies {
				t.Run(c.name()+"/"+strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
					t.Parallel()
					slow := c.runWhole(t, body, true)
					fast := c.runWhole(t, body, false)
					if diff := cmp.Diff(slow, fast); diff != "" {
						t.Errorf("the fast path differs (-decoder +fast):\n%s", diff)
					}
				})
			}
		}
	}
	t.Run("table", func(t *testing.T) {
		bodies := map[string][]byte{}
		for _, tc := range wholeSameBodies {
			bodies[tc.name] = []byte(tc.body)
		}
		run(t, bodies)
	})
	t.Run("recorded", func(t *testing.T) { run(t, chatWholeBodies(t)) })
}

// FuzzScanWholeChat: for any body the fast path takes, the decoder makes
// the same turn.
func FuzzScanWholeChat(f *testing.F) {
	for _, tc := range wholeSameBodies {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameTurn(t, data)
	})
}

// FuzzWholeSame is TestWholeSameDifferential for any body, in two of the
// configurations (a field, think tags).
func FuzzWholeSame(f *testing.F) {
	for _, tc := range wholeSameBodies {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, c := range []plainConfig{wholeSameConfigs[0], wholeSameConfigs[3]} {
			slow := c.runWhole(t, body, true)
			fast := c.runWhole(t, body, false)
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Fatalf("%s: the fast path differs (-decoder +fast):\n%s\nbody %q", c.name(), diff, body)
			}
		}
	})
}

// BenchmarkWholeSame is a Chat request that does not stream, answered
// whole by a Chat backend from memory, with the fast path on and off, for
// a provider that reads reasoning from a field and one that reads think
// tags: the difference is what the fast path saves a request.
func BenchmarkWholeSame(b *testing.B) {
	whole := []byte(`{"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"harness 0 harness 1 harness 2 harness 3 ","role":"assistant"}}],"created":1700000000,"id":"chatcmpl-harness","model":"gen","object":"chat.completion","usage":{"completion_tokens":4,"prompt_tokens":10,"total_tokens":14}}`)
	body := `{"model":"m","messages":[{"role":"user","content":"Say hello."}],"max_tokens":64,"stream":false}`
	for _, parsing := range []ParsingFormat{ParsingReasoningField, ParsingThinkTags} {
		for _, fast := range []bool{true, false} {
			b.Run(fmt.Sprintf("parsing=%s/fast=%v", parsing, fast), func(b *testing.B) {
				p := Provider{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: parsing}
				benchLoop(b, newBenchHandler(b, p, wholeBackend{whole}, fast), "/v1/chat/completions", body)
			})
		}
	}
}

// TestWholeSameAllocs checks that the fast path is taken, not merely
// equal to the decoder: a whole answer read through it makes none of the
// decoder's events, collector or chunk.
func TestWholeSameAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	var w gatewaytest.Sink
	for _, tc := range wholeSameBodies[:2] {
		allocs := func(fast bool) float64 {
			p := Provider{Name: "p", API: APIChat, BaseURL: "http://backend.invalid/v1", Model: "m", Compat: true, Parsing: ParsingReasoningField}
			h, err := New(&Config{Providers: []Provider{p}, Models: map[string]string{"m": "p"}, Clients: map[string]*http.Client{"p": {Transport: wholeBackend{[]byte(tc.body)}}}})
			if err != nil {
				t.Fatal(err)
			}
			h.slowStreams = !fast
			return testing.AllocsPerRun(200, func() {
				w.Reset()
				h.ServeHTTP(&w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"Hi."}]}`)))
				if w.Code != http.StatusOK {
					t.Fatalf("status %d", w.Code)
				}
			})
		}
		fast, slow := allocs(true), allocs(false)
		t.Logf("%s: allocations per request %.0f with the fast path, %.0f without", tc.name, fast, slow)
		if fast > slow-5 {
			t.Errorf("%s: allocations per request %.0f with the fast path, %.0f without: want at least 5 fewer", tc.name, fast, slow)
		}
	}
}
