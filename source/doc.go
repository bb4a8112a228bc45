// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package source turns the places tools come from into capabilities the
// kernel serves: the operations of an OpenAPI spec ([LoadOpenAPI]), a local
// command ([NewCommand]), the tools of another MCP server ([ConnectMCP]),
// and the built-in demo task tracker ([NewDemo]). Each is a [Source].
//
// # Using a source
//
// Build a source, add its [Source.Capabilities] to a kernel's registry,
// serve the kernel (mcpserver does), and [Source.Close] the source after
// the server has stopped. Sources take Go config structs; the config
// package builds them from the YAML file `toolgate serve` reads.
//
// # Example
//
//	src, err := source.NewCommand(&source.CommandConfig{Name: "disk", Argv: []string{"du", "-sh", "--", "{dir}"}, Safety: kernel.SafetyRead})
//	defer src.Close()
//	for _, c := range src.Capabilities() {
//		err = k.Registry().Add(c)
//	}
package source
