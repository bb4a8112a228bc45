// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// FuzzListTool feeds arbitrary input and output schemas (as an upstream
// MCP server or a spec could send) to listTool: it must not panic, and
// what it lists must be strict JSON objects of type "object", with the
// justification property on tools that change things — or an error.
func FuzzListTool(f *testing.F) {
	for _, s := range []string{
		`{"type":"object"}`,
		`{}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		`{"properties":{"a\"b":{}},"type":"object","additionalProperties":false}`,
		`{"type":"object","properties":[]}`,
		`{"type":"array"}`,
		`{"type":"object","properties":{"_justification":true}}`,
		`[1,2]`,
		`{"a":1,"a":2}`,
		`{"type":"object","properties":{"x":{"type":"object","properties":{"y":{}}}}}`,
		``,
	} {
		f.Add([]byte(s), []byte(`{"type":"object"}`), true)
		f.Add([]byte(s), []byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in, out []byte, write bool) {
		c := kernel.Capability{
			Definition: tool.Definition{Name: "t", InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)},
			Safety:     kernel.SafetyRead,
		}
		if write {
			c.Safety = kernel.SafetyWrite
		}
		lt, err := listTool(&c)
		if err != nil {
			return
		}
		schema := lt.InputSchema.(json.RawMessage)
		if err := strictjson.Check(schema, nil); err != nil {
			t.Fatalf("listed input schema %s is not strict JSON: %v", schema, err)
		}
		if typ := strictjson.Get(schema, "type"); string(typ) != `"object"` {
			t.Fatalf("listed input schema %s has type %s", schema, typ)
		}
		if write {
			props := strictjson.Get(schema, "properties")
			if strictjson.KindOf(props) == strictjson.Object && strictjson.Get(props, kernel.JustificationArg) == nil {
				t.Fatalf("write tool schema %s lacks %s", schema, kernel.JustificationArg)
			}
		}
		if lt.OutputSchema != nil {
			if o := lt.OutputSchema.(json.RawMessage); strictjson.KindOf(o) != strictjson.Object {
				t.Fatalf("listed output schema %s is not an object", o)
			}
		}
	})
}
