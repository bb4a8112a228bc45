// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
)

var chatMessageSeeds = []string{
	`{"role":"user","content":"hello"}`,
	`{"role":"system","content":[{"type":"text","text":"be brief"}]}`,
	`{"role":"assistant","content":null,"reasoning_content":"think","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}`,
	`{"role":"assistant","reasoning":null,"tool_calls":null,"refusal":null,"name":"x"}`,
	`{"role":"tool","tool_call_id":"c1","content":"42"}`,
	`{"Role":"user","content":"x"}`,
	`{"role":"user","ROLE":"tool"}`,
	`{"role":7}`,
	`{"role":"user","tool_calls":[null]}`,
	`{"role":"user","tool_calls":[{"Function":{"NAME":"f"}}]}`,
	`{"role":"u\u00e9\n","content":"\ud83d\ude00"}`,
	`{"role":"assistant","tool_calls":[{"function":null,"id":null}],"reasoning_content":""}`,
	`{"role":"assistant","tool_calls":{}}`,
	`["role"]`,
	`null`,
	`{"ſole":"user"}`,
}

// TestDecodeChatMessageFastEqualsSlow holds the fast reader of a Chat
// message to encoding/json's result on the seeds.
func TestDecodeChatMessageFastEqualsSlow(t *testing.T) {
	fast := 0
	for _, s := range chatMessageSeeds {
		if checkFastChatMessage(t, []byte(s)) {
			fast++
		}
	}
	if fast < 5 {
		t.Errorf("the fast reader took %d of the seeds, want the usual messages (≥ 5)", fast)
	}
}

// checkFastChatMessage reports whether the fast reader took raw, and
// fails t when what it read differs from encoding/json's.
func checkFastChatMessage(t *testing.T, raw []byte) bool {
	t.Helper()
	if strictjson.Check(raw, nil) != nil {
		return false
	}
	var fast chatMessageIn
	if !fastChatMessage(raw, &fast) {
		return false
	}
	var slow chatMessageIn
	if err := json.Unmarshal(raw, &slow); err != nil {
		t.Errorf("%s: the fast reader took it, encoding/json refused it: %v", raw, err)
		return true
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s:\nfast %+v\nslow %+v", raw, fast, slow)
	}
	return true
}

func FuzzDecodeChatMessage(f *testing.F) {
	for _, s := range chatMessageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFastChatMessage(t, raw)
	})
}

// checkFastMembers fails t when members or fastTake read raw, a checked
// value, differently from encoding/json.
func checkFastMembers(t *testing.T, raw []byte) {
	t.Helper()
	if strictjson.Check(raw, nil) != nil {
		return
	}
	var slowM map[string]json.RawMessage
	slowErr := json.Unmarshal(raw, &slowM)
	fastM, fastErr := members(raw, "")
	if (fastErr == nil) != (slowErr == nil && slowM != nil) {
		t.Errorf("%s: members error %v, encoding/json's %v", raw, fastErr, slowErr)
	} else if fastErr == nil && !reflect.DeepEqual(fastM, slowM) {
		t.Errorf("%s: members\nfast %q\nslow %q", raw, fastM, slowM)
	}
	var so, so2 streamOptions
	if fastTake(raw, &so) {
		if err := json.Unmarshal(raw, &so2); err != nil || so != so2 {
			t.Errorf("%s: fastTake streamOptions %+v, encoding/json %+v, %v", raw, so, so2, err)
		}
	}
	var s, s2 string
	if fastTake(raw, &s) {
		if err := json.Unmarshal(raw, &s2); err != nil || s != s2 {
			t.Errorf("%s: fastTake string %q, encoding/json %q, %v", raw, s, s2, err)
		}
	}
	var b, b2 bool
	if fastTake(raw, &b) {
		if err := json.Unmarshal(raw, &b2); err != nil || b != b2 {
			t.Errorf("%s: fastTake bool %v, encoding/json %v, %v", raw, b, b2, err)
		}
	}
	var n, n2 int
	if fastTake(raw, &n) {
		if err := json.Unmarshal(raw, &n2); err != nil || n != n2 {
			t.Errorf("%s: fastTake int %v, encoding/json %v, %v", raw, n, n2, err)
		}
	}
	var f, f2 float64
	if fastTake(raw, &f) {
		if err := json.Unmarshal(raw, &f2); err != nil || math.Float64bits(f) != math.Float64bits(f2) {
			t.Errorf("%s: fastTake float64 %v, encoding/json %v, %v", raw, f, f2, err)
		}
	}
	var pf, pf2 *float64
	if fastTake(raw, &pf) {
		if err := json.Unmarshal(raw, &pf2); err != nil || pf == nil || pf2 == nil || math.Float64bits(*pf) != math.Float64bits(*pf2) {
			t.Errorf("%s: fastTake *float64 %v, encoding/json %v, %v", raw, pf, pf2, err)
		}
	}
	var a, a2 []json.RawMessage
	if fastTake(raw, &a) {
		if err := json.Unmarshal(raw, &a2); err != nil || !reflect.DeepEqual(a, a2) {
			t.Errorf("%s: fastTake array %q, encoding/json %q, %v", raw, a, a2, err)
		}
	}
}

