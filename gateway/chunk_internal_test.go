// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestChunkPointers checks the pointers of wrong-type members, which are
// joined only on error, from the precomputed first choices and beyond.
func TestChunkPointers(t *testing.T) {
	choices := func(i int, c string) string {
		return `{"choices":[` + strings.Repeat(`{"index":0,"delta":{}},`, i) + c + `]}`
	}
	tests := []struct {
		data, ptr string
	}{
		{`{"id":5}`, "/id"},
		{choices(0, `{"index":"x"}`), "/choices/0/index"},
		{choices(1, `{"delta":{"content":5}}`), "/choices/1/delta/content"},
		{choices(3, `{"message":{"refusal":[]}}`), "/choices/3/message/refusal"},
		{choices(4, `{"delta":{"reasoning_content":1}}`), "/choices/4/delta/reasoning_content"},
		{choices(11, `{"message":{"content":true}}`), "/choices/11/message/content"},
		{choices(5, `{"finish_reason":2}`), "/choices/5/finish_reason"},
		{choices(2, `{"delta":{"tool_calls":[{"function":{"name":3}}]}}`), "/choices/2/delta/tool_calls/0/function/name"},
		{choices(6, `{"delta":7}`), "/choices/6/delta"},
	}
	for _, tt := range tests {
		var c chunk
		err := parseChunk([]byte(tt.data), &c)
		var te *typeError
		if !errors.As(err, &te) || te.ptr != tt.ptr {
			t.Errorf("%s: %v, want a wrong type at %s", tt.data, err, tt.ptr)
		}
	}
	var c chunk
	if err := parseChunk([]byte(choices(9, `{"index":9,"delta":{"content":"hi"}}`)), &c); err != nil || len(c.choices) != 10 || c.choices[9].content != "hi" {
		t.Errorf("a good chunk: %v %+v", err, c.choices)
	}
}

// FuzzChatTemplate feeds the lines of its input to two Chat decoders, one
// reading chunks laid out as the last text chunk by its template, one
// walking every chunk, and wants the same events and errors for each.
func FuzzChatTemplate(f *testing.F) {
	c := func(delta string) string {
		return `{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{` + delta + `},"finish_reason":null}]}`
	}
	for _, s := range [][]string{
		{c(`"role":"assistant","content":""`), c(`"content":"a"`), c(`"content":"b"`), c(`"content":""`), c(`"content":"\u00e9\n"`), c(`"content":null`), c(`"content":5`), c(`"content":"c"`)},
		{c(`"reasoning_content":"r"`), c(`"reasoning_content":"s"`), c(`"reasoning_content":""`), c(`"content":"t"`)},
		{c(`"reasoning":"r","reasoning_content":""`), c(`"reasoning":"r","reasoning_content":"q"`), c(`"reasoning":"","reasoning_content":"q"`)},
		{c(`"content":"a","reasoning":"r"`), c(`"content":"","reasoning":"r"`), c(`"content":"a","refusal":""`), c(`"content":"","refusal":"no"`)},
		{c(`"content":"a"`), `{"id":"c","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`, c(`"content":"a","content":"b"`), c(`"content":"x"`) + " ", "[DONE]"},
		{c(`"content":"a"`), `{"id":"c","choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"b"}}]}`, c(`"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"{"}}]`), c(`"content":"a"`)},
	} {
		f.Add([]byte(strings.Join(s, "\n")))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fast, slow := newChatDecoder(), newChatDecoder()
		slow.noTpl = true
		for i, line := range bytes.Split(in, []byte("\n")) {
			fe, ferr := fast.Decode("", line)
			se, serr := slow.Decode("", line)
			if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
				t.Fatalf("line %d %q: error %v, without the template %v", i, line, ferr, serr)
			}
			if !reflect.DeepEqual(fe, se) {
				t.Fatalf("line %d %q:\nwith the template %+v\nwithout %+v", i, line, fe, se)
			}
		}
	})
}

// TestChatTemplateTaken: FuzzChatTemplate passes trivially if the
// template is never kept. A text chunk keeps it, the next one like it is
// read by it, and a chunk that says more drops it.
func TestChatTemplateTaken(t *testing.T) {
	d := newChatDecoder()
	steps := []struct {
		data string
		tpl  bool
	}{
		{`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`, false},
		{`{"id":"c","choices":[{"index":0,"delta":{"content":"a"}}]}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"content":"b c"}}]}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"reasoning":"r"}}]}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"content":"d"},"finish_reason":"stop"}]}`, false},
	}
	for i, st := range steps {
		matched := d.tpl.match([]byte(st.data), &checkEvent) != nil
		if _, err := d.Decode("", []byte(st.data)); err != nil {
			t.Fatal(err)
		}
		if d.tpl.ok != st.tpl {
			t.Errorf("step %d: template kept %v, want %v", i, d.tpl.ok, st.tpl)
		}
		if want := i == 2; matched != want {
			t.Errorf("step %d: read by the template %v, want %v", i, matched, want)
		}
	}
}
