// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/sse"
)

// checkFastEvent fails t when decode reads raw differently from
// unmarshal (strictjson's check, then encoding/json): another value, or
// another error. It reports whether the walker took raw.
func checkFastEvent[E any](t *testing.T, raw []byte, names *nameCache, decode func([]byte, *E, *nameCache) error, fast func([]byte, *E, *nameCache) error) bool {
	t.Helper()
	var got, want E
	gotErr := decode(raw, &got, names)
	wantErr := unmarshal(raw, &want)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Errorf("%s: error %v, unmarshal's %v", raw, gotErr, wantErr)
		return false
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\nfast %+v\nslow %+v", raw, got, want)
	}
	var e E
	return gotErr == nil && fast(raw, &e, nil) == nil
}

var messagesEventSeeds = []string{
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm\u00e9"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`,
	`{"type":"content_block_stop","index":0}`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`,
	`{"type":"message_delta","delta":{"stop_reason":null}}`,
	`{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":3}}}`,
	`{"type":"ping"}`, `{"type":"message_stop"}`,
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
	`{"Type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"TEXT":"x"}}`,
	`{"type":"content_block_delta","index":1.5,"delta":{}}`,
	`{"type":"content_block_delta","index":"0","delta":null}`,
	`{"type":"content_block_delta","ındex":0}`, `{"type":"x","\u017fignature":1}`,
	`{"type":7}`, `[]`, `null`, `"s"`, `{}`, `{"delta":[]}`, `{"delta":{"stop_reason":3}}`,
	`{"index":-0,"delta":{"text":null,"stop_reason":"s"}}`, `{"index":9223372036854775808}`, `{"index":1e2}`,
}

var responsesEventSeeds = []string{
	`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"ab"}`,
	`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"think"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"a\""}`,
	`{"type":"response.function_call_arguments.done","item_id":"fc_1","arguments":"{}"}`,
	`{"type":"response.reasoning_summary_part.added","item_id":"rs_1","summary_index":1,"part":{"type":"summary_text","text":""}}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"c","name":"f","arguments":""}}`,
	`{"type":"response.completed","response":{"id":"r","status":"completed","usage":{"input_tokens":3,"output_tokens":2}}}`,
	`{"type":"error","code":"server_error","message":"boom"}`, `{"type":"error","code":null}`,
	`{"type":"response.output_text.delta","Delta":"x"}`, `{"type":"response.output_text.delta","delta":5}`,
	`{"type":"response.output_text.delta","item":null,"response":null,"error":null,"delta":null}`,
	`{"summary_index":1.0}`, `{"summary_index":"1"}`, `{"\u212atem_id":"k"}`,
	`[]`, `null`, `{}`, `{"type":"response.output_text.delta","delta":"\ud800"}`,
}

// The fuzzers read two events with one name cache, as a decoder reads a
// stream's: the second may repeat the first's names.
func FuzzDecodeMessagesEvent(f *testing.F) {
	for i, s := range messagesEventSeeds {
		f.Add([]byte(s), []byte(messagesEventSeeds[(i+1)%len(messagesEventSeeds)]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var names nameCache
		checkFastEvent(t, a, &names, decodeMessagesEvent, fastMessagesEvent)
		checkFastEvent(t, b, &names, decodeMessagesEvent, fastMessagesEvent)
	})
}

func FuzzDecodeResponsesEvent(f *testing.F) {
	for i, s := range responsesEventSeeds {
		f.Add([]byte(s), []byte(responsesEventSeeds[(i+1)%len(responsesEventSeeds)]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var names nameCache
		checkFastEvent(t, a, &names, decodeResponsesEvent, fastResponsesEvent)
		checkFastEvent(t, b, &names, decodeResponsesEvent, fastResponsesEvent)
	})
}

// TestFastEventsCorpus reads every event of the recorded Messages and
// Responses streams both ways, and checks that the walker takes the
// deltas: most of a stream.
func TestFastEventsCorpus(t *testing.T) {
	var total, fast [2]int
	for _, s := range recordedStreams(t) {
		if s.api != APIMessages && s.api != APIResponses {
			continue
		}
		i := 0
		if s.api == APIResponses {
			i = 1
		}
		r := sse.NewReader(bytes.NewReader(s.body), nil)
		var names nameCache
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				break // a recording cut short on purpose
			}
			data := bytes.Clone(ev.Data)
			var took bool
			if i == 0 {
				took = checkFastEvent(t, data, &names, decodeMessagesEvent, fastMessagesEvent)
			} else {
				took = checkFastEvent(t, data, &names, decodeResponsesEvent, fastResponsesEvent)
			}
			total[i]++
			if took {
				fast[i]++
			}
		}
	}
	for i, api := range []string{"Messages", "Responses"} {
		t.Logf("%s: %d of %d recorded events read by the walker", api, fast[i], total[i])
		if total[i] == 0 || fast[i]*2 < total[i] {
			t.Errorf("%s: the walker read %d of %d recorded events, want most", api, fast[i], total[i])
		}
	}
}
