// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/tool"
)

func TestCheckName(t *testing.T) {
	long64 := strings.Repeat("a", 64)
	tests := []struct {
		target Target
		name   string
		ok     bool
	}{
		{OpenAI, "get_weather", true},
		{OpenAI, "billing.list_invoices", false},
		{OpenAI, long64, true},
		{OpenAI, long64 + "a", false},
		{OpenAI, "", false},
		{OpenAIStrict, "a-b_c", true},
		{Anthropic, "café", false},
		{AnthropicStrict, "x y", false},
		{Gemini, "billing.list_invoices", true},
		{Gemini, "ns:tool-1", true},
		{Gemini, "1tool", false},
		{Gemini, "_tool", true},
		{GeminiJSON, long64 + "a", false},
		{MCP, "admin.tools.list", true},
		{MCP, strings.Repeat("b", 128), true},
		{MCP, strings.Repeat("b", 129), false},
		{MCP, "user-profile/update", false},
		{MCP, "a:b", false},
	}
	for _, tt := range tests {
		err := CheckName(tt.target, tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("CheckName(%s, %q) = %v, want ok %v", tt.target, tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidName) {
			t.Errorf("CheckName(%s, %q) = %v, not ErrInvalidName", tt.target, tt.name, err)
		}
		// Check reports the same verdict on the name, independently.
		probs := Check(tt.target, tt.name, json.RawMessage(`{"type":"object","additionalProperties":false}`))
		if tt.target == Gemini {
			probs = Check(tt.target, tt.name, json.RawMessage(`{"type":"OBJECT"}`))
		}
		if (len(probs) == 0) != tt.ok {
			t.Errorf("Check(%s, %q) = %v, want ok %v", tt.target, tt.name, probs, tt.ok)
		}
	}
}

func TestNameMap(t *testing.T) {
	tests := []struct {
		target Target
		name   string
		want   string
	}{
		{OpenAI, "get_weather", "get_weather"},
		{OpenAI, "billing.list_invoices", "billing__list_invoices"},
		{Anthropic, "user-profile/update", "user-profile--update"},
		{OpenAI, "math.sqrt(x)", "math__sqrt_x28x_x29"},
		{OpenAI, "café", "caf_xc3_xa9"},
		{Gemini, "billing.list_invoices", "billing.list_invoices"},
		{Gemini, "1st/tool", "_1st--tool"},
		{MCP, "a:b c", "a_x3ab_x20c"},
		{OpenAI, strings.Repeat("x.", 40), strings.Repeat("x__", 18) + "x_" + "_"},
	}
	for _, tt := range tests {
		m := NewNameMap(tt.target)
		got, err := m.Map(tt.name)
		if err != nil {
			t.Fatalf("Map(%q): %v", tt.name, err)
		}
		if strings.HasPrefix(tt.name, "x.x.") {
			// Shortened: a 55-byte prefix and a hash.
			if len(got) != 64 || !strings.HasPrefix(got, tt.want[:55]) {
				t.Errorf("Map(%q) = %q, want 64 bytes starting %q", tt.name, got, tt.want[:55])
			}
		} else if got != tt.want {
			t.Errorf("%s: Map(%q) = %q, want %q", tt.target, tt.name, got, tt.want)
		}
		if err := CheckName(tt.target, got); err != nil {
			t.Errorf("mapped name fails CheckName: %v", err)
		}
		back, ok := m.Unmap(got)
		if !ok || back != tt.name {
			t.Errorf("Unmap(%q) = %q, %v; want %q", got, back, ok, tt.name)
		}
	}
}

func TestNameMapCollision(t *testing.T) {
	m := NewNameMap(OpenAI)
	if _, err := m.Map("billing.list"); err != nil {
		t.Fatal(err)
	}
	if again, err := m.Map("billing.list"); err != nil || again != "billing__list" {
		t.Fatalf("mapping the same name twice = %q, %v", again, err)
	}
	if _, err := m.Map("billing__list"); !errors.Is(err, ErrNameCollision) {
		t.Errorf("Map of a colliding name = %v, want ErrNameCollision", err)
	}
	if got, ok := m.Unmap("never_seen"); ok || got != "never_seen" {
		t.Errorf("Unmap of an unknown name = %q, %v", got, ok)
	}
	if _, err := m.Map(""); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Map(\"\") = %v", err)
	}
	// Two long names with one prefix stay distinct thanks to the hash.
	a, _ := m.Map(strings.Repeat("a", 70) + "1")
	b, _ := m.Map(strings.Repeat("a", 70) + "2")
	if a == b {
		t.Error("long names with a common prefix collide")
	}
}

