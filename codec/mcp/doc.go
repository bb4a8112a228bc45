// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package mcp reads and writes the Model Context Protocol's shapes for
// tools: Tool definitions and tools/list results, tools/call params, and
// CallToolResult.
//
// # Definitions
//
// [DecodeTools] accepts one Tool, a JSON array of them, a ListToolsResult
// or a whole JSON-RPC response holding one; [EncodeTools] writes one Tool
// or a JSON array. Every Tool member of the revisions 2024-11-05 through
// 2026-07-28 survives a round trip: those without a field in
// [tool.Definition] (_meta, icons, execution and any later addition) are
// kept in Extensions under "mcp/" + their name. What MCP cannot carry
// (capability, security, version, other providers' extensions) is reported
// as a warning when encoding.
//
// # Calls and results
//
// [DecodeCall] and [EncodeCall] convert tools/call params to and from a
// [tool.Call]; [DecodeResult] and [EncodeResult] convert a CallToolResult
// to and from a [tool.Result], keeping content-part members that
// [tool.Content] lacks (annotations, a link's name and size) in
// Extensions under "mcp/content/<i>".
//
// # What it does not have
//
// MCP is between a client and a tool server, not a model, so it has no
// model response and no tool choice: there is no DecodeResponse or
// DecodeChoice here. A tools/call request carries one call and its
// CallToolResult one result, so the call and result functions are
// singular: [DecodeCall], [EncodeCall], [DecodeResult], [EncodeResult].
//
// # Example
//
//	tools, err := mcp.DecodeTools(listToolsResponse)
//	out, warnings, err := anthropic.EncodeTools(tools)
package mcp
