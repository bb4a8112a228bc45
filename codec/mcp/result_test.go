// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/tool"
)

func TestResultRoundTrip(t *testing.T) {
	r := &tool.Result{
		Content: []tool.Content{
			&tool.Text{Text: "hi"},
			&tool.Image{MIMEType: "image/png", Data: []byte{1, 2, 3}},
			&tool.Audio{MIMEType: "audio/wav", Data: []byte{4}},
			&tool.Resource{URI: "file:///a", MIMEType: "text/plain", Text: "body"},
			&tool.Resource{URI: "file:///b", Blob: []byte{9}},
			&tool.Resource{URI: "https://x/y", Link: true},
		},
		StructuredContent: json.RawMessage(`{"a":1}`),
		IsError:           true,
	}
	out, warns, err := EncodeResult(r)
	if err != nil || len(warns) != 0 {
		t.Fatalf("EncodeResult: %v %v", err, warns)
	}
	back, err := DecodeResult(out)
	if err != nil {
		t.Fatal(err)
	}
	// The resource link gained its required name, kept as an extension.
	want := *r
	want.Extensions = tool.Extensions{contentExt(5): json.RawMessage(`{"name":"https://x/y"}`)}
	if diff := cmp.Diff(&want, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	out2, _, _ := EncodeResult(back)
	if string(out) != string(out2) {
		t.Errorf("not byte-stable:\n%s\n%s", out, out2)
	}
}

func TestResultJSONPartWarns(t *testing.T) {
	r := &tool.Result{Content: []tool.Content{&tool.JSON{Value: json.RawMessage(`{"a":1}`)}}}
	out, warns, err := EncodeResult(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0].Pointer != "/content/0" {
		t.Errorf("warnings = %v, want one at /content/0", warns)
	}
	if want := `{"content":[{"type":"text","text":"{\"a\":1}"}]}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
}

func TestDecodeResultErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"no-content", `{"isError":true}`},
		{"content-not-array", `{"content":{}}`},
		{"unknown-part", `{"content":[{"type":"video"}]}`},
		{"bad-base64", `{"content":[{"type":"image","data":"!!","mimeType":"image/png"}]}`},
		{"resource-both", `{"content":[{"type":"resource","resource":{"uri":"a","text":"x","blob":"AA=="}}]}`},
		{"text-missing", `{"content":[{"type":"text"}]}`},
		{"iserror-not-bool", `{"content":[],"isError":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := DecodeResult([]byte(tt.in)); !errors.Is(err, codec.ErrUnknownShape) {
				t.Fatalf("DecodeResult(%s) = %v, want ErrUnknownShape", tt.in, err)
			}
		})
	}
}

func TestDecodeCallErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"no-name", `{"arguments":{}}`},
		{"args-string", `{"name":"a","arguments":"{}"}`},
		{"wrong-method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{"params-missing", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := DecodeCall([]byte(tt.in)); !errors.Is(err, codec.ErrUnknownShape) {
				t.Fatalf("DecodeCall(%s) = %v, want ErrUnknownShape", tt.in, err)
			}
		})
	}
}

func FuzzDecodeResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a","_meta":{}}],"isError":false,"resultType":"complete"}`,
		`{"content":[{"type":"image","data":"AQID","mimeType":"image/png"},{"type":"resource_link","uri":"u","name":"n","size":3}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"u","blob":"AA==","_meta":{}}}],"structuredContent":[1]}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResult(data)
		if err != nil {
			return
		}
		out, _, err := EncodeResult(r)
		if err != nil {
			return // extras that clash with written fields are refused, not panics
		}
		back, err := DecodeResult(out)
		if err != nil {
			t.Fatalf("DecodeResult(EncodeResult(x)): %v\n%s", err, out)
		}
		out2, _, err := EncodeResult(back)
		if err != nil || string(out) != string(out2) {
			t.Fatalf("not stable: %v\n%s\n%s", err, out, out2)
		}
	})
}

func FuzzDecodeCall(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","arguments":{"x":1},"_meta":{"progressToken":1}}`,
		`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"a"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCall(data)
		if err != nil {
			return
		}
		out, _, err := EncodeCall(c)
		if err != nil {
			t.Fatalf("EncodeCall: %v", err)
		}
		back, err := DecodeCall(out)
		if err != nil {
			t.Fatalf("DecodeCall(EncodeCall(x)): %v\n%s", err, out)
		}
		c.ID = ""
		delete(c.Extensions, ExtRequestID)
		if len(c.Extensions) == 0 {
			c.Extensions = nil
		}
		if diff := cmp.Diff(c, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
