// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/goldentest"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

func TestToolsGolden(t *testing.T) {
	goldentest.Out(t, "testdata/tools.txtar", *update, func(in []byte) string {
		ts, err := DecodeTools(in)
		if err != nil {
			return goldentest.DecodeError(err)
		}
		out, warns, err := EncodeTools(ts)
		s := goldentest.Report(ts, out, warns, err)
		out2, _, err := EncodeToolsJSONSchema(ts)
		if err == nil {
			s += "as parametersJsonSchema:\n" + string(out2) + "\n"
		}
		return s
	}, ".json")
}

func TestResponseGolden(t *testing.T) {
	goldentest.Out(t, "testdata/response.txtar", *update, goldentest.Reported(DecodeResponse, EncodeResponse), ".json")
}

func TestResultsGolden(t *testing.T) {
	goldentest.Out(t, "testdata/results.txtar", *update, goldentest.Reported(DecodeResults, EncodeResults), ".json")
}

func TestDecodeToolsErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"malformed", `[`, strictjson.ErrSyntax},
		{"number", `1`, codec.ErrUnknownShape},
		{"no-name", `{"description":"x"}`, codec.ErrUnknownShape},
		{"empty-name", `{"name":""}`, tool.ErrInvalidDefinition},
		{"duplicate", `{"functionDeclarations":[{"name":"a"},{"name":"a"}]}`, tool.ErrInvalidDefinition},
		{"both-schemas", `{"name":"a","parameters":{"type":"OBJECT"},"parametersJsonSchema":{"type":"object"}}`, tool.ErrInvalidDefinition},
		{"params-array", `{"name":"a","parameters":[]}`, tool.ErrInvalidDefinition},
		{"nested-not-object", `{"name":"a","parameters":{"type":"OBJECT","properties":{"x":1}}}`, tool.ErrInvalidDefinition},
		{"nullable-string", `{"name":"a","parameters":{"type":"STRING","nullable":"yes"}}`, codec.ErrUnknownShape},
		{"decls-object", `{"functionDeclarations":{}}`, codec.ErrUnknownShape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeTools([]byte(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("DecodeTools(%s) = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	ts := &codec.Tools{Defs: []tool.Definition{
		{Name: "a", Description: "x & <y>", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":["integer","null"]}}}`),
			OutputSchema: json.RawMessage(`{"type":"object"}`),
			Extensions:   tool.Extensions{tool.ExtGeminiBehavior: json.RawMessage(`"NON_BLOCKING"`), "gemini/future": json.RawMessage(`1`)}},
		{Name: "b"},
	}}
	for name, enc := range map[string]func(*codec.Tools) ([]byte, []tool.Warning, error){"parameters": EncodeTools, "parametersJsonSchema": EncodeToolsJSONSchema} {
		out, warns, err := enc(ts)
		if err != nil || len(warns) != 0 {
			t.Fatalf("%s: %v %v", name, err, warns)
		}
		back, err := DecodeTools(out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(ts, back); diff != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", name, diff)
		}
		out2, _, _ := enc(back)
		if string(out) != string(out2) {
			t.Errorf("%s: not byte-stable:\n%s\n%s", name, out, out2)
		}
	}
}

func TestResponseStop(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want tool.StopReason
	}{
		{"text", `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`, tool.StopEnd},
		{"text-and-call", `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"},{"functionCall":{"name":"f","args":{}}}]},"finishReason":"STOP"}]}`, tool.StopToolCalls},
		{"max-tokens", `{"candidates":[{"content":{"parts":[{"text":"h"}]},"finishReason":"MAX_TOKENS"}]}`, tool.StopMaxTokens},
		{"safety", `{"candidates":[{"content":{"parts":[]},"finishReason":"SAFETY"}]}`, tool.StopContentFilter},
		{"malformed-call", `{"candidates":[{"content":{"parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL"}]}`, tool.StopOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResponse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if r.Stop != tt.want {
				t.Errorf("Stop = %q, want %q", r.Stop, tt.want)
			}
		})
	}
}