func FuzzFastMembers(f *testing.F) {
	for _, s := range append(chatMessageSeeds, `"a\"b"`, `true`, `[1,{"a":[]},"x"]`, `[]`, `{}`, `{"a":1,"A":2}`, `0`, `-0`, `12`, `-9223372036854775808`, `9223372036854775808`, `1.5`, `1e3`, `-0.0`, `1e400`, `4.9e-324`,
		`{"include_usage":true}`, `{"include_usage":false,"x":[1]}`, `{"include_usage":null}`, `{"Include_Usage":true}`, `{"include_uſage":true}`, `{"include_usage":1}`, `{"include_usage":"true"}`, `{"include_obfuscation":false}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFastMembers(t, raw)
	})
}

func FuzzDecodeChatUsage(f *testing.F) {
	for _, s := range []string{
		`{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}`,
		`{"prompt_tokens":10,"completion_tokens":null,"prompt_tokens_details":{"cached_tokens":3,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2}}`,
		`{"prompt_tokens":1.5}`, `{"prompt_tokens":1e3}`, `{"Prompt_Tokens":2}`, `{"prompt_tokens":-0}`,
		`{"prompt_tokens":99999999999999999999}`, `{"prompt_tokens_details":null}`, `{"completion_tokens_details":[1]}`,
		`{"prompt_tokens_details":{"CACHED_TOKENS":1}}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if strictjson.Check(raw, nil) != nil {
			return
		}
		var fast chatUsage
		if fastChatUsage(raw, &fast) != nil {
			return
		}
		var slow chatUsage
		if err := json.Unmarshal(raw, &slow); err != nil {
			t.Fatalf("%s: the fast reader took it, encoding/json refused it: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s:\nfast %+v\nslow %+v", raw, fast, slow)
		}
	})
}

// TestFastStreamOptions: the usual stream_options are read without
// encoding/json; a member encoding/json would match in another case, or a
// value it would refuse, is left to it.
func TestFastStreamOptions(t *testing.T) {
	for _, c := range []struct {
		raw  string
		fast bool
		want bool
	}{
		{`{"include_usage":true}`, true, true},
		{`{"include_usage":false}`, true, false},
		{`{"include_usage":true,"include_obfuscation":false}`, true, true},
		{`{"include_usage":null}`, true, false},
		{`{}`, true, false},
		{`{"INCLUDE_USAGE":true}`, false, false},
		{`{"include_uſage":true}`, false, false},
		{`{"include_usage":1}`, false, false},
		{`[]`, false, false},
	} {
		var so streamOptions
		if got := fastTake([]byte(c.raw), &so); got != c.fast || so.IncludeUsage != c.want {
			t.Errorf("%s: fast %v include_usage %v, want %v %v", c.raw, got, so.IncludeUsage, c.fast, c.want)
		}
	}
}

// FuzzParseInt holds parseInt to strconv.ParseInt on any input.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "7", "-1", "64", "007", "+5", "-", "", "1e3", "1.5", "123456789012345678", "1234567890123456789", "-9223372036854775808", "9223372036854775808", "2147483648", "-2147483649", " 1", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, bits := range []int{0, 32, 64} {
			n, err := parseInt([]byte(s), bits)
			wn, werr := strconv.ParseInt(s, 10, bits)
			if n != wn || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("parseInt(%q, %d) = %d, %v; ParseInt: %d, %v", s, bits, n, err, wn, werr)
			}
		}
	})
}
