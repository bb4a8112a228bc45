// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResultRoundTrip(t *testing.T) {
	in := Result{
		CallID: "toolu_01",
		Name:   "read_file",
		Content: []Content{
			&Text{Text: "hello <b> & \"you\""},
			&JSON{Value: json.RawMessage(`{"a":[1,2]}`)},
			&Image{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
			&Audio{MIMEType: "audio/wav", Data: []byte("RIFF")},
			&Resource{URI: "file:///a.txt", MIMEType: "text/plain", Text: "body"},
			&Resource{URI: "file:///b.bin", Link: true},
		},
		StructuredContent: json.RawMessage(`{"ok":true}`),
		IsError:           true,
		Extensions:        Extensions{ExtMCPMeta: json.RawMessage(`{"k":"v"}`)},
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Result
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	again, _ := json.Marshal(out)
	if string(again) != string(data) {
		t.Errorf("not byte-stable:\n%s\n%s", data, again)
	}
}

func TestResultUnknownContent(t *testing.T) {
	var r Result
	err := json.Unmarshal([]byte(`{"call_id":"x","content":[{"type":"video"}]}`), &r)
	if !errors.Is(err, ErrUnknownContent) {
		t.Fatalf("err = %v, want ErrUnknownContent", err)
	}
}

func TestResultText(t *testing.T) {
	r := Result{Content: []Content{&Text{Text: "a"}, &JSON{Value: json.RawMessage(`{"b":1}`)}}}
	if got, want := r.Text(), "a\n{\"b\":1}"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	s := Result{StructuredContent: json.RawMessage(`[1]`)}
	if got := s.Text(); got != "[1]" {
		t.Errorf("structured-only Text() = %q", got)
	}
}

func TestDefinitionValidate(t *testing.T) {
	tests := []struct {
		name string
		def  Definition
		ok   bool
	}{
		{name: "ok", def: Definition{Name: "a", InputSchema: json.RawMessage(` {"type":"object"}`)}, ok: true},
		{name: "no-schema", def: Definition{Name: "a"}, ok: true},
		{name: "empty-name", def: Definition{}},
		{name: "array-schema", def: Definition{Name: "a", InputSchema: json.RawMessage(`[]`)}},
		{name: "string-output", def: Definition{Name: "a", OutputSchema: json.RawMessage(`"x"`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.def.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidDefinition)) {
				t.Errorf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
