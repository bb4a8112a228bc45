// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

var chatPartsSeeds = []string{
	`[{"type":"text","text":"hello"}]`,
	`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"high"}}]`,
	`[{"type":"refusal","refusal":"no"},{"type":"input_text","text":"\u00e9\ud83d\ude00"}]`,
	`[{"type":"image_url","image_url":null},{"type":"text","text":null}]`,
	`[]`,
	`[null]`,
	`[{"Type":"text"}]`,
	`[{"type":"text","TEXT":"x"}]`,
	`[{"type":"image_url","image_url":{"URL":"u"}}]`,
	`[{"type":"image_url","image_url":"u"}]`,
	`[{"type":7}]`,
	`["text"]`,
	`{"type":"text"}`,
	`[{"ſype":"text"}]`,
}

var messagesBlocksSeeds = []string{
	`[{"type":"text","text":"hello","cache_control":{"type":"ephemeral"}}]`,
	`[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"redacted_thinking","data":"abc"}]`,
	`[{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a.go"}},{"type":"tool_use","id":"t2","name":"x","input":null}]`,
	`[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok","is_error":false},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":true}]`,
	`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}},{"type":"image","source":{"type":"url","url":"https://x"}}]`,
	`[{"type":"image","source":null},{"type":"text","text":null,"is_error":null}]`,
	`[{"type":"mcp_tool_use","id":"c1","name":"listTasks","server_name":"tasks","input":{}}]`,
	`[]`,
	`[null]`,
	`[{"Type":"text"}]`,
	`[{"type":"text","is_error":"yes"}]`,
	`[{"type":"image","source":{"Media_Type":"x"}}]`,
	`[{"type":"image","source":[]}]`,
	`[{"type":"text","ID":"x"}]`,
	`[1]`,
	`{"type":"text"}`,
}

// TestDecodeContentFastEqualsSlow holds the fast readers of content
// arrays to encoding/json's results on the seeds, and wants them to take
// the usual arrays.
func TestDecodeContentFastEqualsSlow(t *testing.T) {
	fast := 0
	for _, s := range chatPartsSeeds {
		if checkFastChatParts(t, []byte(s)) {
			fast++
		}
	}
	if fast < 4 {
		t.Errorf("the fast reader took %d of the Chat seeds, want the usual arrays (≥ 4)", fast)
	}
	fast = 0
	for _, s := range messagesBlocksSeeds {
		if checkFastMessagesBlocks(t, []byte(s)) {
			fast++
		}
	}
	if fast < 7 {
		t.Errorf("the fast reader took %d of the Messages seeds, want the usual arrays (≥ 7)", fast)
	}
}

// checkFast reports whether the fast reader took raw, and fails t when
// what it read differs from encoding/json's reading of raw into a T.
func checkFast[T any](t *testing.T, raw []byte, fast func([]byte) (T, bool)) bool {
	t.Helper()
	if strictjson.Check(raw, nil) != nil {
		return false
	}
	got, ok := fast(raw)
	if !ok {
		return false
	}
	var slow T
	if err := json.Unmarshal(raw, &slow); err != nil {
		t.Errorf("%s: the fast reader took it, encoding/json refused it: %v", raw, err)
		return true
	}
	if !reflect.DeepEqual(got, slow) {
		t.Errorf("%s:\nfast %+v\nslow %+v", raw, got, slow)
	}
	return true
}

func checkFastChatParts(t *testing.T, raw []byte) bool { return checkFast(t, raw, fastChatParts) }

func checkFastMessagesBlocks(t *testing.T, raw []byte) bool {
	return checkFast(t, raw, fastMessagesBlocks)
}

// checkFastMessagesMessages checks fastTake's reading of a Messages
// request's messages.
func checkFastMessagesMessages(t *testing.T, raw []byte) bool {
	return checkFast(t, raw, func(raw []byte) ([]messagesMessageIn, bool) {
		var out []messagesMessageIn
		return out, fastTake(raw, &out)
	})
}

func FuzzDecodeChatParts(f *testing.F) {
	for _, s := range chatPartsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkFastChatParts(t, raw) })
}

func FuzzDecodeMessagesBlocks(f *testing.F) {
	for _, s := range messagesBlocksSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkFastMessagesBlocks(t, raw) })
}

var messagesMessagesSeeds = []string{
	`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]`,
	`[{"role":"user","content":null,"cache_control":{}},{"role":null}]`,
	`[]`,
	`[null]`,
	`[{"Role":"user"}]`,
	`[{"role":1}]`,
	`[{"role":"user","CONTENT":"x"}]`,
	`{"role":"user"}`,
}

func TestDecodeMessagesMessagesFastEqualsSlow(t *testing.T) {
	fast := 0
	for _, s := range messagesMessagesSeeds {
		if checkFastMessagesMessages(t, []byte(s)) {
			fast++
		}
	}
	if fast < 3 {
		t.Errorf("the fast reader took %d of the seeds, want the usual arrays (≥ 3)", fast)
	}
}

func FuzzDecodeMessagesMessages(f *testing.F) {
	for _, s := range messagesMessagesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkFastMessagesMessages(t, raw) })
}

