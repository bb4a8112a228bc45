// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
)

// justificationSchema is the property added to the input schema of tools
// that need a justification, so that models learn to send one.
const justificationSchema = `{"type":"string","description":"Why this call is needed, in a sentence (at least 15 characters). toolgate's policy asks for it before a change is made."}`

// listTool returns c as MCP lists it: annotations from the capability's
// safety class and hints, the input schema (with a _justification
// property for tools that change things) and the output schema when it is
// an object schema.
func listTool(c *kernel.Capability) (*mcp.Tool, error) {
	d := &c.Definition
	t := &mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description}
	safety := c.Safety
	if safety == "" {
		safety = kernel.InferSafety(d)
	}
	a := &mcp.ToolAnnotations{}
	if d.Annotations != nil {
		a.Title = d.Annotations.Title
		if d.Annotations.IdempotentHint != nil {
			a.IdempotentHint = *d.Annotations.IdempotentHint
		}
		if d.Annotations.OpenWorldHint != nil {
			v := *d.Annotations.OpenWorldHint
			a.OpenWorldHint = &v
		}
	}
	if d.Behavior != nil && d.Behavior.Idempotent != nil && (d.Annotations == nil || d.Annotations.IdempotentHint == nil) {
		a.IdempotentHint = *d.Behavior.Idempotent
	}
	switch safety {
	case kernel.SafetyRead:
		a.ReadOnlyHint = true
		// Reading twice changes nothing.
		a.IdempotentHint = true
	case kernel.SafetyWrite:
		f := false
		a.DestructiveHint = &f
	case kernel.SafetyDestructive:
		tr := true
		a.DestructiveHint = &tr
	}
	t.Annotations = a

	in := []byte(d.InputSchema)
	if len(in) == 0 {
		in = []byte(`{"type":"object"}`)
	}
	if err := strictjson.Check(in, nil); err != nil {
		return nil, fmt.Errorf("%s: input schema: %w", d.Name, err)
	}
	if strictjson.KindOf(in) != strictjson.Object {
		return nil, fmt.Errorf("%s: input schema is not an object", d.Name)
	}
	typ := strictjson.Get(in, "type")
	if typ == nil {
		// MCP requires "type": "object"; an untyped schema of tool
		// arguments means an object anyway.
		in = strictjson.WithMember(in, "type", []byte(`"object"`))
	} else if string(typ) != `"object"` {
		return nil, fmt.Errorf(`%s: input schema has type %s; MCP needs "object"`, d.Name, typ)
	}
	if safety != kernel.SafetyRead {
		in = addProperty(in, kernel.JustificationArg, []byte(justificationSchema))
	}
	t.InputSchema = json.RawMessage(in)

	if out := []byte(d.OutputSchema); len(out) > 0 && strictjson.Check(out, nil) == nil && strictjson.KindOf(out) == strictjson.Object {
		// structuredContent must be an object in MCP before 2026, so only
		// object output schemas are listed.
		if typ := strictjson.Get(out, "type"); string(typ) == `"object"` {
			t.OutputSchema = json.RawMessage(out)
		}
	}
	return t, nil
}

// addProperty returns the checked object schema with property name added
// to its properties, keeping every other byte in order. A schema that
// already declares the property is returned unchanged.
func addProperty(schema []byte, name string, prop []byte) []byte {
	props := strictjson.Get(schema, "properties")
	if props == nil {
		return strictjson.WithMember(schema, "properties", strictjson.WithMember([]byte(`{}`), name, prop))
	}
	if strictjson.KindOf(props) != strictjson.Object || strictjson.Get(props, name) != nil {
		return schema
	}
	out := make([]byte, 0, len(schema)+len(name)+len(prop)+4)
	out = append(out, '{')
	n := 0
	strictjson.Members(schema, func(k, v []byte) error {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = strictjson.AppendQuote(out, string(k))
		out = append(out, ':')
		if string(k) == "properties" {
			v = strictjson.WithMember(v, name, prop)
		}
		out = append(out, v...)
		return nil
	})
	return append(out, '}')
}
