// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mediator

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
)

var secret = "sk-" + "proj-" + strings.Repeat("Mw4reKey", 5)

func newHandler(t *testing.T) (*Handler, *schema.NameMap) {
	t.Helper()
	reg := kernel.NewRegistry()
	add := func(c kernel.Capability) {
		if err := reg.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	add(kernel.Capability{
		Definition: tool.Definition{Name: "weather.get", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		Safety:     kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(_ context.Context, c tool.Call) (tool.Result, error) {
			return tool.TextResult(c.ID, "sunny, key "+secret), nil
		}),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "refund"},
		Safety:     kernel.SafetyWrite,
		Executor:   kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return tool.TextResult("", "refunded"), nil }),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "broken"},
		Safety:     kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			return tool.Result{}, errors.New("connection refused")
		}),
	})
	k, err := kernel.New(&kernel.Config{
		Registry:   reg,
		Principals: []kernel.Principal{{ID: "ada", Roles: []string{"writer"}}},
		Before: []kernel.BeforeHook{func(_ context.Context, hc *kernel.HookCall) error {
			if strings.Contains(string(hc.Call.Arguments), "Mordor") {
				return errors.New("one does not simply")
			}
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	names := schema.NewNameMap(schema.OpenAI)
	for _, n := range []string{"weather.get", "refund", "broken"} {
		if _, err := names.Map(n); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(&Config{Kernel: k, Names: names})
	if err != nil {
		t.Fatal(err)
	}
	return m, names
}

// The six calls every shape carries: ok, unknown tool, invalid JSON
// arguments, a validation failure, a denial (no justification), and a
// hook abort; plus an executor error where the shape holds several.
type wantResult struct {
	ID      string
	IsError bool
	Has     string
}

var want = []wantResult{
	{"c1", false, "sunny, key [REDACTED:openai-key]"},
	{"c2", true, `unknown tool "nope"`},
	{"c3", true, "invalid arguments"},
	{"c4", true, `missing required property "city"`},
	{"c5", true, "justification_required"},
	{"c6", true, "aborted by a hook"},
	{"c7", true, "the tool could not run: connection refused"},
}

func check(t *testing.T, got []tool.Result, errorFlag bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.CallID != w.ID || !strings.Contains(g.Text(), w.Has) {
			t.Errorf("result %d: id %q text %q; want id %q containing %q", i, g.CallID, g.Text(), w.ID, w.Has)
		}
		if errorFlag && g.IsError != w.IsError {
			t.Errorf("result %d: IsError %v", i, g.IsError)
		}
		if strings.Contains(g.Text(), secret) {
			t.Errorf("secret leaked in result %d", i)
		}
	}
}

func TestOpenAIRoundTrip(t *testing.T) {
	m, names := newHandler(t)
	wname, _ := names.Map("weather.get")
	resp := `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"c1","type":"function","function":{"name":"` + wname + `","arguments":"{\"city\":\"Paris\"}"}},` +
		`{"id":"c2","type":"function","function":{"name":"nope","arguments":"{}"}},` +
		`{"id":"c3","type":"function","function":{"name":"` + wname + `","arguments":"{\"city\":"}},` +
		`{"id":"c4","type":"function","function":{"name":"` + wname + `","arguments":"{}"}},` +
		`{"id":"c5","type":"function","function":{"name":"refund","arguments":"{}"}},` +
		`{"id":"c6","type":"function","function":{"name":"` + wname + `","arguments":"{\"city\":\"Mordor\"}"}},` +
		`{"id":"c7","type":"function","function":{"name":"broken","arguments":"{}"}}]}}]}`
	out, outs, err := m.Handle(context.Background(), codec.OpenAI, []byte(resp), &Batch{Principal: kernel.Principal{ID: "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := openai.DecodeResults(out)
	if err != nil {
		t.Fatalf("results do not decode: %v\n%s", err, out)
	}
	check(t, got, false) // Chat Completions has no error flag
	if outs[0].Status != kernel.StatusOK || outs[2].Status != kernel.StatusInvalidJSON {
		t.Errorf("statuses %s %s", outs[0].Status, outs[2].Status)
	}
	if got[0].Name != "" && got[0].Name != wname {
		t.Errorf("name %q", got[0].Name)
	}
}

func TestResponsesRoundTrip(t *testing.T) {
	m, names := newHandler(t)
	wname, _ := names.Map("weather.get")
	item := func(id, name, args string) string {
		b, _ := json.Marshal(args)
		return `{"type":"function_call","id":"fc_` + id + `","call_id":"` + id + `","name":"` + name + `","arguments":` + string(b) + `,"status":"completed"}`
	}
	resp := `{"id":"resp_1","object":"response","status":"completed","output":[` + strings.Join([]string{
		item("c1", wname, `{"city":"Paris"}`), item("c2", "nope", `{}`), item("c3", wname, `{"city":`),
		item("c4", wname, `{}`), item("c5", "refund", `{}`), item("c6", wname, `{"city":"Mordor"}`), item("c7", "broken", `{}`),
	}, ",") + `]}`
	out, _, err := m.Handle(context.Background(), codec.OpenAIResponses, []byte(resp), &Batch{Principal: kernel.Principal{ID: "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := responses.DecodeResults(out)
	if err != nil {
		t.Fatalf("results do not decode: %v\n%s", err, out)
	}
	check(t, got, false)
}

func TestAnthropicRoundTrip(t *testing.T) {
	m, names := newHandler(t)
	wname, _ := names.Map("weather.get")
	use := func(id, name, input string) string {
		return `{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}`
	}
	// Anthropic input is a JSON value already; "invalid JSON" here is an
	// input that is not an object.
	resp := `{"id":"msg_1","type":"message","role":"assistant","model":"claude","stop_reason":"tool_use","content":[{"type":"text","text":"Checking."},` + strings.Join([]string{
		use("c1", wname, `{"city":"Paris"}`), use("c2", "nope", `{}`), use("c3", wname, `"Paris"`),
		use("c4", wname, `{}`), use("c5", "refund", `{}`), use("c6", wname, `{"city":"Mordor"}`), use("c7", "broken", `{}`),
	}, ",") + `]}`
	out, _, err := m.Handle(context.Background(), codec.Anthropic, []byte(resp), &Batch{Principal: kernel.Principal{ID: "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := anthropic.DecodeResults(out)
	if err != nil {
		t.Fatalf("results do not decode: %v\n%s", err, out)
	}
	check(t, got, true)
}

func TestMCPRoundTrip(t *testing.T) {
	m, _ := newHandler(t)
	tests := []struct {
		name    string
		req     string
		isError bool
		has     string
	}{
		{"ok", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather.get","arguments":{"city":"Paris"}}}`, false, "[REDACTED:openai-key]"},
		{"unknown", `{"name":"nope","arguments":{}}`, true, "unknown tool"},
		{"not-object", `{"name":"weather.get","arguments":"Paris"}`, true, "invalid arguments"},
		{"justification-argument", `{"name":"refund","arguments":{"_justification":"the customer was charged twice"}}`, false, "refunded"},
		{"batch-justification-too-short", `{"name":"refund","arguments":{}}`, true, "justification_required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := m.Handle(context.Background(), codec.MCP, []byte(tt.req), &Batch{Principal: kernel.Principal{ID: "ada"}, Justification: "short"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := mcp.DecodeResult(out)
			if err != nil {
				t.Fatalf("result does not decode: %v\n%s", err, out)
			}
			if got.IsError != tt.isError || !strings.Contains(got.Text(), tt.has) {
				t.Errorf("IsError %v text %q", got.IsError, got.Text())
			}
		})
	}
}

func TestUnreadable(t *testing.T) {
	m, _ := newHandler(t)
	for _, f := range []codec.Format{codec.OpenAI, codec.OpenAIResponses, codec.Anthropic, codec.MCP} {
		if _, _, err := m.Handle(context.Background(), f, []byte(`{"broken`), &Batch{}); !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: %v, want ErrUnreadable", f, err)
		}
	}
	if _, _, err := m.Handle(context.Background(), codec.Gemini, []byte(`{}`), &Batch{}); err == nil {
		t.Error("gemini accepted")
	}
	out, outs, err := m.Handle(context.Background(), codec.OpenAI, []byte(`{"choices":[{"message":{"role":"assistant","content":"hi"}}]}`), &Batch{})
	if err != nil || len(outs) != 0 {
		t.Fatalf("no calls: %v %v", err, outs)
	}
	if diff := cmp.Diff("[]", string(out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
