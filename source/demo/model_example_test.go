// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package demo_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/source/demo"
)

// The demo model asks for the tracker's listTasks tool first; given the
// result, it lists the tasks.
func ExampleModel() {
	client := &http.Client{Transport: demo.NewModel().Transport()}
	ask := func(body string) {
		resp, err := client.Post("http://demo/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Function struct{ Name, Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		json.NewDecoder(resp.Body).Decode(&out)
		m := out.Choices[0].Message
		for _, c := range m.ToolCalls {
			fmt.Println("call:", c.Function.Name, c.Function.Arguments)
		}
		if m.Content != "" {
			fmt.Println(m.Content)
		}
	}
	tools := `"tools":[{"type":"function","function":{"name":"listTasks","parameters":{"type":"object"}}}]`
	ask(`{"model":"demo","messages":[{"role":"user","content":"What tasks are open?"}],` + tools + `}`)
	ask(`{"model":"demo","messages":[{"role":"user","content":"What tasks are open?"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"listTasks","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"{\"tasks\":[{\"id\":1,\"title\":\"Write the release notes\",\"status\":\"doing\"}]}"}],` + tools + `}`)
	// Output:
	// call: listTasks {}
	// The tracker holds 1 task:
	// - #1 Write the release notes (doing)
}
