// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

type forecastIn struct {
	City  string   `json:"city" description:"City name"`
	Days  int      `json:"days,omitempty"`
	Units *string  `json:"units"`
	Tags  []string `json:"tags,omitempty"`
	Extra map[string]float64
	//lint:ignore U1000 an unexported field, to check it stays out of the schema
	skip int
}

func TestSchemaFor(t *testing.T) {
	got, err := SchemaFor(reflect.TypeFor[forecastIn]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"city":{"type":"string","description":"City name"},"days":{"type":"integer"},"units":{"anyOf":[{"type":"string"},{"type":"null"}]},"tags":{"type":"array","items":{"type":"string"}},"Extra":{"type":"object","additionalProperties":{"type":"number"}}},"required":["city","Extra"],"additionalProperties":false}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	type rec struct{ Next *rec }
	if _, err := SchemaFor(reflect.TypeFor[rec]()); err == nil {
		t.Error("recursive type accepted")
	}
	if _, err := SchemaFor(reflect.TypeFor[struct{ C chan int }]()); err == nil {
		t.Error("channel accepted")
	}
}

func TestFunc(t *testing.T) {
	c, err := Func("forecast", "Weather forecast", func(_ context.Context, in forecastIn) (map[string]any, error) {
		if in.City == "Atlantis" {
			return nil, errors.New("no such city")
		}
		return map[string]any{"city": in.City, "days": in.Days}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Safety = SafetyRead
	k := newTestKernel(t, func(cfg *Config) { cfg.Registry.Add(c) })
	out := k.run(t, reader, "forecast", `{"city":"Oslo","days":3,"units":null,"Extra":{}}`, "")
	if out.Status != StatusOK || out.Result.Text() != `{"city":"Oslo","days":3}` {
		t.Errorf("ok call: %s %s", out.Status, out.Result.Text())
	}
	out = k.run(t, reader, "forecast", `{"city":"Atlantis","Extra":{}}`, "")
	if out.Status != StatusToolError || out.Result.Text() != "no such city" {
		t.Errorf("tool error: %s %s", out.Status, out.Result.Text())
	}
	out = k.run(t, reader, "forecast", `{"city":"Oslo","days":"3","Extra":{}}`, "")
	if out.Status != StatusInvalidArguments || !strings.Contains(out.Result.Text(), "at /days: expected integer, got string") {
		t.Errorf("derived schema enforced: %s %s", out.Status, out.Result.Text())
	}
}

func TestCommand(t *testing.T) {
	for _, p := range []string{"sh", "cat", "echo"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	call := func(c *Command, args string) tool.Result {
		t.Helper()
		res, err := c.Execute(context.Background(), tool.Call{ID: "c1", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
		return res
	}
	tests := []struct {
		name    string
		cmd     *Command
		args    string
		want    string
		isError bool
	}{
		{"argv-template", &Command{Argv: []string{"echo", "hello {name}", "{n}"}}, `{"name":"Ada; rm -rf /","n":3}`, "hello Ada; rm -rf / 3", false},
		{"stdin-json", &Command{Argv: []string{"cat"}}, `{"a":[1,2]}`, `{"a":[1,2]}`, false},
		{"no-shell", &Command{Argv: []string{"echo", "{x}"}}, `{"x":"$(id)"}`, "$(id)", false},
		{"option-injection", &Command{Argv: []string{"echo", "{x}"}}, `{"x":"-n"}`, "a value may not start with '-' here (command line element 1)", true},
		{"after-dashes", &Command{Argv: []string{"echo", "--", "{x}"}}, `{"x":"-n"}`, "-- -n", false},
		{"missing-argument", &Command{Argv: []string{"echo", "{x}"}}, `{}`, `missing argument "x", which the command line needs`, true},
		{"exit-status", &Command{Argv: []string{"sh", "-c", "echo oops >&2; exit 3"}}, `{}`, "the command exited with status 3: oops", true},
		{"no-inherited-env", &Command{Argv: []string{"sh", "-c", "echo ${SECRET_TOKEN:-unset}"}}, `{}`, "unset", false},
		{"output-cap", &Command{Argv: []string{"sh", "-c", "printf 0123456789"}, MaxOutput: 4}, `{}`, "0123\n[output cut: 6 bytes over the limit]", false},
		{"timeout", &Command{Argv: []string{"sleep", "5"}, Timeout: 50 * time.Millisecond}, `{}`, "the command did not finish in time: context deadline exceeded", true},
		{"decode", &Command{Argv: []string{"printf", "abc"}, Decode: decodeImage}, `{}`, "[image image/png, 3 bytes]", false},
		{"decode-error", &Command{Argv: []string{"printf", ""}, Decode: decodeImage}, `{}`, "the command's output is not a result toolgate can read: no image data", true},
		{"decode-over-cap", &Command{Argv: []string{"printf", "0123456789"}, MaxOutput: 4, Decode: decodeImage}, `{}`, "the command's result is 6 bytes over the output limit", true},
	}
	t.Setenv("SECRET_TOKEN", "inherited")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(tt.cmd, tt.args)
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v", res.IsError)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	noop := staticExec(tool.TextResult("", "ok"))
	for _, d := range []tool.Definition{
		{Name: "search_orders", Description: "Find orders by customer"},
		{Name: "get_order", Description: "Fetch one order", Annotations: &tool.Annotations{ReadOnlyHint: tool.Bool(true)}},
		{Name: "cancel_order", Title: "Cancel order", Description: "Cancel an order", Annotations: &tool.Annotations{DestructiveHint: tool.Bool(true)}},
		{Name: "weather", Description: "Weather by city"},
	} {
		if err := r.Add(Capability{Definition: d, Executor: noop}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, c := range r.List() {
		names = append(names, c.Definition.Name+":"+string(c.Safety))
	}
	want := []string{"cancel_order:DESTRUCTIVE", "get_order:READ", "search_orders:WRITE", "weather:WRITE"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	names = nil
	for _, c := range r.Search("order cancel") {
		names = append(names, c.Definition.Name)
	}
	if diff := cmp.Diff([]string{"cancel_order"}, names); diff != "" {
		t.Errorf("Search (-want +got):\n%s", diff)
	}
	names = nil
	for _, c := range r.Search("ORDER") {
		names = append(names, c.Definition.Name)
	}
	if diff := cmp.Diff([]string{"cancel_order", "get_order", "search_orders"}, names); diff != "" {
		t.Errorf("Search ranking (-want +got):\n%s", diff)
	}
	bad := []Capability{
		{Definition: tool.Definition{Name: "weather"}, Executor: noop},
		{Definition: tool.Definition{Name: ""}, Executor: noop},
		{Definition: tool.Definition{Name: "x"}},
		{Definition: tool.Definition{Name: "y"}, Executor: noop, Safety: "SCARY"},
		{Definition: tool.Definition{Name: "z", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)}, Executor: noop},
		{Definition: tool.Definition{Name: "w"}, Executor: noop, AllowedFields: []string{"a..b"}},
	}
	for _, c := range bad {
		if err := r.Add(c); !errors.Is(err, ErrInvalidCapability) {
			t.Errorf("Add(%q) = %v, want ErrInvalidCapability", c.Definition.Name, err)
		}
	}
}

// decodeImage reads a command's output as the bytes of a PNG image, as a
// Command.Decode that turns output into rich content.
func decodeImage(out []byte) (tool.Result, error) {
	if len(out) == 0 {
		return tool.Result{}, errors.New("no image data")
	}
	return tool.Result{Content: []tool.Content{&tool.Image{MIMEType: "image/png", Data: out}}}, nil
}
