// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/tool"
)

// TestSDKInterop checks that the official Go SDK reads what EncodeTools and
// EncodeResult write, and that DecodeTools and DecodeResult read what the
// SDK writes, over the corpus's tool and result examples.
func TestSDKInterop(t *testing.T) {
	dir := filepath.Join(corpustest.Dir(t, "mcp"), "2026-07-28", "examples")
	files, _ := filepath.Glob(filepath.Join(dir, "Tool", "*.json"))
	if len(files) == 0 {
		t.Fatal("no Tool examples")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := mcp.DecodeTools(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, _, err := mcp.EncodeTools(ours)
		if err != nil {
			t.Fatal(err)
		}
		var st sdk.Tool
		if err := json.Unmarshal(out, &st); err != nil {
			t.Fatalf("%s: the SDK cannot read our tool: %v\n%s", f, err, out)
		}
		if st.Name != ours.Defs[0].Name || st.Title != ours.Defs[0].Title || st.Description != ours.Defs[0].Description {
			t.Errorf("%s: SDK read %q/%q/%q", f, st.Name, st.Title, st.Description)
		}
		back, err := json.Marshal(&st)
		if err != nil {
			t.Fatal(err)
		}
		again, err := mcp.DecodeTools(back)
		if err != nil {
			t.Fatalf("%s: we cannot read the SDK's tool: %v\n%s", f, err, back)
		}
		// The SDK re-marshals schemas as maps, sorting their keys, so
		// compare schemas as values.
		want, got := ours.Defs[0], again.Defs[0]
		if diff := cmp.Diff(value(t, want.InputSchema), value(t, got.InputSchema)); diff != "" {
			t.Errorf("%s: input schema (-want +got):\n%s", f, diff)
		}
		want.InputSchema, got.InputSchema = nil, nil
		if diff := cmp.Diff(value(t, want.OutputSchema), value(t, got.OutputSchema)); diff != "" {
			t.Errorf("%s: output schema (-want +got):\n%s", f, diff)
		}
		want.OutputSchema, got.OutputSchema = nil, nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: SDK round trip (-want +got):\n%s", f, diff)
		}
	}

	r := &tool.Result{
		Content: []tool.Content{
			&tool.Text{Text: "22°C"},
			&tool.Image{MIMEType: "image/png", Data: []byte{1, 2, 3}},
			&tool.Audio{MIMEType: "audio/wav", Data: []byte{4}},
			&tool.Resource{URI: "file:///a.txt", MIMEType: "text/plain", Text: "a"},
			&tool.Resource{URI: "file:///b.bin", Blob: []byte{9}},
			&tool.Resource{URI: "https://example.com/c", Link: true},
		},
		StructuredContent: json.RawMessage(`{"celsius":22}`),
		IsError:           true,
	}
	out, _, err := mcp.EncodeResult(r)
	if err != nil {
		t.Fatal(err)
	}
	var sr sdk.CallToolResult
	if err := json.Unmarshal(out, &sr); err != nil {
		t.Fatalf("the SDK cannot read our result: %v\n%s", err, out)
	}
	if len(sr.Content) != len(r.Content) || !sr.IsError {
		t.Fatalf("SDK read %d parts, isError %v", len(sr.Content), sr.IsError)
	}
	if img, ok := sr.Content[1].(*sdk.ImageContent); !ok || string(img.Data) != "\x01\x02\x03" {
		t.Errorf("SDK image part = %#v", sr.Content[1])
	}
	back, err := json.Marshal(&sr)
	if err != nil {
		t.Fatal(err)
	}
	again, err := mcp.DecodeResult(back)
	if err != nil {
		t.Fatalf("we cannot read the SDK's result: %v\n%s", err, back)
	}
	if diff := cmp.Diff(r.Content, again.Content); diff != "" {
		t.Errorf("content through the SDK (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(value(t, r.StructuredContent), value(t, again.StructuredContent)); diff != "" {
		t.Errorf("structured content through the SDK (-want +got):\n%s", diff)
	}
}

func value(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if raw == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
