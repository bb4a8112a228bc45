// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

var weather = tool.Definition{
	Name:        "get_weather",
	Description: "Current weather for a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`),
}

func ExampleParse() {
	out := "<think>The user wants Paris.</think>\nLet me check. <tool_call>\n" +
		`{"name": "get_weather", "arguments": {"city": "Paris"}}` + "\n</tool_call>"
	r, err := textcall.Parse("hermes", out, &textcall.Config{Tools: []tool.Definition{weather}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("reasoning: %s\ncontent: %s\n", r.Reasoning, r.Content)
	for _, c := range r.Calls {
		fmt.Printf("call %s %s\n", c.Name, c.Arguments)
	}
	// Output:
	// reasoning: The user wants Paris.
	// content: Let me check.
	// call get_weather {"city":"Paris"}
}

func ExampleParse_coercion() {
	// Qwen3-Coder prints every value as text; the schema says days is an
	// integer.
	out := "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n" +
		"<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
	r, _ := textcall.Parse("qwen3-coder", out, &textcall.Config{Tools: []tool.Definition{weather}})
	fmt.Println(string(r.Calls[0].Arguments))
	// Output:
	// {"city":"Paris","days":3}
}

func ExampleParse_impliedReasoning() {
	// Qwen3's and DeepSeek-R1's chat templates print <think> themselves,
	// so the model's text starts inside the reasoning.
	out := "The user wants Paris.</think>\n\n<tool_call>\n" +
		`{"name": "get_weather", "arguments": {"city": "Paris"}}` + "\n</tool_call>"
	r, _ := textcall.Parse("hermes", out, nil)
	fmt.Printf("reasoning: %s\ncalls: %d\nwarning: %s\n", r.Reasoning, len(r.Calls), r.Warnings[0].Code)

	// The strict reading keeps such text as content.
	r, _ = textcall.Parse("hermes", out, &textcall.Config{DisableImpliedReasoning: true})
	fmt.Printf("content: %s\nwarning: %s\n", r.Content, r.Warnings[0].Code)
	// Output:
	// reasoning: The user wants Paris.
	// calls: 1
	// warning: implied-reasoning-open
	// content: The user wants Paris.
	// warning: stray-reasoning-close
}

func ExampleConfig_seed() {
	out := `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`
	// Without a seed, each response gets ids of its own.
	a, _ := textcall.Parse("hermes", out, nil)
	b, _ := textcall.Parse("hermes", out, nil)
	fmt.Println(a.Calls[0].ID != b.Calls[0].ID)
	// With one, ids are reproducible.
	c, _ := textcall.Parse("hermes", out, &textcall.Config{Seed: 7})
	d, _ := textcall.Parse("hermes", out, &textcall.Config{Seed: 7})
	fmt.Println(c.Calls[0].ID == d.Calls[0].ID)
	// Output:
	// true
	// true
}

func ExampleParse_malformed() {
	out := `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "argum`
	r, _ := textcall.Parse("mistral", out, nil)
	fmt.Println(len(r.Calls), r.Calls[0].Name, len(r.Calls[0].ID))
	fmt.Println(r.Content)
	fmt.Println(r.Warnings[0].Code)
	// Output:
	// 1 get_weather 9
	// {"name": "get_weather", "argum
	// partial-call
}

func ExampleScanner() {
	p, _ := textcall.New("hermes", nil)
	s := p.NewScanner()
	deltas := []string{"Sure. <tool", "_call>{\"name\": \"get_weather\", ", "\"arguments\": {}}</tool_call>"}
	for _, d := range deltas {
		for _, ev := range s.Feed(d) {
			switch ev.Kind {
			case textcall.EventCall:
				fmt.Printf("call %d %s\n", ev.Index, ev.Name)
			default:
				fmt.Printf("%s %q\n", ev.Kind, ev.Text)
			}
		}
	}
	s.Close()
	// Output:
	// content "Sure. "
	// call 0 get_weather
	// arguments "{}"
}

// With StreamArguments the call is announced as soon as its name and the
// start of its arguments are in, and the arguments follow as they arrive.
func ExampleScanner_streamArguments() {
	p, _ := textcall.New("hermes", &textcall.Config{StreamArguments: true})
	s := p.NewScanner()
	deltas := []string{"<tool_call>{\"name\": \"search\", \"arguments\": {\"query\"", ": \"long ", "text\"}}", "</tool_call>"}
	for i, d := range deltas {
		for _, ev := range s.Feed(d) {
			switch ev.Kind {
			case textcall.EventCall:
				fmt.Printf("delta %d: call %d %s\n", i, ev.Index, ev.Name)
			default:
				fmt.Printf("delta %d: %s %q\n", i, ev.Kind, ev.Text)
			}
		}
	}
	s.Close()
	fmt.Println(string(s.Result().Calls[0].Arguments))
	// Output:
	// delta 0: call 0 search
	// delta 0: arguments "{\"query\""
	// delta 1: arguments ":\"long "
	// delta 2: arguments "text\"}"
	// {"query":"long text"}
}

func ExampleFamily_Prompt() {
	f, _ := textcall.Lookup("llama3-json")
	text, _ := f.Prompt([]tool.Definition{{Name: "get_time"}}, tool.Choice{Mode: tool.ChoiceRequired})
	fmt.Print(text)
	// Output:
	// Given the following functions, reply with a JSON function call, with its arguments, that best answers the request.
	//
	// Reply in the form {"name": function name, "parameters": object of argument names and values}. Use values, not variables. To call several functions, separate the objects with ";".
	//
	// {"type": "function", "function": {"name": "get_time", "parameters": {"type":"object","properties":{}}}}
	//
	// You must call at least one of these tools before you answer.
}

func ExampleFamily_FormatCalls() {
	f, _ := textcall.Lookup("pythonic")
	fmt.Println(f.FormatCalls([]tool.Call{{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","metric":true}`)}}))
	// Output:
	// [get_weather(city="Paris", metric=True)]
}