// TestNameMapMany maps more names than a NameMap scans before it builds
// maps: names, collisions and Unmap must not change at the switch.
func TestNameMapMany(t *testing.T) {
	m := NewNameMap(OpenAI)
	var mapped []string
	for i := range 3 * linearNames {
		got, err := m.Map("svc.op" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if want := "svc__op" + strconv.Itoa(i); got != want {
			t.Fatalf("Map #%d = %q, want %q", i, got, want)
		}
		mapped = append(mapped, got)
		// Every earlier name still maps, and back, the same way.
		for j, mj := range mapped {
			if again, err := m.Map("svc.op" + strconv.Itoa(j)); err != nil || again != mj {
				t.Fatalf("after %d names: Map #%d = %q, %v; want %q", i+1, j, again, err, mj)
			}
			if back, ok := m.Unmap(mj); !ok || back != "svc.op"+strconv.Itoa(j) {
				t.Fatalf("after %d names: Unmap(%q) = %q, %v", i+1, mj, back, ok)
			}
		}
		if _, err := m.Map("svc__op0"); !errors.Is(err, ErrNameCollision) {
			t.Fatalf("after %d names: a colliding name = %v, want ErrNameCollision", i+1, err)
		}
	}
}

// TestNameRuleAccepts checks the error-free test NameMap uses against
// CheckName, on the names of TestCheckName's kind and edge cases.
func TestNameRuleAccepts(t *testing.T) {
	names := []string{"", "a", "get_weather", "billing.list", "a:b", "1st", "_x", "-x", "café", "a b",
		strings.Repeat("x", 64), strings.Repeat("x", 65), strings.Repeat("x", 128), strings.Repeat("x", 129), "a/b", "x\x00"}
	for _, tg := range Targets {
		for _, n := range names {
			if got, want := rule(tg).accepts(n), CheckName(tg, n) == nil; got != want {
				t.Errorf("%s: accepts(%q) = %v, CheckName says %v", tg, n, got, want)
			}
		}
	}
}

func TestLowerDefinition(t *testing.T) {
	d := &tool.Definition{
		Name:         "billing.list_invoices",
		Description:  "List invoices.",
		InputSchema:  json.RawMessage(`{"properties":{"limit":{"type":"integer","maximum":100}}}`),
		OutputSchema: json.RawMessage(`{"properties":{"invoices":{"type":"array"}}}`),
	}
	names := NewNameMap(AnthropicStrict)
	got, warns, err := LowerDefinition(AnthropicStrict, d, names)
	if err != nil {
		t.Fatal(err)
	}
	want := tool.Definition{
		Name:         "billing__list_invoices",
		Description:  "List invoices.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer","description":"(maximum: 100)"}},"additionalProperties":false}`),
		OutputSchema: d.OutputSchema,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definition (-want +got):\n%s", diff)
	}
	var codes []string
	for _, w := range warns {
		codes = append(codes, w.Pointer+" "+w.Code)
	}
	wantCodes := []string{"/name name-mapped", "/input_schema root-type-added", "/input_schema/additionalProperties object-closed", "/input_schema/properties/limit/maximum keyword-moved"}
	if diff := cmp.Diff(wantCodes, codes); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if orig, ok := names.Unmap(got.Name); !ok || orig != d.Name {
		t.Errorf("Unmap(%q) = %q", got.Name, orig)
	}
	// MCP lowers the output schema too.
	got, warns, err = LowerDefinition(MCP, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.OutputSchema) != `{"type":"object","properties":{"invoices":{"type":"array"}}}` {
		t.Errorf("MCP output schema = %s", got.OutputSchema)
	}
	if len(warns) != 2 || warns[1].Pointer != "/output_schema" {
		t.Errorf("MCP warnings = %v", warns)
	}
	// An error names the field.
	bad := &tool.Definition{Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`)}
	if _, _, err := LowerDefinition(OpenAI, bad, nil); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "/input_schema/type") {
		t.Errorf("LowerDefinition of a string schema = %v", err)
	}
}

func TestParseTarget(t *testing.T) {
	for _, want := range Targets {
		got, err := ParseTarget(string(want))
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %q, %v", want, got, err)
		}
	}
	if _, err := ParseTarget("bedrock"); !errors.Is(err, ErrUnknownTarget) || !strings.Contains(err.Error(), "gemini-json") {
		t.Errorf("ParseTarget(bedrock) = %v", err)
	}
}

func TestMappedMessage(t *testing.T) {
	for _, n := range []string{"billing.list", "a\"b\\c\x00é", strings.Repeat("x.", 200), "~ plain {}|", "tab\t", "del\x7f", "\xff"} {
		want := fmt.Sprintf("tool name %q written as %q for %s; calls are mapped back", n, n+"!", Anthropic)
		if got := mappedMessage(n, n+"!", Anthropic); got != want {
			t.Errorf("mappedMessage(%q) = %q, want %q", n, got, want)
		}
	}
}