func TestEncodeResponseFromOtherProvider(t *testing.T) {
	r := &tool.Response{Content: "ok", Calls: []tool.Call{{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}, Stop: tool.StopToolCalls}
	out, _, err := EncodeResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"candidates":[{"content":{"parts":[{"text":"ok"},{"functionCall":{"id":"call_1","name":"f","args":{"a":1}}}],"role":"model"},"finishReason":"STOP"}]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestEncodeResultsNeedsName(t *testing.T) {
	_, _, err := EncodeResults([]tool.Result{tool.TextResult("call_1", "x")})
	if !errors.Is(err, codec.ErrCannotEncode) {
		t.Fatalf("err = %v, want ErrCannotEncode", err)
	}
}

func FuzzDecodeTools(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","parameters":{"type":"OBJECT","properties":{"x":{"type":"STRING","nullable":true,"enum":["a"]}}}}`,
		`[{"functionDeclarations":[{"name":"a","parametersJsonSchema":{"type":"object"}}]},{"googleSearch":{}}]`,
		`{"contents":[],"tools":[{"function_declarations":[{"name":"b","behavior":"BLOCKING","response":{"type":"ARRAY","items":{"type":"NUMBER"}}}]}]}`,
		`[{"name":"a"},{"name":"b","parameters":{"anyOf":[{"type":"INTEGER"}],"nullable":true}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := DecodeTools(data)
		if err != nil {
			return
		}
		out, _, err := EncodeToolsJSONSchema(ts)
		if err != nil {
			t.Fatalf("EncodeToolsJSONSchema: %v", err)
		}
		back, err := DecodeTools(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		want := ts.Defs
		if diff := cmp.Diff(want, back.Defs); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"t","thought":true},{"text":"a","thoughtSignature":"c2ln"},{"functionCall":{"id":"1","name":"f","args":{"x":1}},"thoughtSignature":"AA=="}]},"finishReason":"STOP"}],"modelVersion":"gemini-3","responseId":"r"}`,
		`{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResponse(data)
		if err != nil {
			return
		}
		out, _, err := EncodeResponse(r)
		if err != nil {
			t.Fatalf("EncodeResponse: %v", err)
		}
		back, err := DecodeResponse(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		out2, _, _ := EncodeResponse(back)
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzDecodeResults(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","parts":[{"functionResponse":{"id":"1","name":"f","response":{"output":"ok"}}},{"functionResponse":{"name":"g","response":{"a":1}}}]}`,
		`[{"functionResponse":{"name":"f","response":{"error":{"code":1}}}}]`,
		`{"name":"f","response":{"output":[1,2]},"willContinue":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := DecodeResults(data)
		if err != nil {
			return
		}
		out, _, err := EncodeResults(rs)
		if err != nil {
			t.Fatalf("EncodeResults: %v", err)
		}
		back, err := DecodeResults(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(rs, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

func TestChoiceGolden(t *testing.T) {
	goldentest.Want(t, "testdata/choice.txtar", *update, goldentest.Reported(DecodeChoice, EncodeChoice))
}

func TestEncodeChoiceWarnsParallel(t *testing.T) {
	out, ws, err := EncodeChoice(tool.Choice{Mode: tool.ChoiceTool, Name: "f", DisableParallel: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}}`, string(out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(ws) != 1 || ws[0].Pointer != "/disable_parallel" {
		t.Errorf("warnings = %v, want one for /disable_parallel", ws)
	}
}

func FuzzDecodeChoice(f *testing.F) {
	goldentest.Seeds(f, "testdata/choice.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeChoice(data)
		if err != nil {
			if _, ok := errors.AsType[*codec.Error](err); !ok {
				t.Fatalf("error %v is not a *codec.Error", err)
			}
			return
		}
		out, _, err := EncodeChoice(c)
		if err != nil {
			t.Fatalf("EncodeChoice: %v", err)
		}
		back, err := DecodeChoice(out)
		if err != nil {
			t.Fatalf("decode(encode(x)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(c, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
