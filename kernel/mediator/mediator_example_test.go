// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mediator_test

import (
	"context"
	"fmt"
	"log"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/mediator"
)

func ExampleHandler_Handle() {
	type in struct {
		City string `json:"city"`
	}
	weather, err := kernel.Func("weather", "Weather by city", func(_ context.Context, a in) (string, error) {
		return "21°C in " + a.City, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	weather.Safety = kernel.SafetyRead
	reg := kernel.NewRegistry()
	reg.Add(weather)
	k, err := kernel.New(&kernel.Config{Registry: reg})
	if err != nil {
		log.Fatal(err)
	}
	m, err := mediator.New(&mediator.Config{Kernel: k})
	if err != nil {
		log.Fatal(err)
	}
	response := []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude","stop_reason":"tool_use","content":[
		{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}},
		{"type":"tool_use","id":"toolu_2","name":"weather","input":{"town":"Paris"}}]}`)
	results, _, err := m.Handle(context.Background(), codec.Anthropic, response, &mediator.Batch{Principal: kernel.Principal{ID: "ada"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(results))
	// Output:
	// {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"21°C in Paris"},{"type":"tool_result","tool_use_id":"toolu_2","content":"invalid arguments: at /: missing required property \"city\"; at /town: property not allowed by the schema; fix the arguments and call again","is_error":true}]}
}
