// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/tool"
)

// TestCorpusSchemaConformance validates what the encoders write against
// the Tool and CallToolResult definitions of every MCP revision's JSON
// Schema, each fed what that revision can carry.
func TestCorpusSchemaConformance(t *testing.T) {
	root := corpustest.Dir(t, "mcp")
	revs, _ := filepath.Glob(filepath.Join(root, "*", "schema.json"))
	if len(revs) < 5 {
		t.Fatalf("found %d MCP revisions, want at least 5", len(revs))
	}
	for _, rev := range revs {
		name := filepath.Base(filepath.Dir(rev))
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(rev)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource("mem://mcp.json", doc); err != nil {
				t.Fatal(err)
			}
			defs := "$defs"
			if !bytes.Contains(data, []byte(`"$defs"`)) {
				defs = "definitions"
			}
			toolSchema, err := c.Compile("mem://mcp.json#/" + defs + "/Tool")
			if err != nil {
				t.Fatal(err)
			}
			resultSchema, err := c.Compile("mem://mcp.json#/" + defs + "/CallToolResult")
			if err != nil {
				t.Fatal(err)
			}
			// The schema must bite: a Tool without inputSchema is invalid.
			if validate(toolSchema, []byte(`{"name":"a"}`)) == nil {
				t.Fatal("Tool schema accepted a tool without inputSchema")
			}
			props := map[string]bool{}
			var s struct {
				Defs        map[string]struct{ Properties map[string]json.RawMessage } `json:"$defs"`
				Definitions map[string]struct{ Properties map[string]json.RawMessage } `json:"definitions"`
			}
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			all := s.Defs
			if all == nil {
				all = s.Definitions
			}
			for p := range all["Tool"].Properties {
				props[p] = true
			}
			d := tool.Definition{
				Name: "get_weather", Description: "Weather.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			}
			if props["title"] {
				d.Title = "Weather"
			}
			if props["outputSchema"] {
				d.OutputSchema = json.RawMessage(`{"type":"object"}`)
			}
			if props["annotations"] {
				d.Annotations = &tool.Annotations{Title: "W", ReadOnlyHint: tool.Bool(true), OpenWorldHint: tool.Bool(true)}
			}
			if props["_meta"] {
				d.Extensions = d.Extensions.Set(tool.ExtMCPMeta, json.RawMessage(`{"example.com/k":1}`))
			}
			if props["icons"] {
				d.Extensions = d.Extensions.Set(tool.ExtMCPIcons, json.RawMessage(`[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"]}]`))
			}
			if props["execution"] {
				d.Extensions = d.Extensions.Set(tool.ExtMCPExecution, json.RawMessage(`{"taskSupport":"optional"}`))
			}
			out, _, err := EncodeTools(&codec.Tools{Defs: []tool.Definition{d}, Single: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(toolSchema, out); err != nil {
				t.Errorf("Tool does not validate: %v\n%s", err, out)
			}
			var resultProps = all["CallToolResult"].Properties
			r := &tool.Result{Content: []tool.Content{&tool.Text{Text: "22°C"}, &tool.Image{MIMEType: "image/png", Data: []byte{1, 2}}}, IsError: true}
			if _, ok := resultProps["structuredContent"]; ok {
				r.StructuredContent = json.RawMessage(`{"celsius":22}`)
			}
			if _, ok := resultProps["resultType"]; ok {
				r.Extensions = r.Extensions.Set("mcp/resultType", json.RawMessage(`"complete"`))
			}
			if _, ok := all["AudioContent"]; ok {
				r.Content = append(r.Content, &tool.Audio{MIMEType: "audio/wav", Data: []byte{3}})
			}
			if _, ok := all["ResourceLink"]; ok {
				r.Content = append(r.Content, &tool.Resource{URI: "file:///a.txt", Link: true})
			}
			r.Content = append(r.Content, &tool.Resource{URI: "file:///b.txt", MIMEType: "text/plain", Text: "b"})
			out, _, err = EncodeResult(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(resultSchema, out); err != nil {
				t.Errorf("CallToolResult does not validate: %v\n%s", err, out)
			}
		})
	}
}

func validate(s *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
