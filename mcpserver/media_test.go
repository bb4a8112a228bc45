// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/source"
	"github.com/toolgate/toolgate/tool"
)

// png is the start of a PNG file: binary data that must arrive unchanged.
var png = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d}

// withChart adds a READ tool whose result holds an image, an audio clip,
// an embedded text resource and a resource link.
func withChart(t testing.TB) func(*fixtureConfig) {
	return func(c *fixtureConfig) {
		err := c.Kernel.Registry().Add(kernel.Capability{
			Definition: tool.Definition{Name: "get_chart", Description: "Render a chart", InputSchema: []byte(`{"type":"object"}`)},
			Safety:     kernel.SafetyRead,
			Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
				return tool.Result{Content: []tool.Content{
					&tool.Text{Text: "chart ready"},
					&tool.Image{MIMEType: "image/png", Data: png},
					&tool.Audio{MIMEType: "audio/wav", Data: []byte("RIFF\x00\x01")},
					&tool.Resource{URI: "file:///charts/q3.csv", MIMEType: "text/csv", Text: "q,v\n3,42\n"},
					&tool.Resource{URI: "file:///charts/q3.png", MIMEType: "image/png", Link: true},
				}}, nil
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkChart checks that every part of get_chart's result arrived as the
// MCP content type it should be, with its bytes unchanged.
func checkChart(t *testing.T, res *mcp.CallToolResult) {
	t.Helper()
	if res.IsError || len(res.Content) != 5 {
		t.Fatalf("result: isError=%v, %d parts; want 5 parts: %#v", res.IsError, len(res.Content), res.Content)
	}
	if c, ok := res.Content[0].(*mcp.TextContent); !ok || c.Text != "chart ready" {
		t.Errorf("part 0 = %#v, want the text", res.Content[0])
	}
	if c, ok := res.Content[1].(*mcp.ImageContent); !ok || c.MIMEType != "image/png" || !bytes.Equal(c.Data, png) {
		t.Errorf("part 1 = %#v, want the PNG image", res.Content[1])
	}
	if c, ok := res.Content[2].(*mcp.AudioContent); !ok || c.MIMEType != "audio/wav" || string(c.Data) != "RIFF\x00\x01" {
		t.Errorf("part 2 = %#v, want the audio", res.Content[2])
	}
	if c, ok := res.Content[3].(*mcp.EmbeddedResource); !ok || c.Resource == nil || c.Resource.URI != "file:///charts/q3.csv" || c.Resource.Text != "q,v\n3,42\n" {
		t.Errorf("part 3 = %#v, want the embedded CSV", res.Content[3])
	}
	if c, ok := res.Content[4].(*mcp.ResourceLink); !ok || c.URI != "file:///charts/q3.png" {
		t.Errorf("part 4 = %#v, want the resource link", res.Content[4])
	}
}

// TestMediaContent checks that images, audio and resources a tool returns
// pass the kernel's firewall and reach an MCP client, both from a local
// tool and through an upstream MCP server proxied by a second toolgate.
func TestMediaContent(t *testing.T) {
	ctx := context.Background()
	back := newFixture(t, withChart(t))
	t.Run("local", func(t *testing.T) {
		res, err := back.inMemory(t).CallTool(ctx, &mcp.CallToolParams{Name: "get_chart", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		checkChart(t, res)
	})
	t.Run("upstream", func(t *testing.T) {
		hs := httptest.NewServer(back.handler())
		defer hs.Close()
		up, err := source.ConnectMCP(ctx, &source.MCPConfig{Prefix: "back", URL: hs.URL, Header: http.Header{"Authorization": {"Bearer admin-token"}}})
		if err != nil {
			t.Fatal(err)
		}
		defer up.Close()
		k, err := kernel.New(&kernel.Config{Principals: []kernel.Principal{{ID: "local", Roles: []string{"reader"}}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range up.Capabilities() {
			if err := k.Registry().Add(c); err != nil {
				t.Fatal(err)
			}
		}
		front, err := New(&Config{Kernel: k})
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&fixture{srv: front}).inMemory(t).CallTool(ctx, &mcp.CallToolParams{Name: "back_get_chart", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		checkChart(t, res)
	})
}