var responsesItemSeeds = []string{
	`{"role":"user","content":[{"type":"input_text","text":"hi"}]}`,
	`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}],"id":"msg_1","status":"completed"}`,
	`{"type":"function_call","call_id":"call_1","name":"shell","arguments":"{\"cmd\":[\"ls\"]}","id":"fc_1"}`,
	`{"type":"function_call_output","call_id":"call_1","output":"done"}`,
	`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"thinking"}],"encrypted_content":"gAAA"}`,
	`{"type":"mcp_call","id":"mcp_c1","name":"listTasks","arguments":"{}","output":"[]","error":null}`,
	`{"type":"custom_tool_call","call_id":"c","name":"apply_patch","input":"*** Begin Patch","namespace":null}`,
	`{"type":"reasoning","summary":null,"error":"x"}`,
	`{"type":"reasoning","summary":[null]}`,
	`{"Type":"message"}`,
	`{"type":"message","CALL_ID":"x"}`,
	`{"type":"reasoning","summary":[{"TEXT":"x"}]}`,
	`{"type":1}`,
	`[]`,
	`null`,
}

var responsesPartsSeeds = []string{
	`[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"auto"}]`,
	`[{"type":"output_text","text":"a","annotations":[],"logprobs":[]}]`,
	`[{"type":"input_text","text":null,"image_url":null}]`,
	`[]`,
	`[null]`,
	`[{"Text":"x"}]`,
	`[{"type":"input_image","image_url":{"url":"x"}}]`,
	`{"type":"input_text"}`,
}

func TestDecodeResponsesFastEqualsSlow(t *testing.T) {
	items, parts := 0, 0
	for _, s := range responsesItemSeeds {
		if checkFastResponsesItem(t, []byte(s)) {
			items++
		}
	}
	for _, s := range responsesPartsSeeds {
		if checkFast(t, []byte(s), fastResponsesParts) {
			parts++
		}
	}
	if items < 8 || parts < 3 {
		t.Errorf("the fast readers took %d item seeds and %d content seeds, want the usual ones (≥ 8, ≥ 3)", items, parts)
	}
	for _, s := range append(responsesItemSeeds, `"a\u00e9"`, `""`, `7`, `true`, `"\ud800"`) {
		checkUnmarshalString(t, []byte(s))
	}
}

func checkFastResponsesItem(t *testing.T, raw []byte) bool {
	return checkFast(t, raw, func(raw []byte) (responsesInputItem, bool) {
		var it responsesInputItem
		return it, fastResponsesItem(raw, &it)
	})
}

// checkUnmarshalString fails t when unmarshalString and encoding/json
// read raw, a checked value, into a string differently.
func checkUnmarshalString(t *testing.T, raw []byte) {
	t.Helper()
	if strictjson.Check(raw, nil) != nil {
		return
	}
	fast, slow := "unset", "unset"
	ok := unmarshalString(raw, &fast)
	err := json.Unmarshal(raw, &slow)
	if ok != (err == nil) || fast != slow {
		t.Errorf("%s: unmarshalString %v %q, encoding/json %v %q", raw, ok, fast, err, slow)
	}
}

func FuzzDecodeResponsesItem(f *testing.F) {
	for _, s := range responsesItemSeeds {
		f.Add([]byte(s))
	}
	for _, s := range responsesPartsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFastResponsesItem(t, raw)
		checkFast(t, raw, fastResponsesParts)
		checkUnmarshalString(t, raw)
	})
}

var toolHeadSeeds = []string{
	`{"name":"get_weather","description":"d","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}`,
	`{"type":"web_search_20250305","name":"web_search","max_uses":5}`,
	`{"type":"function","name":"f","parameters":{"type":"object"},"strict":true}`,
	`{"type":"namespace","name":"ns","tools":[{"type":"function","name":"a"}]}`,
	`{"type":"custom","name":"apply_patch","format":{"type":"grammar"}}`,
	`{"type":"function","tools":null}`,
	`{"Type":"function"}`,
	`{"type":"namespace","TOOLS":[]}`,
	`{"type":"namespace","tools":{}}`,
	`{"name":7}`,
	`[]`,
	`null`,
}

func checkFastToolHeads(t *testing.T, raw []byte) int {
	t.Helper()
	n := 0
	if checkFast(t, raw, func(raw []byte) (messagesToolHead, bool) {
		var h messagesToolHead
		return h, fastToolHead(raw, &h)
	}) {
		n++
	}
	if checkFast(t, raw, func(raw []byte) (responsesToolHead, bool) {
		var h responsesToolHead
		return h, fastToolHead(raw, &h)
	}) {
		n++
	}
	return n
}

func TestToolHeadFastEqualsSlow(t *testing.T) {
	fast := 0
	for _, s := range toolHeadSeeds {
		fast += checkFastToolHeads(t, []byte(s))
	}
	if fast < 10 {
		t.Errorf("the fast reader took %d readings of the seeds, want the usual tools (≥ 10)", fast)
	}
}

func FuzzToolHead(f *testing.F) {
	for _, s := range toolHeadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkFastToolHeads(t, raw) })
}
