// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/bfcl"
	"github.com/toolgate/toolgate/codec/canonical"
	"github.com/toolgate/toolgate/codec/gemini"
	"github.com/toolgate/toolgate/codec/jsonschema"
	"github.com/toolgate/toolgate/codec/langchain"
	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// decoder is one decoder of one codec package, with an input that is its
// shape except for one nested member of the wrong type: the number
// 123456, found at pointer.
type decoder struct {
	format  codec.Format
	name    string
	decode  func([]byte) error
	nested  string
	pointer string
}

func ignore[T any](f func([]byte) (T, error)) func([]byte) error {
	return func(b []byte) error { _, err := f(b); return err }
}

var decoders = []decoder{
	{codec.OpenAI, "DecodeTools", ignore(openai.DecodeTools), `[{"type":"function","function":{"name":123456}}]`, "/0/function/name"},
	{codec.OpenAI, "DecodeResponse", ignore(openai.DecodeResponse), `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":123456,"arguments":"{}"}}]}}]}`, "/choices/0/message/tool_calls/0/function/name"},
	{codec.OpenAI, "DecodeResults", ignore(openai.DecodeResults), `[{"role":"tool","tool_call_id":123456,"content":"x"}]`, "/0/tool_call_id"},
	{codec.OpenAI, "DecodeChoice", ignore(openai.DecodeChoice), `{"type":"function","function":{"name":123456}}`, "/function/name"},
	{codec.OpenAIResponses, "DecodeTools", ignore(responses.DecodeTools), `[{"type":"function","name":123456}]`, "/0/name"},
	{codec.OpenAIResponses, "DecodeResponse", ignore(responses.DecodeResponse), `{"object":"response","output":[{"type":"function_call","call_id":"c","name":123456,"arguments":"{}"}]}`, "/output/0/name"},
	{codec.OpenAIResponses, "DecodeResults", ignore(responses.DecodeResults), `[{"type":"function_call_output","call_id":123456,"output":"x"}]`, "/0/call_id"},
	{codec.OpenAIResponses, "DecodeChoice", ignore(responses.DecodeChoice), `{"type":"function","name":123456}`, "/name"},
	{codec.Anthropic, "DecodeTools", ignore(anthropic.DecodeTools), `[{"name":123456,"input_schema":{"type":"object"}}]`, "/0/name"},
	{codec.Anthropic, "DecodeResponse", ignore(anthropic.DecodeResponse), `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":123456,"input":{}}]}`, "/content/0/name"},
	{codec.Anthropic, "DecodeResults", ignore(anthropic.DecodeResults), `{"role":"user","content":[{"type":"tool_result","tool_use_id":123456,"content":"x"}]}`, "/content/0/tool_use_id"},
	{codec.Anthropic, "DecodeChoice", ignore(anthropic.DecodeChoice), `{"type":"tool","name":123456}`, "/name"},
	{codec.Gemini, "DecodeTools", ignore(gemini.DecodeTools), `{"functionDeclarations":[{"name":123456}]}`, "/functionDeclarations/0/name"},
	{codec.Gemini, "DecodeResponse", ignore(gemini.DecodeResponse), `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":123456,"args":{}}}]}}]}`, "/candidates/0/content/parts/0/functionCall/name"},
	{codec.Gemini, "DecodeResults", ignore(gemini.DecodeResults), `{"role":"user","parts":[{"functionResponse":{"name":123456,"response":{}}}]}`, "/parts/0/functionResponse/name"},
	{codec.Gemini, "DecodeChoice", ignore(gemini.DecodeChoice), `{"functionCallingConfig":{"mode":123456}}`, "/functionCallingConfig/mode"},
	{codec.LangChain, "DecodeTools", ignore(langchain.DecodeTools), `[{"name":"a","description":123456,"args_schema":{}}]`, "/0/description"},
	{codec.LangChain, "DecodeResponse", ignore(langchain.DecodeResponse), `{"type":"ai","content":"","tool_calls":[{"name":123456,"args":{},"id":"c","type":"tool_call"}]}`, "/tool_calls/0/name"},
	{codec.LangChain, "DecodeResults", ignore(langchain.DecodeResults), `{"type":"tool","content":"x","tool_call_id":123456}`, "/tool_call_id"},
	{codec.MCP, "DecodeTools", ignore(mcp.DecodeTools), `{"tools":[{"name":"a","inputSchema":{"type":"object"},"title":123456}]}`, "/tools/0/title"},
	{codec.MCP, "DecodeCall", ignore(mcp.DecodeCall), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":123456}}`, "/params/name"},
	{codec.MCP, "DecodeResult", ignore(mcp.DecodeResult), `{"content":[{"type":"text","text":123456}]}`, "/content/0/text"},
	{codec.BFCL, "DecodeTools", ignore(bfcl.DecodeTools), `[{"name":"f","description":123456,"parameters":{"type":"dict","properties":{}}}]`, "/0/description"},
	{codec.JSONSchema, "DecodeTools", ignore(jsonschema.DecodeTools), `[{"title":"a","type":"object","description":123456}]`, "/0/description"},
	{codec.Canonical, "DecodeTools", ignore(canonical.DecodeTools), `{"tools":[{"name":"a","description":123456}]}`, "/tools/0/description"},
}

// TestDecodersReturnCodecError checks, for every decoder of every codec,
// that bad input gives a *codec.Error naming the format, the pointer of
// the fault and its offset, whose message is "FORMAT: POINTER: CAUSE",
// and that the cause is still found with errors.Is and errors.As.
func TestDecodersReturnCodecError(t *testing.T) {
	type bad struct {
		name    string
		in      string
		pointer string // "" for the document root
		offset  int64  // -1: unknown
		is      error
	}
	for _, d := range decoders {
		tests := []bad{
			{name: "nested-wrong-type", in: d.nested, pointer: d.pointer, offset: int64(strings.Index(d.nested, "123456")), is: codec.ErrUnknownShape},
			{name: "duplicate-key", in: `[{"name":"x","name":"y"}]`, pointer: "/0/name", offset: 13, is: strictjson.ErrDuplicateName},
			{name: "invalid-utf8", in: "[{\"name\":\"a\xffb\"}]", pointer: "/0/name", offset: 11, is: strictjson.ErrInvalidUTF8},
			{name: "truncated", in: `[{"name":"x"`, pointer: "/0/name", offset: 12, is: strictjson.ErrSyntax},
			{name: "not-json", in: `{name: "x"}`, pointer: "", offset: 1, is: strictjson.ErrSyntax},
		}
		for _, tt := range tests {
			t.Run(string(d.format)+"/"+d.name+"/"+tt.name, func(t *testing.T) {
				err := d.decode([]byte(tt.in))
				ce, ok := errors.AsType[*codec.Error](err)
				if !ok {
					t.Fatalf("%s(%s) = %v (%T), want a *codec.Error", d.name, tt.in, err, err)
				}
				type loc struct {
					Format  codec.Format
					Pointer string
					Offset  int64
				}
				if diff := cmp.Diff(loc{d.format, tt.pointer, tt.offset}, loc{ce.Format, ce.Pointer, ce.Offset}); diff != "" {
					t.Errorf("%s(%s): %v\n(-want +got):\n%s", d.name, tt.in, err, diff)
				}
				if !errors.Is(err, tt.is) {
					t.Errorf("error %v does not wrap %v", err, tt.is)
				}
				if errors.Is(tt.is, strictjson.ErrSyntax) || errors.Is(tt.is, strictjson.ErrDuplicateName) || errors.Is(tt.is, strictjson.ErrInvalidUTF8) {
					se, ok := errors.AsType[*strictjson.Error](err)
					if !ok || se.Offset != ce.Offset || se.Pointer != ce.Pointer {
						t.Errorf("strictjson error %v not kept with the same place", se)
					}
				}
				where := ce.Pointer
				if where == "" {
					where = "document root"
				}
				if prefix := string(d.format) + ": " + where + ": "; !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("message %q does not start %q", err, prefix)
				}
				if strings.Contains(err.Error(), "123456") || strings.Contains(err.Error(), `"y"`) {
					t.Errorf("message %q quotes the input's values", err)
				}
			})
		}
	}
}

// FuzzDecodersReturnCodecError feeds every decoder the same bytes: any
// error must be a *codec.Error of the decoder's format whose offset lies
// in the input (or is -1) and whose message starts with the format.
func FuzzDecodersReturnCodecError(f *testing.F) {
	for _, d := range decoders {
		f.Add([]byte(d.nested))
	}
	f.Add([]byte(`{"tools":[{"name":"a","name":"b"}]}`))
	f.Add([]byte("[\"\xff\"]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range decoders {
			err := d.decode(data)
			if err == nil {
				continue
			}
			ce, ok := errors.AsType[*codec.Error](err)
			if !ok {
				t.Fatalf("%s %s: error %v (%T) is not a *codec.Error", d.format, d.name, err, err)
			}
			if ce.Format != d.format || ce.Offset < -1 || ce.Offset > int64(len(data)) {
				t.Fatalf("%s %s: error %v has format %q, offset %d for %d bytes", d.format, d.name, err, ce.Format, ce.Offset, len(data))
			}
			if !strings.HasPrefix(err.Error(), string(d.format)+": ") {
				t.Fatalf("%s %s: message %q", d.format, d.name, err)
			}
		}
	})
}
