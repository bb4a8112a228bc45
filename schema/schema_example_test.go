// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/schema"
)

func ExampleLower() {
	in := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","maximum":14}},"required":["city"]}`)

	// Anthropic accepts the schema as it is: the same bytes come back.
	out, warns, _ := schema.Lower(schema.Anthropic, in)
	fmt.Println(string(out) == string(in), len(warns))

	// OpenAI strict mode needs every property required and closed objects.
	out, warns, _ = schema.Lower(schema.OpenAIStrict, in)
	fmt.Println(string(out))
	for _, w := range warns {
		fmt.Println(w.Pointer, w.Code)
	}
	// Output:
	// true 0
	// {"type":"object","properties":{"city":{"type":"string"},"days":{"type":["integer","null"],"maximum":14}},"required":["city","days"],"additionalProperties":false}
	// /additionalProperties object-closed
	// /properties/days optional-made-nullable
}

func ExampleNameMap() {
	names := schema.NewNameMap(schema.OpenAI)
	mapped, _ := names.Map("billing.list_invoices")
	fmt.Println(mapped)

	// A call from the model comes back with the mapped name.
	orig, ok := names.Unmap("billing__list_invoices")
	fmt.Println(orig, ok)

	// Two tools may not share a mapped name.
	_, err := names.Map("billing__list_invoices")
	fmt.Println(errors.Is(err, schema.ErrNameCollision))
	// Output:
	// billing__list_invoices
	// billing.list_invoices true
	// true
}

func ExampleResolved_Validate() {
	r, err := schema.Resolve(json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"days": {"type": "integer"},
			"unit": {"enum": ["c", "f", "k"]}
		},
		"required": ["city"]
	}`), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = r.Validate(json.RawMessage(`{"days": "sk-secret-value", "unit": "x"}`))
	var ve *schema.ValidationError
	if errors.As(err, &ve) {
		for _, e := range ve.Errors {
			fmt.Printf("%q %s: %s\n", e.Pointer, e.Keyword, e.Expected)
		}
	}
	// Output:
	// "" required: missing required property "city"
	// "/days" type: expected integer, got string
	// "/unit" enum: must be one of 3 allowed values: "c", "f", "k"
}

func ExampleCheck() {
	probs := schema.Check(schema.Gemini, "get.weather", json.RawMessage(`{"type":"object","properties":{"q":{"$ref":"#/$defs/q"}}}`))
	for _, p := range probs {
		fmt.Println(p)
	}
	// Output:
	// /properties/q/$ref: keyword: "$ref" is not a field of Gemini's Schema
	// /type: root-type: root "type" must be "OBJECT"
	// /type: type-case: type "object" is not one of Gemini's upper-case types
}

func ExampleTypes() {
	s := json.RawMessage(`{"type":"object","properties":{"n":{"type":["integer","null"]},"tags":{"type":"array","items":{"type":"string"}}}}`)
	fmt.Println(schema.Types(s, "/n"), schema.Types(s, "/tags/0"))
	// Output:
	// [null integer] [string]
}
